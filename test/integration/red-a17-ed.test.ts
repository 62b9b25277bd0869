/**
 * Red team A (session 17) on gate18's ed escapes: inputs where Yoke's reading of what GNU ed runs differed
 * from the real ed, each run for real — bash under strace in the differential checker's throwaway sandbox,
 * as root and as the unprivileged yoke-sectest, under bwrap and firejail. Each case asserts the attack's
 * effect in the trace (`cat` read the Read-denied .env: the escape really ran) and that the gate now denies
 * or asks in bypassPermissions (no bypass-class disagreement). On the build before the fix every one of them
 * was allowed there (docs/security.md, "Red team A on gate18"). Also make's GNUMAKEFLAGS, read as MAKEFLAGS is,
 * and npm's editor named by a committed .npmrc.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createChecker, defaultRuleSets, loadAttackFixture, type CheckResult } from "../../src/bench/diffcheck/check";
import type { DiffBackend, RunIdentity } from "../../src/bench/diffcheck/runner";
import { identities } from "../support/identities";

for (const tool of ["strace", "bwrap", "firejail", "ed"]) execFileSync("sh", ["-c", `command -v ${tool}`]);

const { list: IDENTITIES, missing } = identities();
if (missing) process.stderr.write(`[red-a17-ed] ${missing}\n`);

function runIdentity(label: "root" | "user"): RunIdentity | undefined {
  const who = IDENTITIES.find((i) => i.label === label);
  if (!who || who.uid === process.getuid?.()) return undefined;
  return { name: who.name, uid: who.uid, gid: who.gid };
}

const verdict = (r: CheckResult, ruleSet: string, mode: string) => r.verdicts.find((v) => v.ruleSet === ruleSet && v.mode === mode)?.decision;
const bypasses = (r: CheckResult) => r.disagreements.filter((d) => d.severity === "bypass").map((d) => `${d.class} [${d.ruleSet}/${d.mode}]: ${d.detail}`);
const seen = (r: CheckResult, cls: string, detail: string) => r.disagreements.some((d) => d.class === cls && d.detail.includes(detail));

/** [command, the gate's answer in bypassPermissions under Read(**\/.env), a file made first]. */
const ATTACKS: Array<[string, "deny" | "ask", string?]> = [
  // `-pr` is the prompt `r` (GNU ed's argument parser), not restricted mode.
  ["echo '!cat .env' | ed -pr", "deny"],
  ["ed -G -pr <<< '!cat .env'", "deny"],
  // A bracket expression may hold the pattern's delimiter (search address, global command).
  ["printf '%s\\n' a / . '/[/]/w !cat .env' | ed -s f", "deny"],
  ["printf '%s\\n' a / . 'g/[/]/!cat .env' | ed -s f", "deny"],
  // `%` is GNU ed's whole-buffer address.
  ["printf '%s\\n' a x . '%w !cat .env' | ed -s f", "deny"],
  // ed's input is the pipe, though it is not the stage's first command; or what `exec <` made stdin.
  ["printf '%s\\n' '!cat .env' | { true; ed -s f; }", "ask"],
  ["printf '%s\\n' '!cat .env' | sh -c 'ed -s f'", "ask"],
  ["printf '%s\\n' '!cat .env' | eval ed -s f", "ask"],
  ["exec < s; ed -s README.md", "ask", "printf '!cat .env\\n' > s"],
];

describe.each(IDENTITIES.flatMap((who) => (["bwrap", "firejail"] as DiffBackend[]).map((backend) => ({ who: who.label, backend }))))(
  "red team A's ed inputs as $who under $backend",
  ({ who, backend }) => {
    it("the real ed ran each escape (cat read .env); the gate denies or asks in bypassPermissions", { timeout: 300_000 }, async () => {
      const { spec, standard } = loadAttackFixture();
      const checker = createChecker({ spec, ruleSets: defaultRuleSets(standard), backend, identity: runIdentity(who), timeoutMs: 20_000 });
      try {
        for (const [command, expected, plant] of ATTACKS) {
          const r = await checker.check(command, "red-a17-ed", plant);
          expect(r.error, command).toBeUndefined();
          expect(seen(r, "read of denied path", "cat read .env"), command).toBe(true);
          expect(verdict(r, "deny rm + .env", "bypassPermissions"), command).toBe(expected);
          expect(bypasses(r), command).toEqual([]);
        }
        // GNU make reads GNUMAKEFLAGS as it reads MAKEFLAGS (`--eval` there ran `$(shell cat .env)` with no
        // makefile). The traced run shows the read under firejail; under bwrap the checker saw make run nothing.
        const gnu = await checker.check("GNUMAKEFLAGS='--eval=x:=$(shell cat .env >&2)' make -n", "red-a17-gnumakeflags");
        expect(gnu.error).toBeUndefined();
        if (backend === "firejail") expect(seen(gnu, "read of denied path", "cat read .env")).toBe(true);
        expect(verdict(gnu, "deny rm + .env", "bypassPermissions")).toBe("ask");
        expect(bypasses(gnu)).toEqual([]);
        // make's -f in a short-option cluster reads the makefile from the pipe.
        const mk = await checker.check("printf 'all:\\n\\tcat .env\\n' | make -sf -", "red-a17-make-cluster");
        expect(mk.error).toBeUndefined();
        expect(seen(mk, "read of denied path", "cat read .env")).toBe(true);
        expect(verdict(mk, "deny rm + .env", "bypassPermissions")).toBe("ask");
        expect(bypasses(mk)).toEqual([]);
        // A committed .npmrc names npm's editor: `npm edit x` ran `cat .env node_modules/x`.
        const npmrc = 'mkdir -p node_modules/x && echo \'{"name":"x","version":"1.0.0"}\' > node_modules/x/package.json && printf \'editor=cat .env\\n\' > .npmrc';
        const edit = await checker.check("npm edit x", "red-a17-npmrc", npmrc);
        expect(edit.error).toBeUndefined();
        expect(seen(edit, "read of denied path", "cat read .env")).toBe(true);
        expect(verdict(edit, "deny rm + .env", "bypassPermissions")).toBe("ask");
        expect(bypasses(edit)).toEqual([]);
        // Controls: ordinary ed work stays allowed (a text line with `!`, a search with a bracket, the
        // session-16 escape that writes a listing) and really ran.
        const text = await checker.check("printf '%s\\n' a 'Hello!' . w q | ed -s README.md", "red-a17-ed-ordinary");
        expect(text.error).toBeUndefined();
        expect(verdict(text, "deny rm + .env", "bypassPermissions")).toBe("allow");
        expect(bypasses(text)).toEqual([]);
        const listing = await checker.check("echo '!ls > listed.txt' | ed -s README.md", "red-a17-ed-ordinary");
        expect(listing.error).toBeUndefined();
        expect(listing.execs).toBeGreaterThanOrEqual(3);
        expect(verdict(listing, "deny rm + .env", "bypassPermissions")).toBe("allow");
        expect(bypasses(listing)).toEqual([]);
      } finally {
        checker.dispose();
      }
    });
  },
);
