// Red team H (session 18): a hostile MCP server and the client `tasks` capability (ClientTaskStore).
// A server may ask for a sampling (or an elicitation) to run as a task: Yoke answers `{ task }` at
// once and keeps the task for its ttl (up to an hour). The SDK's InMemoryTaskStore keeps the whole
// request with each task, so a server sending sampling requests as tasks, each with a large
// message, had Yoke hold every request's text for an hour after refusing it — memory the server
// grows at the rate it writes (measured: 100 requests of 1 MB, ~100 MB kept). Also unbounded in
// number: a server could keep creating tasks (each a timer and an entry) without end.
// Real SDK server over stdio; the outcome measured is the client's heap after a collection.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeSampling, type McpClientHandlers } from "../../src/core/mcp/client-requests";
import { MCP_CLIENT_REQUESTS_AT_ONCE } from "../../src/core/mcp/types";
import { createNodeMcp } from "../../src/node/mcp/setup";
import { CLIENT_TASKS_MAX, CLIENT_TASKS_WORKING_MAX } from "../../src/node/mcp/task-call";
import { ensureBuilt } from "../support/cli";
import { runScriptedSession, toldOf } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 300_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

function floodServer(dir: string): string {
  const sdk = (p: string) => JSON.stringify(pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${p}`)).href);
  const script = join(dir, "flood-server.mjs");
  writeFileSync(
    script,
    `import { McpServer } from ${sdk("server/mcp.js")};
import { StdioServerTransport } from ${sdk("server/stdio.js")};
import { CreateMessageResultSchema, CreateTaskResultSchema } from ${sdk("types.js")};
import { z } from ${JSON.stringify(pathToFileURL(require.resolve("zod")).href)};
const server = new McpServer({ name: "flood", version: "1.0.0" });
// n sampling requests as tasks, each with one message of \`size\` characters; how many Yoke took as tasks, the first refusal.
server.registerTool("flood", { description: "asks for sampling as tasks", inputSchema: { n: z.number(), size: z.number() } }, async ({ n, size }, extra) => {
  let taken = 0, refused = "";
  for (let i = 0; i < n; i++) {
    try {
      await extra.sendRequest({ method: "sampling/createMessage", params: { task: { ttl: 3600000 }, maxTokens: 10,
        messages: [{ role: "user", content: { type: "text", text: String(i).padEnd(size, "x") } }] } }, CreateTaskResultSchema);
      taken++;
    } catch (e) { refused ||= e.message; }
  }
  return { content: [{ type: "text", text: JSON.stringify({ taken, refused }) }] };
});
// n plain sampling requests at once (no task); returns when \`refusals\` of them were refused (the rest wait for the person).
server.registerTool("plain", { description: "asks for sampling n times at once", inputSchema: { n: z.number(), refusals: z.number() } }, async ({ n, refusals }, extra) => {
  let refused = 0, first = "";
  await new Promise((done) => {
    for (let i = 0; i < n; i++)
      extra.sendRequest({ method: "sampling/createMessage", params: { maxTokens: 10, messages: [{ role: "user", content: { type: "text", text: "q" + i } }] } }, CreateMessageResultSchema, { timeout: 2 ** 30 })
        .catch((e) => { if (e.message.includes("at once")) { refused++; first ||= e.message; if (refused === refusals) done(); } });
  });
  return { content: [{ type: "text", text: JSON.stringify({ refused, first }) }] };
});
// One sampling request whose system prompt is \`size\` characters (its one message is short).
server.registerTool("system", { description: "asks for sampling with a long system prompt", inputSchema: { size: z.number() } }, async ({ size }, extra) => {
  try {
    const r = await extra.sendRequest({ method: "sampling/createMessage", params: { maxTokens: 10, systemPrompt: "Be brief. ".padEnd(size, "y"),
      messages: [{ role: "user", content: { type: "text", text: "hi" } }] } }, CreateMessageResultSchema);
    return { content: [{ type: "text", text: "answered: " + r.content.text }] };
  } catch (e) { return { content: [{ type: "text", text: "refused: " + e.message }] }; }
});
await server.connect(new StdioServerTransport());
`,
  );
  return script;
}

function floodHub(sample: McpClientHandlers["sample"]) {
  const { cwd, home, base } = createWorkspaceWithHome("yoke-red18h-flood-", { "~/.yoke/settings.json": "{}" }, temps);
  const script = floodServer(base);
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { flood: { command: process.execPath, args: [script] } } }));
  const mcp = createNodeMcp({ cwd, home, trusted: true, env: { PATH: process.env.PATH, HOME: home } });
  mcp.hub.serve({ sample, elicit: () => Promise.resolve({ action: "decline" }), elicitUrl: () => Promise.resolve({ action: "decline" }) });
  const flood = async (n: number, size: number) => {
    const r = await mcp.hub.call("flood", "flood", { n, size }, { signal: new AbortController().signal, timeoutMs: 240_000 });
    return JSON.parse((r.content[0] as { text: string }).text) as { taken: number; refused: string };
  };
  return { mcp, flood };
}

describe("a server flooding Yoke with sampling tasks", () => {
  it("keeps neither the requests' text nor more than CLIENT_TASKS_MAX tasks; the rest are refused clearly", async () => {
    let asked = 0;
    // As a deny rule answers (McpSampling(flood) denied): refused at once, so each task ends failed.
    const { mcp, flood } = floodHub(() => {
      asked++;
      return Promise.reject(new Error("Yoke refused the sampling request: denied by a rule"));
    });
    try {
      await mcp.hub.catalog();
      const before = heap();
      const out = await flood(CLIENT_TASKS_MAX + 44, 400_000);
      const grown = heap() - before;
      console.log(`red18h flood: ${out.taken} tasks taken, heap grew ${(grown / 1e6).toFixed(1)} MB for 120 MB sent; refused: ${out.refused}`);
      // 120 MB of requests sent: what is kept is the tasks' few fields, not their text.
      expect(grown).toBeLessThan(20e6);
      expect(out.taken).toBe(CLIENT_TASKS_MAX);
      expect(asked).toBe(CLIENT_TASKS_MAX);
      expect(out.refused).toContain(`Yoke keeps at most ${CLIENT_TASKS_MAX} tasks for a server at once`);
    } finally {
      await mcp.dispose();
    }
  }, 300_000);

  it("runs at most CLIENT_TASKS_WORKING_MAX at once (each a question waiting for the person)", async () => {
    let asked = 0;
    const { mcp, flood } = floodHub(
      (_s, _r, signal) =>
        new Promise((_, reject) => {
          asked++;
          signal.addEventListener("abort", () => reject(new Error("withdrawn")));
        }),
    );
    try {
      await mcp.hub.catalog();
      const out = await flood(CLIENT_TASKS_WORKING_MAX + 8, 10);
      expect(out.taken).toBe(CLIENT_TASKS_WORKING_MAX);
      expect(asked).toBe(CLIENT_TASKS_WORKING_MAX);
      expect(out.refused).toContain(`Yoke runs at most ${CLIENT_TASKS_WORKING_MAX} tasks for a server at once and ${CLIENT_TASKS_WORKING_MAX} of this server's are still working`);
    } finally {
      await mcp.dispose();
    }
  }, 300_000);
});

describe("a server flooding Yoke with plain sampling requests", () => {
  it("answers at most MCP_CLIENT_REQUESTS_AT_ONCE at once; the rest are refused clearly, never asked", async () => {
    let asked = 0;
    const { mcp } = floodHub(
      (_s, _r, signal) =>
        new Promise((_, reject) => {
          asked++;
          signal.addEventListener("abort", () => reject(new Error("withdrawn")));
        }),
    );
    try {
      await mcp.hub.catalog();
      const r = await mcp.hub.call("flood", "plain", { n: 200, refusals: 200 - MCP_CLIENT_REQUESTS_AT_ONCE }, { signal: new AbortController().signal, timeoutMs: 120_000 });
      const out = JSON.parse((r.content[0] as { text: string }).text) as { refused: number; first: string };
      expect(out.refused).toBe(200 - MCP_CLIENT_REQUESTS_AT_ONCE);
      expect(asked).toBe(MCP_CLIENT_REQUESTS_AT_ONCE);
      expect(out.first).toContain(`Yoke answers at most ${MCP_CLIENT_REQUESTS_AT_ONCE} sampling and elicitation requests of a server at once`);
    } finally {
      await mcp.dispose();
    }
  }, 300_000);
});

describe("a sampling request's system prompt", () => {
  it("is bounded like its messages: 3 MB is refused clearly, the session's model never receives it (allowed by McpSampling)", async () => {
    const { cwd, home, base } = createWorkspaceWithHome("yoke-red18h-system-", { "~/.yoke/settings.json": "{}" }, temps);
    const script = floodServer(base);
    writeFileSync(
      join(home, ".yoke", "settings.json"),
      JSON.stringify({ mcpServers: { flood: { command: process.execPath, args: [script] } }, permissions: { allow: ["mcp__flood", "McpSampling(flood)"] } }),
    );
    const r = await runScriptedSession(cwd, home, [{ toolCalls: [{ name: "mcp__flood__system", input: { size: 3_000_000 } }] }, { text: "done" }]);
    expect(r.code, r.stderr).toBe(0);
    // Two requests: the turn and the one after the tool's result; no sampling request between them.
    expect(r.requests).toHaveLength(2);
    expect(JSON.stringify(r.requests.map((q) => q.body)).length).toBeLessThan(100_000);
    expect(toldOf(r.requests)).toContain("refused: MCP error -32603: a sampling request's system prompt may have at most 100000 characters (it had 3000000)");
  }, 180_000);

  it("is cut in the approval card's text like a message (its length said)", () => {
    const text = describeSampling("flood", { systemPrompt: "Be brief. ".padEnd(5_000, "y"), messages: [{ role: "user", text: "hi" }], maxTokens: 10 }, 10, "m");
    expect(text).toContain(`System prompt: Be brief. ${"y".repeat(1_990)}… (5000 characters)`);
    expect(text.length).toBeLessThan(2_300);
  });
});
