// Red team B (session 17): an MCP tool that must run as a task (MCP tasks) whose task never ends
// and asks to be polled again in ~24.8 days (pollInterval 2^31-1 ms). On the session-17 build the
// SDK's own polling loop slept on a timer nothing stopped: the call timed out, the model answered,
// and `yoke run` never exited (hung past 90 s; the control, polled every 0.5 s, exited). Now each
// wait is bounded and ends with the call, and the stopped call's task is cancelled on the server.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { taskPollDelay, TASK_POLL_MAX_MS, TASK_POLL_MIN_MS } from "../../src/node/mcp/task-call";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs } from "../support/identities";
import { scriptedRunArgs, toldOf } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { createWorkspaceWithHome } from "../support/workspace";

// A stdio MCP server in raw JSON-RPC lines: one tool that must run as a task; the task never ends.
const SERVER = `import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";
const POLL = Number(process.env.POLL);
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const at = new Date().toISOString();
let status = "working";
const task = () => ({ taskId: "t1", status, ttl: null, createdAt: at, lastUpdatedAt: new Date().toISOString(), pollInterval: POLL, statusMessage: "still working" });
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  appendFileSync(process.env.SEEN, m.method + "\\n");
  if (m.method === "initialize")
    return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } }, serverInfo: { name: "forever", version: "1" } } });
  if (m.method === "tools/list")
    return send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "research", description: "long research", inputSchema: { type: "object", properties: {} }, execution: { taskSupport: "required" } }] } });
  if (m.method === "tools/call" || m.method === "tasks/get") return send({ jsonrpc: "2.0", id: m.id, result: m.method === "tools/call" ? { task: task() } : task() });
  if (m.method === "tasks/cancel") { status = "cancelled"; return send({ jsonrpc: "2.0", id: m.id, result: task() }); }
  send({ jsonrpc: "2.0", id: m.id, result: {} });
});
`;

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});
beforeAll(() => ensureBuilt(), 300_000);

describe("an MCP task that never ends", () => {
  it("waits between polls stay within bounds whatever the server asks", () => {
    expect(taskPollDelay(2 ** 31 - 1)).toBe(TASK_POLL_MAX_MS);
    expect(taskPollDelay(0)).toBe(TASK_POLL_MIN_MS);
    expect(taskPollDelay(Number.NaN)).toBe(1_000);
    expect(taskPollDelay(750)).toBe(750);
  });

  // The host process's own wait (no sandbox): as root and as the unprivileged user.
  it.each(identities().list.flatMap((as) => [[as.label, "polled again in 24.8 days", "2147483647", as] as const, [as.label, "control: polled every 0.5 s", "500", as] as const]))(
    "as %s, %s: the call times out, the model is told, the task is cancelled and the run ends",
    async (_who, _label, poll, as) => {
      const { cwd, home, base } = createWorkspaceWithHome("yoke-task-forever-", { "~/.yoke/settings.json": "{}" }, temps);
      const script = join(base, "forever.mjs");
      const seen = join(base, "seen.txt");
      writeFileSync(script, SERVER);
      writeFileSync(
        join(home, ".yoke", "settings.json"),
        JSON.stringify({
          mcpServers: { forever: { command: process.execPath, args: [script], timeout: 1000, env: { POLL: poll, SEEN: seen } } },
          permissions: { allow: ["mcp__forever__research"] },
        }),
      );
      server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "mcp__forever__research", input: {} }] }, { text: "done" }] });
      chownTree(base, as);
      // Generous: the call's own bound is 15 s (10 × the server's timeout + 5 s); a hung run is killed at 120 s.
      const r = await runCliAs(as, [...scriptedRunArgs(server.openaiBaseUrl, cwd, join(home, "sessions")), "research it"], { env: { HOME: home }, timeoutMs: 120_000 });
      expect(r.signal === "SIGKILL" ? `hung after the model's answer (${server.requests.length} requests)` : r.code, r.stderr).toBe(0);
      expect(toldOf(server.requests)).toContain("mcp__forever__research did not finish within 15 s and was stopped.");
      expect(existsSync(seen) && readFileSync(seen, "utf8").split("\n")).toContain("tasks/cancel");
    },
    180_000,
  );
});
