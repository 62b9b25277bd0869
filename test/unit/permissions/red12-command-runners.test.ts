/**
 * Red team round 12: programs that run a command the gate did not follow (the session test is
 * test/integration/red12-command-runners.test.ts).
 *
 * - A wrapper read only for deny rules (`setsid`, `fakeroot`, `taskset`, `ionice`, `npx`…) given a
 *   shell with `-c`, or `env` and then a shell: its candidates were matched as they stand, never seen
 *   through, so `setsid sh -c 'rm -rf src'` passed `Bash(rm -rf:*)`.
 * - git's commands by their program names (`/usr/lib/git-core/git-reset`, `git-clean`, `git-cat-file`).
 * - Options and subcommands that name the command: `npx -c`, `cmake -E env|chdir|time`,
 *   `start-stop-daemon -x … -- …`, `gcc -wrapper PROG,ARGS`.
 */
import { describe, expect, it } from "vitest";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

const bash = (command: string) => call("run_command", { command });

describe("commands run by wrappers, git's program names and tools' options", () => {
  const w = createPermissionWorkspace({ permissions: { deny: ["Bash(rm -rf:*)", "Bash(git reset:*)", "Bash(git clean:*)", "Bash(git push:*)", "Read(.env)"] } });
  const gate = w.gate({ trusted: true });

  it("denies (or asks) in bypassPermissions what the plain spelling is denied for", async () => {
    for (const c of [
      "setsid sh -c 'rm -rf src'",
      "fakeroot -- sh -c 'rm -rf src'",
      "fakeroot sh -c 'rm -rf src'",
      "setsid env sh -c 'rm -rf src'",
      "setsid env A=1 bash -c 'git reset --hard'",
      "taskset 1 bash -c 'rm -rf src'",
      "ionice -c3 sh -c 'rm -rf src'",
      "tini -- bash -c 'git clean -fd'",
      "setarch x86_64 sh -c 'rm -rf src'",
      "eatmydata bash -c 'rm -rf src'",
      "cross-env A=1 sh -c 'rm -rf src'",
      "npx sh -c 'rm -rf src'",
      "setsid nice sh -c 'rm -rf src'",
      "/usr/lib/git-core/git-reset -q --hard",
      "/usr/lib/git-core/git-clean -fdq",
      "git-reset --hard",
      "/usr/lib/git-core/git-push origin main",
      "/usr/lib/git-core/git-cat-file -p HEAD:.env",
      "git-shell -c 'git-receive-pack .'",
      "npx -c 'rm -rf src'",
      "npx --call 'rm -rf src'",
      "npx --cal='rm -rf src'",
      "npm exec -c 'rm -rf src'",
      "pnpm exec -c 'rm -rf src'",
      "cmake -E env rm -rf src",
      "cmake -E chdir . rm -rf src",
      "cmake -E time git reset --hard",
      "cmake -E rm -rf src",
      "start-stop-daemon -S -x /bin/rm -- -rf src",
      "start-stop-daemon --start --exec=/usr/bin/git -- reset --hard",
      "start-stop-daemon -S -a rm -- -rf src",
      "gcc -wrapper /bin/rm,-rf,src -fsyntax-only -x c /dev/null",
      "gcc -wrapper 'sh,-c,rm -rf src,x' -fsyntax-only -x c /dev/null",
      "start-stop-daemon -S -d . -x /bin/rm -- -rf src",
      "cc -wrapper sh,-c,'rm -rf src' x.c",
      "nodemon --exec 'rm -rf src' src/index.ts",
      "npx nodemon -x 'rm -rf src'",
      "npx nodemon --exec='git reset --hard'",
      "nodemon -- rm -rf src",
      "nodemon --exec rm -rf src",
      "nodemon -x rm -- -rf src",
      'echo \'{"exec":"rm -rf src"}\' > nodemon.json && nodemon',
      "nodemon --config c.json",
    ]) {
      const d = await gate.check(bash(c), "bypassPermissions");
      expect({ c, decision: d.decision }).not.toEqual({ c, decision: "allow" });
    }
  });

  it("denies outright where the command is plain to read", async () => {
    for (const c of ["setsid sh -c 'rm -rf src'", "/usr/lib/git-core/git-reset --hard", "npx -c 'rm -rf src'", "cmake -E env rm -rf src", "start-stop-daemon -S -x /bin/rm -- -rf src"]) {
      const d = await gate.check(bash(c), "bypassPermissions");
      expect({ c, decision: d.decision }).toEqual({ c, decision: "deny" });
    }
  });

  it("leaves ordinary work alone in bypassPermissions", async () => {
    for (const c of [
      "setsid sh -c 'ls src'",
      "taskset 1 bash -c 'cat README.md'",
      "fakeroot -- dpkg-deb --build pkg",
      "npx -c 'echo hi'",
      "npx prettier --check .",
      "cmake -E env A=1 sh -c 'echo $A'",
      "cmake -E rm -f build/x.o",
      "cmake -E make_directory build",
      "cmake --build build",
      "/usr/lib/git-core/git-status --short",
      "gcc -O2 -o app main.c",
      "start-stop-daemon -S -x /usr/bin/sleep -- 1",
      "flock /tmp/l sh -c 'make test'",
    ]) {
      const d = await gate.check(bash(c), "bypassPermissions");
      expect({ c, decision: d.decision }).toEqual({ c, decision: "allow" });
    }
  });

  it("reads git's program names as git in default mode too (read-only commands stay allowed, others ask)", async () => {
    expect((await gate.check(bash("git-status --short"), "default")).decision).toBe("allow");
    expect((await gate.check(bash("git-reset --hard"), "default")).decision).toBe("deny");
    expect((await gate.check(bash("setsid sh -c 'ls'"), "default")).decision).toBe("ask");
  });
});
