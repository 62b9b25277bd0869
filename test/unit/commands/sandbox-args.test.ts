import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapArgs } from "../../../src/node/commands/sandbox/bwrap";
import { dockerArgs } from "../../../src/node/commands/sandbox/docker";
import { firejailArgs } from "../../../src/node/commands/sandbox/firejail";
import { seatbeltProfile } from "../../../src/node/commands/sandbox/seatbelt";
import type { ResolvedPolicy } from "../../../src/node/commands/sandbox/paths";

const policy: ResolvedPolicy = {
  workspace: "/home/ann/proj",
  home: "/home/ann",
  paths: [
    { path: "/home/ann/.npmrc", mode: "ro" },
    { path: "/home/ann/.cache/pip", mode: "rw" },
  ],
};

function indexOfPair(args: string[], a: string, b: string): number {
  return args.findIndex((x, i) => x === a && args[i + 1] === b);
}

describe("bwrapArgs", () => {
  const args = bwrapArgs(policy, { cwd: "/home/ann/proj/src", network: "off" }, {});

  it("mounts the root read-only with private /tmp, /dev and /proc", () => {
    expect(args.slice(0, 9)).toEqual(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]);
  });

  it("hides home behind a tmpfs and binds the workspace and listed paths after it", () => {
    const realHome = mkdtempSync(join(tmpdir(), "yoke-home-"));
    const p = { ...policy, home: realHome, workspace: `${realHome}/proj`, paths: [{ path: `${realHome}/.npmrc`, mode: "ro" as const }, { path: `${realHome}/.cache/pip`, mode: "rw" as const }] };
    const args = bwrapArgs(p, { cwd: `${realHome}/proj`, network: "off" }, {});
    rmSync(realHome, { recursive: true });
    const home = indexOfPair(args, "--tmpfs", realHome);
    const ws = args.findIndex((x, i) => x === "--bind-try" && args[i + 1] === `${realHome}/proj`);
    const npmrc = args.findIndex((x, i) => x === "--ro-bind-try" && args[i + 1] === `${realHome}/.npmrc`);
    const pip = args.findIndex((x, i) => x === "--bind-try" && args[i + 1] === `${realHome}/.cache/pip`);
    expect(home).toBeGreaterThan(0);
    expect(ws).toBeGreaterThan(home);
    expect(npmrc).toBeGreaterThan(home);
    expect(pip).toBeGreaterThan(home);
  });

  it("cuts the network, the PID namespace and the session, and dies with its parent", () => {
    for (const flag of ["--unshare-net", "--unshare-pid", "--new-session", "--die-with-parent"]) expect(args).toContain(flag);
    expect(args.slice(-2)).toEqual(["--chdir", "/home/ann/proj/src"]);
  });

  it("keeps the network when the command asks for it", () => {
    expect(bwrapArgs(policy, { cwd: "/home/ann/proj", network: "on" }, {})).not.toContain("--unshare-net");
  });

  it("binds a workspace under /tmp after the private /tmp", () => {
    const a = bwrapArgs({ workspace: "/tmp/w", home: "/root", paths: [] }, { cwd: "/tmp/w", network: "off" }, {});
    expect(a.findIndex((x, i) => x === "--bind-try" && a[i + 1] === "/tmp/w")).toBeGreaterThan(indexOfPair(a, "--tmpfs", "/tmp"));
  });
});

describe("firejailArgs", () => {
  it("whitelists the workspace and listed home paths, read-only by default, with no network", () => {
    const a = firejailArgs(policy, { cwd: "/home/ann/proj", network: "off" });
    expect(a).toEqual([
      "--quiet",
      "--noprofile",
      "--deterministic-exit-code",
      "--deterministic-shutdown",
      "--read-only=/",
      "--private-tmp",
      "--whitelist=/home/ann/proj",
      "--read-write=/home/ann/proj",
      "--whitelist=/home/ann/.npmrc",
      "--read-only=/home/ann/.npmrc",
      "--whitelist=/home/ann/.cache/pip",
      "--read-write=/home/ann/.cache/pip",
      "--net=none",
    ]);
  });

  it("uses an empty private home when nothing in home is visible", () => {
    const a = firejailArgs({ workspace: "/srv/w", home: "/home/ann", paths: [] }, { cwd: "/srv/w", network: "on" });
    expect(a).toContain("--private");
    expect(a).not.toContain("--net=none");
  });
});

describe("dockerArgs", () => {
  it("runs a throw-away container with the workspace mounted and no network", () => {
    const a = dockerArgs(policy, { argv: ["bash", "-c", "ls"], cwd: "/home/ann/proj", network: "off", id: "c3" }, "img:1");
    expect(a.slice(0, 7)).toEqual(["run", "--rm", "--init", "--name", `yoke-${process.pid}-c3`, "--network", "none"]);
    expect(a).toContain("/home/ann/proj:/home/ann/proj");
    expect(a).toContain("/home/ann/.npmrc:/home/ann/.npmrc:ro");
    expect(a.at(-1)).toBe("img:1");
  });
});

describe("seatbeltProfile", () => {
  it("denies home and writes outside the workspace, then allows the workspace, listed paths and temp folders", () => {
    expect(seatbeltProfile(policy, { network: "off" }, ["/private/tmp"])).toBe(
      [
        "(version 1)",
        "(allow default)",
        '(deny file-read* file-write* (subpath "/home/ann"))',
        '(allow file-read* (subpath "/home/ann/proj") (subpath "/home/ann/.npmrc") (subpath "/home/ann/.cache/pip"))',
        "(deny file-write*)",
        '(allow file-write* (subpath "/home/ann/proj") (subpath "/home/ann/.cache/pip") (subpath "/private/tmp") (literal "/dev/null") (literal "/dev/zero") (regex #"^/dev/tty") (regex #"^/dev/fd/"))',
        "(deny network*)",
        "",
      ].join("\n"),
    );
  });

  it("allows the network when asked and escapes quotes in paths", () => {
    const p = seatbeltProfile({ workspace: '/w/"q"', home: "/", paths: [] }, { network: "on" }, []);
    expect(p).not.toContain("(deny network*)");
    expect(p).toContain('(subpath "/w/\\"q\\"")');
  });
});
