// The one loader over real files in temp workspaces: every format, real-world frontmatter quirks,
// problems with file:line, CLAUDE.md imports, and the built-in lessons.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { effectiveEntries, loadGuidance, rank } from "../../../src/core/guidance";
import { parseFrontmatter } from "../../../src/core/guidance/frontmatter";
import { MAX_NESTED_MEMORY, NESTED_MEMORY_TIME_MS } from "../../../src/core/guidance/loader";
import type { GuidanceEntry } from "../../../src/core/guidance/types";
import type { Searcher } from "../../../src/core/ports";
import { createJsSearcher, createRipgrepSearcher } from "../../../src/node/ripgrep-searcher";
import { builtinLessonsDir, createNodeGuidanceFiles } from "../../../src/node/guidance-files";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

let ws: TempWorkspace | undefined;
const temps: string[] = [];
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const noHome = () => {
  const home = mkdtempSync(join(tmpdir(), "yoke-home-"));
  temps.push(home);
  return createNodeGuidanceFiles({ home, builtinDir: null });
};
const noGit = () => {
  const dir = mkdtempSync(join(tmpdir(), "yoke-nogit-"));
  temps.push(dir);
  return dir;
};
const byName = (entries: GuidanceEntry[], name: string) => entries.find((e) => e.name === name);

describe("frontmatter", () => {
  it("parses CRLF, a BOM, no frontmatter, and Cursor's unquoted comma-separated globs", () => {
    const crlf = parseFrontmatter("\uFEFF---\r\ndescription: x\r\nglobs: src/**/*.ts, lib/*.js\r\nalwaysApply: false\r\n---\r\n# Body\r\n");
    expect(crlf.problem).toBeUndefined();
    expect(crlf.data).toEqual({ description: "x", globs: "src/**/*.ts, lib/*.js", alwaysApply: false });
    expect(crlf.body).toBe("# Body\n");
    expect(parseFrontmatter("globs: *.tsx\n").problem).toBeUndefined(); // no frontmatter: all body
    expect(parseFrontmatter("---\nglobs: *.tsx\n---\nx").data).toEqual({ globs: "*.tsx" });
    expect(parseFrontmatter('---\nglobs: ["a/**", "b/*.py"]\n---\n').data).toEqual({ globs: ["a/**", "b/*.py"] });
  });

  it("reports malformed YAML with the file's line number", () => {
    const r = parseFrontmatter("---\nname: ok\nmatch:\n  keywords: [unclosed\n---\nbody\n");
    expect(r.problem?.message).toMatch(/invalid YAML frontmatter/);
    expect(r.problem?.line).toBeGreaterThanOrEqual(4);
    expect(parseFrontmatter("---\nname: x\nbody without an end\n").problem).toEqual({ line: 1, message: expect.stringContaining("never closed") });
  });
});

describe("loadGuidance", () => {
  it("reads lessons, skills, every rule format and project memory from the workspace", async () => {
    ws = createTempWorkspace({
      "AGENTS.md": "Use pnpm.\n",
      "CLAUDE.local.md": "My local notes.\n",
      ".yoke/lessons/flaky.md": "---\nmatch:\n  keywords: [flaky, 'intermittent*']\nstatus: active\npriority: high\n---\n# Flaky tests\nRerun with a seed.\n",
      ".yoke/lessons/README.md": "not a lesson",
      ".claude/skills/pdf/SKILL.md": "---\nname: pdf-forms\ndescription: Fill PDF forms with pdftk\n---\nUse scripts/fill.py.\n",
      ".claude/skills/pdf/scripts/fill.py": "print(1)\n",
      ".github/skills/scoped/SKILL.md": "---\nname: scoped\ndescription: For Go files\npaths: ['**/*.go']\n---\nGo things.\n",
      ".cursor/rules/ts.mdc": "---\ndescription: TS style\nglobs: src/**/*.ts, lib/*.js\nalwaysApply: false\n---\nUse strict types.\n",
      ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nBe brief.\n",
      ".cursor/rules/req.mdc": "---\ndescription: How to write migrations\n---\nMigrations...\n",
      ".cursor/rules/manual.mdc": "Only when asked.\n",
      ".github/instructions/py.instructions.md": '---\napplyTo: "**/*.py"\n---\nUse black.\n',
      ".github/copilot-instructions.md": "Copilot says hi.\n",
      ".clinerules/01-style.md": "Cline style.\n",
      ".roo/rules/general.md": "Roo rule.\n",
      ".cursorrules": "Legacy cursor rules.\n",
      "pkg/sub/AGENTS.md": "Nested memory.\n",
    });
    const set = await loadGuidance({ fs: ws.fs, files: noHome(), nestedMemory: true });
    expect(set.problems).toEqual([]);
    const summary = set.entries.map((e) => `${e.kind} ${e.name} ${e.activation} ${e.source}`).sort();
    expect(summary).toEqual(
      [
        "lesson flaky match .yoke/lessons/flaky.md",
        "memory AGENTS.md always AGENTS.md",
        "memory CLAUDE.local.md always CLAUDE.local.md",
        "memory pkg/sub/AGENTS.md folder pkg/sub/AGENTS.md",
        "rule 01-style always .clinerules/01-style.md",
        "rule always always .cursor/rules/always.mdc",
        "rule copilot-instructions always .github/copilot-instructions.md",
        "rule .cursorrules always .cursorrules",
        "rule general always .roo/rules/general.md",
        "rule manual manual .cursor/rules/manual.mdc",
        "rule py glob .github/instructions/py.instructions.md",
        "rule req requested .cursor/rules/req.mdc",
        "rule ts glob .cursor/rules/ts.mdc",
        "skill pdf-forms requested .claude/skills/pdf/SKILL.md",
        "skill scoped requested .github/skills/scoped/SKILL.md",
      ].sort(),
    );
    expect(byName(set.entries, "ts")!.match.globs).toEqual(["src/**/*.ts", "lib/*.js"]);
    expect(byName(set.entries, "pdf-forms")!.files).toEqual(["scripts/fill.py"]);
    expect(byName(set.entries, "flaky")!.priority).toBe(1.5);
  });

  it("lists every nested AGENTS.md/CLAUDE.md of a 3,000-folder tree, at any depth, with ripgrep and with the JS searcher alike", async () => {
    const files: Record<string, string> = { ".gitignore": "ignored/\n", "AGENTS.md": "Root.\n" };
    const want: string[] = [];
    // 3,000 folders (30 packages of 10 modules of 10 folders); memory in every 7th, plus one 12 levels deep.
    for (let i = 0; i < 3000; i++) {
      const dir = `packages/p${Math.floor(i / 100)}/m${Math.floor(i / 10) % 10}/d${i % 10}`;
      files[`${dir}/index.ts`] = "x\n";
      if (i % 7 === 0) {
        files[`${dir}/${i % 2 ? "CLAUDE.md" : "AGENTS.md"}`] = `Memory ${i}.\n`;
        want.push(`${dir}/${i % 2 ? "CLAUDE.md" : "AGENTS.md"}`);
      }
    }
    const deep = "a/b/c/d/e/f/g/h/i/j/k/l";
    files[`${deep}/AGENTS.md`] = "Deep.\n";
    want.push(`${deep}/AGENTS.md`);
    // Never listed: ignored, build output, dependencies, dot folders.
    for (const d of ["ignored/x", "node_modules/dep", "dist", ".cache/y"]) files[`${d}/AGENTS.md`] = "No.\n";
    ws = createTempWorkspace(files);
    const sources = async (search: Searcher) => {
      const set = await loadGuidance({ fs: ws!.fs, files: noHome(), nestedMemory: true, search });
      expect(set.problems).toEqual([]);
      return set.entries.filter((e) => e.kind === "memory" && e.activation === "folder").map((e) => e.source);
    };
    const rg = await sources(createRipgrepSearcher());
    expect(rg.length).toBe(want.length);
    expect([...rg].sort()).toEqual([...want].sort());
    expect(await sources(createJsSearcher())).toEqual(rg);
  }, 120_000);

  it("in a git work tree, nested memory and rules come from git's index (no walk): tracked files listed, build and dot folders left out, untracked ones not", async () => {
    ws = createTempWorkspace({
      ".gitignore": "ignored/\n",
      "AGENTS.md": "Root.\n",
      "packages/a/AGENTS.md": "A.\n",
      "packages/b/deep/er/CLAUDE.md": "B.\n",
      "packages/c/.cursor/rules/style.mdc": "---\nalwaysApply: true\n---\nC style.\n",
      "packages/d/.windsurf/rules/d.md": "---\ntrigger: always_on\n---\nD style.\n",
      "node_modules/dep/AGENTS.md": "No.\n",
      ".cache/y/AGENTS.md": "No.\n",
    });
    execFileSync("git", ["init", "-q"], { cwd: ws.root });
    execFileSync("git", ["add", "-A"], { cwd: ws.root });
    mkdirSync(join(ws.root, "packages/new"), { recursive: true });
    writeFileSync(join(ws.root, "packages/new/AGENTS.md"), "Untracked.\n");
    const rg = createRipgrepSearcher();
    const asked: string[][] = [];
    const search: Searcher = {
      ...rg,
      glob: () => Promise.reject(new Error("walked the tree")),
      tracked: async (o) => {
        asked.push([...o.globs]);
        return rg.tracked!(o);
      },
    };
    const set = await loadGuidance({ fs: ws.fs, files: noHome(), nestedMemory: true, search });
    expect(set.problems).toEqual([]);
    expect(asked).toEqual([["**/AGENTS.md", "**/CLAUDE.md", "**/.cursor/rules/**/*.mdc", "**/.cursor/rules/**/*.md", "**/.windsurf/rules/**/*.md"]]);
    expect(set.entries.filter((e) => e.kind === "memory" && e.activation === "folder").map((e) => e.source)).toEqual(["packages/a/AGENTS.md", "packages/b/deep/er/CLAUDE.md"]);
    expect(set.entries.some((e) => e.source === "packages/c/.cursor/rules/style.mdc")).toBe(true);
    // A sub-folder's .windsurf/rules (Windsurf finds them in every sub-folder): scoped to it.
    expect(set.entries.find((e) => e.source === "packages/d/.windsurf/rules/d.md")).toMatchObject({ activation: "always", dir: join(ws.root, "packages/d") });
    // Outside a work tree git has no answer, and the loader searches instead.
    expect(await rg.tracked!({ path: noGit(), globs: ["**/AGENTS.md"], maxResults: 10 })).toBeUndefined();
  });

  it("says exactly what was not searched when the nested-memory search stops early", async () => {
    ws = createTempWorkspace({ "a/AGENTS.md": "A.\n", "b/AGENTS.md": "B.\n" });
    const stopping = (stopped: "limit" | "time", paths: string[]): Searcher => ({
      grep: async () => ({ lines: [], truncated: false }),
      glob: async (o) => {
        expect(o).toMatchObject({ order: "path", maxResults: MAX_NESTED_MEMORY, timeLimitMs: NESTED_MEMORY_TIME_MS });
        return { paths: paths.map((p) => `${ws!.root}/${p}`), truncated: true, found: paths.length, stopped };
      },
    });
    const limit = await loadGuidance({ fs: ws.fs, files: noHome(), nestedMemory: true, search: stopping("limit", ["a/AGENTS.md"]) });
    expect(limit.entries.map((e) => e.source)).toEqual(["a/AGENTS.md"]);
    expect(limit.problems).toEqual([
      { path: ws.root, message: `nested AGENTS.md/CLAUDE.md not all listed: the search stopped at ${MAX_NESTED_MEMORY} files; files after a/AGENTS.md (in path order) were not searched` },
    ]);
    const time = await loadGuidance({ fs: ws.fs, files: noHome(), nestedMemory: true, search: stopping("time", []) });
    expect(time.problems).toEqual([
      {
        path: ws.root,
        message: `nested AGENTS.md/CLAUDE.md not all listed: the search stopped at its time limit of ${NESTED_MEMORY_TIME_MS / 1000} s; it had found none, and the folders it had not reached were not searched`,
      },
    ]);
  });

  it("reports malformed frontmatter, bad regexes and unknown statuses with file:line, and keeps loading the rest", async () => {
    ws = createTempWorkspace({
      ".yoke/lessons/broken.md": "---\nmatch:\n  keywords: [a, b\n  tools: x\n---\nbody\n",
      ".yoke/lessons/badregex.md": "---\nmatch:\n  patterns: ['(unclosed']\n  keywords: [ok]\nstatus: retired\n---\nbody\n",
      ".cursor/rules/bad.mdc": "---\nglobs:\n  - [x\n---\nbody\n",
      ".yoke/lessons/good.md": "---\nmatch: {keywords: [good]}\n---\nGood.\n",
    });
    const set = await loadGuidance({ fs: ws.fs, files: noHome() });
    const at = set.problems.map((p) => `${p.path.slice(ws!.root.length + 1)}:${p.line} ${p.message}`);
    expect(at).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\.yoke\/lessons\/broken\.md:[2-5] invalid YAML frontmatter/),
        expect.stringMatching(/^\.yoke\/lessons\/badregex\.md:3 pattern "\(unclosed" is not a valid regular expression/),
        expect.stringMatching(/^\.yoke\/lessons\/badregex\.md:5 status "retired" is not one of/),
        expect.stringMatching(/^\.cursor\/rules\/bad\.mdc:[23] invalid YAML frontmatter/),
      ]),
    );
    expect(set.entries.map((e) => e.name).sort()).toEqual(["badregex", "good"]);
  });

  it("follows CLAUDE.md @imports: relative, recursive, cycle-safe, and says which are missing", async () => {
    ws = createTempWorkspace({
      "CLAUDE.md": "See @docs/style.md and @missing/file.md. Mail me@example.com, ping @someone.\n```\n@not/an/import.md\n```\n",
      "docs/style.md": "Style: tabs. Also @./deeper/more.md\n",
      "docs/deeper/more.md": "More rules. Back to @../../CLAUDE.md\n",
    });
    const set = await loadGuidance({ fs: ws.fs, files: noHome() });
    const mem = byName(set.entries, "CLAUDE.md")!;
    expect(mem.body).toContain("Style: tabs.");
    expect(mem.body).toContain("More rules.");
    expect(mem.body).toContain("--- imported from docs/style.md (@docs/style.md) ---");
    expect(mem.body.match(/imported from/g)).toHaveLength(2); // the cycle back to CLAUDE.md is not followed
    expect(set.problems).toEqual([{ path: join(ws.root, "CLAUDE.md"), line: 1, message: expect.stringContaining("@missing/file.md: no such file") }]);
  });

  it("never imports files outside the workspace or denied by a Read rule into a workspace CLAUDE.md; a CLAUDE.md symlink to AGENTS.md loads once", async () => {
    const home = mkdtempSync(join(tmpdir(), "yoke-home-"));
    temps.push(home);
    writeFileSync(join(home, "secret.txt"), "HOME-SECRET\n");
    ws = createTempWorkspace({ "CLAUDE.md": "@~/secret.txt\n@/etc/hostname\n@.env\n@docs/ok.md\n", ".env": "TOKEN=ENV-SECRET\n", "docs/ok.md": "fine\n", "pkg/AGENTS.md": "Shared memory.\n" });
    symlinkSync("AGENTS.md", join(ws.root, "pkg/CLAUDE.md"));
    const access = { deniedBy: async (perm: string, abs: string) => (perm === "Read" && abs.endsWith("/.env") ? "Read(.env)" : null) };
    const set = await loadGuidance({ fs: ws.fs, files: createNodeGuidanceFiles({ home, builtinDir: null }), access, nestedMemory: true });
    const mem = byName(set.entries, "CLAUDE.md")!;
    expect(mem.body).toContain("fine");
    expect(mem.body).not.toContain("HOME-SECRET");
    expect(mem.body).not.toContain("ENV-SECRET");
    expect(set.problems.map((p) => `${p.line} ${p.message}`)).toEqual([
      "1 @~/secret.txt not imported: a workspace file may import only files inside the workspace",
      "2 @/etc/hostname not imported: a workspace file may import only files inside the workspace",
      "3 @.env not imported: reading it is denied by Read(.env)",
    ]);
    expect(set.entries.filter((e) => e.kind === "memory" && e.dir === join(ws!.root, "pkg")).map((e) => e.source)).toEqual(["pkg/AGENTS.md"]);
  });

  it("reads no guidance through a symlinked folder or file that leads outside the workspace, nor what a Read deny rule covers", async () => {
    const outside = mkdtempSync(join(tmpdir(), "yoke-outside-"));
    temps.push(outside);
    mkdirSync(join(outside, "rules"), { recursive: true });
    writeFileSync(join(outside, "rules", "creds.mdc"), "---\nalwaysApply: true\n---\nAWS-SECRET-OUTSIDE\n");
    writeFileSync(join(outside, "key.md"), "SSH-KEY-OUTSIDE\n");
    ws = createTempWorkspace({
      ".github/instructions/ok.instructions.md": "---\napplyTo: '**'\n---\nUse tabs.\n",
      "config/secret.md": "PROJECT-SECRET\n",
      ".yoke/lessons/fine.md": "---\nmatch: {keywords: [fine]}\n---\nA fine lesson.\n",
      "shared/team.md": "---\nmatch: {keywords: [team]}\n---\nA shared team lesson.\n",
    });
    symlinkSync(outside, join(ws.root, ".cursor"));
    symlinkSync(join(outside, "key.md"), join(ws.root, ".yoke/lessons/key.md"));
    symlinkSync("../../config/secret.md", join(ws.root, ".yoke/lessons/secret.md"));
    symlinkSync("../../shared/team.md", join(ws.root, ".yoke/lessons/team.md"));
    const access = { deniedBy: async (perm: string, abs: string) => (perm === "Read" && abs.endsWith("/config/secret.md") ? "Read(config/secret.md)" : null) };
    const set = await loadGuidance({ fs: ws.fs, files: noHome(), access });
    const all = JSON.stringify(set.entries);
    expect(all).toContain("Use tabs.");
    expect(all).toContain("A fine lesson.");
    expect(all).toContain("A shared team lesson."); // a symlink inside the workspace is fine
    for (const secret of ["AWS-SECRET-OUTSIDE", "SSH-KEY-OUTSIDE", "PROJECT-SECRET"]) expect(all).not.toContain(secret);
    const real = (p: string) => realpathSync(p);
    expect(set.problems).toEqual(
      expect.arrayContaining([{ path: join(ws.root, ".cursor/rules/creds.mdc"), message: `not read: it resolves to ${real(join(outside, "rules", "creds.mdc"))}, outside the workspace` }]),
    );
    expect(set.problems).toEqual(
      expect.arrayContaining([
        { path: join(ws.root, ".yoke/lessons/key.md"), message: `not read: it resolves to ${real(join(outside, "key.md"))}, outside the workspace` },
        { path: join(ws.root, ".yoke/lessons/secret.md"), message: "not read: reading it is denied by Read(config/secret.md)" },
      ]),
    );
    expect(set.problems.filter((p) => !p.message.startsWith("not read:"))).toEqual([]);
  });

  it("reads the user's lessons, skills and memory through the port; a workspace lesson overrides one of the same name", async () => {
    const home = mkdtempSync(join(tmpdir(), "yoke-home-"));
    temps.push(home);
    const put = (rel: string, text: string) => {
      mkdirSync(dirname(join(home, rel)), { recursive: true });
      writeFileSync(join(home, rel), text);
    };
    put(".yoke/lessons/flaky.md", "---\nmatch: {keywords: [flaky]}\n---\nUser version.\n");
    put(".claude/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Deploy the app\n---\nSteps.\n");
    put(".claude/CLAUDE.md", "I prefer short answers.\n");
    put(".yoke/AGENTS.md", "Yoke-wide memory.\n");
    ws = createTempWorkspace({ ".yoke/lessons/flaky.md": "---\nmatch: {keywords: [flaky]}\n---\nWorkspace version.\n" });
    const set = await loadGuidance({ fs: ws.fs, files: createNodeGuidanceFiles({ home, builtinDir: null }) });
    expect(set.entries.map((e) => `${e.origin} ${e.kind} ${e.source}`).sort()).toEqual(
      [
        "user lesson ~/.yoke/lessons/flaky.md",
        "user memory ~/.claude/CLAUDE.md",
        "user memory ~/.yoke/AGENTS.md",
        "user skill ~/.claude/skills/deploy/SKILL.md",
        "workspace lesson .yoke/lessons/flaky.md",
      ].sort(),
    );
    const eff = effectiveEntries(set.entries).filter((e) => e.name === "flaky");
    expect(eff.map((e) => e.body)).toEqual(["Workspace version."]);
  });

  it("ships at least 12 built-in lessons that all parse and match the failures they are for", async () => {
    expect(builtinLessonsDir()).toBeDefined();
    ws = createTempWorkspace({});
    const home = mkdtempSync(join(tmpdir(), "yoke-home-"));
    temps.push(home);
    const set = await loadGuidance({ fs: ws.fs, files: createNodeGuidanceFiles({ home }) });
    expect(set.problems).toEqual([]);
    const lessons = set.entries.filter((e) => e.kind === "lesson" && e.origin === "builtin");
    expect(lessons.length).toBeGreaterThanOrEqual(12);
    for (const l of lessons) {
      expect(l.title, l.source).toBeTruthy();
      expect(l.body.length, l.source).toBeGreaterThan(200);
      expect(l.body.length, l.source).toBeLessThan(2000); // cheap enough to inject
    }
    const top = (outputs: string[], message = "") => rank(lessons, { message, outputs })[0]?.entry.source;
    expect(top(["Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'x'"])).toBe("lessons/python/traceback.md");
    expect(top(["src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'."])).toBe("lessons/js/typescript-errors.md");
    expect(top([" FAIL  src/sum.test.ts > adds\nAssertionError: expected 3 to be 4\n Tests  1 failed | 2 passed"])).toBe("lessons/js/jest-vitest-failures.md");
    expect(top(["CONFLICT (content): Merge conflict in a.txt\nAutomatic merge failed; fix conflicts and then commit the result."])).toBe("lessons/git/merge-conflicts.md");
    expect(top(["npm error code ETIMEDOUT\nnpm error network request to https://registry.npmjs.org/x failed"])).toBe("lessons/js/npm-install-network.md");
    expect(top(["=================================== FAILURES ===================================\nFAILED tests/test_a.py::test_x - assert 1 == 2"])).toBe("lessons/python/pytest-failures.md");
    expect(top([], "the stale anchor keeps failing")).toBe("lessons/tools/stale-anchors.md");
    // On evidence only: edit_file's own refusal of a stale anchor, not every use of edit_file (a
    // lesson on each session's first edit cost ~150 tokens of fresh input for nothing).
    const refusal = "edit_file failed: line 12 has changed since it was read (anchor 12#QN, now 12#VR). Current lines (>>> marks the changed line):";
    expect(top([refusal])).toBe("lessons/tools/stale-anchors.md");
    const edited = "Edited src/a.ts: +1 -1 lines (1 edit). Diff with fresh anchors (- removed, + added):\n@@\n-a\n+1#QN|b";
    expect(rank(lessons, { tools: ["edit_file"], outputs: [edited] }).map((x) => x.entry.source)).not.toContain("lessons/tools/stale-anchors.md");
    // A tool used is not evidence by itself for a lesson that has patterns or keywords: a passing
    // (or a node:test) run of run_command sends neither the Python traceback lesson nor the one on
    // servers (each was ~170 tokens in every bench session that ran a command); their evidence does,
    // and the tool then adds to the score.
    const nodeTestRun = "✖ parseCsv keeps commas (12ms)\n  AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:\nℹ fail 2\n\n[Exit code 1 after 1.4 s.]";
    const afterCommand = (outputs: string[], message = "") => rank(lessons, { message, tools: ["run_command"], outputs }).map((x) => x.entry.source);
    expect(afterCommand([nodeTestRun])).not.toContain("lessons/python/traceback.md");
    expect(afterCommand([nodeTestRun])).not.toContain("lessons/tools/long-running-commands.md");
    expect(afterCommand(["ok\n[Exit code 0 after 20 ms.]"])).toEqual([]);
    const traceback = "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'x'";
    const withTool = rank(lessons, { tools: ["run_command"], outputs: [traceback] }).find((x) => x.entry.source === "lessons/python/traceback.md");
    const withoutTool = rank(lessons, { outputs: [traceback] }).find((x) => x.entry.source === "lessons/python/traceback.md");
    expect(withTool?.reasons).toContain("tool run_command");
    expect(withTool!.score).toBeGreaterThan(withoutTool!.score);
    expect(afterCommand(["Listening on port 3000"])).toContain("lessons/tools/long-running-commands.md");
    expect(afterCommand([], "start the dev server")).toContain("lessons/tools/long-running-commands.md");
  });
});
