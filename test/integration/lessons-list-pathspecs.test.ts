/**
 * The guidance listing (`yoke lessons list`, the panel's Customizations view) is the same whether
 * git is asked with the plain pathspecs gitTracked uses or with the `:(glob)` pathspecs it used
 * before: same entries in the same order, same problems, same files left out. On a work tree with
 * every kind of guidance file and the cases that tell listings apart: nested memory at any depth,
 * in ignored, build, dot and node_modules folders, untracked but not ignored, tracked and deleted,
 * reached through symbolic links (inside and outside the workspace), nested `.cursor/rules` and
 * `.windsurf/rules`, `.claude/rules`, `.github/instructions`, lessons and skills; from the top, from
 * a sub-folder, and in a folder that is not a git work tree. Real git, real rg, the real loader.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGuidance } from "../../src/core/guidance";
import type { Searcher } from "../../src/core/ports";
import { globLsFilesArgs, LS_FILES_ENV } from "../../src/node/git-ls-files";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@x", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@x" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: gitEnv });

let dir = "";
let ws = "";
let plain = "";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "yoke-lessons-pathspecs-"));
  ws = join(dir, "ws");
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  };
  put("AGENTS.md", "# root agents\n");
  put("CLAUDE.md", "# root claude\n@docs/extra.md\n");
  put("docs/extra.md", "extra\n");
  put("pkg/a/AGENTS.md", "# a\n");
  put("pkg/a/CLAUDE.md", "# a claude\n");
  put("pkg/b/CLAUDE.md", "# b only claude\n");
  put("pkg/c/deep/er/AGENTS.md", "# deep\n");
  put("pkg/XAGENTS.md", "# look-alike\n");
  put("node_modules/x/AGENTS.md", "# in node_modules\n");
  put("build/AGENTS.md", "# build\n");
  put(".hidden/AGENTS.md", "# hidden\n");
  put("ignored/AGENTS.md", "# ignored\n");
  put("ignored/.cursor/rules/i.mdc", "ignored rule\n");
  put(".gitignore", "ignored/\n");
  put(".cursor/rules/root.mdc", "---\ndescription: root rule\nalwaysApply: true\n---\nroot rule\n");
  put("web/.cursor/rules/web.mdc", '---\nglobs: "**/*.ts"\n---\nweb rule\n');
  put("web/.cursor/rules/sub/deeper.mdc", "deeper\n");
  put("app/.windsurf/rules/w.md", "---\ntrigger: always_on\n---\nwind\n");
  put(".windsurf/rules/root.md", "root wind\n");
  put(".claude/rules/style.md", "claude rule\n");
  put(".github/instructions/ts.instructions.md", '---\napplyTo: "**/*.ts"\n---\nts\n');
  put(".github/copilot-instructions.md", "copilot\n");
  put(".yoke/lessons/l1.md", "---\nmatch:\n  keywords: [foo]\n---\nlesson\n");
  put(".claude/skills/s1/SKILL.md", "---\nname: s1\ndescription: a skill\n---\nskill\n");
  put("real/AGENTS.md", "# real\n");
  mkdirSync(join(ws, "pkg/e"), { recursive: true });
  symlinkSync("../a/AGENTS.md", join(ws, "pkg/e/AGENTS.md"));
  mkdirSync(join(ws, "pkg/f"), { recursive: true });
  symlinkSync(join(dir, "outside.md"), join(ws, "pkg/f/AGENTS.md"));
  writeFileSync(join(dir, "outside.md"), "# outside the workspace\n");
  symlinkSync("real", join(ws, "linked"));
  put("pkg/g/AGENTS.md", "# tracked, then deleted\n");
  put("pkg/h/AGENTS.md", "# tracked, its folder then made a link inside\n");
  put("pkg/i/AGENTS.md", "# tracked, its folder then made a link outside\n");
  put("other/h2/AGENTS.md", "# what pkg/h leads to\n");
  git(ws, "init", "-q");
  git(ws, "add", "-A");
  git(ws, "commit", "-qm", "base");
  unlinkSync(join(ws, "pkg/g/AGENTS.md"));
  rmSync(join(ws, "pkg/h"), { recursive: true });
  symlinkSync("../other/h2", join(ws, "pkg/h"));
  rmSync(join(ws, "pkg/i"), { recursive: true });
  mkdirSync(join(dir, "elsewhere"));
  writeFileSync(join(dir, "elsewhere/AGENTS.md"), "# outside\n");
  symlinkSync(join(dir, "elsewhere"), join(ws, "pkg/i"));
  symlinkSync("ws", join(dir, "wslink"));
  put("pkg/untracked/AGENTS.md", "# untracked nested\n");
  put("web2/.cursor/rules/u.mdc", "untracked rule\n");
  put("pkg/a/extra/CLAUDE.md", "# untracked claude\n");
  plain = join(dir, "plain");
  for (const [rel, text] of [
    ["AGENTS.md", "# plain root\n"],
    ["sub/x/AGENTS.md", "# plain nested\n"],
    ["sub/.cursor/rules/p.mdc", "plain rule\n"],
  ] as const) {
    mkdirSync(dirname(join(plain, rel)), { recursive: true });
    writeFileSync(join(plain, rel), text);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The searcher as it was: git asked with `:(glob)` pathspecs, its answer taken as it is. */
function globSearcher(): Searcher {
  const base = createRipgrepSearcher();
  return {
    ...base,
    tracked: async (o) => {
      const r = spawnSync("git", globLsFilesArgs(o.path, o.globs), { env: { ...process.env, ...LS_FILES_ENV }, encoding: "utf8" });
      if (r.status !== 0) return undefined;
      const paths = r.stdout
        .split("\0")
        .filter((p) => p !== "")
        .slice(0, o.maxResults)
        .map((p) => `${o.path}/${p}`);
      return { paths, truncated: false, found: paths.length };
    },
  };
}

async function listing(cwd: string, search: Searcher) {
  const set = await loadGuidance({ fs: createNodeWorkspaceFs(cwd, { syncReads: true }), nestedMemory: true, search });
  return {
    entries: set.entries.map((e) => ({ id: e.id, kind: e.kind, source: e.source, activation: e.activation, dir: e.dir, body: e.body, path: e.path, realPath: e.realPath })),
    problems: set.problems,
    excluded: set.excluded,
  };
}

describe("guidance listing: plain pathspecs against :(glob) pathspecs", () => {
  for (const where of ["ws", "ws/pkg", "ws/web", "plain", "wslink", "wslink/pkg"]) {
    it(`the same listing in ${where}`, async () => {
      const cwd = join(dir, where);
      const now = await listing(cwd, createRipgrepSearcher());
      const before = await listing(cwd, globSearcher());
      expect(now).toEqual(before);
      expect(now.entries.length).toBeGreaterThan(0);
      // Each file's real path is what the system's realpath says (folders resolved once per listing).
      for (const e of now.entries) if (e.realPath) expect(e.realPath, e.source).toBe(realpathSync(e.path));
    });
  }

  it("the listing holds what each case should (the comparison is not vacuous)", async () => {
    const now = await listing(ws, createRipgrepSearcher());
    const sources = now.entries.map((e) => e.source);
    expect(sources).toEqual(
      expect.arrayContaining([
        "pkg/a/AGENTS.md",
        "pkg/a/CLAUDE.md",
        "pkg/b/CLAUDE.md",
        "pkg/c/deep/er/AGENTS.md",
        "pkg/e/AGENTS.md",
        "pkg/h/AGENTS.md",
        "real/AGENTS.md",
        "web/.cursor/rules/web.mdc",
        "web/.cursor/rules/sub/deeper.mdc",
        "app/.windsurf/rules/w.md",
        ".claude/rules/style.md",
        ".github/instructions/ts.instructions.md",
        ".yoke/lessons/l1.md",
        ".claude/skills/s1/SKILL.md",
      ]),
    );
    // Not in git's index (ignored, untracked, deleted) or left out by folder (build, dot, node_modules).
    for (const not of [
      "ignored/AGENTS.md",
      "pkg/untracked/AGENTS.md",
      "web2/.cursor/rules/u.mdc",
      "pkg/a/extra/CLAUDE.md",
      "pkg/g/AGENTS.md",
      "build/AGENTS.md",
      ".hidden/AGENTS.md",
      "node_modules/x/AGENTS.md",
      "pkg/XAGENTS.md",
    ])
      expect(sources).not.toContain(not);
    expect(now.problems.map((p) => `${p.path}: ${p.message}`).join("\n")).toMatch(/pkg\/i\/AGENTS\.md: not read: it resolves to .*elsewhere\/AGENTS\.md, outside the workspace/);
    expect(now.entries.find((e) => e.source === "pkg/h/AGENTS.md")?.realPath).toBe(join(realpathSync(ws), "other/h2/AGENTS.md"));
  });
});
