/**
 * A real MCP server over HTTP for tests, built on the SDK's own server classes: streamable HTTP
 * (stateless, a server per request) or the older HTTP+SSE transport (GET = event stream, POST
 * /messages), recording every tool call it receives.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { z } from "zod";

export interface RecordingMcpServer {
  url: string;
  calls: { tool: string; args: unknown; headers: Record<string, string | string[] | undefined> }[];
  close(): Promise<void>;
}

function build(calls: RecordingMcpServer["calls"], headers: () => IncomingMessage["headers"]): McpServer {
  const server = new McpServer({ name: "recorder", version: "1.0.0" });
  server.registerTool("add", { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    calls.push({ tool: "add", args: { a, b }, headers: headers() });
    return { content: [{ type: "text", text: `sum=${a + b}` }] };
  });
  server.registerTool("delete_everything", { description: "Deletes all records (dangerous)", inputSchema: { confirm: z.boolean() } }, async (args) => {
    calls.push({ tool: "delete_everything", args, headers: headers() });
    return { content: [{ type: "text", text: "all records deleted" }] };
  });
  return server;
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

/** `requireHeaders`: a request without these header values (exactly) is answered 401, as a server behind an auth gateway. */
/** `accepts`: a request whose headers it refuses is answered 401 too (an expired token). */
export async function startRecordingMcpServer(
  kind: "streamable" | "sse" = "streamable",
  o: { requireHeaders?: Record<string, string>; accepts?: (headers: IncomingMessage["headers"]) => boolean } = {},
): Promise<RecordingMcpServer> {
  const calls: RecordingMcpServer["calls"] = [];
  const sse = new Map<string, SSEServerTransport>();
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      try {
        const refused = Object.entries(o.requireHeaders ?? {}).find(([k, v]) => req.headers[k.toLowerCase()] !== v) ?? (o.accepts && !o.accepts(req.headers) ? ["a header"] : undefined);
        if (refused) {
          res.writeHead(401, { "content-type": "text/plain" }).end(`missing or wrong ${refused[0]}`);
          return;
        }
        const path = new URL(req.url ?? "/", "http://x").pathname;
        if (kind === "streamable") {
          if (req.method !== "POST") {
            res.writeHead(405).end();
            return;
          }
          const server = build(calls, () => req.headers);
          const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
          res.on("close", () => void transport.close().then(() => server.close()));
          await server.connect(transport);
          await transport.handleRequest(req, res, await body(req));
          return;
        }
        // The old HTTP+SSE transport: a POST to the endpoint URL is not understood (404), so a
        // client that tries streamable HTTP first falls back.
        if (req.method === "GET" && path === "/sse") {
          const transport = new SSEServerTransport("/messages", res);
          sse.set(transport.sessionId, transport);
          res.on("close", () => sse.delete(transport.sessionId));
          const server = build(calls, () => req.headers);
          await server.connect(transport);
          return;
        }
        if (req.method === "POST" && path === "/messages") {
          const id = new URL(req.url ?? "/", "http://x").searchParams.get("sessionId") ?? "";
          const transport = sse.get(id);
          if (!transport) {
            res.writeHead(404).end();
            return;
          }
          await transport.handlePostMessage(req, res, await body(req));
          return;
        }
        res.writeHead(404).end();
      } catch (err) {
        if (!res.headersSent) res.writeHead(500).end(String(err));
      }
    })();
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const port = (http.address() as AddressInfo).port;
  return {
    url: kind === "streamable" ? `http://127.0.0.1:${port}/mcp` : `http://127.0.0.1:${port}/sse`,
    calls,
    close: () =>
      new Promise((r) => {
        http.closeAllConnections();
        http.close(() => r());
      }),
  };
}
