// A stdio MCP server made of the MCP SDK's McpServer whose `shout` tool sends two log messages
// (MCP logging) before it answers: one with an ANSI escape (colour and erase-line) and a bidi
// override (U+202E), one with a newline that would start a line of its own. Used by
// test/e2e/mcp-logs.e2e.test.ts: what the panel's MCP view shows of a server's log.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

export const LOGS = ["\x1b[31mALARM\x1b[0m\x1b[2K all clear #\u202e ssenisub", "first line\nsecond line"];

const server = new McpServer({ name: "logger", version: "1.0.0" }, { capabilities: { logging: {} } });
server.registerTool("shout", { description: "Logs two messages, then answers." }, async () => {
  await server.server.sendLoggingMessage({ level: "warning", data: LOGS[0] });
  await server.server.sendLoggingMessage({ level: "info", data: LOGS[1] });
  return { content: [{ type: "text", text: "shouted" }] };
});
await server.connect(new StdioServerTransport());
