import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunningCommand } from "../../../src/core/commands/types";
import { createNodeCommandRunner, type NodeCommandRunner } from "../../../src/node/commands/runner";
import { formatCommandReport } from "../../../src/core/commands/result-text";
import { defaultLimits } from "../../../src/node/commands/limits";
import { createNoSandbox } from "../../../src/node/commands/sandbox/none";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";
import { pidsOf } from "../../support/processes";

let ws: TempWorkspace;
let runner: NodeCommandRunner;
const make = (over: Partial<Parameters<typeof createNodeCommandRunner>[0]> = {}) =>
  createNodeCommandRunner({ workspace: ws.root, logDir: join(ws.root, ".logs"), sandbox: createNoSandbox(), pty: false, killGraceMs: 500, ...over });

beforeEach(() => {
  ws = createTempWorkspace();
  runner = make();
});
afterEach(async () => {
  await runner.dispose();
  ws.cleanup();
});

const start = (command: string, background = false) => runner.start({ command, cwd: ws.root, background, network: "off" });

describe("createNodeCommandRunner (what a terminal mirror uses)", () => {
  it("announces every command it starts", async () => {
    const seen: RunningCommand[] = [];
    runner.onDidStart((c) => seen.push(c));
    const a = start("true");
    const b = start("true");
    await Promise.all([a.wait(), b.wait()]);
    expect(seen.map((c) => c.id)).toEqual(["c1", "c2"]);
    expect(runner.list().map((c) => c.id)).toEqual(["c1", "c2"]);
    expect(runner.get("c2")).toBe(b);
  });

  it("replays recent raw output to a listener that attaches late, then streams", async () => {
    const cmd = start("printf 'one\\n'; sleep 0.3; printf 'two\\n'", true);
    await new Promise((r) => setTimeout(r, 150));
    let raw = "";
    cmd.onData((c) => (raw += c), { replay: true });
    await cmd.wait();
    expect(raw).toBe("one\ntwo\n");
  });

  it("calls onExit at once with the result when the command has already finished", async () => {
    const cmd = start("exit 5");
    const r = await cmd.wait();
    let got: unknown;
    cmd.onExit((x) => (got = x));
    expect(got).toBe(r);
    expect(r).toMatchObject({ exitCode: 5, signal: null, timedOut: false, cancelled: false });
  });

  it("refuses a working folder outside the workspace", () => {
    expect(() => runner.start({ command: "true", cwd: "/", background: false, network: "off" })).toThrow(`The working folder / is outside the workspace (${ws.root}).`);
  });

  it("stops processes a foreground command left running with & and says so", async () => {
    const r = await start("sleep 30 & echo started").wait();
    expect(r.strayProcessesStopped).toBe(true);
    expect(r.exitCode).toBe(0);
  });

  it("reports a command that could not be started", async () => {
    await runner.dispose();
    runner = make({ shell: "/nonexistent/shell" });
    const r = await start("true").wait();
    expect(r.exitCode).toBeNull();
    expect(r.error).toMatch(/ENOENT/);
  });

  it("sets non-interactive variables, the backend name and the request's env", async () => {
    const cmd = runner.start({ command: 'echo "$PAGER $GIT_TERMINAL_PROMPT $YOKE_SANDBOX $EXTRA"', cwd: ws.root, background: false, network: "off", env: { EXTRA: "x1" } });
    await cmd.wait();
    expect(cmd.bounded().head).toEqual(["cat 0 none x1"]);
  });

  it("keeps stdout and stderr in the order they were written", async () => {
    const cmd = start("for i in 1 2 3; do echo out$i; echo err$i >&2; done");
    await cmd.wait();
    expect(cmd.bounded().head).toEqual(["out1", "err1", "out2", "err2", "out3", "err3"]);
  });
});

describe("limits, markers and detached processes (no sandbox)", () => {
  it("runs each command under the CPU, file size and memory limits, which it cannot raise", async () => {
    await runner.dispose();
    runner = make({ limits: { cpuSeconds: 77, fileSizeMb: 3, memoryMb: 2048, processes: 500, tmpMb: 10 } });
    const cmd = start("ulimit -t; ulimit -f; ulimit -d; ulimit -H -f; ulimit -f 999999 2>/dev/null || echo cannot-raise");
    await cmd.wait();
    expect(cmd.bounded().head).toEqual(["77", "3072", String(2048 * 1024), "3072", "cannot-raise"]);
  });

  it("stops a process writing a file past the size limit, and tells the model why", async () => {
    await runner.dispose();
    runner = make({ limits: { ...defaultLimits(), fileSizeMb: 1 } });
    const cmd = start("head -c 5000000 /dev/zero > big.bin");
    const r = await cmd.wait();
    expect(r.exitCode).toBe(153);
    expect(statSync(join(ws.root, "big.bin")).size).toBe(1024 * 1024);
    const text = formatCommandReport({ id: cmd.id, command: cmd.command, network: "off", result: r, output: cmd.bounded(), timeoutMs: 1000, maxTimeoutMs: 1000 });
    expect(text).toContain("File size limit exceeded");
    expect(text).toContain(
      '[A process was stopped because a file it wrote reached the sandbox\'s file size limit. If such a large file is really needed, the user can raise "sandbox.limits.fileSizeMb" in ~/.yoke/settings.json.]',
    );
  });

  it("marks every process of a command in its environment", async () => {
    const cmd = start("env | grep ^YOKE_RUN=");
    await cmd.wait();
    expect(cmd.bounded().head[0]).toMatch(/^YOKE_RUN=[0-9a-f]{12}:c1$/);
  });

  it("stops processes that detached with setsid, a double fork, nohup or disown when the command exits", async () => {
    const secs = `985.${Math.floor(Math.random() * 1e6)}`;
    const r = await start(`setsid sleep ${secs} & (nohup sleep ${secs} >/dev/null 2>&1 &); ( (sleep ${secs} &) & ); sleep ${secs} & disown; sleep 0.3; echo started`).wait();
    expect(r.exitCode).toBe(0);
    expect(r.strayProcessesStopped).toBe(true);
    expect(pidsOf(["sleep", secs])).toEqual([]);
  });

  it("stops a background command's detached processes when the session ends", async () => {
    const secs = `984.${Math.floor(Math.random() * 1e6)}`;
    start(`setsid sh -c 'sleep ${secs} & sleep ${secs}' & wait`, true);
    for (let i = 0; i < 50 && pidsOf(["sleep", secs]).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(pidsOf(["sleep", secs])).toHaveLength(2);
    await runner.dispose();
    expect(pidsOf(["sleep", secs])).toEqual([]);
  });

  it("stops a fork bomb at the process limit, all of it", async () => {
    await runner.dispose();
    runner = make({ limits: { ...defaultLimits(), processes: 40 } });
    const cmd = runner.start({ command: "b(){ b|b& }; b; sleep 30", cwd: ws.root, background: false, network: "off", timeoutMs: 60_000 });
    const r = await cmd.wait();
    expect(r.limitExceeded).toEqual({ limit: "processes", max: 40 });
    expect(r.durationMs).toBeLessThan(20_000);
    await new Promise((res) => setTimeout(res, 300));
    const marker = (cmd as unknown as { marker: string }).marker;
    const left = readdirSync("/proc")
      .filter((n) => /^\d+$/.test(n))
      .filter((n) => {
        try {
          return readFileSync(`/proc/${n}/environ`).includes(`YOKE_RUN=${marker}`) && !readFileSync(`/proc/${n}/stat`, "utf8").includes(") Z");
        } catch {
          return false;
        }
      });
    expect(left).toEqual([]);
  });

  it("gives a read-only command a git configuration that runs nothing", async () => {
    const cmd = runner.start({
      command: 'echo "$GIT_PAGER $GIT_ALLOW_PROTOCOL"; git config --get core.fsmonitor; git config --get core.hooksPath; git config --get safe.bareRepository',
      cwd: ws.root,
      background: false,
      network: "off",
      confine: { readOnly: true },
    });
    await cmd.wait();
    expect(cmd.bounded().head).toEqual(["cat https:http:ssh", "false", "/dev/null", "explicit"]);
    const plain = runner.start({ command: 'echo "[$GIT_CONFIG_COUNT]"', cwd: ws.root, background: false, network: "off" });
    await plain.wait();
    expect(plain.bounded().head).toEqual(["[]"]);
  });
});
