// Rule activation as each tool's documentation gives it, for three shapes real repositories use
// that Yoke read differently (found by laying real rule files out and listing them, session 23):
// Copilot's `excludeAgent`, Cursor's quoted `alwaysApply: "true"`, Cursor's folder rules (RULE.md).
// The files are written from the tools' documented examples, not copied from any repository.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadGuidance } from "../../../src/core/guidance";
import { parseRule } from "../../../src/core/guidance/parse";
import { createNodeGuidanceFiles } from "../../../src/node/guidance-files";
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
const mdc = (text: string, path = "/ws/.cursor/rules/r.mdc") => parseRule({ path, source: path.slice(4), origin: "workspace", text }, "mdc");

describe("Copilot's excludeAgent", () => {
  it("a file kept from the coding agent is never sent (listed as excluded, with why); one kept from code review is in force as usual", async () => {
    ws = createTempWorkspace({
      // GitHub's example: `excludeAgent: "code-review"` — only the coding agent uses the file.
      ".github/instructions/agent-only.instructions.md": '---\napplyTo: "**"\nexcludeAgent: "code-review"\n---\nRun the linter before committing.\n',
      // …and the other way round: for code review only, in each way the value is written.
      ".github/instructions/review-only.instructions.md": '---\napplyTo: "**"\nexcludeAgent: "coding-agent"\n---\nComment on every missing test.\n',
      ".github/instructions/review-list.instructions.md": '---\napplyTo: "**/*.ts"\nexcludeAgent: ["coding-agent"]\n---\nFlag any use of any.\n',
      ".github/instructions/review-block.instructions.md": '---\napplyTo: "**"\ndescription: Review checklist\nexcludeAgent:\n  - "coding-agent"\n---\nCheck the changelog.\n',
      ".github/instructions/review-cloud.instructions.md": '---\napplyTo: "**/*.tf"\nexcludeAgent: "cloud-agent"\n---\nFlag unpinned providers.\n',
    });
    const set = await loadGuidance({ fs: ws.fs, files: noHome() });
    const rules = set.entries.filter((e) => e.kind === "rule").map((e) => `${e.name} ${e.activation}`);
    expect(rules).toEqual(["agent-only always"]);
    expect(set.excluded!.map((x) => x.source).sort()).toEqual(
      [
        ".github/instructions/review-block.instructions.md",
        ".github/instructions/review-cloud.instructions.md",
        ".github/instructions/review-list.instructions.md",
        ".github/instructions/review-only.instructions.md",
      ].sort(),
    );
    const why = set.excluded!.find((x) => x.source.endsWith("review-cloud.instructions.md"))!.why;
    expect(why).toMatch(/^excludeAgent: cloud-agent — Copilot keeps this file from its coding agent/);
    expect(set.problems).toEqual([]);
  });
});

describe("Cursor's alwaysApply", () => {
  it('only the boolean true is always on; the string "true" falls to the globs, the description or manual, with a problem that says so', () => {
    expect(mdc("---\nalwaysApply: true\n---\nBe brief.\n").entry).toMatchObject({ activation: "always" });
    const quoted = mdc('---\ndescription: "Ported preferences"\nalwaysApply: "true"\n---\nBe brief.\n');
    expect(quoted.entry).toMatchObject({ activation: "requested", description: "Ported preferences" });
    expect(quoted.problems).toEqual([
      {
        path: "/ws/.cursor/rules/r.mdc",
        line: 3,
        message: 'alwaysApply is the string "true", not the boolean true: Cursor does not apply it always, and neither does Yoke (write alwaysApply: true, unquoted)',
      },
    ]);
    const withGlobs = mdc("---\nglobs: src/**/*.ts\nalwaysApply: 'true'\n---\nStrict types.\n");
    expect(withGlobs.entry).toMatchObject({ activation: "glob" });
    expect(withGlobs.entry!.match.globs).toEqual(["src/**/*.ts"]);
    expect(mdc('---\nalwaysApply: "true"\n---\nOnly by name.\n').entry).toMatchObject({ activation: "manual" });
    // `"false"` means what it says: nothing to report.
    expect(mdc('---\ndescription: D\nalwaysApply: "false"\n---\nX\n').problems).toEqual([]);
  });
});

describe("Cursor's folder rules", () => {
  it(".cursor/rules/NAME/RULE.md is the rule NAME (each with its own activation); the folder's other files are not rules", async () => {
    ws = createTempWorkspace({
      ".cursor/rules/react-patterns/RULE.md": "---\ndescription: React component patterns\nglobs: src/components/**/*.tsx\nalwaysApply: false\n---\nUse function components.\n",
      ".cursor/rules/react-patterns/template.tsx": "export function Template() { return null; }\n",
      ".cursor/rules/api-conventions/RULE.md": "---\ndescription: API conventions, when working on endpoints\nalwaysApply: false\n---\nValidate every input.\n",
      ".cursor/rules/frontend/components.mdc": "---\nalwaysApply: true\n---\nKeep components small.\n",
    });
    const set = await loadGuidance({ fs: ws.fs, files: noHome() });
    const rules = set.entries
      .filter((e) => e.kind === "rule")
      .map((e) => `${e.name} ${e.activation} ${e.source}`)
      .sort();
    expect(rules).toEqual([
      "api-conventions requested .cursor/rules/api-conventions/RULE.md",
      "components always .cursor/rules/frontend/components.mdc",
      "react-patterns glob .cursor/rules/react-patterns/RULE.md",
    ]);
    expect(set.problems).toEqual([]);
  });
});

describe("several quoted globs on one line", () => {
  it('`paths: "a", "b"` is the list of those globs (Claude Code\'s rules, Cursor\'s and Copilot\'s likewise), not a YAML error that lost the rule', () => {
    const claude = parseRule(
      { path: "/ws/.claude/rules/api.md", source: ".claude/rules/api.md", origin: "workspace", text: '---\npaths: "src/api/**/*.ts", "tests/**/*.test.ts"\n---\nAPI rules.\n' },
      "claude",
    );
    expect(claude.problems).toEqual([]);
    expect(claude.entry).toMatchObject({ activation: "glob" });
    expect(claude.entry!.match.globs).toEqual(["src/api/**/*.ts", "tests/**/*.test.ts"]);
    const cursor = mdc("---\ndescription: Styles\nglobs: '**/*.css', '**/*.scss'\n---\nUse tokens.\n");
    expect(cursor.entry!.match.globs).toEqual(["**/*.css", "**/*.scss"]);
    // One quoted string of comma-separated globs is still split as before; a YAML list stays a list.
    expect(mdc('---\nglobs: "src/**/*.ts, lib/*.js"\n---\nX\n').entry!.match.globs).toEqual(["src/**/*.ts", "lib/*.js"]);
    expect(mdc('---\nglobs: ["a/**", "b/**"]\n---\nX\n').entry!.match.globs).toEqual(["a/**", "b/**"]);
  });
});

describe("rules and skills folders that are symbolic links", () => {
  it("are read through the link when it leads to a folder in the workspace (Cursor and Claude Code read them so); one file reached as two tools' rules is one entry, with the activation that puts it most in force", async () => {
    ws = createTempWorkspace({
      // A repository keeping every tool's rules in one folder and linking each tool's place to it.
      ".ai/rules/git-commits.md": '---\napplyTo: "**/*"\n---\nOne logical change per commit.\n',
      ".ai/rules/csharp.md": '---\napplyTo: "**/*.cs"\n---\nFile-scoped namespaces.\n',
      ".ai/rules/style.md": "---\ndescription: Writing style for docs\nalwaysApply: false\n---\nPlain words.\n",
      ".ai/skills/add-concept/SKILL.md": "---\nname: add-concept\ndescription: Add a concept type to the domain\n---\nSteps.\n",
      "shared/skills/review/SKILL.md": "---\nname: review\ndescription: Review a change before it is committed\n---\nChecklist.\n",
      "shared/claude-rules/api.md": '---\npaths:\n  - "src/api/**/*.ts"\n---\nValidate inputs.\n',
      ".claude/skills/.keep": "",
    });
    const link = (target: string, at: string) => {
      mkdirSync(dirname(join(ws!.root, at)), { recursive: true });
      symlinkSync(target, join(ws!.root, at));
    };
    link("../.ai/rules", ".cursor/rules");
    link("../.ai/skills", ".cursor/skills");
    link("../../shared/skills/review", ".claude/skills/review");
    link("../../shared/claude-rules", ".claude/rules/shared");
    link("../../.ai/rules/git-commits.md", ".github/instructions/git-commits.instructions.md");
    link("../../.ai/rules/csharp.md", ".github/instructions/csharp.instructions.md");
    const set = await loadGuidance({ fs: ws.fs, files: noHome() });
    const got = set.entries
      .filter((e) => e.kind !== "lesson")
      .map((e) => `${e.kind} ${e.name} ${e.activation} ${e.source}`)
      .sort();
    expect(got).toEqual(
      [
        // Copilot's readings (always; glob) win over the same files as Cursor rules (no Cursor keys: manual).
        "rule csharp glob .github/instructions/csharp.instructions.md",
        "rule git-commits always .github/instructions/git-commits.instructions.md",
        "rule style requested .cursor/rules/style.md",
        "rule api glob .claude/rules/shared/api.md",
        "skill add-concept requested .cursor/skills/add-concept/SKILL.md",
        "skill review requested .claude/skills/review/SKILL.md",
      ].sort(),
    );
    expect(set.problems).toEqual([]);
  });

  it("a folder link leading outside the workspace is not followed", async () => {
    ws = createTempWorkspace({ "README.md": "x\n" });
    const outside = mkdtempSync(join(tmpdir(), "yoke-outside-"));
    temps.push(outside);
    for (const d of ["rules", "skills/evil"]) mkdirSync(join(outside, d), { recursive: true });
    writeFileSync(join(outside, "rules/outside.mdc"), "---\nalwaysApply: true\n---\nfrom outside\n");
    writeFileSync(join(outside, "skills/evil/SKILL.md"), "---\nname: evil\ndescription: from outside\n---\nx\n");
    mkdirSync(join(ws.root, ".cursor"));
    mkdirSync(join(ws.root, ".claude/skills"), { recursive: true });
    symlinkSync(join(outside, "rules"), join(ws.root, ".cursor/rules"));
    symlinkSync(join(outside, "skills"), join(ws.root, ".cursor/skills"));
    symlinkSync(join(outside, "skills/evil"), join(ws.root, ".claude/skills/evil"));
    const set = await loadGuidance({ fs: ws.fs, files: noHome() });
    expect(set.entries.filter((e) => e.kind !== "lesson")).toEqual([]);
    expect(JSON.stringify(set)).not.toContain("from outside");
  });
});

describe("a value that only starts like YAML's own", () => {
  it("words after `>` on its line, or after a closing quote, are the value's text: the rule keeps its trigger instead of being lost to a YAML error", () => {
    const windsurf = parseRule(
      { path: "/ws/.windsurf/rules/notes.md", source: ".windsurf/rules/notes.md", origin: "workspace", text: "---\ntrigger: always_on\ndescription: > AGENTS.md — project notes\n---\nNotes.\n" },
      "windsurf",
    );
    expect(windsurf.problems).toEqual([]);
    expect(windsurf.entry).toMatchObject({ activation: "always", description: "> AGENTS.md — project notes" });
    const quoted = mdc('---\ndescription: "Fix" bugs before features\nglobs: src/**\n---\nX\n');
    expect(quoted.problems).toEqual([]);
    expect(quoted.entry).toMatchObject({ activation: "glob", description: '"Fix" bugs before features' });
    // YAML's own block scalars and quoted strings keep their meaning.
    expect(mdc("---\ndescription: >-\n  Folded\n  text\nalwaysApply: true\n---\nX\n").entry).toMatchObject({ activation: "always", description: "Folded text" });
    expect(mdc('---\ndescription: "Quoted: with a colon"\n---\nX\n').entry).toMatchObject({ activation: "requested", description: "Quoted: with a colon" });
  });
});

describe("Claude Code's when_to_use", () => {
  it("is appended to the skill's description, which is what the model chooses by", async () => {
    ws = createTempWorkspace({
      ".claude/skills/remote-status/SKILL.md":
        "---\nname: remote-status\ndescription: Spaces repeated status reads against a rate-limited service.\nwhen_to_use: Use when waiting on a pipeline run or pull request checks.\n---\nPoll every three minutes.\n",
      ".claude/skills/plain/SKILL.md": "---\nname: plain\ndescription: A skill without when_to_use.\n---\nX\n",
    });
    const set = await loadGuidance({ fs: ws.fs, files: noHome() });
    const desc = (name: string) => set.entries.find((e) => e.name === name)?.description;
    expect(desc("remote-status")).toBe("Spaces repeated status reads against a rate-limited service. Use when waiting on a pipeline run or pull request checks.");
    expect(desc("plain")).toBe("A skill without when_to_use.");
  });
});
