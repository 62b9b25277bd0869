/**
 * Red team H (session 24): a here-document's delimiter read two ways. bash ends `cat <<E''OF` at the
 * first line `EOF` (the word after quote removal); tree-sitter ended it at `E''OF` as written, so the
 * lines between were data to the gate and commands to bash. Run for real — bash under strace in the
 * differential checker's throwaway sandbox, as root and as the unprivileged yoke-sectest, under bwrap
 * and firejail: the trace shows the hidden `cat .env` and `touch w24h` ran, and the gate now asks
 * (plan: denies) where before it allowed them as read-only (a bypass-class disagreement in every rule
 * set and mode). A plain here-document stays allowed. Also the pattern of `${x#…}` (one leaf to
 * tree-sitter, expanded by bash with its command substitutions).
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createChecker, defaultRuleSets, loadAttackFixture, type CheckResult } from "../../src/bench/diffcheck/check";
import type { DiffBackend, RunIdentity } from "../../src/bench/diffcheck/runner";
import { identities } from "../support/identities";

for (const tool of ["strace", "bwrap", "firejail"]) execFileSync("sh", ["-c", `command -v ${tool}`]);

const { list: IDENTITIES, missing } = identities();
if (missing) process.stderr.write(`[red-h24-heredoc] ${missing}\n`);

function runIdentity(label: "root" | "user"): RunIdentity | undefined {
  const who = IDENTITIES.find((i) => i.label === label);
  if (!who || who.uid === process.getuid?.()) return undefined;
  return { name: who.name, uid: who.uid, gid: who.gid };
}

const verdict = (r: CheckResult, ruleSet: string, mode: string) => r.verdicts.find((v) => v.ruleSet === ruleSet && v.mode === mode)?.decision;
const bypasses = (r: CheckResult) => r.disagreements.filter((d) => d.severity === "bypass").map((d) => `${d.class} [${d.ruleSet}/${d.mode}]: ${d.detail}`);
const seen = (r: CheckResult, cls: string, detail: string) => r.disagreements.some((d) => d.class === cls && d.detail.includes(detail));

describe.each(IDENTITIES.flatMap((who) => (["bwrap", "firejail"] as DiffBackend[]).map((backend) => ({ who: who.label, backend }))))(
  "a here-document's delimiter as $who under $backend",
  ({ who, backend }) => {
    it("the lines bash runs after its end are seen: the effect is real, the gate asks", { timeout: 120_000 }, async () => {
      const { spec, standard } = loadAttackFixture();
      const checker = createChecker({ spec, ruleSets: defaultRuleSets(standard), backend, identity: runIdentity(who), timeoutMs: 20_000 });
      try {
        const read = await checker.check("cat <<E''OF\nEOF\ncat .env\ntouch w24h\nE''OF", "heredoc-delimiter");
        expect(read.error).toBeUndefined();
        expect(seen(read, "read of denied path", "cat read .env")).toBe(true);
        expect(read.writes).toBeGreaterThanOrEqual(1);
        expect(verdict(read, "deny rm + .env", "default")).toBe("ask");
        expect(verdict(read, "deny rm + .env", "bypassPermissions")).toBe("ask");
        expect(verdict(read, "deny rm + .env", "plan")).toBe("deny");
        expect(bypasses(read)).toEqual([]);

        // tree-sitter ended a document at a line that only starts with the word: bash reads on.
        const prefix = await checker.check("cat <<EOF\nEOF;cat <<'Y'\nEOF\ncat .env\nY", "heredoc-prefix");
        expect(prefix.error).toBeUndefined();
        expect(seen(prefix, "read of denied path", "cat read .env")).toBe(true);
        expect(verdict(prefix, "deny rm + .env", "bypassPermissions")).toBe("ask");
        expect(bypasses(prefix)).toEqual([]);

        // The pattern of ${x#…}: one leaf to tree-sitter, expanded by bash (cat runs, reads .env).
        const pattern = await checker.check('echo "${PWD#$(cat .env)}"', "expansion-pattern");
        expect(pattern.error).toBeUndefined();
        expect(seen(pattern, "read of denied path", "cat read .env")).toBe(true);
        expect(verdict(pattern, "deny rm + .env", "plan")).toBe("deny");
        expect(bypasses(pattern)).toEqual([]);

        const plain = await checker.check("cat <<'EOF'\nsome text\nEOF", "heredoc-plain");
        expect(plain.error).toBeUndefined();
        expect(verdict(plain, "deny rm + .env", "default")).toBe("allow");
        expect(bypasses(plain)).toEqual([]);
      } finally {
        checker.dispose();
      }
    });
  },
);
