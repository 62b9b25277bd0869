// The MCP client features left open by session 17, each against real servers over stdio: the
// npm registry's @modelcontextprotocol/server-everything, and servers made of the MCP SDK's own
// McpServer where server-everything has no such case.
// - Resource subscriptions survive a restart and a crash of the server (subscribed anew), and end
//   with `resources/unsubscribe` (the last subscriber, and the session's end).
// - `logLevel` in a server's definition is sent as `logging/setLevel` when it starts.
// - The client `tasks` capability: server-everything lists its trigger-*-async tools, and their
//   sampling and elicitation run as tasks Yoke keeps (full `yoke run` session for sampling).
// - A task's result is checked against its tool's outputSchema (like a plain call's).
// - Sampling with `tools` reaches the session's handler with the tools (Yoke declares sampling.tools;
//   full sessions in mcp-sampling-tools.test.ts).
import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpClientHandlers, McpSamplingRequest } from "../../src/core/mcp/client-requests";
import type { McpLogEntry } from "../../src/core/mcp/types";
import { createNodeMcp } from "../../src/node/mcp/setup";
import { ClientTaskStore } from "../../src/node/mcp/task-call";
import { ensureBuilt } from "../support/cli";
import { EVERYTHING, everythingArgv, everythingSettings } from "../support/mcp-fixtures";
import { pidsOf } from "../support/processes";
import { runScriptedSession, toldOf } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 300_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const URI = "demo://resource/dynamic/text/2";
const URI2 = "demo://resource/dynamic/text/3";
const never = () => new AbortController().signal;
const call = () => ({ signal: never(), timeoutMs: 30_000 });

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A hub over server-everything (stdio) with `extra` in its definition; its log messages collected. */
function everythingHub(tag: string, extra: Record<string, unknown> = {}) {
  const argv = everythingArgv(tag);
  const definition = { command: argv[0], args: argv.slice(1), ...extra };
  const { cwd, home } = createWorkspaceWithHome("yoke-mcp-client-", { "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: definition } }) }, temps);
  const logs: McpLogEntry[] = [];
  const notes: string[] = [];
  const mcp = createNodeMcp({ cwd, home, trusted: true, env: { PATH: process.env.PATH, HOME: home }, serverLog: (_s, e) => logs.push(e), log: (m) => notes.push(m) });
  return { mcp, argv, logs, notes, home, cwd };
}

describe("resource subscriptions across restarts", () => {
  it("a restarted and a crashed server are subscribed anew; the last unsubscribe and the end send resources/unsubscribe", async () => {
    const { mcp, argv, logs } = everythingHub("subs-restart");
    const updates: string[] = [];
    const sub = mcp.hub.onResourceUpdated((_s, uri) => updates.push(uri));
    const subscribeLogs = (uri: string) => logs.filter((l) => l.text.includes(`Received Subscribe Resource request for URI: ${uri}`)).length;
    const unsubscribeLogs = (uri: string) => logs.filter((l) => l.text.includes(`Received Unsubscribe Resource request: ${uri}`)).length;
    try {
      await mcp.hub.catalog();
      // Two subscribers of URI (two sessions' mentions), one of URI2.
      expect(await mcp.hub.subscribeResource("everything", URI)).toBe(true);
      expect(await mcp.hub.subscribeResource("everything", URI)).toBe(true);
      expect(await mcp.hub.subscribeResource("everything", URI2)).toBe(true);
      await until("the server's word on the subscriptions", () => subscribeLogs(URI) >= 1 && subscribeLogs(URI2) >= 1);
      expect(subscribeLogs(URI)).toBe(1); // the second subscriber is counted here, not sent again
      const [first] = pidsOf(argv);
      expect(first).toBeDefined();

      // The panel's Restart: a new process, subscribed again without anyone asking.
      await mcp.hub.restart("everything");
      const [second] = pidsOf(argv);
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
      await until("the renewed subscriptions", () => subscribeLogs(URI) >= 2 && subscribeLogs(URI2) >= 2);
      // The new process sends updates for what it was subscribed to (toggle-subscriber-updates: one at once, then every 5 s).
      updates.length = 0;
      await mcp.hub.call("everything", "toggle-subscriber-updates", {}, call());
      await until("an update from the restarted server", () => updates.includes(URI) && updates.includes(URI2));

      // A crash: the next use starts it again, subscribed again.
      process.kill(second!, "SIGKILL");
      await until("the crash to be seen", () => mcp.hub.status()[0]?.state === "failed");
      updates.length = 0;
      await mcp.hub.call("everything", "toggle-subscriber-updates", {}, call());
      await until("the subscriptions after the crash", () => subscribeLogs(URI) >= 3 && subscribeLogs(URI2) >= 3);
      await until("an update from the server started after the crash", () => updates.includes(URI) && updates.includes(URI2));

      // One of URI's two subscribers leaves: nothing is sent; the second: resources/unsubscribe.
      await mcp.hub.unsubscribeResource("everything", URI);
      await mcp.hub.call("everything", "echo", { message: "barrier" }, call());
      expect(unsubscribeLogs(URI)).toBe(0);
      await mcp.hub.unsubscribeResource("everything", URI);
      await until("the server's word on the unsubscribe", () => unsubscribeLogs(URI) === 1);
      // Its updates stop reaching the session (the server's own list no longer has it).
      updates.length = 0;
      await until("an update of the resource still subscribed", () => updates.includes(URI2));
      expect(updates).not.toContain(URI);
    } finally {
      sub.dispose();
      // The session's end: what is still subscribed is ended on the server before it stops.
      await mcp.dispose();
    }
    expect(unsubscribeLogs(URI2)).toBe(1);
    expect(pidsOf(argv)).toEqual([]);
  }, 150_000);
});

describe("logLevel: logging/setLevel on connect", () => {
  it("a server told `error` sends no info messages; the control, with no level, does; restarted: told again", async () => {
    const subscribed = (logs: McpLogEntry[]) => logs.filter((l) => l.text.includes("Received Subscribe Resource request")).length;
    const control = everythingHub("loglevel-control");
    try {
      await control.mcp.hub.catalog();
      await control.mcp.hub.subscribeResource("everything", URI);
      await until("the control's info message", () => subscribed(control.logs) === 1);
      expect(control.logs.find((l) => l.text.includes("Received Subscribe"))?.level).toBe("info");
    } finally {
      await control.mcp.dispose();
    }

    const quiet = everythingHub("loglevel-error", { logLevel: "error" });
    try {
      const [s] = await quiet.mcp.hub.catalog();
      expect(s?.config.logLevel).toBe("error");
      await quiet.mcp.hub.subscribeResource("everything", URI);
      // The server answered the subscription (and would have logged it first): no info message came.
      await quiet.mcp.hub.call("everything", "echo", { message: "barrier" }, call());
      expect(subscribed(quiet.logs)).toBe(0);
      await quiet.mcp.hub.restart("everything");
      await quiet.mcp.hub.call("everything", "echo", { message: "barrier" }, call());
      expect(subscribed(quiet.logs)).toBe(0);
      expect(quiet.logs.filter((l) => l.level === "info" || l.level === "debug" || l.level === "notice" || l.level === "warning")).toEqual([]);
    } finally {
      await quiet.mcp.dispose();
    }
    expect(pidsOf(quiet.argv)).toEqual([]);
  }, 120_000);

  it("a bad logLevel is a note and nothing is sent", async () => {
    const bad = everythingHub("loglevel-bad", { logLevel: "verbose" });
    try {
      expect(bad.mcp.servers[0]?.logLevel).toBeUndefined();
      expect(bad.mcp.problems.map((p) => p.message).join("\n")).toContain(`"logLevel" is not used: it must be one of debug, info, notice, warning, error, critical, alert, emergency`);
    } finally {
      await bad.mcp.dispose();
    }
  });
});

/** Handlers that answer sampling with a fixed text and forms with fixed values, recording what they were asked. */
function answering(): McpClientHandlers & { sampled: McpSamplingRequest[]; forms: string[] } {
  const sampled: McpSamplingRequest[] = [];
  const forms: string[] = [];
  return {
    sampled,
    forms,
    sample: (_server, req) => {
      sampled.push(req);
      return Promise.resolve({ model: "m", text: "SAMPLED-AS-A-TASK", stopReason: "endTurn" });
    },
    elicit: (_server, req) => {
      forms.push(req.message);
      return Promise.resolve({ action: "accept", content: { name: "Ada", favoriteColor: "Green", agreeToTerms: true } });
    },
    elicitUrl: () => Promise.resolve({ action: "decline" }),
  };
}

describe("the client tasks capability", () => {
  it("server-everything lists its trigger-*-async tools; its sampling and elicitation run as tasks Yoke keeps", async () => {
    const { mcp, argv } = everythingHub("tasks-async");
    const handlers = answering();
    mcp.hub.serve(handlers);
    try {
      const [s] = await mcp.hub.catalog();
      const names = (s?.tools ?? []).map((t) => t.name);
      expect(names).toContain("trigger-sampling-request-async");
      expect(names).toContain("trigger-elicitation-request-async");
      const sampled = await mcp.hub.call("everything", "trigger-sampling-request-async", { prompt: "tides?", maxTokens: 50 }, { ...call(), timeoutMs: 90_000 });
      const text = JSON.stringify(sampled.content);
      // The server polled Yoke's task (tasks/get) and fetched its result (tasks/result).
      expect(text).toContain("[COMPLETED] Async sampling completed!");
      expect(text).toContain("Task created:");
      expect(text).toContain("SAMPLED-AS-A-TASK");
      expect(handlers.sampled.map((r) => r.messages[0]?.text)).toEqual(["Resource trigger-sampling-request-async context: tides?"]);
      const elicited = await mcp.hub.call("everything", "trigger-elicitation-request-async", {}, { ...call(), timeoutMs: 90_000 });
      const etext = JSON.stringify(elicited.content);
      expect(etext).toContain("[COMPLETED] User provided the requested information!");
      expect(etext).toContain("- Name: Ada");
      expect(etext).toContain("- Favorite Color: Green");
      expect(handlers.forms).toEqual(["Please provide inputs for the following fields (async task demo):"]);
    } finally {
      await mcp.dispose();
    }
    expect(pidsOf(argv)).toEqual([]);
  }, 150_000);

  it("a full `yoke run`: the async sampling reaches the session's model (allowed by McpSampling), its answer the model's tool result", async () => {
    const argv = everythingArgv("tasks-run");
    const { cwd, home } = createWorkspaceWithHome("yoke-mcp-client-run-", { "~/.yoke/settings.json": everythingSettings(argv, ["mcp__everything", "McpSampling(everything)"]) }, temps);
    const r = await runScriptedSession(cwd, home, [
      { toolCalls: [{ name: "mcp__everything__trigger-sampling-request-async", input: { prompt: "capital of Peru?", maxTokens: 40 } }] },
      { text: "Lima, said the sampled model." },
      { text: "done" },
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests).toHaveLength(3);
    expect(JSON.stringify(r.requests[1]!.body.messages)).toContain("capital of Peru?");
    const told = toldOf(r.requests);
    expect(told).toContain("[COMPLETED] Async sampling completed!");
    expect(told).toContain("Lima, said the sampled model.");
    expect(r.events.filter((e) => e.type === "usage" && (e as { sampling?: string }).sampling === "everything")).toHaveLength(1);
    expect(pidsOf(argv)).toEqual([]);
  }, 150_000);

  it("a task the server cancels stops its work (the question is withdrawn)", async () => {
    const store = new ClientTaskStore();
    let stopped: unknown;
    const requestStore = {
      createTask: (o: { ttl?: number | null }) => store.createTask(o, 1, { method: "sampling/createMessage", params: {} }),
      getTask: (id: string) => store.getTask(id).then((t) => t!),
      storeTaskResult: (id: string, status: "completed" | "failed", result: Record<string, unknown>) => store.storeTaskResult(id, status, result),
      getTaskResult: (id: string) => store.getTaskResult(id),
      updateTaskStatus: (id: string, status: "working" | "cancelled", m?: string) => store.updateTaskStatus(id, status, m),
      listTasks: (c?: string) => store.listTasks(c),
    };
    const { task } = await store.start(
      { taskStore: requestStore, taskRequestedTtl: 2 ** 40 },
      (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject((stopped = signal.reason)))),
    );
    expect(task.ttl).toBe(60 * 60_000);
    await store.updateTaskStatus(task.taskId, "cancelled", "Client cancelled task execution.");
    await until("the work to stop", () => stopped !== undefined, 5_000);
    expect(String(stopped)).toContain("the server cancelled the task");
    expect((await store.getTask(task.taskId))?.status).toBe("cancelled");
    // A failed task: tasks/result says why, as an error.
    const failed = await store.start({ taskStore: requestStore }, () => Promise.reject(new Error("the user refused the sampling request")));
    await until("the failed status", () => (store.getAllTasks().find((t) => t.taskId === failed.task.taskId)?.status ?? "") === "failed", 5_000);
    await expect(store.getTaskResult(failed.task.taskId)).rejects.toThrow("the user refused the sampling request");
    store.dispose();
  });
});

/** A stdio server made of the MCP SDK's McpServer (from the npm registry), written to `dir`. */
function sdkServer(dir: string): string {
  const sdk = (p: string) => JSON.stringify(pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${p}`)).href);
  const script = join(dir, "sdk-server.mjs");
  writeFileSync(
    script,
    `import { McpServer } from ${sdk("server/mcp.js")};
import { StdioServerTransport } from ${sdk("server/stdio.js")};
import { InMemoryTaskStore } from ${sdk("experimental/tasks")};
import { CreateMessageResultSchema } from ${sdk("types.js")};
import { z } from ${JSON.stringify(pathToFileURL(require.resolve("zod")).href)};
const server = new McpServer({ name: "sdk", version: "1.0.0" }, { capabilities: { tasks: { requests: { tools: { call: {} } }, cancel: {}, list: {} } }, taskStore: new InMemoryTaskStore() });
const outputSchema = { count: z.number() };
const structured = (kind) => kind === "good" ? { count: 3 } : kind === "bad" ? { count: "three" } : undefined;
const result = (kind) => ({ content: [{ type: "text", text: "report " + kind }], ...(structured(kind) ? { structuredContent: structured(kind) } : {}) });
server.experimental.tasks.registerToolTask("report", { description: "a report, as a task", inputSchema: { kind: z.string() }, outputSchema, execution: { taskSupport: "required" } }, {
  createTask: async ({ kind }, extra) => {
    const task = await extra.taskStore.createTask({ ttl: 60000, pollInterval: 100 });
    setTimeout(() => extra.taskStore.storeTaskResult(task.taskId, "completed", result(kind)), 200);
    return { task };
  },
  getTask: async (_a, extra) => extra.taskStore.getTask(extra.taskId),
  getTaskResult: async (_a, extra) => extra.taskStore.getTaskResult(extra.taskId),
});
// Sampling with tools, sent as is (the request a server makes when it ignores the client's capabilities).
server.registerTool("sample-with-tools", { description: "asks for sampling with tools" }, async (extra) => {
  try {
    const r = await extra.sendRequest({ method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "weather?" } }], maxTokens: 20,
      tools: [{ name: "get_weather", inputSchema: { type: "object", properties: {} } }] } }, CreateMessageResultSchema);
    return { content: [{ type: "text", text: "answered: " + JSON.stringify(r) }] };
  } catch (e) { return { content: [{ type: "text", text: "refused: " + e.message }] }; }
});
// Through the SDK's own createMessage: it checks the client's capabilities first.
server.registerTool("sdk-sample-with-tools", { description: "asks for sampling with tools through the SDK" }, async () => {
  try {
    await server.server.createMessage({ messages: [{ role: "user", content: { type: "text", text: "weather?" } }], maxTokens: 20, tools: [{ name: "get_weather", inputSchema: { type: "object", properties: {} } }] });
    return { content: [{ type: "text", text: "answered" }] };
  } catch (e) { return { content: [{ type: "text", text: "refused: " + e.message }] }; }
});
await server.connect(new StdioServerTransport());
`,
  );
  return script;
}

describe("an SDK server", () => {
  it("a task's structured result is checked against the tool's outputSchema, as a plain call's is", async () => {
    const { cwd, home, base } = createWorkspaceWithHome("yoke-mcp-client-sdk-", { "~/.yoke/settings.json": "{}" }, temps);
    const script = sdkServer(base);
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { sdk: { command: process.execPath, args: [script] } } }));
    const mcp = createNodeMcp({ cwd, home, trusted: true, env: { PATH: process.env.PATH, HOME: home } });
    try {
      await mcp.hub.catalog();
      const good = await mcp.hub.call("sdk", "report", { kind: "good" }, call());
      expect(good.structuredContent).toEqual({ count: 3 });
      // The same refusals as the SDK's callTool makes of a plain call (its messages). (The SDK's
      // McpServer checks a plain tool's output itself; a task's result it passes as stored.)
      await expect(mcp.hub.call("sdk", "report", { kind: "bad" }, call())).rejects.toThrow("Structured content does not match the tool's output schema: data/count must be number");
      await expect(mcp.hub.call("sdk", "report", { kind: "none" }, call())).rejects.toThrow("Tool report has an output schema but did not return structured content");
    } finally {
      await mcp.dispose();
    }
  }, 90_000);

  it("sampling with tools reaches the session's handler with its tools, sent raw and through the SDK's createMessage (which checks sampling.tools)", async () => {
    const { cwd, home, base } = createWorkspaceWithHome("yoke-mcp-client-sdk-", { "~/.yoke/settings.json": "{}" }, temps);
    const script = sdkServer(base);
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { sdk: { command: process.execPath, args: [script] } } }));
    const mcp = createNodeMcp({ cwd, home, trusted: true, env: { PATH: process.env.PATH, HOME: home } });
    const handlers = answering();
    mcp.hub.serve(handlers);
    try {
      await mcp.hub.catalog();
      const raw = JSON.stringify((await mcp.hub.call("sdk", "sample-with-tools", {}, call())).content);
      expect(raw).toContain("answered: ");
      expect(raw).toContain("SAMPLED-AS-A-TASK");
      const viaSdk = JSON.stringify((await mcp.hub.call("sdk", "sdk-sample-with-tools", {}, call())).content);
      expect(viaSdk).toContain("answered");
      expect(viaSdk).not.toContain("refused");
      expect(handlers.sampled.map((r) => [r.messages[0]?.text, r.tools])).toEqual([
        ["weather?", [{ name: "get_weather", inputSchema: { type: "object", properties: {} } }]],
        ["weather?", [{ name: "get_weather", inputSchema: { type: "object", properties: {} } }]],
      ]);
    } finally {
      await mcp.dispose();
    }
  }, 90_000);
});

/** A free port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe("over Streamable HTTP", () => {
  it("server-everything (streamableHttp): tasks listed and run, subscriptions renewed after a restart (a new HTTP session) and ended", async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    server.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const { cwd, home } = createWorkspaceWithHome(
      "yoke-mcp-client-http-",
      { "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: { type: "http", url: `http://127.0.0.1:${port}/mcp` } } }) },
      temps,
    );
    const logs: McpLogEntry[] = [];
    const mcp = createNodeMcp({ cwd, home, trusted: true, env: { PATH: process.env.PATH, HOME: home }, serverLog: (_s, e) => logs.push(e) });
    const handlers = answering();
    mcp.hub.serve(handlers);
    const updates: string[] = [];
    const sub = mcp.hub.onResourceUpdated((_s, uri) => updates.push(uri));
    const said = (what: string) => logs.filter((l) => l.text.includes(what)).length;
    try {
      await until("the server to listen", () => stderr.includes("listening"));
      const [s] = await mcp.hub.catalog();
      expect(s?.state, s?.detail).toBe("running");
      expect((s?.tools ?? []).map((t) => t.name)).toContain("trigger-sampling-request-async");
      const sampled = JSON.stringify((await mcp.hub.call("everything", "trigger-sampling-request-async", { prompt: "over http", maxTokens: 30 }, { ...call(), timeoutMs: 90_000 })).content);
      expect(sampled).toContain("[COMPLETED] Async sampling completed!");
      expect(sampled).toContain("SAMPLED-AS-A-TASK");

      expect(await mcp.hub.subscribeResource("everything", URI)).toBe(true);
      await until("the subscription", () => said(`Received Subscribe Resource request for URI: ${URI}`) === 1);
      await mcp.hub.restart("everything");
      // A new HTTP session: subscribed anew.
      await until("the renewed subscription", () => said(`Received Subscribe Resource request for URI: ${URI}`) === 2);
      await mcp.hub.call("everything", "toggle-subscriber-updates", {}, call());
      await until("an update through the new session", () => updates.includes(URI));
      await mcp.hub.unsubscribeResource("everything", URI);
      await until("the unsubscribe", () => said(`Received Unsubscribe Resource request: ${URI}`) === 1);
    } finally {
      sub.dispose();
      await mcp.dispose();
      server.kill("SIGTERM");
    }
  }, 150_000);
});
