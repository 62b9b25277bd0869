import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapArgs, bwrapHardening, FULL_FEATURES } from "../../../src/node/commands/sandbox/bwrap";
import { dockerArgs } from "../../../src/node/commands/sandbox/docker";
import { firejailArgs } from "../../../src/node/commands/sandbox/firejail";
import { buildMountPlan, type HostFacts } from "../../../src/node/commands/sandbox/plan";
import { seatbeltProfile } from "../../../src/node/commands/sandbox/seatbelt";
import type { ResolvedPolicy } from "../../../src/node/commands/sandbox/paths";

/** A machine with nothing special: only the homes the test names. */
const facts = (over: Partial<HostFacts> = {}): HostFacts => ({ homes: [], runtime: [], secrets: [], needed: [], sockets: () => [], ...over });

let root: string;
let home: string;
let policy: ResolvedPolicy;
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-args-")));
  home = join(root, "home", "ann");
  mkdirSync(join(home, "proj"), { recursive: true });
  mkdirSync(join(home, ".cache", "pip"), { recursive: true });
  policy = {
    workspace: join(home, "proj"),
    home,
    paths: [
      { path: join(home, ".npmrc"), mode: "ro" },
      { path: join(home, ".cache", "pip"), mode: "rw" },
    ],
  };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function indexOfPair(args: string[], a: string, b: string): number {
  return args.findIndex((x, i) => x === a && args[i + 1] === b);
}

describe("bwrapArgs", () => {
  const run = (over: { network?: "on" | "off"; f?: Partial<HostFacts> } = {}) =>
    bwrapArgs(policy, { cwd: policy.workspace, network: over.network ?? "off" }, facts({ homes: [join(root, "home")], ...over.f })).args;

  it("runs in a new user namespace with every capability dropped and no nested user namespaces", () => {
    const args = run();
    expect(args.slice(0, 4)).toEqual(["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]);
    for (const flag of ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--new-session", "--die-with-parent"]) expect(args).toContain(flag);
  });

  it("mounts the root read-only, a new /dev and /proc with /proc/sys read-only, and size-limited private temporary folders", () => {
    const args = run();
    const start = args.indexOf("--ro-bind");
    expect(args.slice(start, start + 10)).toEqual(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"]);
    for (const t of ["/tmp", "/var/tmp", "/dev/shm"]) {
      const at = indexOfPair(args, "--tmpfs", t);
      expect(at).toBeGreaterThan(0);
      expect(args.slice(at - 2, at)).toEqual(["--size", String(1024 * 1024 * 1024)]);
    }
    expect(args.slice(-4)).toEqual(["--remount-ro", "/dev", "--chdir", policy.workspace]);
  });

  it("hides the homes behind a tmpfs and binds the workspace and listed paths after it", () => {
    const args = run();
    const homes = indexOfPair(args, "--tmpfs", join(root, "home"));
    const ws = indexOfPair(args, "--bind", policy.workspace);
    const npmrc = indexOfPair(args, "--ro-bind-try", join(home, ".npmrc"));
    const pip = indexOfPair(args, "--bind-try", join(home, ".cache", "pip"));
    expect(homes).toBeGreaterThan(0);
    expect(ws).toBeGreaterThan(homes);
    expect(npmrc).toBeGreaterThan(homes);
    expect(pip).toBeGreaterThan(homes);
  });

  it("keeps the network when the command asks for it", () => {
    expect(run({ network: "on" })).not.toContain("--unshare-net");
  });

  it("binds a workspace under /tmp after the private /tmp", () => {
    const w = join(root, "w");
    mkdirSync(w, { recursive: true });
    const a = bwrapArgs({ workspace: w, home: "/nonexistent", paths: [] }, { cwd: w, network: "off" }, facts()).args;
    expect(indexOfPair(a, "--bind", w)).toBeGreaterThan(indexOfPair(a, "--tmpfs", "/tmp"));
  });

  it("hides system secrets and host sockets, and re-exposes a needed file inside a hidden folder", () => {
    const args = run({
      f: {
        secrets: [
          { path: "/etc/shadow", dir: false },
          { path: "/etc/ssl/private", dir: true },
        ],
        runtime: ["/run"],
        needed: ["/run/systemd/resolve/stub-resolv.conf"],
        sockets: () => ["/srv/db.sock"],
      },
    });
    expect(indexOfPair(args, "/dev/null", "/etc/shadow")).toBeGreaterThan(0);
    // A hidden folder: an empty tmpfs nobody may enter.
    const at = indexOfPair(args, "--tmpfs", "/etc/ssl/private");
    expect(args.slice(at - 4, at)).toEqual(["--size", "65536", "--perms", "0000"]);
    expect(indexOfPair(args, "/dev/null", "/srv/db.sock")).toBeGreaterThan(0);
    expect(indexOfPair(args, "--ro-bind-try", "/run/systemd/resolve/stub-resolv.conf")).toBeGreaterThan(indexOfPair(args, "--tmpfs", "/run"));
  });

  it("degrades with older bwrap versions: no --disable-userns, no --size", () => {
    const f = { ...FULL_FEATURES, disableUserns: false, size: false };
    const a = bwrapArgs(policy, { cwd: policy.workspace, network: "off" }, facts(), { features: f }).args;
    expect(a).not.toContain("--disable-userns");
    expect(a).not.toContain("--size");
    expect(bwrapHardening({ ...f, userns: false }, "off")).toEqual([
      "--cap-drop",
      "ALL",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--unshare-net",
      "--new-session",
      "--die-with-parent",
    ]);
  });
});

describe("firejailArgs", () => {
  it("drops capabilities, keeps no new privileges, filters system calls, has no disks in /dev, and whitelists home paths", () => {
    const plan = buildMountPlan({ policy }, facts());
    const a = firejailArgs(policy, plan, { cwd: policy.workspace, network: "off" }, { userHome: home, root: false, topEntries: ["usr", "etc", "proc", "run", "tmp", "home", "opt"] });
    expect(a.slice(0, 14)).toEqual([
      "--quiet",
      "--noprofile",
      "--deterministic-exit-code",
      "--deterministic-shutdown",
      "--caps.drop=all",
      "--nonewprivs",
      "--seccomp",
      "--restrict-namespaces",
      "--private-dev",
      "--noroot",
      // Each entry of / rather than / itself: a bind mount of / would cost the user namespace.
      "--read-only=/usr",
      "--read-only=/etc",
      "--read-only=/home",
      "--read-only=/opt",
    ]);
    // The temporary root of this test is under /tmp: /tmp becomes a tmpfs holding only the visible paths.
    expect(a).not.toContain("--private-tmp");
    for (const p of [policy.workspace, join(home, ".npmrc"), join(home, ".cache", "pip")]) expect(a).toContain(`--whitelist=${p}`);
    expect(a).toContain(`--read-write=${policy.workspace}`);
    expect(a).toContain(`--read-only=${join(home, ".npmrc")}`);
    expect(a).toContain(`--read-write=${join(home, ".cache", "pip")}`);
    expect(a.at(-1)).toBe("--net=none");
  });

  it("uses an empty private home when nothing in home is visible, and no --noroot as root", () => {
    const w = join(root, "srv-w");
    mkdirSync(w, { recursive: true });
    const p = { workspace: w, home: "/home/ann", paths: [] };
    const a = firejailArgs(p, buildMountPlan({ policy: p }, facts()), { cwd: w, network: "on" }, { userHome: "/home/ann", root: true });
    expect(a).toContain("--private");
    expect(a).not.toContain("--noroot");
    expect(a).toContain("--read-only=/");
    expect(a).not.toContain("--net=none");
  });

  it("blacklists hidden folders except the paths kept visible in them", () => {
    const plan = buildMountPlan({ policy }, facts({ secrets: [{ path: "/etc/shadow", dir: false }] }));
    const a = firejailArgs(policy, plan, { cwd: policy.workspace, network: "off" }, { userHome: home, root: false });
    expect(a).toContain("--blacklist=/etc/shadow");
  });
});

describe("dockerArgs", () => {
  it("runs a throw-away container with every capability dropped, the workspace mounted, limits and no network", () => {
    const a = dockerArgs(policy, { argv: ["bash", "-c", "ls"], cwd: policy.workspace, network: "off", id: "c3" }, "img:1", undefined, { processes: 100, memoryMb: 512 });
    expect(a.slice(0, 7)).toEqual(["run", "--rm", "--init", "--name", `yoke-${process.pid}-c3`, "--network", "none"]);
    expect(a).toContain(`${policy.workspace}:${policy.workspace}`);
    expect(a).toContain(`${join(home, ".npmrc")}:${join(home, ".npmrc")}:ro`);
    expect(a.join(" ")).toContain("--cap-drop ALL --security-opt no-new-privileges");
    expect(a.join(" ")).toContain("--pids-limit 100 --memory 512m");
    expect(a.at(-1)).toBe("img:1");
  });

  it("mounts the workspace read-only for a read-only command", () => {
    const a = dockerArgs(policy, { argv: ["ls"], cwd: policy.workspace, network: "off", id: "c4", confine: { readOnly: true } }, "img:1");
    expect(a).toContain(`${policy.workspace}:${policy.workspace}:ro`);
  });
});

describe("seatbeltProfile", () => {
  const p: ResolvedPolicy = {
    workspace: "/Users/ann/proj",
    home: "/Users/ann",
    paths: [
      { path: "/Users/ann/.npmrc", mode: "ro" },
      { path: "/Users/ann/.cache/pip", mode: "rw" },
    ],
  };

  it("denies the homes and writes outside the workspace, then allows the workspace, listed paths and temp folders, and keeps protected paths read-only", () => {
    const text = seatbeltProfile(p, { network: "off" }, ["/private/tmp"]);
    const lines = text.split("\n");
    expect(lines.slice(0, 6)).toEqual([
      "(version 1)",
      "(allow default)",
      '(deny file-read* file-write* (subpath "/Users/ann") (subpath "/Users") (subpath "/var/root") (subpath "/private/var/root"))',
      '(allow file-read* (subpath "/Users/ann/proj") (subpath "/Users/ann/.npmrc") (subpath "/Users/ann/.cache/pip"))',
      "(deny file-write*)",
      '(allow file-write* (subpath "/Users/ann/proj") (subpath "/Users/ann/.cache/pip") (subpath "/private/tmp") (literal "/dev/null") (literal "/dev/zero") (regex #"^/dev/tty") (regex #"^/dev/fd/"))',
    ]);
    expect(lines[6]).toContain('(deny file-write* (literal "/Users/ann/proj/.git/config") (subpath "/Users/ann/proj/.git/config")');
    expect(lines[6]).toContain('(literal "/Users/ann/proj/.vscode")');
    expect(lines.at(-2)).toBe("(deny network*)");
  });

  it("denies the paths the rules hide, honours approvals, and has no writable workspace for a read-only command", () => {
    const text = seatbeltProfile(p, { network: "on", confine: { writable: ["/Users/ann/proj/.vscode/tasks.json"] } }, [], { hide: ["/Users/ann/proj/secrets"], readOnly: [] });
    expect(text).toContain('(deny file-read* file-write* (literal "/Users/ann/proj/secrets") (subpath "/Users/ann/proj/secrets"))');
    expect(text).not.toContain('(literal "/Users/ann/proj/.vscode")');
    expect(text).not.toContain("(deny network*)");
    const ro = seatbeltProfile(p, { network: "off", confine: { readOnly: true } }, ["/private/tmp"]);
    expect(ro).toContain('(allow file-write* (subpath "/private/tmp")');
  });

  it("escapes quotes in paths", () => {
    const text = seatbeltProfile({ workspace: '/w/"q"', home: "/", paths: [] }, { network: "on" }, []);
    expect(text).toContain('(subpath "/w/\\"q\\"")');
  });
});

describe("a program the deny rules forbid", () => {
  const protection = () => ({ hide: [], readOnly: [], programs: [{ name: "rm", rule: "Bash(rm:*)" }] });
  const programFiles = (n: string) => (n === "rm" ? ["/usr/bin/rm"] : []);

  it("bwrap binds, in its place, a script that names the rule and exits 126 (cannot execute)", async () => {
    const { execFileSync, spawnSync } = await import("node:child_process");
    const { args } = bwrapArgs(policy, { cwd: policy.workspace, network: "off" }, facts({ programFiles }), { protection });
    const i = args.indexOf("/usr/bin/rm");
    expect(args[i - 2]).toBe("--ro-bind");
    const stub = args[i - 1]!;
    expect(stub).not.toBe("/dev/null");
    const r = spawnSync(stub, ["-rf", "/nonexistent"], { encoding: "utf8" });
    expect(r.status).toBe(126);
    expect(r.stderr).toBe("yoke: rm is denied by the permission rule Bash(rm:*); the sandbox does not let any command start it.\n");
    expect(execFileSync("stat", ["-c", "%a", stub], { encoding: "utf8" }).trim()).toBe("555");
  });

  it("firejail blacklists it; sandbox-exec denies executing it", () => {
    const plan = buildMountPlan({ policy, protection: protection() }, facts({ programFiles }));
    expect(firejailArgs(policy, plan, { cwd: policy.workspace, network: "off" }, { userHome: home, root: false })).toContain("--blacklist=/usr/bin/rm");
    expect(seatbeltProfile(policy, { network: "off" }, undefined, protection())).toMatch(/\(deny process-exec [^\n]*\(literal "\/usr\/bin\/rm"\)/);
  });
});
