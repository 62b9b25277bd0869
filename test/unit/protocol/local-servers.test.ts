import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { probeLocalServers } from "../../../src/host/local-servers";

const servers: Server[] = [];

function serve(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe("probeLocalServers", () => {
  it("reports the first model of servers that answer GET /v1/models", async () => {
    const port = await serve((req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(req.url === "/v1/models" ? JSON.stringify({ object: "list", data: [{ id: "qwen2.5-coder:7b" }, { id: "llama3" }] }) : "{}");
    });
    const found = await probeLocalServers([{ name: "Ollama", port }]);
    expect(found).toEqual([{ name: "Ollama", baseUrl: `http://127.0.0.1:${port}/v1`, model: "qwen2.5-coder:7b" }]);
  });

  it("skips servers that are down, fail, answer non-JSON, list no models or are too slow", async () => {
    const failing = await serve((_req, res) => {
      res.statusCode = 500;
      res.end("boom");
    });
    const html = await serve((_req, res) => res.end("<html>"));
    const empty = await serve((_req, res) => res.end(JSON.stringify({ data: [] })));
    const slow = await serve((_req, res) => setTimeout(() => res.end(JSON.stringify({ data: [{ id: "late" }] })), 2_000));
    const closed = await serve(() => undefined);
    await new Promise((r) => servers.pop()!.close(r));
    const t0 = Date.now();
    const found = await probeLocalServers(
      [failing, html, empty, slow, closed].map((port, i) => ({ name: `s${i}`, port })),
      { timeoutMs: 300 },
    );
    expect(found).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(1_500);
  });
});
