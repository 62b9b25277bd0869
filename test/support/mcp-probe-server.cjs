// A real stdio MCP server built on the SDK's own server classes, for the tests of what Yoke's
// client does around a server: a large result, a grandchild process, a crash, a busy call.
// Flags (any order): --stubborn ignores the end of stdin and SIGTERM (only SIGKILL stops it);
// any other argument is a tag the tests find the process by (its command line).
const { spawn } = require("node:child_process");
const { McpServer, ResourceTemplate } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = require("zod");

const stubborn = process.argv.includes("--stubborn");
const tag = process.argv.slice(2).find((a) => a !== "--stubborn") || "";
const server = new McpServer({ name: "probe", version: "1.0.0" });

server.registerTool("lines", { description: "Returns n numbered lines", inputSchema: { n: z.number().int() } }, async ({ n }) => ({
  content: [{ type: "text", text: Array.from({ length: n }, (_, i) => `line ${i + 1} of ${n}: ${"x".repeat(60)}`).join("\n") }],
}));

// A resource of n numbered lines (probe://lines/{n}), for what the model is shown of a large one.
server.registerResource("lines", new ResourceTemplate("probe://lines/{n}", { list: undefined }), { mimeType: "text/plain", description: "n numbered lines" }, async (uri, { n }) => ({
  contents: [{ uri: uri.href, mimeType: "text/plain", text: Array.from({ length: Number(n) }, (_, i) => `resource line ${i + 1} of ${n}: ${"y".repeat(60)}`).join("\n") }],
}));

server.registerTool("spawn_sleeper", { description: "Starts a sleeping child process and returns its pid", inputSchema: {} }, async () => {
  // Same process group as this server (not detached), as a server's helper processes are.
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)", `sleeper${tag}`], { stdio: "ignore" });
  child.unref();
  return { content: [{ type: "text", text: `sleeper pid ${child.pid}` }] };
});

server.registerTool("crash", { description: "Exits the server right after answering", inputSchema: {} }, async () => {
  setTimeout(() => process.exit(3), 100);
  return { content: [{ type: "text", text: "crashing" }] };
});

server.registerTool("wait", { description: "Answers after ms milliseconds", inputSchema: { ms: z.number().int() } }, async ({ ms }) => {
  await new Promise((r) => setTimeout(r, ms));
  return { content: [{ type: "text", text: `waited ${ms} ms` }] };
});

server.registerTool("add_tool", { description: "Registers one more tool (the server sends tools/list_changed)", inputSchema: { name: z.string() } }, async ({ name }) => {
  server.registerTool(name, { description: "A tool added while running", inputSchema: {} }, async () => ({ content: [{ type: "text", text: `${name} answered` }] }));
  return { content: [{ type: "text", text: `added ${name}` }] };
});

// Prompts: one from the start (so the server declares prompts), more added while running (prompts/list_changed).
server.registerPrompt("hello", { description: "Says hello", argsSchema: { who: z.string() } }, ({ who }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${who}.` } }] }));
server.registerTool("add_prompt", { description: "Registers one more prompt (the server sends prompts/list_changed)", inputSchema: { name: z.string() } }, async ({ name }) => {
  server.registerPrompt(name, { description: "A prompt added while running" }, () => ({ messages: [{ role: "user", content: { type: "text", text: `the ${name} prompt` } }] }));
  return { content: [{ type: "text", text: `added prompt ${name}` }] };
});

// A server whose program changed: one more tool (the cached tool list must follow).
if (process.env.PROBE_EXTRA_TOOL) {
  server.registerTool(process.env.PROBE_EXTRA_TOOL, { description: "A tool added later", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: `the ${process.env.PROBE_EXTRA_TOOL} tool answered` }],
  }));
}

// PROBE_RECORD=FILE: what ended the server, in order ("stdin-end", "SIGTERM"), for the shutdown-order test.
const record = process.env.PROBE_RECORD;
if (record) {
  const { appendFileSync } = require("node:fs");
  process.stdin.on("end", () => appendFileSync(record, "stdin-end\n"));
  process.on("SIGTERM", () => {
    appendFileSync(record, "SIGTERM\n");
    process.exit(143);
  });
}

if (stubborn) {
  process.on("SIGTERM", () => {});
  process.on("SIGHUP", () => {});
  setInterval(() => {}, 1 << 30);
}
const transport = new StdioServerTransport();
if (stubborn) process.stdin.on("end", () => {}); // keeps running after the client is gone
server.connect(transport).catch((err) => {
  process.stderr.write(String(err));
  process.exit(1);
});
