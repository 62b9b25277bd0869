// A Streamable HTTP MCP server (JSON answers) with one task-required tool; counts tools/call.
// The first tasks/get answers 404 "Session not found" (as a server that restarted or ended the session).
import { createServer } from "node:http";
import { appendFileSync } from "node:fs";
const [, , portFile, countFile] = process.argv;
let session = 0,
  polls = 0;
const srv = createServer((req, res) => {
  if (req.method === "DELETE") {
    res.writeHead(200).end();
    return;
  }
  if (req.method === "GET") {
    res.writeHead(405).end();
    return;
  }
  let body = "";
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    const m = JSON.parse(body);
    const reply = (result, headers = {}) => {
      res.writeHead(200, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }));
    };
    if (m.method === "initialize") {
      session++;
      return reply(
        { protocolVersion: m.params.protocolVersion, capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, serverInfo: { name: "t", version: "1" } },
        { "mcp-session-id": `s${session}` },
      );
    }
    if (m.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (m.method === "tools/list") return reply({ tools: [{ name: "send_mail", description: "sends one mail", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }] });
    if (m.method === "tools/call") {
      appendFileSync(countFile, "call\n");
      return reply({ task: { taskId: `t${session}`, status: "working", createdAt: new Date().toISOString(), lastUpdatedAt: new Date().toISOString(), ttl: 60000, pollInterval: 100 } });
    }
    if (m.method === "tasks/get") {
      if (++polls === 1) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32001, message: "Session not found" } }));
        return;
      }
      return reply({ taskId: m.params.taskId, status: "completed", createdAt: new Date().toISOString(), lastUpdatedAt: new Date().toISOString(), ttl: 60000 });
    }
    if (m.method === "tasks/result") return reply({ content: [{ type: "text", text: "mail sent" }] });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no" } }));
  });
});
srv.listen(0, "127.0.0.1", () => appendFileSync(portFile, String(srv.address().port)));
