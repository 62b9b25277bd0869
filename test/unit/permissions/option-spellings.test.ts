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

  // Red team 11. Under-blocking class: a `+` refspec forces that ref as --force does (git-push(1)).
  // Over-blocking class: an option's value read as options (`-m"new"` as -n) and a run-time word that
  // cannot be an option (an option's value, after `--`, text before the expansion) asked in bypassPermissions.
  it("red11: a + refspec is a force push; option values and words that cannot be options are not", async () => {
    const g = createPermissionWorkspace({
      permissions: { deny: ["Bash(git push --force:*)", "Bash(git push --delete:*)", "Bash(git commit --no-verify:*)", "Bash(git clean -fdx:*)", "Bash(rm -rf:*)"] },
    }).gate({ trusted: true });
    for (const c of [
      "git push origin +main",
      "git push origin :feature",
      "git push origin +HEAD:main",
      'git push origin "+$B"',
      "git commit -m x -n",
      'git commit --message "$M" --no-verify',
      "git clean -xdf",
    ])
      expect({ c, d: (await g.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, d: "deny" });
    for (const c of [
      'git commit -m"Add new function"',
      'git commit -m "$MSG"',
      'git commit -F "$(mktemp)"',
      "git clean -fd -ekeep.txt",
      "git clean -fd -e x",
      "git push -ofast origin main",
      'rm -r -- "$f"',
      "rm -r -- $f",
      'rm -r ./"$d"',
      'git commit -m "Fix ${thing}"',
    ])
      expect({ c, d: (await g.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, d: "allow" });
    // Still asked: the word may be the missing option (`f=-f`), or split into several by the shell.
    for (const c of ['rm -r "$dir"', "git commit -m $MSG", 'git push origin "$BRANCH"']) expect({ c, d: (await g.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, d: "ask" });
  });

  it("says which rule denied it", async () => {
    const d = await gate.check(bash("rm --recursive --force src"), "bypassPermissions");
    expect(d).toMatchObject({ decision: "deny", by: "rule", reason: "Denied by the rule Bash(rm -rf:*) (.yoke/settings.local.json): the command runs `rm --recursive --force src`." });
  });
});
