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

// Red team 11 leftovers: a rule's VALUES spelled another way (chmod modes, signals, rm's
// --interactive=WHEN, chown owners), and a push forced through configuration. Deny rules widen;
// ordinary commands and allow rules stay as they were.
describe("deny and ask rules under any spelling of their values", () => {
  const g = createPermissionWorkspace({
    permissions: {
      deny: ["Bash(chmod -R 777:*)", "Bash(kill -9:*)", "Bash(rm -f:*)", "Bash(chown -R root:root:*)", "Bash(git push --force:*)"],
      ask: ["Bash(pkill -KILL:*)"],
      allow: ["Bash(chmod 644:*)"],
    },
  }).gate({ trusted: true });
  const decision = async (c: string, mode: "bypassPermissions" | "default" = "bypassPermissions") => ({ c, d: (await g.check(bash(c), mode)).decision });

  it("chmod: octal with leading zeros and symbolic modes that always give the rule's mode", async () => {
    for (const c of [
      "chmod -R 777 x",
      "chmod -R 0777 x",
      "chmod -R 00777 x",
      "chmod -R a+rwx x",
      "chmod -R ugo+rwx x",
      "chmod -R a=rwx x",
      "chmod -R u=rwx,g=rwx,o=rwx x",
      "chmod -R -x,a+rwx x",
      "chmod -R 1777 x",
      "chmod --rec a+rwx x",
      "chmod a+rwx -R x",
    ])
      expect(await decision(c)).toEqual({ c, d: "deny" });
    // The umask (no who-list) or X (directories only) decides: asked.
    for (const c of ["chmod -R +rwx x", "chmod -R a+rwX x"]) expect(await decision(c)).toEqual({ c, d: "ask" });
    for (const c of ["chmod -R 755 x", "chmod -R u+w x", "chmod -R a+rw x", "chmod -R go-w x", "chmod 777 x", "chmod -R 0644 x", "chmod -R g=u x"])
      expect(await decision(c)).toEqual({ c, d: "allow" });
  });

  it("kill: a signal by number, name, SIG name, -s, -n, --signal", async () => {
    for (const c of [
      "kill -9 1",
      "kill -KILL 1",
      "kill -SIGKILL 1",
      "kill -kill 1",
      "kill -s KILL 1",
      "kill -s 9 1",
      "kill -sKILL 1",
      "kill -n 9 1",
      "kill --signal KILL 1",
      "kill --signal=sigkill 1",
      "kill -1 -9 1",
    ])
      expect(await decision(c)).toEqual({ c, d: "deny" });
    expect(await decision("kill -s $SIG 1")).toEqual({ c: "kill -s $SIG 1", d: "ask" });
    for (const c of ["pkill -9 myserver", "pkill --signal KILL myserver", "pkill -SIGKILL myserver"]) expect(await decision(c)).toEqual({ c, d: "ask" });
    for (const c of ["kill 1", "kill -TERM 1", "kill -15 1", "kill -s HUP 1", "kill -l", "pkill myserver", "pkill -s 9 myserver"]) expect(await decision(c)).toEqual({ c, d: "allow" });
  });

  it("rm --interactive=never (=no, =none, abbreviated) is -f; chown root = 0", async () => {
    for (const c of [
      "rm --interactive=never x",
      "rm --interactive=no x",
      "rm --interactive=none x",
      "rm --inter=never x",
      "rm --interactive=nev x",
      "rm --interactive=n x",
      "rm -r --interactive=never x",
    ])
      expect(await decision(c)).toEqual({ c, d: "deny" });
    for (const c of ["rm --interactive=always x", "rm --interactive=once x", "rm --interactive x", "rm -i x", "rm x"]) expect(await decision(c)).toEqual({ c, d: "allow" });
    for (const c of ["chown -R 0:0 x", "chown -R root.root x", "chown -R 0.root x"]) expect(await decision(c)).toEqual({ c, d: "deny" });
    expect(await decision("chown -R me:me x")).toEqual({ c: "chown -R me:me x", d: "allow" });
  });

  it("a push forced through configuration: --mirror, -c remote.X.push=+…, -c remote.X.mirror, GIT_CONFIG_*, git config earlier in the line", async () => {
    for (const c of [
      "git push --mirror",
      "git push --mir origin",
      "git -c remote.origin.push=+refs/heads/*:refs/heads/* push",
      "git -c remote.origin.push=+main:main push origin",
      "git -c remote.origin.mirror=true push",
      "git -c Remote.Origin.Mirror push",
      "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.push GIT_CONFIG_VALUE_0=+refs/heads/*:refs/heads/* git push",
      "GIT_CONFIG_PARAMETERS=\"'remote.origin.push=+x:x'\" git push",
      "git config remote.origin.push '+refs/heads/*:refs/heads/*'; git push",
      "git config --add remote.origin.push +main:main && git push origin",
      "git config set remote.origin.mirror true; git push",
      "git remote add --mirror=push backup ../b.git; git push backup",
      // env's assignments are read like the shell's (red team E, session 18: env's words are NAME=VALUE pairs for any name).
      "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.push GIT_CONFIG_VALUE_0=+x:x git push",
    ])
      expect(await decision(c)).toEqual({ c, d: "deny" });
    // The value is only known when it runs, or the configuration comes from where Yoke cannot read: asked.
    for (const c of [
      'git config remote.origin.push "$R"; git push',
      "git -c remote.origin.push=$R push",
      'env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.push GIT_CONFIG_VALUE_0="$R" git push',
    ])
      expect(await decision(c)).toEqual({ c, d: "ask" });
    for (const c of [
      "git push",
      "git push origin main",
      "git -c remote.origin.push=refs/heads/main:refs/heads/main push",
      "git -c push.default=current push",
      "git -c remote.origin.mirror=false push",
      "git remote add --mirror=fetch m ../m.git; git push origin",
    ])
      expect(await decision(c)).toEqual({ c, d: "allow" });
  });

  it("allow rules stay literal: an allow rule's mode does not allow its other spellings", async () => {
    expect(await decision("chmod 644 a.txt", "default")).toEqual({ c: "chmod 644 a.txt", d: "allow" });
    expect(await decision("chmod 0644 a.txt", "default")).toEqual({ c: "chmod 0644 a.txt", d: "ask" });
    expect(await decision("chmod a=r,u+w a.txt", "default")).toEqual({ c: "chmod a=r,u+w a.txt", d: "ask" });
  });

  it("tells the model which rule denied the spelling", async () => {
    const d = await g.check(bash("chmod -R a+rwx x"), "bypassPermissions");
    expect(d).toMatchObject({ decision: "deny", by: "rule", reason: "Denied by the rule Bash(chmod -R 777:*) (.yoke/settings.local.json): the command runs `chmod -R a+rwx x`." });
  });
});
