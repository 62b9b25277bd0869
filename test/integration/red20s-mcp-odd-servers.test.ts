// Red team S (session 20), issue 22's held-out run rehearsed with servers that misbehave the ways
// real ones do, made of the MCP SDK's own server classes (the project's dependency) or written raw
// where the SDK cannot misbehave, through `yoke mcp list` and a full `yoke run` with the scripted model:
// - A server answering in JSON-RPC batches (an array on one line), as MCP 2025-03-26 allows and
//   requires clients to accept (the SDK's client negotiates that version): before, Yoke's stdio
//   transport dropped the line as garbage and the start "took longer than 30 s".
// - A server that writes something that is not MCP on stdout (a usage text) and exits: before, the
//   listing said only "Connection closed"; now it says what the server wrote, and where logs go.
// - Held (no change needed): text before the first message on stdout, 2,000 tools (deferred behind
//   mcp_search, the last one callable by name), a 5 MB tool description (not in the request), `__`
//   and non-ASCII tool names (sanitised, called under the server's own name), no process left.
import { writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureBuilt, runCli } from "../support/cli";
import { pidsOf } from "../support/processes";
import { runScriptedSession, toldOf } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 300_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const sdk = (p: string) => JSON.stringify(pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${p}`)).href);
const HEAD = `import { McpServer } from ${sdk("server/mcp.js")};\nimport { StdioServerTransport } from ${sdk("server/stdio.js")};\n`;

const SERVERS: Record<string, string> = {
  // Raw: every answer is a batch; a call's answer comes with a log notification in the same batch.
  "batch.mjs": `import { createInterface } from "node:readline";
const send = (...m) => process.stdout.write(JSON.stringify(m) + "\\n");
createInterface({ input: process.stdin }).on("line", (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined) return;
  if (m.method === "initialize") send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-03-26", capabilities: { tools: {}, logging: {} }, serverInfo: { name: "batch", version: "1" } } });
  else if (m.method === "tools/list") send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "ping", description: "answers pong", inputSchema: { type: "object" } }] } });
  else if (m.method === "tools/call") send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "called" } }, { jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "pong from a batch" }] } });
  else send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "not here" } });
});
`,
  "many.mjs": `${HEAD}const s = new McpServer({ name: "many", version: "1" });
for (let i = 0; i < 2000; i++) s.registerTool("tool_" + i, { description: "Tool number " + i }, async () => ({ content: [{ type: "text", text: "ran tool " + i }] }));
await s.connect(new StdioServerTransport());
`,
  "big.mjs": `${HEAD}const s = new McpServer({ name: "big", version: "1" });
s.registerTool("huge", { description: "H".repeat(5 * 1024 * 1024) }, async () => ({ content: [{ type: "text", text: "huge ran" }] }));
await s.connect(new StdioServerTransport());
`,
  "named.mjs": `${HEAD}const s = new McpServer({ name: "named", version: "1" });
s.registerTool("do__it", { description: "double underscore" }, async () => ({ content: [{ type: "text", text: "did it" }] }));
s.registerTool("café_ünï", { description: "unicode" }, async () => ({ content: [{ type: "text", text: "unicode ran" }] }));
await s.connect(new StdioServerTransport());
`,
  "noisy.mjs": `process.stdout.write("Starting server v1.2...\\n\\x1b[32mready\\x1b[0m\\n{not json}\\n[1,2,3]\\n");
const { McpServer } = await import(${sdk("server/mcp.js")});
const { StdioServerTransport } = await import(${sdk("server/stdio.js")});
const s = new McpServer({ name: "noisy", version: "1" });
s.registerTool("ping", { description: "ping" }, async () => ({ content: [{ type: "text", text: "noisy pong" }] }));
await s.connect(new StdioServerTransport());
`,
  // A 40 MB result (one 40 MB line) and a tool whose answer never ends (bytes without a newline).
  "large.mjs": `${HEAD}const s = new McpServer({ name: "large", version: "1" });
s.registerTool("big", { description: "big" }, async () => ({ content: [{ type: "text", text: "line of text\\n".repeat(3_200_000) + "THE END" }] }));
s.registerTool("endless", { description: "endless" }, async () => {
  const chunk = "x".repeat(1 << 20);
  const go = () => (process.stdout.write(chunk) ? setImmediate(go) : process.stdout.once("drain", go));
  go();
  return new Promise(() => {});
});
await s.connect(new StdioServerTransport());
`,
  "usage.mjs": `process.stdout.write("Usage: server --config FILE\\nerror: missing --config\\n");
process.stdin.once("data", () => process.exit(2));
`,
};

function workspace(names: string[]) {
  const { cwd, home, base } = createWorkspaceWithHome("yoke-red20s-", { "~/.yoke/settings.json": "{}" }, temps);
  const mcpServers: Record<string, unknown> = {};
  for (const n of names) {
    const file = join(base, `${n}.mjs`);
    writeFileSync(file, SERVERS[`${n}.mjs`]);
    // Named with `__` and non-ASCII, as people name them.
    mcpServers[n === "named" ? "named__sérvér" : n] = { command: process.execPath, args: [file] };
  }
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers }));
  return { cwd, home, files: names.map((n) => join(base, `${n}.mjs`)) };
}

it("batches, noise before the first message, 2,000 tools, a 5 MB description and odd names: every call reaches the model, nothing is left running", async () => {
  const { cwd, home, files } = workspace(["batch", "many", "big", "named", "noisy"]);
  const calls = ["mcp__batch__ping", "mcp__many__tool_1999", "mcp__named_s_rv_r__do__it", "mcp__named_s_rv_r__caf___n_", "mcp__noisy__ping"];
  const r = await runScriptedSession(cwd, home, [{ toolCalls: calls.map((name) => ({ name, input: {} })) }, { text: "done" }], ["--permission-mode", "bypassPermissions"]);
  expect(r.code, r.stderr).toBe(0);
  const told = toldOf(r.requests);
  for (const text of ["pong from a batch", "ran tool 1999", "did it", "unicode ran", "noisy pong"]) expect(told).toContain(text);
  expect(told).not.toMatch(/unknown tool|failed to start/i);
  // The 5 MB description is in no request (the tool is deferred: its size is over the budget).
  for (const q of r.requests) expect(JSON.stringify(q.body).length).toBeLessThan(200_000);
  for (const f of files) expect(pidsOf([process.execPath, f])).toEqual([]);
}, 240_000);

it("a 40 MB result is read (Yoke crashed over the SDK's 10 MiB); a message that never ends stops its server with the reason, and the session goes on", async () => {
  const { cwd, home, files } = workspace(["large"]);
  const r = await runScriptedSession(
    cwd,
    home,
    [{ toolCalls: [{ name: "mcp__large__big", input: {} }] }, { toolCalls: [{ name: "mcp__large__endless", input: {} }] }, { text: "done" }],
    ["--permission-mode", "bypassPermissions"],
  );
  expect(r.code, r.stderr).toBe(0);
  const told = toldOf(r.requests);
  expect(told).toMatch(/This result is 4\d,\d{3},\d{3} characters/);
  expect(told).toContain("THE END");
  expect(told).toMatch(/mcp__large__endless: the MCP server "large" did not answer the call: the server sent a message over 64 MiB .*, so Yoke stopped it/);
  expect(r.stdout + r.stderr).toContain("MCP server large failed: the server sent a message over 64 MiB");
  expect(r.stdout).toContain("done");
  expect(pidsOf([process.execPath, files[0]!])).toEqual([]);
}, 240_000);

it("a server that writes a usage text on stdout and exits: the listing says what it wrote", async () => {
  const { cwd, home, files } = workspace(["usage"]);
  const r = await runCli(["mcp", "list", "--cwd", cwd], { env: { HOME: home } });
  expect(r.code).toBe(1);
  const line = r.stdout.split("\n").find((l) => l.startsWith("usage "));
  expect(line).toMatch(/failed — .*it wrote on stdout what is not an MCP message \(stdout is for MCP messages only; logs go to stderr\): Usage: server --config FILE\\nerror: missing --config/);
  expect(pidsOf([process.execPath, files[0]!])).toEqual([]);
}, 120_000);
