/**
 * The classes the differential checker found in session 16's long runs (docs/benchmarks.md), each
 * run for real — bash under strace in the checker's throwaway sandbox, as root and as the
 * unprivileged yoke-sectest, under bwrap and firejail. Each case asserts the attack's effect in the
 * trace (the denied `chmod -R 777 src` ran, `cat` or `tar` read .env) and that the gate now denies
 * or asks where that effect is forbidden (no bypass-class disagreement):
 * - `{NAME}` before a redirection is a descriptor variable, not an argument (`chmod {fd}>/dev/null -R 777 src`);
 * - a shell escape in ed's literal input reads files no Read rule was checked against (`!\cat .env`);
 * - a wrapper's earlier reading of its command reads a file list (`setsid tar -cf- README.md -Tl2`), or xargs
 *   under a wrapper names files at run time (`nsenter -- xargs -0a l cat`);
 * - a long option's file value taken for grep's pattern (`grep --exclude-fro .env -r x .`);
 * - and the checker's own false positive: git's `!` alias runs through `sh -c`, which the analysis parsed.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createChecker, defaultRuleSets, loadAttackFixture, type CheckResult } from "../../src/bench/diffcheck/check";
import type { DiffBackend, RunIdentity } from "../../src/bench/diffcheck/runner";
import { identities } from "../support/identities";

for (const tool of ["strace", "bwrap", "firejail"]) execFileSync("sh", ["-c", `command -v ${tool}`]);

const { list: IDENTITIES, missing } = identities();
if (missing) process.stderr.write(`[diffcheck-d16] ${missing}\n`);

function runIdentity(label: "root" | "user"): RunIdentity | undefined {
  const who = IDENTITIES.find((i) => i.label === label);
  if (!who || who.uid === process.getuid?.()) return undefined;
  return { name: who.name, uid: who.uid, gid: who.gid };
}

const verdict = (r: CheckResult, ruleSet: string, mode: string) => r.verdicts.find((v) => v.ruleSet === ruleSet && v.mode === mode)?.decision;
const bypasses = (r: CheckResult) => r.disagreements.filter((d) => d.severity === "bypass").map((d) => `${d.class} [${d.ruleSet}/${d.mode}]: ${d.detail}`);
const seen = (r: CheckResult, cls: string, detail: string) => r.disagreements.some((d) => d.class === cls && d.detail.includes(detail));

describe.each(IDENTITIES.flatMap((who) => (["bwrap", "firejail"] as DiffBackend[]).map((backend) => ({ who: who.label, backend }))))(
  "session 16 classes as $who under $backend",
  ({ who, backend }) => {
    it("{NAME}> before the arguments, ed's shell escape, a wrapper's file list, git's ! alias: the effect is real, the gate denies or asks", { timeout: 240_000 }, async () => {
      const { spec, standard } = loadAttackFixture();
      const checker = createChecker({ spec, ruleSets: defaultRuleSets(standard), backend, identity: runIdentity(who), timeoutMs: 20_000 });
      try {
        const fd = await checker.check("chmod {fd}>/dev/null -R 777 src", "named-fd");
        expect(fd.error).toBeUndefined();
        expect(seen(fd, "denied program ran", "chmod -R 777 src ran")).toBe(true);
        expect(verdict(fd, "deny spelled values", "bypassPermissions")).toBe("deny");
        expect(bypasses(fd)).toEqual([]);

        const ed = await checker.check("printf '%s\\n' '!\\cat .env' q | ed -s README.md", "ed-escape");
        expect(ed.error).toBeUndefined();
        expect(seen(ed, "read of denied path", "cat read .env")).toBe(true);
        // Session 17 (gate18): the escape is read as the command it runs (`\cat .env`), which the rule denies.
        expect(verdict(ed, "deny rm + .env", "bypassPermissions")).toBe("deny");
        expect(bypasses(ed)).toEqual([]);

        const list = await checker.check("setsid tar -cf- README.md -Tl2 | cat", "wrapper-list", "printf '.env\\n' > l2");
        expect(list.error).toBeUndefined();
        expect(seen(list, "read of denied path", "tar read .env")).toBe(true);
        expect(verdict(list, "deny rm + .env", "bypassPermissions")).toBe("ask");
        expect(bypasses(list)).toEqual([]);

        const grep = await checker.check("nohup grep --exclude-fro .env -r x .", "grep-exclude-from");
        expect(grep.error).toBeUndefined();
        expect(seen(grep, "read of denied path", "grep read .env")).toBe(true);
        expect(verdict(grep, "deny rm + .env", "bypassPermissions")).toBe("deny");
        expect(bypasses(grep)).toEqual([]);

        const xargs = await checker.check("nsenter -- xargs -0a l cat", "wrapper-xargs", "printf '.env\\0' > l");
        expect(xargs.error).toBeUndefined();
        expect(seen(xargs, "read of denied path", "cat read .env")).toBe(true);
        expect(verdict(xargs, "deny rm + .env", "bypassPermissions")).toBe("ask");
        expect(bypasses(xargs)).toEqual([]);

        const alias = await checker.check("git -c alias.x='!touch pwned' x", "git-alias");
        expect(alias.error).toBeUndefined();
        expect(alias.execs).toBeGreaterThanOrEqual(3);
        expect(verdict(alias, "no rules", "acceptEdits")).toBe("allow");
        expect(bypasses(alias)).toEqual([]);
      } finally {
        checker.dispose();
      }
    });
  },
);
