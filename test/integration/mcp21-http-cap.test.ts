// A remote MCP server that streams without end (mcp21): a Streamable HTTP answer as an event stream
// and as JSON, an endless `initialize` answer, and an HTTP+SSE server's event stream, each pouring
// bytes with no end of message.
// Through a whole `yoke run` with the scripted model: Yoke's RSS stays bounded (read from /proc
// while it runs), each server is stopped with the reason the person and the model are told, and
// the session goes on (the restarted server answers a plain call).
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest, Script } from "../../src/demo/types";
import { cliPath, ensureBuilt } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** Writes `head`, then 1 MiB chunks of "x" (no newline) until the client goes, as fast as it reads. */
async function pour(res: ServerResponse, head: string, poured: { bytes: number }): Promise<void> {
  res.write(head);
  const chunk = Buffer.alloc(1 << 20, 120);
  while (!res.destroyed && !res.writableEnded) {
    poured.bytes += chunk.length;
    if (!res.write(chunk))
      await new Promise<void>((r) => {
        res.once("drain", r);
        res.once("close", r);
      });
  }
}

function tools(server: McpServer, flood?: () => Promise<never>): McpServer {
  server.registerTool("add", { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: "text", text: `sum=${a + b}` }] }));
  const never = flood ?? (() => new Promise<never>(() => undefined));
  server.registerTool("flood", { description: "Answers without end (an event stream)" }, never);
  server.registerTool("floodjson", { description: "Answers without end (JSON)" }, never);
  return server;
}

async function json(req: IncomingMessage): Promise<{ method?: string; id?: number; params?: { name?: string } }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
}

/** Streamable HTTP on /mcp (the SDK's stateless server, but `flood`/`floodjson` answered by hand, forever) and HTTP+SSE on /sse. */
async function startFloodServer() {
  const poured = { bytes: 0 };
  const sse = new Map<string, SSEServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/mcp") {
        if (req.method !== "POST") return void res.writeHead(405).end();
        const body = await json(req);
        if (body.method === "initialize" && new URL(req.url ?? "/", "http://x").searchParams.has("endless")) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          return pour(res, "event: message\ndata: ", poured);
        }
        if (body.method === "tools/call" && body.params?.name === "flood") {
          res.writeHead(200, { "content-type": "text/event-stream" });
          return pour(res, "event: message\ndata: ", poured);
        }
        if (body.method === "tools/call" && body.params?.name === "floodjson") {
          res.writeHead(200, { "content-type": "application/json" });
          return pour(res, `{"jsonrpc":"2.0","id":${body.id},"result":{"content":[{"type":"text","text":"`, poured);
        }
        const server = tools(new McpServer({ name: "flood", version: "1.0.0" }));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on("close", () => void transport.close().then(() => server.close()));
        await server.connect(transport);
        return transport.handleRequest(req, res, body);
      }
      if (req.method === "GET" && path === "/sse") {
        // The tool's answer would come on this stream: the bytes do, without end.
        const server = tools(new McpServer({ name: "floodsse", version: "1.0.0" }), () => pour(res, "event: message\ndata: ", poured).then(() => new Promise<never>(() => undefined)));
        const transport = new SSEServerTransport("/messages", res);
        sse.set(transport.sessionId, transport);
        res.on("close", () => sse.delete(transport.sessionId));
        return server.connect(transport);
      }
      if (req.method === "POST" && path === "/messages") {
        const transport = sse.get(new URL(req.url ?? "/", "http://x").searchParams.get("sessionId") ?? "");
        if (!transport) return void res.writeHead(404).end();
        return transport.handlePostMessage(req, res, await json(req));
      }
      res.writeHead(404).end();
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    base,
    poured,
    close: () =>
      new Promise<void>((r) => {
        http.closeAllConnections();
        http.close(() => r());
      }),
  };
}

/** Resident memory of a process in MiB (0 once it is gone). */
function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

type Msg = { role: string; content?: unknown };
const toolTexts = (req: RecordedRequest) => (req.body.messages as Msg[]).filter((m) => m.role === "tool").map((m) => String(m.content));

describe("a remote MCP server's response is bounded like a stdio server's line", () => {
  it("an endless event stream, an endless JSON answer and an endless SSE stream: Yoke stays bounded, stops each server, says why, and goes on", async () => {
    const flood = await startFloodServer();
    const { cwd, home } = createWorkspaceWithHome("yoke-mcp21-cap-", {}, temps);
    const settings = {
      mcpServers: {
        flood: { type: "streamable-http", url: `${flood.base}/mcp`, timeout: 60_000 },
        floodsse: { type: "sse", url: `${flood.base}/sse`, timeout: 60_000 },
        // Its `initialize` answer never ends ("http": no fall back to SSE after that).
        floodinit: { type: "http", url: `${flood.base}/mcp?endless`, startOnSessionStart: true },
      },
      permissions: { allow: ["mcp__flood", "mcp__floodsse"] },
    };
    const calls = [
      { name: "mcp__flood__flood", input: {} },
      { name: "mcp__flood__floodjson", input: {} },
      { name: "mcp__floodsse__flood", input: {} },
      { name: "mcp__flood__add", input: { a: 2, b: 3 } },
    ];
    const script: Script = (req) => {
      const n = toolTexts(req).length;
      return n < calls.length ? { toolCalls: [calls[n]!] } : { text: "done" };
    };
    const llm = await startScriptedLlmServer({ script });
    let peak = 0;
    try {
      const { writeFileSync, mkdirSync } = await import("node:fs");
      mkdirSync(join(home, ".yoke"), { recursive: true });
      writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify(settings));
      const env = Object.fromEntries(Object.entries({ ...process.env, HOME: home, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined }).filter((e): e is [string, string] => e[1] !== undefined));
      const child = spawn(process.execPath, [cliPath, ...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions")), "go"], { env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(child.pid!))), 50);
      // Without the bound the calls run until their 60 s timeout while Yoke holds what comes: killed at 150 s.
      const killer = setTimeout(() => child.kill("SIGKILL"), 150_000);
      const code = await new Promise<number | null>((r) => child.on("close", r));
      clearInterval(sampler);
      clearTimeout(killer);
      expect(code, stderr).toBe(0);
      const results = toolTexts(llm.requests[llm.requests.length - 1]!);
      expect(results).toHaveLength(4);
      for (const [i, server] of [
        [0, "flood"],
        [1, "flood"],
        [2, "floodsse"],
      ] as const)
        expect(results[i], String(i)).toContain(
          `the MCP server "${server}" did not answer the call: the server sent a message over 64 MiB (Yoke reads one HTTP response, or one event of a stream, up to that size), so Yoke stopped it`,
        );
      expect(results[3]).toBe("sum=5");
      // The person is told too, in the same words as a stdio server's.
      expect(stdout + stderr).toMatch(/MCP server flood failed: the server sent a message over 64 MiB .*: Yoke stopped it/);
      expect(stdout + stderr).toMatch(/MCP server floodinit failed: the server sent a message over 64 MiB .*: Yoke stopped it/);
      expect(stdout + stderr).toMatch(/MCP server floodsse failed: the server sent a message over 64 MiB .*: Yoke stopped it/);
      expect(stdout).toContain("done");
    } finally {
      await llm.close();
      await flood.close();
    }
    // Coarse and generous: three bodies of 64 MiB each were read and dropped; without the bound Yoke held gigabytes.
    console.log(`mcp21-http-cap: peak RSS ${peak.toFixed(0)} MiB, ${(flood.poured.bytes / 1024 / 1024).toFixed(0)} MiB written by the server`);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(1024);
  }, 200_000);
});
