/**
 * Planted files (differential checker, session 16): an earlier command made a file named like an
 * option, and an unquoted pattern of this command matches it. Each attack runs for real — bash
 * under strace in the checker's throwaway sandbox, as root and as the unprivileged yoke-sectest,
 * under bwrap and firejail — and the test asserts both halves: the attack did its harm in the copy
 * (find opened README.md for writing through a planted `-fprint`, tar ran the planted script, sed
 * rewrote a.txt in place), and the gate never allowed it where that harm is not allowed (no
 * bypass-class disagreement; default mode asks; with a deny rule even bypassPermissions asks).
 * A pattern that cannot spell such an option (`find . -name *.x` beside a planted `-exec.x`) stays
 * allowed and harmless.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createChecker, defaultRuleSets, loadAttackFixture, type CheckResult } from "../../src/bench/diffcheck/check";
import type { DiffBackend, RunIdentity } from "../../src/bench/diffcheck/runner";
import { MARKER } from "../../src/bench/diffcheck/runner";
import { identities } from "../support/identities";

for (const tool of ["strace", "bwrap", "firejail"]) execFileSync("sh", ["-c", `command -v ${tool}`]);

const { list: IDENTITIES, missing } = identities();
if (missing) process.stderr.write(`[diffcheck-planted] ${missing}\n`);

function runIdentity(label: "root" | "user"): RunIdentity | undefined {
  const who = IDENTITIES.find((i) => i.label === label);
  if (!who || who.uid === process.getuid?.()) return undefined;
  return { name: who.name, uid: who.uid, gid: who.gid };
}

const verdict = (r: CheckResult, ruleSet: string, mode: string) => r.verdicts.find((v) => v.ruleSet === ruleSet && v.mode === mode)?.decision;
const bypasses = (r: CheckResult) => r.disagreements.filter((d) => d.severity === "bypass").map((d) => `${d.class} [${d.ruleSet}/${d.mode}]: ${d.detail}`);

describe.each(IDENTITIES.flatMap((who) => (["bwrap", "firejail"] as DiffBackend[]).map((backend) => ({ who: who.label, backend }))))(
  "planted option files as $who under $backend",
  ({ who, backend }) => {
    it("find . * with a planted -fprint, tar with a planted --checkpoint-action, sed with a planted -i: the harm is real, the gate never allows it", { timeout: 240_000 }, async () => {
      const { spec, standard } = loadAttackFixture();
      const checker = createChecker({ spec, ruleSets: defaultRuleSets(standard), backend, identity: runIdentity(who), timeoutMs: 20_000 });
      try {
        const find = await checker.check("find . *", "fprint", ": > -fprint");
        expect(find.error).toBeUndefined();
        // The attack: find opened README.md (the first name after `-fprint`) for writing; without the planted file it writes nothing.
        expect(find.writes).toBeGreaterThan(0);
        expect((await checker.check("find . *", "fprint-control")).writes).toBe(0);
        expect(verdict(find, "no rules", "default")).toBe("ask");
        expect(verdict(find, "deny rm + .env", "bypassPermissions")).toBe("ask");
        expect(bypasses(find)).toEqual([]);

        const tar = await checker.check("tar -cf /tmp/a.tar *", "checkpoint", `printf '%s\\n' ${MARKER} > s.sh && : > --checkpoint=1 && : > '--checkpoint-action=exec=sh s.sh'`);
        expect(tar.error).toBeUndefined();
        // The attack: tar ran sh s.sh, which ran the marker (without the planted files tar runs alone).
        expect(tar.execs).toBeGreaterThanOrEqual(3);
        expect((await checker.check("tar -cf /tmp/a.tar *", "checkpoint-control")).execs).toBe(1);
        expect(verdict(tar, "deny rm + .env", "bypassPermissions")).toBe("ask");
        expect(bypasses(tar)).toEqual([]);

        const sed = await checker.check("cd q && sed -n p *", "in-place", "mkdir q && echo b > q/a.txt && : > q/-i");
        expect(sed.error).toBeUndefined();
        // The attack: sed rewrote a.txt in place (without the planted -i it only prints).
        expect(sed.writes).toBeGreaterThan(0);
        expect((await checker.check("cd q && sed -n p *", "in-place-control", "mkdir q && echo b > q/a.txt")).writes).toBe(0);
        expect(verdict(sed, "no rules", "default")).toBe("ask");
        expect(bypasses(sed)).toEqual([]);

        // Control: the pattern cannot spell an option; read-only, allowed, nothing written.
        const plain = await checker.check("cd q && find . -name *.x", "plain", "mkdir q && : > q/-exec.x && : > q/a.x");
        expect(plain.error).toBeUndefined();
        expect(verdict(plain, "no rules", "default")).toBe("allow");
        expect(plain.writes).toBe(0);
        expect(bypasses(plain)).toEqual([]);
      } finally {
        checker.dispose();
      }
    });
  },
);
