// The bound on a remote MCP server's response bodies (src/node/mcp/http-limit.ts): an event stream
// counts from its last event's end, whatever the chunking; any other body counts whole. A real
// HTTP server on 127.0.0.1, read through the bounded fetch.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { BodyCounter, limitedFetch } from "../../../src/node/mcp/http-limit";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("BodyCounter", () => {
  it("an event stream: every blank-line form ends an event, across chunk edges too; a long event is over", () => {
    for (const sep of ["\n\n", "\r\r", "\r\n\r\n", "\n\r\n", "\r\n\n"]) {
      const stream = `data: ${"a".repeat(50)}${sep}data: ${"b".repeat(50)}${sep}`.repeat(20);
      for (let cut = 1; cut <= 7; cut++) {
        const c = new BodyCounter(80, true);
        let ok = true;
        for (let i = 0; i < stream.length; i += cut) ok = c.push(bytes(stream.slice(i, i + cut))) && ok;
        expect(ok, `${JSON.stringify(sep)} in chunks of ${cut}`).toBe(true);
      }
    }
    // A lone CRLF is one line end, not an event's end: 20 lines of one event add up.
    const c = new BodyCounter(80, true);
    expect(Array.from({ length: 20 }, () => c.push(bytes("data: xx\r\n"))).includes(false)).toBe(true);
  });

  it("any other body counts whole, blank lines or not", () => {
    const c = new BodyCounter(100, false);
    expect(c.push(bytes("\n\n".repeat(50)))).toBe(true);
    expect(c.push(bytes("x"))).toBe(false);
  });
});

describe("limitedFetch", () => {
  it("a body within the bound arrives whole with its status and headers; a longer one fails with the reason, told once", async () => {
    const http = createServer((req, res) => {
      res.writeHead(201, { "content-type": "application/json", "x-probe": "1" });
      res.end(JSON.stringify({ pad: "y".repeat(req.url === "/big" ? 5000 : 100) }));
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const told: string[] = [];
    const f = limitedFetch((why) => told.push(why), 1000);
    try {
      const small = await f(`${base}/small`);
      expect([small.status, small.headers.get("x-probe"), small.url]).toEqual([201, "1", `${base}/small`]);
      expect(((await small.json()) as { pad: string }).pad).toHaveLength(100);
      const big = await f(`${base}/big`);
      await expect(big.json()).rejects.toThrow("the server sent a message over 0 MiB");
      expect(told).toHaveLength(1);
    } finally {
      await new Promise<void>((r) => http.close(() => r()));
    }
  });

  it("red team Y: only what the SDK reads as an event stream counts event by event — a JSON body whose content-type merely mentions text/event-stream, an error's text, an answer to a request accepting no event stream count whole (blank lines in them are no event ends)", async () => {
    const body = `{"jsonrpc":"2.0","id":1,"result":{"pad":[${Array.from({ length: 200 }, () => '"yyyyyyyyyyyyyyyyyyyy"\n\n').join(",")}]}}`;
    const http = createServer((req, res) => {
      const events = `data: ${"a".repeat(500)}\n\n`.repeat(20);
      if (req.url === "/error") return void res.writeHead(500, { "content-type": "text/event-stream" }).end(events);
      res.writeHead(200, { "content-type": req.url === "/json" ? 'application/json; profile="text/event-stream"' : "Text/Event-Stream; charset=utf-8" });
      res.end(req.url === "/json" ? body : events);
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const told: string[] = [];
    const f = limitedFetch((why) => told.push(why), 1000);
    try {
      await expect((await f(`${base}/json`)).json()).rejects.toThrow("the server sent a message over 0 MiB");
      expect(told).toHaveLength(1);
      // An event stream with parameters and in any letter case, to a request that accepts one, is still counted event by event.
      expect(await (await f(`${base}/stream`, { headers: { Accept: "application/json, text/event-stream" } })).text()).toHaveLength(20 * 508);
      expect(told).toHaveLength(1);
      // Read whole by the SDK, so counted whole: an error answer's text (an event stream type or not), an
      // answer to a request that accepts no event stream (OAuth's metadata and token requests: response.json()).
      await expect((await f(`${base}/error`, { headers: { accept: "text/event-stream" } })).text()).rejects.toThrow("over 0 MiB");
      await expect((await f(`${base}/stream`, { headers: { Accept: "application/json" } })).text()).rejects.toThrow("over 0 MiB");
      await expect((await f(`${base}/stream`)).text()).rejects.toThrow("over 0 MiB");
      expect(told).toHaveLength(4);
    } finally {
      await new Promise<void>((r) => http.close(() => r()));
    }
  });
});
