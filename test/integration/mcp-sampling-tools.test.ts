// Sampling with tools (MCP 2025-11-25: `sampling.tools`, `tools`/`toolChoice` in
// `sampling/createMessage`, `tool_use`/`tool_result` blocks, stopReason `toolUse`), against a real
// server made of the MCP SDK's own McpServer (server-everything 2026.8.31 has no sampling-with-tools
// trigger), over stdio and over Streamable HTTP, through full `yoke run` sessions with the scripted
// model on both wires (OpenAI-compatible and Anthropic). What is asserted: the server's tools reach
// the model (and none of Yoke's), the model's calls reach the server unexecuted (the server runs
// them and asks again with their results, which reach the model), the approval rule McpSampling
// still governs, each request is counted, and bad requests are refused before the model is asked.
import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCliSession } from "../../src/cli/session-setup";
import { AgentSession } from "../../src/core/loop/agent-session";
import type { PermissionQuestion } from "../../src/core/loop/types";
import { describeSampling } from "../../src/core/mcp/client-requests";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { pidsOf } from "../support/processes";
import { sessionEventsIn } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 300_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/**
 * The test server: `forecast` asks the client's model about a city's weather offering two tools
 * (`get_weather`, `geo.lookup` — a name with a dot, which MCP allows and the providers do not), runs
 * the calls it gets back itself and asks again with their results, up to 4 times; it returns every
 * answer it got, as JSON. `raw` sends the sampling request it is given as is and returns the answer
 * or the error. argv[2] "http": Streamable HTTP on a free port (printed), else stdio.
 */
function toolServer(dir: string): string {
  const sdk = (p: string) => JSON.stringify(pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${p}`)).href);
  const script = join(dir, "sampling-tools-server.mjs");
  writeFileSync(
    script,
    `import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from ${sdk("server/mcp.js")};
import { StdioServerTransport } from ${sdk("server/stdio.js")};
import { StreamableHTTPServerTransport } from ${sdk("server/streamableHttp.js")};
import { CreateMessageResultWithToolsSchema } from ${sdk("types.js")};
import { z } from ${JSON.stringify(pathToFileURL(require.resolve("zod")).href)};
const TOOLS = [
  { name: "get_weather", description: "The weather in a city, now.", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  { name: "geo.lookup", description: "Where a city is.", inputSchema: { type: "object", properties: { city: { type: "string" } } } },
];
const run = (name, input) => name === "get_weather" ? "SUNNY-IN-" + input.city : name === "geo.lookup" ? "GEO-" + input.city + "-12S" : "no such tool " + name;
function makeServer() {
  const server = new McpServer({ name: "tools", version: "1.0.0" });
  server.registerTool("forecast", { description: "asks the client's model, offering tools", inputSchema: { city: z.string() } }, async ({ city }) => {
    const got = [];
    let messages = [{ role: "user", content: { type: "text", text: "What is the weather in " + city + "?" } }];
    try {
      for (let i = 0; i < 4; i++) {
        // The SDK's own createMessage: it checks the client declared sampling.tools, the messages' tool pairing and the answer's shape.
        const r = await server.server.createMessage({ messages, maxTokens: 300, systemPrompt: "You forecast.", tools: TOOLS, toolChoice: { mode: i === 0 ? "required" : "auto" } });
        got.push(r);
        const content = Array.isArray(r.content) ? r.content : [r.content];
        const uses = content.filter((c) => c.type === "tool_use");
        if (r.stopReason !== "toolUse") break;
        messages = [...messages, { role: "assistant", content }, { role: "user", content: uses.map((u) => ({ type: "tool_result", toolUseId: u.id, content: [{ type: "text", text: run(u.name, u.input) }] })) }];
      }
      return { content: [{ type: "text", text: "SERVER GOT " + JSON.stringify(got) }] };
    } catch (e) { return { content: [{ type: "text", text: "SERVER REFUSED " + e.message + " AFTER " + JSON.stringify(got) }] }; }
  });
  server.registerTool("raw", { description: "sends a sampling request as given", inputSchema: { params: z.string() } }, async ({ params }, extra) => {
    try {
      const r = await extra.sendRequest({ method: "sampling/createMessage", params: JSON.parse(params) }, CreateMessageResultWithToolsSchema);
      return { content: [{ type: "text", text: "answered: " + JSON.stringify(r) }] };
    } catch (e) { return { content: [{ type: "text", text: "refused: " + e.message }] }; }
  });
  return server;
}
if (process.argv[2] === "http") {
  const sessions = {};
  const http = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    let t = id && sessions[id];
    if (!t) {
      t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => { sessions[sid] = t; } });
      await makeServer().connect(t);
    }
    await t.handleRequest(req, res);
  });
  http.listen(0, "127.0.0.1", () => console.log("PORT " + http.address().port));
} else await makeServer().connect(new StdioServerTransport());
`,
  );
  return script;
}

type Wire = "openai" | "anthropic";

/** A `yoke run` ("use the tool") with the scripted model on `wire`, the server `tools` defined by `server`. */
async function run(wire: Wire, server: Record<string, unknown>, allow: string[], script: ScriptedTurn[], deny: string[] = []) {
  const { cwd, home } = createWorkspaceWithHome("yoke-mcp-sampling-tools-", { "~/.yoke/settings.json": JSON.stringify({ mcpServers: { tools: server }, permissions: { allow, deny } }) }, temps);
  const llm = await startScriptedLlmServer({ script });
  const sessions = join(home, "sessions");
  try {
    const provider = wire === "openai" ? ["--provider", "openai-compatible", "--base-url", llm.openaiBaseUrl] : ["--provider", "anthropic", "--base-url", llm.anthropicBaseUrl];
    const r = await runCli(["run", "--trust", ...provider, "--model", "m", "--cwd", cwd, "--session-dir", sessions, "use the tool"], { env: { HOME: home } });
    return { ...r, requests: llm.requests, events: sessionEventsIn(sessions) };
  } finally {
    await llm.close();
  }
}

type Body = Record<string, unknown>;
/** The names of the tools a request offered (either wire). */
const toolNames = (b: Body) => ((b.tools as Array<{ name?: string; function?: { name: string } }> | undefined) ?? []).map((t) => t.function?.name ?? t.name);
/** Every text the model was told in a request's messages (either wire), as one string. */
const told = (r: RecordedRequest) => JSON.stringify(r.body.messages);

const FORECAST = { name: "mcp__tools__forecast", input: { city: "Lima" } };

/** The forecast's script: the session's call, the model's two tool calls (under the stand-in name), its final answer, the session's end. */
const forecastScript = (): ScriptedTurn[] => [
  { toolCalls: [FORECAST] },
  {
    text: "Looking it up.",
    toolCalls: [
      { name: "get_weather", input: { city: "Lima" } },
      { name: "geo_lookup", input: { city: "Lima" } },
    ],
    usage: { input: 50, output: 20 },
  },
  { text: "Sunny in Lima, at 12S.", usage: { input: 80, output: 9 } },
  { text: "done" },
];

type Answer = { model: string; stopReason: string; role: string; content: unknown };

/** The texts of the tool results in a request's messages (either wire). */
function toolTexts(b: Body): string[] {
  type Block = { type?: string; content?: unknown; text?: string };
  const textOf = (c: unknown): string => (typeof c === "string" ? c : Array.isArray(c) ? (c as Block[]).map((x) => x.text ?? "").join("") : "");
  return (b.messages as Array<{ role: string; content: unknown }>).flatMap((m) =>
    m.role === "tool" ? [textOf(m.content)] : m.role === "user" && Array.isArray(m.content) ? (m.content as Block[]).filter((c) => c.type === "tool_result").map((c) => textOf(c.content)) : [],
  );
}

/** What the server got back (its own report, in its tool result in the session's last request). */
function serverGot(requests: RecordedRequest[]): Answer[] {
  const text = toolTexts(requests.at(-1)!.body).find((t) => t.includes("SERVER GOT ")) ?? "";
  expect(text, toolTexts(requests.at(-1)!.body).join("\n")).toContain("SERVER GOT ");
  const rest = text.slice(text.indexOf("SERVER GOT ") + "SERVER GOT ".length);
  return JSON.parse(rest.slice(0, rest.lastIndexOf("]") + 1)) as Answer[];
}

function assertForecast(wire: Wire, r: Awaited<ReturnType<typeof run>>) {
  expect(r.code, r.stderr).toBe(0);
  // The session's turn, two sampling requests (the second with the tools' results), the session's next turn.
  expect(r.requests).toHaveLength(4);
  const [first, second] = [r.requests[1]!.body, r.requests[2]!.body];
  // The server's tools reached the model (the dotted name under its stand-in), and only they: none of Yoke's.
  expect(toolNames(first)).toEqual(["get_weather", "geo_lookup"]);
  expect(toolNames(second)).toEqual(["get_weather", "geo_lookup"]);
  expect(JSON.stringify(first.tools)).toContain("The weather in a city, now.");
  // toolChoice "required" then "auto", in each wire's own words.
  if (wire === "openai") {
    expect(first.tool_choice).toBe("required");
    expect(second.tool_choice).toBe("auto");
  } else {
    expect(first.tool_choice).toEqual({ type: "any" });
    expect(second.tool_choice).toEqual({ type: "auto" });
  }
  expect(told(r.requests[1]!)).toContain("What is the weather in Lima?");
  expect(JSON.stringify(r.requests[1]!.body)).toContain("You forecast.");
  // The second request carries the model's calls and the SERVER's results of them.
  const second_ = told(r.requests[2]!);
  expect(second_).toContain("SUNNY-IN-Lima");
  expect(second_).toContain("GEO-Lima-12S");
  expect(second_).toContain(wire === "openai" ? "tool_call_id" : "tool_result");

  // What the server got: the model's calls, under the server's own names, with stopReason toolUse; then the text.
  const got = serverGot(r.requests);
  expect(got).toHaveLength(2);
  expect(got[0]!.stopReason).toBe("toolUse");
  const content = got[0]!.content as Array<{ type: string; name?: string; input?: unknown; text?: string }>;
  expect(content.map((c) => c.type)).toEqual(["text", "tool_use", "tool_use"]);
  expect(content[0]!.text).toBe("Looking it up.");
  expect(content.slice(1).map((c) => [c.name, c.input])).toEqual([
    ["get_weather", { city: "Lima" }],
    ["geo.lookup", { city: "Lima" }],
  ]);
  expect(got[1]!.stopReason).toBe("endTurn");
  expect(got[1]!.content).toEqual({ type: "text", text: "Sunny in Lima, at 12S." });

  // Yoke ran none of the server's tools: the session's only tool call is the forecast.
  expect(r.events.filter((e) => e.type === "tool_call").map((e) => (e as { name: string }).name)).toEqual(["mcp__tools__forecast"]);
  // Both sampling requests are counted (cost, budgets) and said in the log.
  expect(r.events.filter((e) => e.type === "usage" && (e as { sampling?: string }).sampling === "tools")).toHaveLength(2);
  const said = r.events.filter((e) => e.type === "mcp_request").map((e) => (e as { detail?: string }).detail ?? "");
  expect(said[0]).toContain("2 tool calls for the server to run (get_weather, geo.lookup)");
}

describe("sampling with tools, through full sessions", () => {
  it("stdio, OpenAI-compatible wire: the server's tools reach the model, its calls reach the server unexecuted, their results the model", async () => {
    const { base } = createWorkspaceWithHome("yoke-mcp-sampling-tools-srv-", {}, temps);
    const script = toolServer(base);
    const r = await run("openai", { command: process.execPath, args: [script] }, ["mcp__tools", "McpSampling(tools)"], forecastScript());
    assertForecast("openai", r);
    expect(pidsOf([process.execPath, script])).toEqual([]);
  }, 180_000);

  it("Streamable HTTP, Anthropic wire: the same, in the Messages API's shapes", async () => {
    const { base } = createWorkspaceWithHome("yoke-mcp-sampling-tools-srv-", {}, temps);
    const script = toolServer(base);
    const server = spawn(process.execPath, [script, "http"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = "";
        server.stdout!.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /PORT (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        server.once("exit", (code) => reject(new Error(`the test server exited (${code})`)));
      });
      const r = await run("anthropic", { type: "http", url: `http://127.0.0.1:${port}/mcp` }, ["mcp__tools", "McpSampling(tools)"], forecastScript());
      assertForecast("anthropic", r);
      // The Messages API's shapes: tools with input_schema, the results as tool_result blocks answering the calls' ids.
      const first = r.requests[1]!.body as { tools: Array<{ input_schema?: unknown }> };
      expect(first.tools.every((t) => !!t.input_schema)).toBe(true);
      const msgs = r.requests[2]!.body.messages as Array<{ role: string; content: Array<{ type: string; id?: string; tool_use_id?: string }> }>;
      const uses = msgs.flatMap((m) => (m.role === "assistant" ? m.content.filter((c) => c.type === "tool_use").map((c) => c.id) : []));
      const results = msgs.flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content.filter((c) => c.type === "tool_result").map((c) => c.tool_use_id) : []));
      expect(uses).toHaveLength(2);
      expect(results).toEqual(uses);
    } finally {
      server.kill("SIGTERM");
    }
  }, 180_000);

  it("a deny rule McpSampling(tools) still refuses it: the model is never asked, the server told", async () => {
    const { base } = createWorkspaceWithHome("yoke-mcp-sampling-tools-srv-", {}, temps);
    const script = toolServer(base);
    const r = await run("openai", { command: process.execPath, args: [script] }, ["mcp__tools"], [{ toolCalls: [FORECAST] }, { text: "done" }], ["McpSampling(tools)"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests).toHaveLength(2);
    expect(toolNames(r.requests[1]!.body)).not.toContain("get_weather");
    expect(toolTexts(r.requests[1]!.body).join("\n")).toContain("SERVER REFUSED");
    expect(toolTexts(r.requests[1]!.body).join("\n")).toContain("Yoke refused the sampling request");
  }, 180_000);

  it("no rule and no terminal: refused as before, whatever the tools", async () => {
    const { base } = createWorkspaceWithHome("yoke-mcp-sampling-tools-srv-", {}, temps);
    const script = toolServer(base);
    const r = await run("openai", { command: process.execPath, args: [script] }, ["mcp__tools"], [{ toolCalls: [FORECAST] }, { text: "done" }]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests).toHaveLength(2);
    expect(toolTexts(r.requests[1]!.body).join("\n")).toContain("SERVER REFUSED");
    expect(toolTexts(r.requests[1]!.body).join("\n")).toContain("no one to ask");
  }, 180_000);
});

describe("toolChoice none", () => {
  for (const wire of ["openai", "anthropic"] as const)
    it(`${wire} wire: the tools are offered with the choice "none" in the wire's words; the text answer goes back as one block`, async () => {
      const { base } = createWorkspaceWithHome("yoke-mcp-sampling-tools-srv-", {}, temps);
      const script = toolServer(base);
      const params = {
        maxTokens: 20,
        messages: [{ role: "user", content: { type: "text", text: "say hi, no tools" } }],
        tools: [{ name: "get_weather", inputSchema: { type: "object", properties: {} } }],
        toolChoice: { mode: "none" },
      };
      const r = await run(
        wire,
        { command: process.execPath, args: [script] },
        ["mcp__tools", "McpSampling(tools)"],
        [{ toolCalls: [{ name: "mcp__tools__raw", input: { params: JSON.stringify(params) } }] }, { text: "hi without tools" }, { text: "done" }],
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.requests).toHaveLength(3);
      expect(toolNames(r.requests[1]!.body)).toEqual(["get_weather"]);
      expect(r.requests[1]!.body.tool_choice).toEqual(wire === "openai" ? "none" : { type: "none" });
      const answer = toolTexts(r.requests[2]!.body).join("\n");
      expect(JSON.parse(answer.slice(answer.indexOf("{")))).toEqual({ model: "m", stopReason: "endTurn", role: "assistant", content: { type: "text", text: "hi without tools" } });
    }, 180_000);
});

describe("bad sampling-with-tools requests are refused before the model is asked", () => {
  const tool = (name: string) => ({ name, inputSchema: { type: "object", properties: {} } });
  const user = (text: string) => ({ role: "user", content: { type: "text", text } });
  const cases: Array<{ name: string; params: unknown; error: string }> = [
    {
      name: "65 tools",
      params: { maxTokens: 10, messages: [user("hi")], tools: Array.from({ length: 65 }, (_, i) => tool(`t${i}`)) },
      error: "a sampling request may offer at most 64 tools (it offered 65)",
    },
    {
      name: "200 kB of tool descriptions",
      params: { maxTokens: 10, messages: [user("hi")], tools: [{ ...tool("big"), description: "d".repeat(200_000) }] },
      error: "a sampling request's tools may have at most 100000 characters of definitions",
    },
    { name: "a tool offered twice", params: { maxTokens: 10, messages: [user("hi")], tools: [tool("a"), tool("a")] }, error: 'a sampling request offers the tool "a" twice' },
    {
      name: "a result answering no call",
      params: {
        maxTokens: 10,
        tools: [tool("a")],
        messages: [
          user("hi"),
          { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "a", input: {} }] },
          { role: "user", content: [{ type: "tool_result", toolUseId: "c9", content: [] }] },
        ],
      },
      error: 'message 3: the tool result for "c9" answers no tool call of the assistant message before it',
    },
    {
      name: "a call left without its result",
      params: {
        maxTokens: 10,
        tools: [tool("a")],
        messages: [user("hi"), { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "a", input: {} }] }, user("and?")],
      },
      error: 'message 3: the tool calls of the assistant message before it ("c1") need their results first',
    },
    {
      name: "text beside tool results",
      params: {
        maxTokens: 10,
        tools: [tool("a")],
        messages: [
          user("hi"),
          { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "a", input: {} }] },
          {
            role: "user",
            content: [
              { type: "tool_result", toolUseId: "c1", content: [] },
              { type: "text", text: "ignore the above" },
            ],
          },
        ],
      },
      error: "message 3: a user message with tool results may hold nothing else (MCP)",
    },
  ];
  it("each refused with its reason; no request of them reached the model (allowed by McpSampling)", async () => {
    const { base } = createWorkspaceWithHome("yoke-mcp-sampling-tools-srv-", {}, temps);
    const script = toolServer(base);
    const calls = cases.map((c) => ({ name: "mcp__tools__raw", input: { params: JSON.stringify(c.params) } }));
    const r = await run("openai", { command: process.execPath, args: [script] }, ["mcp__tools", "McpSampling(tools)"], [{ toolCalls: calls }, { text: "done" }]);
    expect(r.code, r.stderr).toBe(0);
    // The session's two turns only: no sampling request reached the model.
    expect(r.requests).toHaveLength(2);
    const results = toolTexts(r.requests[1]!.body);
    expect(results).toHaveLength(cases.length);
    cases.forEach((c, i) => {
      expect(results[i], c.name).toContain("refused: MCP error");
      expect(results[i], c.name).toContain(c.error);
    });
    expect(r.events.filter((e) => e.type === "usage" && (e as { sampling?: string }).sampling)).toEqual([]);
  }, 180_000);
});

describe("what the user is shown before approving", () => {
  it("the card names the offered tools, the choice, and each call and result of the messages", () => {
    const text = describeSampling(
      "tools",
      {
        maxTokens: 100,
        tools: [
          { name: "get_weather", inputSchema: { type: "object" } },
          { name: "geo.lookup", inputSchema: { type: "object" } },
        ],
        toolChoice: "required",
        messages: [
          { role: "user", text: "weather?" },
          { role: "assistant", text: "", toolUses: [{ id: "c1", name: "get_weather", input: { city: "Lima" } }] },
          { role: "user", text: "", toolResults: [{ toolUseId: "c1", text: "SUNNY", isError: false }] },
        ],
      },
      100,
      "m",
    );
    expect(text.split("\n")).toEqual([
      'The MCP server "tools" asks m to answer (at most 100 tokens).',
      "Tools offered (the model must call one; the server runs the calls, not Yoke): get_weather, geo.lookup",
      "System prompt: (none)",
      "user: weather?",
      'assistant: (calls get_weather) {"city":"Lima"}',
      "user: (result of call c1) SUNNY",
    ]);
  });
});

describe("with someone to ask (as the panel's card): each sampling request is asked", () => {
  it("the first (tools offered, the choice) is allowed; the second (the calls and the server's results) is denied with a message: the server stops there", async () => {
    const { cwd, home, base } = createWorkspaceWithHome("yoke-mcp-sampling-tools-ask-", { "~/.yoke/settings.json": "{}" }, temps);
    const script = toolServer(base);
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { tools: { command: process.execPath, args: [script] } }, permissions: { allow: ["mcp__tools"] } }));
    const llm = await startScriptedLlmServer({
      script: forecastScript()
        .slice(0, 2)
        .concat([{ text: "done" }]),
    });
    const saved = process.env.HOME;
    process.env.HOME = home;
    const asked: PermissionQuestion[] = [];
    try {
      const setup = await buildCliSession({ cwd, provider: "openai-compatible", baseUrl: llm.openaiBaseUrl, model: "m", sessionDir: join(home, "sessions"), json: false, trust: true }, undefined, {
        approver: {
          ask: async (q) => {
            asked.push(q);
            return asked.length === 1 ? { decision: "allow" } : { decision: "deny", message: "enough weather" };
          },
        },
      });
      const s = await AgentSession.create(setup.options);
      await s.send("use the tool");
      await setup.dispose();
    } finally {
      process.env.HOME = saved;
      await llm.close();
    }
    expect(asked.map((q) => q.permission)).toEqual(["McpSampling(tools)", "McpSampling(tools)"]);
    expect(asked[0]!.summary).toContain("Tools offered (the model must call one; the server runs the calls, not Yoke): get_weather, geo.lookup");
    expect(asked[0]!.summary).toContain("user: What is the weather in Lima?");
    expect(asked[1]!.summary).toContain("Tools offered (the model may call them; the server runs the calls, not Yoke)");
    expect(asked[1]!.summary).toContain('assistant: (calls geo.lookup) {"city":"Lima"}');
    expect(asked[1]!.summary).toMatch(/user: \(result of call [^)]+\) SUNNY-IN-Lima/);
    // The model: the session's turn, the allowed sampling request, the session's next turn (the denied one never sent).
    expect(llm.requests).toHaveLength(3);
    expect(toolNames(llm.requests[1]!.body)).toEqual(["get_weather", "geo_lookup"]);
    const report = toolTexts(llm.requests[2]!.body).join("\n");
    expect(report).toContain("SERVER REFUSED");
    expect(report).toContain("the user declined the sampling request: enough weather");
    expect(pidsOf([process.execPath, script])).toEqual([]);
  }, 120_000);
});
