/** The close step before every sandbox launch: only stdin, stdout and stderr go on (fd-hygiene.ts). */
import { spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { tmpdir } from "node:os";
import { expect, it } from "vitest";
import { closerShell, withClosedFds } from "../../../src/node/commands/fd-hygiene";

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
