/**
 * Red team L (session 24): a sub-agent that loads a skill with `context: fork` (load_skill is shared
 * with sub-agents) started that skill's sub-agent through the MAIN conversation's task tool — with
 * every tool of the main session — instead of refusing or staying within its own. A read-only
 * reviewer (`tools: Read, Grep, Glob, Skill`) so wrote a file and ran a command. Full `yoke run` sessions
 * (bypassPermissions) with the scripted model, as root and as the unprivileged user: the reviewer's
 * load of the forked skill is refused, and nothing is written. The same for a plain sub-agent (its
 * read-only tools include load_skill).
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { identities, type Identity } from "../support/identities";
import { cellFolder, committedWorkspace, sessionAs } from "../support/sandbox-matrix";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const REVIEWER = "---\nname: reviewer\ndescription: Reviews code, read-only\ntools: Read, Grep, Glob, Skill\n---\nYou review code. You never change files.\n";
const FIXER = "---\nname: fixer\ndescription: Fixes what a review found\ncontext: fork\n---\nFix the code: write fixed.txt and run the formatter.\n";

describe("a sub-agent loading a skill with context: fork", () => {
  it.each(identities().list.flatMap((w) => (["reviewer", "plain"] as const).map((agent) => [w.label, agent, w] as const)))(
    "(as %s, %s sub-agent) does not get the main conversation's tools through the fork: the read-only sub-agent writes nothing",
    async (_label, agent, id: Identity) => {
      const { base, home } = cellFolder("yoke-redl24-fork-", id, temps, {});
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "# app\n", ".claude/agents/reviewer.md": REVIEWER, ".claude/skills/fixer/SKILL.md": FIXER }, id);
      const r = await sessionAs(id, home, ws, join(base, "sessions"), [
        { toolCalls: [{ name: "task", input: { description: "Review", prompt: "Review the code.", ...(agent === "reviewer" ? { subagent_type: "reviewer" } : {}) } }] },
        { toolCalls: [{ name: "load_skill", input: { name: "fixer" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "fixed.txt", content: "ok\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "touch touched.txt" } }] },
        { text: "reviewed" },
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(ws, "fixed.txt")), "a file was written for the read-only reviewer").toBe(false);
      expect(existsSync(join(ws, "touched.txt")), "a command ran for the read-only reviewer").toBe(false);
      expect(r.all).toContain("a sub-agent cannot run it");
      expect(r.all).not.toContain("Created fixed.txt");
    },
    200_000,
  );
});
