import { describe, expect, it } from "vitest";
import { defaultLimits, limitPrelude, resolveLimits } from "../../../src/node/commands/limits";
import { checkSandboxSettings, runnerOptionsFromSettings, SandboxSettingsError } from "../../../src/node/commands/session-runner";
import { SandboxUnavailableError } from "../../../src/node/commands/sandbox/types";

describe("limits", () => {
  it("has defaults that leave installs and builds alone but stop a 200 MB file and a fork bomb", () => {
    const d = defaultLimits();
    expect(d.cpuSeconds).toBe(3600);
    expect(d.fileSizeMb).toBeLessThan(200);
    expect(d.fileSizeMb).toBeGreaterThanOrEqual(150);
    expect(d.memoryMb).toBeGreaterThanOrEqual(2048);
    expect(d.memoryMb).toBeLessThanOrEqual(8192);
    expect(d.processes).toBe(2048);
    expect(d.tmpMb).toBe(1024);
  });

  it("takes the user's values over the defaults, 0 turning a limit off, and refuses bad ones with the key", () => {
    expect(resolveLimits({ processes: 64, fileSizeMb: 0 })).toMatchObject({ processes: 64, fileSizeMb: 0, cpuSeconds: 3600 });
    expect(() => resolveLimits({ memoryMb: -1 })).toThrow("sandbox.limits.memoryMb must be a number of MB (0 for no limit); got -1");
    expect(() => resolveLimits({ cpuSeconds: "10" as unknown as number })).toThrow('sandbox.limits.cpuSeconds must be a number of seconds (0 for no limit); got "10"');
  });

  it("writes the limits as bash ulimit commands, in KiB, and counts what runs already without a user namespace", () => {
    const l = { cpuSeconds: 60, fileSizeMb: 2, memoryMb: 1024, processes: 100, tmpMb: 8 };
    expect(limitPrelude(l, "/bin/bash", { ownUserNamespace: true, root: false })).toBe(
      "ulimit -t 60 2>/dev/null; ulimit -f 2048 2>/dev/null; ulimit -d 1048576 2>/dev/null; ulimit -u 100 2>/dev/null; ",
    );
    const shared = limitPrelude(l, "bash", { ownUserNamespace: false, root: false });
    expect(Number(/ulimit -u (\d+)/.exec(shared)![1])).toBeGreaterThan(100);
    // Root is not held by RLIMIT_NPROC: the watchdog does it.
    expect(limitPrelude(l, "bash", { ownUserNamespace: true, root: true })).not.toContain("ulimit -u");
    expect(limitPrelude({ ...l, cpuSeconds: 0, fileSizeMb: 0, memoryMb: 0, processes: 0 }, "bash", { ownUserNamespace: true, root: false })).toBe("");
    // Other shells differ in units: no prelude (the runner says the limits are degraded).
    expect(limitPrelude(l, "/bin/sh", { ownUserNamespace: true, root: false })).toBe("");
  });
});

describe("sandbox settings", () => {
  it("refuses malformed settings loudly, so that no command runs under a silent default", () => {
    const bad: Array<[unknown, string]> = [
      [{ backend: "chroot" }, '"backend" must be one of auto, bwrap, firejail, docker, sandbox-exec, none; got "chroot"'],
      [{ network: true }, '"network" must be "on" or "off"; got true'],
      [{ allowEnv: "AWS_*" }, '"allowEnv" must be a list of strings'],
      [{ env: { A: 1 } }, '"env" must be an object of strings'],
      [{ paths: [{ path: "~/.npmrc", mode: "r" }] }, '"paths" must be a list of {"path": "...", "mode": "ro" | "rw"}'],
      [{ limits: { processes: -5 } }, "sandbox.limits.processes must be a number of processes (0 for no limit); got -5"],
    ];
    for (const [s, msg] of bad) {
      let err: unknown;
      try {
        checkSandboxSettings(s as never);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SandboxSettingsError);
      expect(err).toBeInstanceOf(SandboxUnavailableError);
      expect((err as Error).message).toContain(msg);
    }
  });

  it("turns the settings into runner options", () => {
    const o = runnerOptionsFromSettings({ allowEnv: ["X"], env: { Y: "1" }, limits: { processes: 10 }, timeoutS: 5, network: "on" });
    expect(o).toMatchObject({ allowEnv: ["X"], setEnv: { Y: "1" }, network: "on", defaultTimeoutMs: 5000 });
    expect(o.limits!.processes).toBe(10);
  });
});
