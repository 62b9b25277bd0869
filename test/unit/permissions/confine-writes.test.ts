/**
 * The gate tells the sandbox what it assumed (issue 18): a command allowed as read-only carries
 * `confine.readOnly`; one allowed for the writes it analysed carries `confine.writes` (those paths,
 * and nothing else in the workspace, are writable); one allowed by a rule, or in bypassPermissions,
 * keeps the workspace writable. The sandbox side is tested in test/integration/sandbox-invariants.test.ts.
 */
import { describe, expect, it } from "vitest";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

const bash = (command: string) => call("run_command", { command });

describe("confine: what the gate assumed, for the sandbox to enforce", () => {
  it("lists the analysed writes of a command allowed for them (acceptEdits)", async () => {
    const w = createPermissionWorkspace();
    const gate = w.gate();
    expect(await gate.check(bash("echo hi > out.txt"), "acceptEdits")).toMatchObject({ decision: "allow", confine: { writes: [`${w.ws}/out.txt`] } });
    expect(await gate.check(bash("cat src/a.txt > b.txt; sort src/a.txt > docs/c.txt"), "acceptEdits")).toMatchObject({
      decision: "allow",
      confine: { writes: [`${w.ws}/b.txt`, `${w.ws}/docs/c.txt`] },
    });
  });

  it("keeps read-only commands read-only, and commands allowed by a rule or in bypassPermissions unconfined", async () => {
    const w = createPermissionWorkspace({ permissions: { allow: ["Bash(npm test:*)"] } });
    const gate = w.gate();
    expect((await gate.check(bash("ls src"), "default")).confine).toEqual({ readOnly: true });
    const byRule = await gate.check(bash("npm test > out.txt"), "acceptEdits");
    expect(byRule.decision).toBe("allow");
    expect(byRule.confine?.writes).toBeUndefined();
    const bypass = await gate.check(bash("echo hi > out.txt"), "bypassPermissions");
    expect(bypass.decision).toBe("allow");
    expect(bypass.confine?.writes).toBeUndefined();
  });
});

describe("confine.unreviewed: allowed by bypassPermissions mode alone", () => {
  it("marks what bypassPermissions allows, and nothing a rule allowed or a person is asked about", async () => {
    const w = createPermissionWorkspace({ permissions: { allow: ["Bash(npm test:*)"], ask: ["Bash(rm:*)"] } });
    const gate = w.gate();
    expect(await gate.check(bash("ed -s a.txt < x.ed"), "bypassPermissions")).toMatchObject({ decision: "allow", confine: { unreviewed: true } });
    expect(await gate.check(bash("make clean"), "bypassPermissions")).toMatchObject({ decision: "allow", confine: { unreviewed: true } });
    const asked = await gate.check(bash("rm -rf build"), "bypassPermissions");
    expect(asked.decision).toBe("ask");
    expect(asked.confine?.unreviewed).toBeUndefined();
    const byRule = await gate.check(bash("npm test"), "default");
    expect(byRule.decision).toBe("allow");
    expect(byRule.confine?.unreviewed).toBeUndefined();
  });
});
