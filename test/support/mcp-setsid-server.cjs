// A tiny real stdio MCP server (the SDK's own server classes) that, as it starts, forks a grandchild
// that leaves its process group and session through util-linux `setsid -f` (as daemons and
// `setsid nohup … &` do): the group's signals never reach it. Argument 1 is a tag in the
// grandchild's command line (`node -e … sleeper<tag>`) for the tests to find it by.
const { spawn } = require("node:child_process");
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");

const tag = process.argv[2] || "";
const daemon = spawn("setsid", ["-f", process.execPath, "-e", "setInterval(() => {}, 1 << 30)", `sleeper${tag}`], { stdio: "ignore" });
daemon.unref();
const server = new McpServer({ name: "setsid", version: "1.0.0" });
server.registerTool("ping", { description: "Answers pong", inputSchema: {} }, async () => ({ content: [{ type: "text", text: "pong" }] }));
server.registerTool("crash", { description: "Exits the server right after answering", inputSchema: {} }, async () => {
  setTimeout(() => process.exit(3), 100);
  return { content: [{ type: "text", text: "crashing" }] };
});
void server.connect(new StdioServerTransport());
