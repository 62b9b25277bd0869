/**
 * Issue 18, session 16 (sbx18) item 2: git commands that run a command given as data — `git
 * bisect run`, `git rebase -x` (glued, in a cluster, `--exe` abbreviated), `git filter-branch
 * --setup`, `git difftool -x`. FULL SESSIONS (the built CLI's `yoke run --trust`, scripted model),
 * root and user × bwrap and firejail, in bypassPermissions under the ARGUMENT rule
 * `Bash(rm -rf:*)` — a rule the sandbox cannot enforce (it masks whole programs only), so the gate
 * alone holds it. Before the fix, `git bisect run sh -c 'rm -rf src'` and `git rebase -x'rm -rf
 * src'` were allowed (bisect run's words were checked as one program, deny-only; `-x` glued to its
 * value was not read) and real git deleted src/. Now each is denied and src/ is intact; a control
 * line with `true` in place of the rm runs (the same git machinery works).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, spawnAs, type Identity } from "../support/identities";
import { spawnSync } from "node:child_process";

const { who, backends, temps } = securityMatrix();

const ATTACKS = [
  "git bisect start HEAD HEAD~1 && git bisect run sh -c 'rm -rf src n1'",
  "git bisect start HEAD HEAD~1 && git bisect run env rm -rf src n2",
  "git rebase -x'rm -rf src n3' HEAD~1",
  "git rebase -ix 'rm -rf src n4' HEAD~1",
  "git rebase --exe 'rm -rf src n5' HEAD~1",
  "git filter-branch -f --setup 'rm -rf src n6' HEAD~1..HEAD",
];

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)("git bisect run / rebase -x / filter-branch --setup under Bash(rm -rf:*): denied, src/ intact; the same lines with `true` run", async () => {
      const { base, home } = cellFolder(`yoke-sbx18-gitcmd-${backend}-`, id, temps, { sandbox: { backend } });
      const ws = committedWorkspace(join(base, "ws"), { "src/a.ts": "export const a = 1;\n", "README.md": "r\n" }, id);
      writeFileSync(join(ws, "README.md"), "r2\n");
      // As the identity: git refuses a repository another user owns (safe.directory).
      const second = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "second"], { cwd: ws, encoding: "utf8", ...spawnAs(id, { HOME: home }) });
      expect(second.status, second.stderr).toBe(0);
      const settings = join(base, "deny.json");
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm -rf:*)"] } }));
      chownTree(settings, id);
      const r = await sessionAs(
        id,
        home,
        ws,
        join(base, "sessions"),
        [...ATTACKS.flatMap((a, i) => [bash(a), bash(`echo between-${i}`)]), bash("git bisect reset; git -c user.name=t -c user.email=t@t rebase -x true HEAD~1 && echo REBASED-OK")],
        { settings },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "src", "a.ts"), "utf8")).toBe("export const a = 1;\n");
      // Each attack was refused by the rule (each names its own operand n1…n6).
      ATTACKS.forEach((a, i) => expect(r.told, a).toMatch(new RegExp(`Denied by the rule Bash\\(rm -rf:\\*\\)[^\\n]*rm -rf src n${i + 1}`)));
      // The control: git rebase -x with a harmless command runs in the sandbox.
      expect(r.told).toContain("REBASED-OK");
      expect(existsSync(join(ws, "src"))).toBe(true);
      const status = spawnSync("git", ["status", "--porcelain"], { cwd: ws, encoding: "utf8", ...spawnAs(id, { HOME: home }) });
      expect(status.stdout).not.toMatch(/src/);
    });
  });
});
