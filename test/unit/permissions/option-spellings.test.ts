/**
 * Deny and ask rules hold for every spelling of their options (red team 10: in bypassPermissions,
 * `rm -fr src`, `rm -r -f src`, `rm -Rf src` and `rm --recursive --force src` ran under
 * `Bash(rm -rf:*)`). Through the gate over real files; allow rules stay literal.
 */
import { describe, expect, it } from "vitest";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

const bash = (command: string) => call("run_command", { command });

describe("deny and ask rules under any spelling of their options", () => {
  const w = createPermissionWorkspace({
    permissions: {
      deny: ["Bash(rm -rf:*)", "Bash(git push --force:*)", "Bash(git clean -fd:*)", "Bash(chmod -R 777 /:*)", "Bash(git reset --hard)"],
      ask: ["Bash(git branch -D:*)"],
    },
  });
  const gate = w.gate({ trusted: true });

  it("denies the reordered, split, long and abbreviated spellings in bypassPermissions", async () => {
    for (const c of [
      "rm -rf src",
      "rm -fr src",
      "rm -r -f src",
      "rm -f -r src",
      "rm -Rf src",
      "rm -fR src",
      "rm --recursive --force src",
      "rm --rec --for src",
      "rm -v -r --force src",
      "rm src -rf",
      "rm src -r -f",
      "/bin/rm -fr src",
      "git push --force origin main",
      "git push -f origin main",
      "git push origin main -f",
      "git push --forc origin",
      "git clean -df",
      "git clean -d -f",
      "git clean --force -d",
      "git clean -xdf",
      "chmod 777 -R /",
      "chmod --recursive 777 /",
      "git reset --hard",
      "cd src && rm -fr .",
      "command rm -fr src",
      "env X=1 rm -r -f src",
      "timeout 5 rm --recursive --force src",
      "find . -name src -exec rm -fr {} +",
      "echo src | xargs rm -r -f",
      "bash -c 'rm -fr src'",
    ]) {
      const d = await gate.check(bash(c), "bypassPermissions");
      expect({ c, decision: d.decision }).toEqual({ c, decision: "deny" });
    }
  });

  it("asks for the ask rule's spellings, and keeps ordinary commands allowed", async () => {
    for (const c of ["git branch -D x", "git branch -d -f x", "git branch --delete --force x", "git branch -fd x"])
      expect({ c, d: (await gate.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, d: "ask" });
    for (const c of [
      "rm -f build.log",
      "rm -r build",
      "rm src/a.ts",
      "git push origin main",
      "git push --force-with-lease origin main",
      "git clean -n",
      "git clean -f",
      "chmod -R 755 src",
      "chmod 777 -R src",
      "git reset --hard HEAD~1",
      "git reset --soft HEAD~1",
      "git branch -d x",
      "git branch feature",
    ])
      expect({ c, d: (await gate.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, d: "allow" });
  });

  it("says which rule denied it", async () => {
    const d = await gate.check(bash("rm --recursive --force src"), "bypassPermissions");
    expect(d).toMatchObject({ decision: "deny", by: "rule", reason: "Denied by the rule Bash(rm -rf:*) (.yoke/settings.local.json): the command runs `rm --recursive --force src`." });
  });
});
