// OpenTelemetry traces through the real CLI, the real OpenTelemetry SDK and OTLP/HTTP exporter, to
// a real OTLP/HTTP receiver on 127.0.0.1 (this test's HTTP server): one turn with a tool call
// gives an invoke_agent span with a chat span per model request and an execute_tool span, in the
// GenAI semantic conventions, and no prompt or output on any span. Off without the setting.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: OtlpValue }>;
  status?: { code?: number; message?: string };
}

const value = (v: OtlpValue): unknown => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue ?? v.arrayValue?.values.map(value);
const attrs = (s: OtlpSpan) => Object.fromEntries(s.attributes.map((a) => [a.key, value(a.value)]));

let llm: ScriptedServer | undefined;
let receiver: Server | undefined;
const temps: string[] = [];

/** An OTLP/HTTP trace receiver: collects the spans of every POST /v1/traces (JSON encoding). */
async function startReceiver(): Promise<{ url: string; spans: OtlpSpan[]; resources: Array<Record<string, unknown>>; paths: string[] }> {
  const spans: OtlpSpan[] = [];
  const resources: Array<Record<string, unknown>> = [];
  const paths: string[] = [];
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      paths.push(`${req.method} ${req.url} ${req.headers["content-type"]} ${req.headers["x-team"] ?? ""}`);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: Array<{ resource: { attributes: OtlpSpan["attributes"] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
      };
      for (const rs of body.resourceSpans) {
        resources.push(Object.fromEntries(rs.resource.attributes.map((a) => [a.key, value(a.value)])));
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => receiver!.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, spans, resources, paths };
}

function setup(telemetry: unknown): { ws: string; home: string; sessions: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-otel-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  mkdirSync(ws);
  mkdirSync(join(home, ".yoke"), { recursive: true });
  writeFileSync(join(ws, "README.md"), "# Widget\nSECRET-README-TEXT\n");
  if (telemetry !== undefined) writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ telemetry }));
  return { ws, home, sessions: join(dir, "sessions") };
}

const run = (ws: string, home: string, sessions: string) =>
  runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", llm!.openaiBaseUrl, "--model", "gpt-5.1", "--cwd", ws, "--session-dir", sessions, "Read the README, PROMPT-TEXT"], {
    env: { HOME: home },
  });

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await llm?.close();
  llm = undefined;
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  receiver = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe("OpenTelemetry traces (telemetry.otlpEndpoint)", () => {
  it("exports the turn, each model request and the tool call with GenAI attributes", async () => {
    const rx = await startReceiver();
    const { ws, home, sessions } = setup({ otlpEndpoint: rx.url, headers: { "x-team": "tides" } });
    llm = await startScriptedLlmServer({
      script: [
        { toolCalls: [{ name: "read_file", input: { path: "README.md" } }], usage: { input: 1000, output: 20, cacheRead: 400 } },
        { text: "It is the Widget README. ANSWER-TEXT", usage: { input: 1200, output: 30 } },
      ],
    });
    const r = await run(ws, home, sessions);
    expect(r.code, r.stderr).toBe(0);
    // The CLI flushes before it exits: everything is there once it has.
    await expect.poll(() => rx.spans.length, { timeout: 20_000 }).toBe(4);
    expect(rx.paths[0]).toMatch(/^POST \/v1\/traces application\/json tides$/);
    expect(rx.resources[0]).toMatchObject({ "service.name": "yoke" });

    const byName = (n: string) => rx.spans.filter((s) => s.name === n);
    const [agent] = byName("invoke_agent yoke");
    const chats = byName("chat gpt-5.1");
    const [tool] = byName("execute_tool read_file");
    expect(agent && tool && chats.length === 2).toBe(true);
    const sessionId = attrs(agent!)["gen_ai.conversation.id"];
    expect(sessionId).toMatch(/\S/);
    expect(attrs(agent!)).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "yoke",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-5.1",
      "gen_ai.usage.input_tokens": 2200,
      "gen_ai.usage.output_tokens": 50,
      "yoke.requests": 2,
      "yoke.tool_calls": 1,
      "yoke.outcome": "done",
    });
    expect(agent!.parentSpanId ?? "").toBe("");
    expect(agent!.kind).toBe(1); // INTERNAL
    for (const s of [...chats, tool!]) {
      expect(s.traceId).toBe(agent!.traceId);
      expect(s.parentSpanId).toBe(agent!.spanId);
    }
    const [first, second] = [...chats].sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));
    expect(first!.kind).toBe(3); // CLIENT
    expect(attrs(first!)).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-5.1",
      "gen_ai.response.model": "gpt-5.1",
      "gen_ai.usage.input_tokens": 1000,
      "gen_ai.usage.output_tokens": 20,
      "gen_ai.usage.cache_read.input_tokens": 400,
      "gen_ai.response.finish_reasons": ["tool_use"],
      "gen_ai.conversation.id": sessionId,
      "server.address": "127.0.0.1",
      "server.port": llm.port,
    });
    expect(attrs(second!)).toMatchObject({ "gen_ai.usage.input_tokens": 1200, "gen_ai.response.finish_reasons": ["end_turn"] });
    expect(attrs(tool!)).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "read_file",
      "gen_ai.tool.type": "function",
      "yoke.tool.outcome": "ok",
    });
    expect(attrs(tool!)["gen_ai.tool.call.id"]).toMatch(/\S/);
    // In order: the first request, then the tool, then the second request, all inside the turn.
    const t = (s: OtlpSpan, k: "startTimeUnixNano" | "endTimeUnixNano") => BigInt(s[k]);
    expect(t(first!, "endTimeUnixNano") <= t(tool!, "startTimeUnixNano")).toBe(true);
    expect(t(tool!, "endTimeUnixNano") <= t(second!, "startTimeUnixNano")).toBe(true);
    expect(t(agent!, "startTimeUnixNano") <= t(first!, "startTimeUnixNano") && t(second!, "endTimeUnixNano") <= t(agent!, "endTimeUnixNano")).toBe(true);
    // No content leaves: not the prompt, not the file, not the answer.
    const all = JSON.stringify(rx.spans);
    for (const secret of ["PROMPT-TEXT", "SECRET-README-TEXT", "ANSWER-TEXT"]) expect(all).not.toContain(secret);
  });

  it("exports again on the second run, whose code V8 loads from the CLI's code cache", async () => {
    // The code cache lives in the user's cache folder (here the test's home), written when the first run ends.
    const rx = await startReceiver();
    const { ws, home, sessions } = setup({ otlpEndpoint: rx.url });
    const script = [{ text: "First." }, { text: "Second." }];
    llm = await startScriptedLlmServer({ script });
    const first = await run(ws, home, sessions);
    expect(first.code, first.stderr).toBe(0);
    await expect.poll(() => rx.spans.length, { timeout: 20_000 }).toBe(2);
    expect(readdirSync(join(home, ".cache", "yoke")).some((d) => d.startsWith("v8-"))).toBe(true);
    const second = await run(ws, home, sessions);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/dynamic import|telemetry/i);
    await expect.poll(() => rx.spans.filter((s) => s.name === "invoke_agent yoke").length, { timeout: 20_000 }).toBe(2);
  });

  it("marks a failed model request and the turn as errors", async () => {
    const rx = await startReceiver();
    const { ws, home, sessions } = setup({ otlpEndpoint: `${rx.url}/v1/traces` });
    llm = await startScriptedLlmServer({ script: () => ({ error: { status: 400, body: { error: { message: "bad request here", type: "invalid_request_error" } } } }) });
    const r = await run(ws, home, sessions);
    expect(r.code).not.toBe(0);
    await expect.poll(() => rx.spans.length, { timeout: 20_000 }).toBe(2);
    const chat = rx.spans.find((s) => s.name.startsWith("chat "))!;
    const agent = rx.spans.find((s) => s.name === "invoke_agent yoke")!;
    expect(attrs(chat)["error.type"]).toBe("bad_request");
    expect(chat.status?.code).toBe(2); // ERROR
    expect(attrs(agent)).toMatchObject({ "yoke.outcome": "error", "error.type": "error" });
  });

  it("is off without the setting, and a workspace's settings cannot turn it on", async () => {
    const rx = await startReceiver();
    const { ws, home, sessions } = setup(undefined);
    mkdirSync(join(ws, ".yoke"));
    writeFileSync(join(ws, ".yoke", "settings.json"), JSON.stringify({ telemetry: { otlpEndpoint: rx.url } }));
    llm = await startScriptedLlmServer({ script: [{ text: "Hello." }] });
    const r = await run(ws, home, sessions);
    expect(r.code, r.stderr).toBe(0);
    await new Promise((res) => setTimeout(res, 1500));
    expect(rx.paths).toEqual([]);
  });

  it("refuses an endpoint that is not an http(s) URL (exit 2)", async () => {
    const { ws, home, sessions } = setup({ otlpEndpoint: "grpc://127.0.0.1:4317" });
    llm = await startScriptedLlmServer({ script: [{ text: "Hello." }] });
    const r = await run(ws, home, sessions);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("telemetry.otlpEndpoint must be an http:// or https:// URL (OTLP/HTTP), not grpc:");
  });
});
