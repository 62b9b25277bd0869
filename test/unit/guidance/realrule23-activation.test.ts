// Rule activation as each tool's documentation gives it, for three shapes real repositories use
// that Yoke read differently (found by laying real rule files out and listing them, session 23):
// Copilot's `excludeAgent`, Cursor's quoted `alwaysApply: "true"`, Cursor's folder rules (RULE.md).
// The files are written from the tools' documented examples, not copied from any repository.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
