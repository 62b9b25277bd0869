import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunningCommand } from "../../../src/core/commands/types";
import { createNodeCommandRunner, type NodeCommandRunner } from "../../../src/node/commands/runner";
import { createNoSandbox } from "../../../src/node/commands/sandbox/none";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

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
    expect(() => runner.start({ command: "true", cwd: "/", background: false, network: "off" })).toThrow(
      `The working folder / is outside the workspace (${ws.root}).`,
    );
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
