// Roo Code reads every file of its rules folders (`.roo/rules/`, `.roo/rules-{mode}/`, at any depth),
// leaving out only cache and system files (`*.log`, `*.bak`, `.DS_Store`…); its docs' example has a
// `.txt` rule and its own repository keeps its modes' rules as `.xml`. Yoke read only `.md`, `.mdc`,
// `.txt` and names without a dot, so an `.xml` rule never reached the code mode or a .roomodes agent,
// and a folder holding only such files let `.roorules` in, which Roo does not read then
// (session 24, real24). The files are written for this test from Roo's documentation.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadGuidance } from "../../../src/core/guidance";
import { isRooRuleFile } from "../../../src/core/guidance/roo-files";
import { loadAgents, type AgentFile } from "../../../src/core/subagents/agents";
import { workspaceRooModes } from "../../../src/core/subagents/roo-modes";
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

describe("Roo Code's rules folders: every file but cache files", () => {
  it("names: any extension is a rule; Roo's cache and system files are not", () => {
    for (const n of ["01-general.md", "02-coding-style.txt", "1_workflow.xml", "style.yaml", "NOTES", "a.mdc"]) expect(isRooRuleFile(n), n).toBe(true);
    for (const n of ["debug.log", "x.bak", ".DS_Store", "Thumbs.db", "a.md.swp", "b.tmp", "c.lock", "d.pyc", "e.old"]) expect(isRooRuleFile(n), n).toBe(false);
  });

  it("the code mode's .xml and .yaml rules are always on, a log file is not read, and .roorules stays out when .roo/rules/ holds only non-.md files", async () => {
    ws = createTempWorkspace({
      ".roo/rules/02-coding-style.txt": "Two-space indent. RULE-TXT\n",
      ".roo/rules/conventions.yaml": "naming: camelCase # RULE-YAML\n",
      ".roo/rules/debug.log": "LOG-NOT-A-RULE\n",
      ".roo/rules-code/1_workflow.xml": "<workflow><step>Run the tests first. RULE-XML</step></workflow>\n",
      ".roo/rules-code/guides/lint.xml": "<rule>Lint before commit. RULE-XML-DEEP</rule>\n",
      ".roo/rules-docs-writer/1_tone.xml": "<rule>Plain words. OTHER-MODE</rule>\n",
      ".roorules": "ROORULES-SHADOWED\n",
    });
    const set = await loadGuidance({ fs: ws.fs, files: noHome() });
    const rules = set.entries.filter((e) => e.kind === "rule").map((e) => `${e.source} ${e.activation}`);
    expect(rules.sort()).toEqual([".roo/rules-code/1_workflow.xml always", ".roo/rules-code/guides/lint.xml always", ".roo/rules/02-coding-style.txt always", ".roo/rules/conventions.yaml always"]);
    expect(set.entries.some((e) => e.body.includes("LOG-NOT-A-RULE") || e.body.includes("ROORULES-SHADOWED") || e.body.includes("OTHER-MODE"))).toBe(false);
    const excluded = Object.fromEntries(set.excluded!.map((x) => [x.source, x.why]));
    expect(excluded[".roorules"]).toMatch(/the project's .roo\/rules\/ has files/);
    expect(excluded[".roo/rules-docs-writer/1_tone.xml"]).toMatch(/Roo's "docs-writer" mode/);
  });

  it("a .roomodes mode's .xml rules are part of its agent's prompt", async () => {
    ws = createTempWorkspace({
      ".roomodes": "customModes:\n  - slug: issue-fixer\n    name: Issue Fixer\n    roleDefinition: You fix reported issues.\n    whenToUse: Fixing a reported bug\n    groups: [read]\n",
      ".roo/rules-issue-fixer/1_workflow.xml": "<workflow>Reproduce the bug first. MODE-XML</workflow>\n",
      ".roo/rules-issue-fixer/notes.md": "Link the issue. MODE-MD\n",
      ".roo/rules-issue-fixer/old.bak": "MODE-BAK\n",
    });
    const { files, problems } = await workspaceRooModes(ws.fs);
    expect(problems).toEqual([]);
    const { agents } = loadAgents(files as AgentFile[]);
    expect(agents.map((a) => a.name)).toEqual(["issue-fixer"]);
    const prompt = agents[0]!.prompt;
    expect(prompt).toContain("MODE-XML");
    expect(prompt).toContain("MODE-MD");
    expect(prompt).not.toContain("MODE-BAK");
  });
});
