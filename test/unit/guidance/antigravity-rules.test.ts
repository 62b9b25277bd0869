// Google Antigravity's workspace rules and workflows, read as Antigravity reads them (its
// Customizations docs and forum answers): rules in `.agents/rules/*.md`, or the older `.agent/rules/`
// when there is no `.agents/rules` (the plural folder wins when both exist); each rule's `trigger`
// (always_on, glob + globs, model_decision + description, manual) is Windsurf's; workflows in
// `.agents/workflows/` (else `.agent/workflows/`) are slash commands, not rules.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadGuidance } from "../../../src/core/guidance";
import { commandSources } from "../../../src/node/custom-commands";
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

// The four activation modes of Antigravity's docs, one file each (Windsurf's frontmatter keys).
const RULES = {
  "style.md": "---\ntrigger: always_on\n---\n# Style\nUse tabs.\n",
  "tests.md": "---\ntrigger: glob\nglobs: **/*.test.ts\n---\nTests use vitest.\n",
  "db.md": "---\ntrigger: model_decision\ndescription: When writing database migrations\n---\nUse the migrate tool.\n",
  "release.md": "---\ntrigger: manual\n---\nRelease steps.\n",
};

describe("Antigravity rules", () => {
  it("reads `.agent/rules` with each trigger's activation; its workflows are not rules", async () => {
    ws = createTempWorkspace({
      ...Object.fromEntries(Object.entries(RULES).map(([n, t]) => [`.agent/rules/${n}`, t])),
      ".agent/workflows/lint.md": "---\ndescription: Run all linting checks\n---\n1. Run the linter.\n",
    });
    const set = await loadGuidance({ fs: ws.fs, files: noHome() });
    const got = Object.fromEntries(set.entries.filter((e) => e.source.startsWith(".agent/rules/")).map((e) => [e.source, e.activation]));
    expect(got).toEqual({
      ".agent/rules/style.md": "always",
      ".agent/rules/tests.md": "glob",
      ".agent/rules/db.md": "requested",
      ".agent/rules/release.md": "manual",
    });
    expect(set.entries.find((e) => e.source === ".agent/rules/db.md")).toMatchObject({ description: "When writing database migrations" });
    expect(set.entries.find((e) => e.source === ".agent/rules/tests.md")!.match.globs).toEqual(["**/*.test.ts"]);
    expect(set.entries.some((e) => e.source.includes("workflows"))).toBe(false);
    expect(set.problems).toEqual([]);
  });

  it("reads `.agents/rules` and then not `.agent/rules` (the plural folder first, the singular only without it)", async () => {
    ws = createTempWorkspace({
      ".agents/rules/new.md": "---\ntrigger: always_on\n---\nNEW-RULE\n",
      ".agent/rules/old.md": "---\ntrigger: always_on\n---\nOLD-RULE\n",
    });
    const set = await loadGuidance({ fs: ws.fs, files: noHome() });
    const bodies = set.entries.map((e) => e.body).join("\n");
    expect(bodies).toContain("NEW-RULE");
    expect(bodies).not.toContain("OLD-RULE");
  });

  it("offers the workflows as commands from `.agents/workflows`, else `.agent/workflows`", () => {
    ws = createTempWorkspace({ ".agent/workflows/lint.md": "x" });
    const home = mkdtempSync(join(tmpdir(), "yoke-home-"));
    temps.push(home);
    const dirs = () => commandSources({ cwd: ws!.root, home }).map((s) => s.dir);
    expect(dirs()).toContain(`${ws.root}/.agent/workflows`);
    ws.write({ ".agents/workflows/lint.md": "y" });
    expect(dirs()).toContain(`${ws.root}/.agents/workflows`);
    expect(dirs()).not.toContain(`${ws.root}/.agent/workflows`);
  });
});
