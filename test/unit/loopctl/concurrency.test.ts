// The commands gate: five sessions sharing one host each run a real command (real runner, real
// processes); four run at once, the fifth is queued (a tool_queued event) and runs when one ends.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConcurrencyGate, defaultGates, withConcurrencyGates } from "../../../src/core/concurrency";
import { AgentSession } from "../../../src/core/loop/agent-session";
import { silentLogger } from "../../../src/core/ports";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { createNodeCommandRunner, type NodeCommandRunner } from "../../../src/node/commands/runner";
import { createNoSandbox } from "../../../src/node/commands/sandbox/none";
import { createFakeProvider, textTurn, toolTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

let ws: TempWorkspace;
let runner: NodeCommandRunner;

beforeEach(() => {
  ws = createTempWorkspace({});
  runner = createNodeCommandRunner({ workspace: ws.root, logDir: join(ws.root, ".yoke-logs"), sandbox: createNoSandbox(), pty: false, maxTimeoutMs: 20_000, killGraceMs: 500 });
});
afterEach(async () => {
  await runner.killAll();
  ws.cleanup();
});

const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("concurrency gates", () => {
  it("queues the 5th command while 4 run, and runs it when one finishes", async () => {
    const tools = withConcurrencyGates(createBuiltinTools(), defaultGates());
    const sessions = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        AgentSession.create({
          store: createMemoryStore(),
          // Each command waits for its own go-file, then writes a done-file.
          provider: createFakeProvider([toolTurn({ id: `c${i}`, name: "run_command", input: { command: `while [ ! -f go${i} ]; do sleep 0.05; done; echo ran ${i} > done${i}` } }), textTurn("ok")]),
          tools,
          services: { fs: ws.fs, search: ws.search, log: silentLogger, commands: runner },
          approver: { ask: async () => ({ decision: "allow" }) },
          permissionMode: "bypassPermissions",
          retry: { maxRetries: 0 },
        }),
      ),
    );
    const runs = sessions.map((s) => s.send("go"));
    await until(() => sessions.some((s) => s.events().some((e) => e.type === "tool_queued")) && runner.list().length === 4);
    const queued = sessions.findIndex((s) => s.events().some((e) => e.type === "tool_queued"));
    const q = sessions[queued]!.events().find((e) => e.type === "tool_queued")!;
    expect(q).toMatchObject({ name: "run_command", gate: "commands", position: 1, limit: 4 });
    // Only four processes were started; the queued call has no command yet.
    await new Promise((r) => setTimeout(r, 300));
    expect(runner.list().filter((c) => c.result === undefined)).toHaveLength(4);
    // One of the running four ends: the queued one starts.
    const first = [0, 1, 2, 3, 4].find((i) => i !== queued)!;
    ws.write({ [`go${first + 1}`]: "" });
    await until(() => runner.list().length === 5);
    for (let i = 1; i <= 5; i++) ws.write({ [`go${i}`]: "" });
    await Promise.all(runs);
    for (let i = 1; i <= 5; i++) expect(existsSync(join(ws.root, `done${i}`))).toBe(true);
    for (const s of sessions) expect(s.events().at(-1)).toMatchObject({ type: "status", state: "done" });
    // The queued call's result came after its queue event, as an ordinary result.
    const types = sessions[queued]!.events().map((e) => e.type);
    expect(types.indexOf("tool_queued")).toBeLessThan(types.indexOf("tool_result"));
  }, 30_000);

  it("a cancelled waiter leaves the queue; slots are handed on in FIFO order", async () => {
    const gate = new ConcurrencyGate("g", 1);
    const r1 = await gate.acquire();
    const ac = new AbortController();
    const order: string[] = [];
    const p2 = gate.acquire(ac.signal).catch(() => order.push("cancelled"));
    const p3 = gate.acquire(undefined, (pos) => order.push(`queued at ${pos}`)).then((rel) => (order.push("3 runs"), rel));
    ac.abort(new Error("stop"));
    await p2;
    r1();
    (await p3)();
    expect(order).toEqual(["queued at 2", "cancelled", "3 runs"]);
    expect(gate.active).toBe(0);
    expect(gate.waiting).toBe(0);
  });
});
