// Red team R (session 20): Cursor's skill folders (cursor.com/docs/context/skills: `.cursor/skills/`
// and `~/.cursor/skills/`, besides `.agents/skills/` and Claude's and Codex's folders it reads for
// compatibility). Installers write a skill to `.cursor/skills/NAME/SKILL.md`; before, Yoke listed
// nothing from there. The same skill installed in two folders is listed once.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, runCli } from "../support/cli";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "yoke-redr-skills-"));
  temps.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nSteps.\n`;

describe("Cursor and Codex skill folders", () => {
  it("project .cursor/skills and .codex/skills, the user's ~/.cursor/skills, ~/.codex/skills and ~/.agents/skills are listed for the model", async () => {
    const ws = tree({
      ".cursor/skills/audit-ui/SKILL.md": skill("audit-ui", "Audit a page for accessibility"),
      ".codex/skills/changelog/SKILL.md": skill("changelog", "Write the changelog entry"),
      ".claude/skills/shared/SKILL.md": skill("shared", "One skill installed twice"),
      ".cursor/skills/shared/SKILL.md": skill("shared", "One skill installed twice"),
    });
    const home = tree({
      ".cursor/skills/tidy/SKILL.md": skill("tidy", "Tidy imports"),
      ".codex/skills/bisect/SKILL.md": skill("bisect", "Bisect a regression"),
      ".agents/skills/notes/SKILL.md": skill("notes", "Take meeting notes"),
    });
    const r = await runCli(["lessons", "list", "--cwd", ws, "--json"], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { entries: Array<{ name: string; source: string; state: string; kind: string }> };
    const skills = out.entries.filter((e) => e.kind === "skill");
    const listed = (name: string) => skills.filter((e) => e.name === name && e.state === "listed").map((e) => e.source);
    expect(listed("audit-ui")).toEqual([".cursor/skills/audit-ui/SKILL.md"]);
    expect(listed("changelog")).toEqual([".codex/skills/changelog/SKILL.md"]);
    expect(listed("tidy")).toEqual(["~/.cursor/skills/tidy/SKILL.md"]);
    expect(listed("bisect")).toEqual(["~/.codex/skills/bisect/SKILL.md"]);
    expect(listed("notes")).toEqual(["~/.agents/skills/notes/SKILL.md"]);
    expect(listed("shared")).toHaveLength(1);
  }, 60_000);

  it("Cursor rules written as .md (Cursor reads .md and .mdc in .cursor/rules, sub-folders too): the same activation as .mdc; a plain file is manual, as Cursor makes it", async () => {
    const ws = tree({
      ".cursor/rules/api-guidelines.md": "# API\nPLAIN-MD-RULE\n",
      ".cursor/rules/always.md": "---\nalwaysApply: true\n---\nALWAYS-MD-RULE\n",
      ".cursor/rules/frontend/components.md": "---\nglobs: src/**/*.tsx\nalwaysApply: false\n---\nGLOB-MD-RULE\n",
      ".cursor/rules/db.md": "---\ndescription: Database migrations\nalwaysApply: false\n---\nREQ-MD-RULE\n",
      "web/.cursor/rules/web.md": "---\nalwaysApply: true\n---\nNESTED-MD-RULE\n",
      "web/index.ts": "export {};\n",
    });
    const r = await runCli(["lessons", "list", "--cwd", ws, "--json"], { env: { HOME: tree({}) } });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { entries: Array<{ source: string; state: string; why: string }> };
    const state = (source: string) => out.entries.find((e) => e.source === source)?.state;
    expect(state(".cursor/rules/api-guidelines.md")).toBe("manual");
    expect(state(".cursor/rules/always.md")).toBe("always");
    expect(state(".cursor/rules/frontend/components.md")).toBe("glob");
    expect(state(".cursor/rules/db.md")).toBe("listed");
    expect(out.entries.find((e) => e.source === "web/.cursor/rules/web.md")).toMatchObject({ why: expect.stringContaining("under web/") });
  }, 60_000);
});
