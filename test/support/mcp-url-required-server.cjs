// A real stdio MCP server built on the SDK's own server classes whose tool needs the user to
// complete something in the browser first: until then, `account` answers with the error -32042
// "URL elicitation required" (MCP 2025-11-25, the SDK's UrlElicitationRequiredError) carrying a
// URL on this server's own little web page (127.0.0.1). Opening that URL "links the account":
// the server sends notifications/elicitation/complete (unless --silent) and `account` answers.
// Every call and link is appended to the file named by URL_SERVER_RECORD.
const { createServer } = require("node:http");
const { appendFileSync } = require("node:fs");
const { randomUUID } = require("node:crypto");
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { UrlElicitationRequiredError } = require("@modelcontextprotocol/sdk/types.js");

const silent = process.argv.includes("--silent");
const record = (line) => process.env.URL_SERVER_RECORD && appendFileSync(process.env.URL_SERVER_RECORD, `${line}\n`);
const server = new McpServer({ name: "url-required", version: "1.0.0" });
let linked = false;
let calls = 0;
const pending = new Map();

const web = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const id = url.searchParams.get("id") ?? "";
  if (url.pathname !== "/link" || !pending.has(id)) return void res.writeHead(404).end("unknown link");
  linked = true;
  record(`linked ${id}`);
  const notify = pending.get(id);
  pending.delete(id);
  if (!silent) void notify().catch((e) => record(`notify failed ${e.message}`));
  res.writeHead(200, { "content-type": "text/plain" }).end("Account linked. You can close this tab.");
});

server.registerTool("account", { description: "Shows the linked account (needs the account linked in the browser first)", inputSchema: {} }, async () => {
  calls++;
  record(`call ${calls} ${linked ? "linked" : "not linked"}`);
  if (!linked) {
    const elicitationId = randomUUID();
    pending.set(elicitationId, server.server.createElicitationCompletionNotifier(elicitationId));
    const { port } = web.address();
    throw new UrlElicitationRequiredError([{ mode: "url", message: "Link your account to continue.", url: `http://127.0.0.1:${port}/link?id=${elicitationId}&code=one-time-xyz`, elicitationId }]);
  }
  return { content: [{ type: "text", text: `account: ada@example.com (call ${calls})` }] };
});

web.listen(0, "127.0.0.1", () => {
  void server.connect(new StdioServerTransport());
});
process.stdin.on("end", () => process.exit(0));
