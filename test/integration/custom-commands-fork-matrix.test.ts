// A forked command's grants (`context: fork`, docs/custom-commands.md) as root and as an
// unprivileged user, with bwrap and firejail: a user's command's allowed-tools let the sub-agent's
// granted `touch` run (sandboxed as any command); a call outside them is asked (refused headless)
// and its file never made; a chained write after a granted prefix is not granted either; the
// conversation's turn after the fork has no grant; a repository's forked command grants nothing.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { chownTree } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();

describe.each(who.map((id) => [id.name, id] as const))("as %s", (_n, id) => {
  describe.each(backends)("with %s", (backend, why) => {
    it.skipIf(why !== undefined)("the fork's grants hold in the child only, and only for what they name", async () => {
      const { base, home } = cellFolder("yoke-fork-matrix-", id, temps, { sandbox: { backend } });
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "x\n", ".claude/commands/pfork.md": "---\ncontext: fork\nallowed-tools: Bash(touch p-*)\n---\nPFORK\n" }, id);
      mkdirSync(join(home, ".claude", "commands"), { recursive: true });
      writeFileSync(join(home, ".claude", "commands", "ufork.md"), "---\ncontext: fork\nallowed-tools: Bash(touch ok-*)\n---\nUFORK-BODY $ARGUMENTS\n");
      chownTree(base, id);
      // Child: granted touch, a touch outside the grant, a chained write after a granted prefix, its answer; then the parent tries the grant itself.
      const script: ScriptedTurn[] = [bash("touch ok-1"), bash("touch bad-1"), bash("touch ok-2 && touch bad-2"), { text: "UFORK-ANSWER" }, bash("touch ok-parent")];
      const r = await sessionAs(id, home, ws, join(base, "sessions"), script, { mode: "default", message: "/ufork now" });
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(ws, "ok-1")), "the granted call did not run in the fork").toBe(true);
      for (const f of ["bad-1", "bad-2", "ok-parent"]) expect(existsSync(join(ws, f)), `${f} was made`).toBe(false);
      expect(r.all).toContain("UFORK-BODY now");
      expect(r.all).toContain("UFORK-ANSWER");
    });

    it.skipIf(why !== undefined)("a repository's forked command grants nothing (asked, refused headless)", async () => {
      const { base, home } = cellFolder("yoke-fork-matrix-", id, temps, { sandbox: { backend } });
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "x\n", ".claude/commands/pfork.md": "---\ncontext: fork\nallowed-tools: Bash(touch p-*)\n---\nPFORK\n" }, id);
      chownTree(base, id);
      const r = await sessionAs(id, home, ws, join(base, "sessions"), [bash("touch p-1"), { text: "P-ANSWER" }], { mode: "default", message: "/pfork" });
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(ws, "p-1"))).toBe(false);
      expect(r.all).toMatch(/no one to ask/);
    });
  });
});
