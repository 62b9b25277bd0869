/**
 * The pids cgroup each command runs in, where this process can make one (as root on this machine
 * and in CI): the kernel refuses forks past the limit, and what hid from the marker (a cleared
 * environment and setsid) is still found and stopped. Elsewhere, as root, the runner says the
 * limit is the watchdog's alone.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultLimits } from "../../../src/node/commands/limits";
import { CGROUP_PREFIX, pidsCgroupParent } from "../../../src/node/commands/pids-cgroup";
import { createNodeCommandRunner, type NodeCommandRunner } from "../../../src/node/commands/runner";
import { createNoSandbox } from "../../../src/node/commands/sandbox/none";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

const parent = pidsCgroupParent();
const isRoot = process.getuid?.() === 0;
let ws: TempWorkspace;
let runner: NodeCommandRunner;
const tag = Math.random().toString(36).slice(2, 8);

function sleepers(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.[0] === "Z") continue;
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").includes(needle)) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

const text = (cmd: { bounded(): { head: string[]; tail: string[] } }) => [...cmd.bounded().head, ...cmd.bounded().tail].join("\n") + "\n";

beforeEach(() => {
  ws = createTempWorkspace();
  runner = createNodeCommandRunner({
    workspace: ws.root,
    logDir: join(ws.root, ".logs"),
    sandbox: createNoSandbox(),
    pty: false,
    killGraceMs: 300,
    limits: { ...defaultLimits(), processes: 40 },
  });
});
afterEach(async () => {
  await runner.dispose();
  ws.cleanup();
});

describe.runIf(parent)("with a pids cgroup", () => {
  it("runs each command in its own cgroup at the process limit, and removes it after", async () => {
    const cmd = runner.start({
      command: "cat /proc/self/cgroup; cat \"/sys/fs/cgroup/pids$(sed -n 's/^[0-9]*:pids://p' /proc/self/cgroup)/pids.max\" 2>/dev/null",
      cwd: ws.root,
      background: false,
      network: "off",
    });
    await cmd.wait();
    const out = text(cmd);
    const own = new RegExp(`${CGROUP_PREFIX}[0-9a-f]+-c1`).exec(out)?.[0];
    expect(own, out).toBeDefined();
    if (parent!.includes("/sys/fs/cgroup/pids")) expect(out).toContain("40\n");
    expect(existsSync(join(parent!, own!))).toBe(false);
  });

  it("the kernel refuses forks past the limit, and the command is stopped and says why", async () => {
    // A duration no other test uses, so that only this command's sleeps are looked for (test files run side by side).
    const secs = `30.${Math.floor(Math.random() * 9e5) + 1e5}`;
    const cmd = runner.start({ command: `for i in $(seq 100); do sleep ${secs} & done; wait; echo SURVIVED`, cwd: ws.root, background: false, network: "off", timeoutMs: 25_000 });
    const r = await cmd.wait();
    expect(r.limitExceeded).toEqual({ limit: "processes", max: 40 });
    expect(r.timedOut).toBe(false);
    expect(text(cmd)).not.toContain("SURVIVED");
    expect(sleepers(`sleep ${secs}`)).toEqual([]);
  });

  it("stops what left the process group and cleared its environment (env -i setsid), when the command ends", async () => {
    const cmd = runner.start({ command: `(env -i setsid sleep 311${tag.length} &); echo started`, cwd: ws.root, background: false, network: "off" });
    const r = await cmd.wait();
    expect(text(cmd)).toContain("started");
    expect(r.strayProcessesStopped).toBe(true);
    await new Promise((res) => setTimeout(res, 200));
    expect(sleepers(`sleep 311${tag.length}`)).toEqual([]);
  });
});

describe.runIf(isRoot && !parent)("as root without a pids cgroup", () => {
  it("says that the process limit is held by the watchdog only", () => {
    expect(runner.degraded.join("\n")).toContain("running as root with no pids cgroup to use");
  });
});

it("knows where it can make pids cgroups, or that it cannot", () => {
  // On this machine and in CI (root, cgroup v1 with the pids hierarchy) it can.
  if (isRoot && existsSync("/sys/fs/cgroup/pids/cgroup.procs")) expect(parent).toMatch(/^\/sys\/fs\/cgroup\/pids/);
  expect(parent === null || existsSync(join(parent, "cgroup.procs"))).toBe(true);
});
