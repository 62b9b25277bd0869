// The stdio transport's line reading (red team S): the same messages as the SDK's own ReadBuffer
// for every way a stream can be cut into chunks (inside a line, inside a multi-byte character,
// between `\r` and `\n`), plus what the ReadBuffer cannot do: a JSON-RPC batch gives each message.
import { ReadBuffer } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { messagesOfLine, StdoutLines } from "../../../src/node/mcp/stdio-transport";

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TEXTS = ["plain", "café ünï 日本語 😀", "a\\nb", "x".repeat(70_000), ""];

describe("StdoutLines", () => {
  it("gives the messages the SDK's ReadBuffer gives, for 300 random cuts of a stream", () => {
    const r = rng(20261206);
    for (let round = 0; round < 300; round++) {
      const msgs: JSONRPCMessage[] = [];
      for (let i = 0; i < 1 + Math.floor(r() * 6); i++) msgs.push({ jsonrpc: "2.0", id: i, result: { text: TEXTS[Math.floor(r() * TEXTS.length)]! } });
      const stream = Buffer.from(msgs.map((m) => JSON.stringify(m) + (r() < 0.3 ? "\r\n" : "\n")).join(""));
      const cuts: number[] = [];
      for (let at = 0; at < stream.length;) cuts.push((at += 1 + Math.floor(r() * (r() < 0.5 ? 7 : 40_000))));
      const ours = new StdoutLines();
      const sdk = new ReadBuffer();
      const got: JSONRPCMessage[] = [];
      const want: JSONRPCMessage[] = [];
      let from = 0;
      for (const to of cuts) {
        const chunk = stream.subarray(from, Math.min(to, stream.length));
        from = to;
        for (const line of ours.push(chunk)) got.push(...messagesOfLine(line));
        sdk.append(chunk);
        for (let m = sdk.readMessage(); m; m = sdk.readMessage()) want.push(m);
      }
      expect(got).toEqual(want);
      expect(got).toEqual(msgs);
    }
  });

  it("keeps a line that has not ended until its newline", () => {
    const lines = new StdoutLines();
    expect(lines.push(Buffer.from('{"jsonrpc":"2.0",'))).toEqual([]);
    expect(lines.push(Buffer.from('"id":1,"result":{}}\nnext'))).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}']);
    lines.clear();
    expect(lines.push(Buffer.from("\n"))).toEqual([""]);
  });
});

describe("messagesOfLine", () => {
  it("a JSON-RPC batch gives each of its messages; a line that is not MCP, or a batch holding one, throws", () => {
    const a = { jsonrpc: "2.0" as const, method: "notifications/message", params: { level: "info", data: "x" } };
    const b = { jsonrpc: "2.0" as const, id: 7, result: { content: [] } };
    expect(messagesOfLine(JSON.stringify([a, b]))).toEqual([a, b]);
    expect(messagesOfLine(JSON.stringify(b))).toEqual([b]);
    expect(() => messagesOfLine("Starting server...")).toThrow();
    expect(() => messagesOfLine("[1,2,3]")).toThrow();
    expect(() => messagesOfLine("[]")).toThrow();
  });
});
