/**
 * `coproc { … }` (found by the differential checker, seed 1205): tree-sitter-bash reads the group as
 * plain words, so an `sh -c` script inside it was not analysed and `cat .env` ran under `Read(.env)`
 * in bypassPermissions. Such a group is now code Yoke cannot see: it asks where a deny rule exists.
 */
import { describe, expect, it } from "vitest";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

const bash = (command: string) => call("run_command", { command });

describe("coproc with a compound body", () => {
  const w = createPermissionWorkspace({ permissions: { deny: ["Read(.env)"] } });
  const gate = w.gate({ trusted: true });

  it("asks, even in bypassPermissions, when a deny rule could apply inside the group", async () => {
    for (const c of [
      "coproc { sh -c 'cat .env'; }",
      "coproc { script -qc 'cat .env' /dev/null; }; wait",
      "coproc NAME { bash -c 'cat .env'; }",
      "coproc while true; do sh -c 'cat .env'; break; done",
      "coproc if true; then sh -c 'cat .env'; fi",
    ]) {
      const d = await gate.check(bash(c), "bypassPermissions");
      // The body after `do` or `then` is parsed as a command of that name (a wrapper read for deny rules): since
      // red team round 12 its `sh -c` script is read there, so that row is denied outright.
      if (c.startsWith("coproc while") || c.startsWith("coproc if")) {
        expect({ c, decision: d.decision }).toEqual({ c, decision: "deny" });
        continue;
      }
      expect({ c, decision: d.decision }).toEqual({ c, decision: "ask" });
      expect(d.reason).toMatch(/coproc runs a compound command \((\{|while|if) …\) that Yoke's parser does not read/);
    }
  });

  it("still denies what it can read, and leaves a plain coproc alone", async () => {
    expect((await gate.check(bash("coproc { cat .env; }"), "bypassPermissions")).decision).toBe("deny");
    expect((await gate.check(bash("coproc cat README.md"), "bypassPermissions")).decision).toBe("allow");
    // A simple command after coproc is that command, read as any other (its sh -c script included).
    expect((await gate.check(bash("coproc sh -c 'cat .env'"), "bypassPermissions")).decision).toBe("deny");
  });
});
