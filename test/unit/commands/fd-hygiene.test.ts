/** The close step before every sandbox launch: only stdin, stdout and stderr go on (fd-hygiene.ts). */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { expect, it } from "vitest";
import { closerShell, hostLaunchWithClosedFds, withClosedFds } from "../../../src/node/commands/fd-hygiene";

it("closes every inherited descriptor above 2, then runs the launch with its arguments intact", () => {
  expect(closerShell()).toBeTruthy();
  const fd = openSync(tmpdir(), "r");
  try {
    // Without the step the child has the folder at 3 and 9; with it, neither.
    const stdio = ["ignore", "pipe", "pipe", fd, "ignore", "ignore", "ignore", "ignore", "ignore", fd] as const;
    const probe = ["bash", "-c", 'for f in /proc/$$/fd/*; do [ -L "$f" ] && echo "${f##*/}"; done; printf "%s|" "$@"', "p", "a b", "$c"];
    const plain = spawnSync(probe[0], probe.slice(1), { stdio: [...stdio], encoding: "utf8" });
    expect(plain.stdout).toMatch(/^9$/m);
    const line = withClosedFds({ file: probe[0], args: probe.slice(1) });
    const closed = spawnSync(line.file, line.args, { stdio: [...stdio], encoding: "utf8" });
    const fds = closed.stdout
      .split("\n")
      .filter((l) => /^\d+$/.test(l))
      .map(Number);
    // The glob's own folder descriptor is listed while it is open, but is closed when tested.
    expect(fds.filter((n) => n > 2)).toEqual([]);
    expect(closed.stdout).toContain("a b|$c|");
  } finally {
    closeSync(fd);
  }
});

it("a program started on the host (an MCP server, a hook) gets only 0–2 and exactly the environment it is spawned with: nothing of the close step's bash", () => {
  const fd = openSync(tmpdir(), "r");
  try {
    const stdio = ["ignore", "pipe", "pipe", fd, "ignore", "ignore", "ignore", "ignore", "ignore", fd] as const;
    const probe = ["bash", "-c", 'for f in /proc/$$/fd/*; do [ -L "$f" ] && echo "fd ${f##*/}"; done; env; printf "%s|" "$@"', "p", "a b", "$c"];
    // The environment a server's config gives: no PWD, no SHLVL, one of its own; and one with an SHLVL of its own.
    for (const env of [
      { PATH: process.env.PATH ?? "/usr/bin:/bin", SERVER_TOKEN: "t1" },
      { PATH: process.env.PATH ?? "/usr/bin:/bin", SHLVL: "7" },
    ]) {
      const line = hostLaunchWithClosedFds(probe[0]!, probe.slice(1), env, tmpdir());
      expect(line.file).not.toBe("bash");
      const r = spawnSync(line.file, line.args, { stdio: [...stdio], encoding: "utf8", env, cwd: tmpdir() });
      expect(r.stderr).toBe("");
      const fds = [...r.stdout.matchAll(/^fd (\d+)$/gm)].map((m) => Number(m[1]));
      expect(fds.filter((n) => n > 2)).toEqual([]);
      expect(r.stdout).toContain("a b|$c|");
      // What the probe's own bash adds (its PWD, its SHLVL: one more than it was given) is all that differs from `env`.
      const vars = Object.fromEntries([...r.stdout.matchAll(/^([A-Z_][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1], m[2]]));
      expect(vars.SHLVL).toBe(String(Number(env.SHLVL ?? 0) + 1));
      if ("SERVER_TOKEN" in env) expect(vars.SERVER_TOKEN).toBe("t1");
      expect(Object.keys(vars).sort()).toEqual([...Object.keys(env), "PWD", "SHLVL", "_"].filter((k, i, a) => a.indexOf(k) === i).sort());
    }
  } finally {
    closeSync(fd);
  }
});

it("a program that is not found, or whose name env would read as an option or assignment, is started as it is", () => {
  const env = { PATH: "/usr/bin:/bin" };
  expect(hostLaunchWithClosedFds("no-such-program-yoke", ["x"], env, tmpdir())).toEqual({ file: "no-such-program-yoke", args: ["x"] });
  expect(hostLaunchWithClosedFds("./a=b", [], env, "/")).toEqual({ file: "./a=b", args: [] });
});

it("the close step reads no ~/.bashrc on the host (bash reads it when stdin is a socket and SHLVL is unset)", () => {
  const home = mkdtempSync(join(tmpdir(), "yoke-fd-home-"));
  try {
    writeFileSync(join(home, ".bashrc"), "echo BASHRC-RAN\necho BASHRC-RAN >&2\n");
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home };
    // Control: the same bash without the step's flags does read it here.
    const control = spawnSync(closerShell()!, ["-c", "echo ok"], { encoding: "utf8", env });
    expect(control.stdout + control.stderr).toContain("BASHRC-RAN");
    for (const line of [withClosedFds({ file: "/bin/echo", args: ["ok"] }), hostLaunchWithClosedFds("echo", ["ok"], env, home)]) {
      const r = spawnSync(line.file, line.args, { encoding: "utf8", env });
      expect(r.stdout).toBe("ok\n");
      expect(r.stderr).toBe("");
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

it("the close step runs no code from the launched program's environment (BASH_ENV, imported functions, SHELLOPTS), and passes it on as it is (red team 16)", () => {
  const dir = mkdtempSync(join(tmpdir(), "yoke-fd-env-"));
  try {
    const marker = join(dir, "ran");
    writeFileSync(join(dir, "evil.sh"), `echo bash-env >> ${marker}\n`);
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      BASH_ENV: join(dir, "evil.sh"),
      "BASH_FUNC_exec%%": `() { echo function >> ${marker}; }`,
      SHELLOPTS: "xtrace",
      PS4: `$(echo ps4 >> ${marker})`,
      IFS: "x",
      BASHOPTS: "failglob",
    };
    const line = hostLaunchWithClosedFds("/usr/bin/env", [], env, dir);
    const r = spawnSync(line.file, line.args, { encoding: "utf8", env, cwd: dir });
    expect(existsSync(marker) ? readFileSync(marker, "utf8") : "").toBe("");
    const vars = r.stdout.split("\n").filter(Boolean).sort();
    expect(vars).toEqual(
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .sort(),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
