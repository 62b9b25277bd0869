import { spawn } from "node:child_process";
import * as path from "node:path";
import { build } from "esbuild";
import { afterEach, describe, expect, it } from "vitest";
import { NO_MORE_TURNS, type ScriptedServer, startScriptedLlmServer } from "../../../src/demo/scripted-llm-server";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

/** The JSON payloads of an SSE body (without [DONE]). */
function sseData(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l !== "data: [DONE]")
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

describe("scripted LLM server", () => {
  it("streams OpenAI chunks: role first, split content, tool call id+name then argument fragments, finish, usage, [DONE]", async () => {
    server = await startScriptedLlmServer({ script: [{ text: "one two three four", toolCalls: [{ name: "grep", input: { pattern: "TODO", path: "src" } }], usage: { input: 11, output: 7 } }] });
    const res = await post(`${server.openaiBaseUrl}/chat/completions`, { model: "m", stream: true, stream_options: { include_usage: true }, messages: [] });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const text = await res.text();
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const chunks = sseData(text);
    type Choice = { delta: Record<string, unknown>; finish_reason: string | null };
    const choices = chunks.map((c) => (c.choices as Choice[])[0]);
    expect(choices[0].delta).toEqual({ role: "assistant", content: "" });
    const content = choices.flatMap((c) => (c?.delta.content ? [c.delta.content as string] : []));
    expect(content.length).toBeGreaterThan(1);
    expect(content.join("")).toBe("one two three four");
    const toolDeltas = choices.flatMap((c) => (c?.delta.tool_calls as Array<Record<string, unknown>>) ?? []);
    expect(toolDeltas[0]).toMatchObject({ index: 0, id: "call_scripted_1_0", type: "function", function: { name: "grep", arguments: "" } });
    expect(toolDeltas.length).toBeGreaterThan(2);
    expect(toolDeltas.slice(1).every((d) => d.id === undefined)).toBe(true);
    expect(toolDeltas.map((d) => (d.function as { arguments: string }).arguments).join("")).toBe('{"pattern":"TODO","path":"src"}');
    expect(choices.at(-2)!.finish_reason).toBe("tool_calls");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
  });

  it("sends no usage chunk when include_usage is not asked for", async () => {
    server = await startScriptedLlmServer({ script: [{ text: "hi" }] });
    const chunks = sseData(await (await post(`${server.openaiBaseUrl}/chat/completions`, { model: "m", stream: true, messages: [] })).text());
    expect(chunks.every((c) => !("usage" in c))).toBe(true);
  });

  it("streams Anthropic events in order with a split input_json_delta", async () => {
    server = await startScriptedLlmServer({ script: [{ reasoning: "hmm", text: "ok", toolCalls: [{ name: "read_file", input: { path: "README.md" } }] }] });
    const res = await post(`${server.anthropicBaseUrl}/v1/messages`, { model: "m", stream: true, max_tokens: 10, messages: [] });
    const body = await res.text();
    const events = [...body.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe("message_start");
    expect(events.slice(-2)).toEqual(["message_delta", "message_stop"]);
    const data = sseData(body);
    const starts = data.filter((d) => d.type === "content_block_start").map((d) => (d.content_block as { type: string }).type);
    expect(starts).toEqual(["thinking", "text", "tool_use"]);
    const json = data.filter((d) => (d.delta as { type?: string })?.type === "input_json_delta");
    expect(json.length).toBeGreaterThan(1);
    expect(data.find((d) => d.type === "message_delta")).toMatchObject({ delta: { stop_reason: "tool_use" } });
  });

  it("answers with a clear text when the script is exhausted", async () => {
    server = await startScriptedLlmServer({ script: [] });
    const res = await post(`${server.openaiBaseUrl}/chat/completions`, { model: "m", messages: [] });
    const json = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    expect(json.choices[0].message.content).toBe(NO_MORE_TURNS);
  });

  it("records requests with secrets redacted and refuses a body that is not JSON", async () => {
    server = await startScriptedLlmServer({ script: [{ text: "a" }] });
    await post(`${server.anthropicBaseUrl}/v1/messages`, { model: "m", max_tokens: 5, messages: [] }, { "x-api-key": "secret-1", authorization: "Bearer secret-2" });
    expect(server.requests[0]).toMatchObject({ format: "anthropic", path: "/v1/messages", stream: false, body: { model: "m" } });
    expect(server.requests[0].headers["x-api-key"]).toBe("***");
    expect(server.requests[0].headers.authorization).toBe("***");
    const bad = await fetch(`${server.openaiBaseUrl}/chat/completions`, { method: "POST", body: "{oops" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("not a JSON object");
  });

  it("lists a model on GET /v1/models", async () => {
    server = await startScriptedLlmServer({ script: [] });
    const json = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    expect(json.data.map((m) => m.id)).toEqual(["scripted-model"]);
  });

  it("runs as dist/scripted-llm.js, prints its URL and stops on SIGTERM", async () => {
    const out = path.join(process.cwd(), "node_modules", ".cache", "yoke-test", "scripted-llm.js");
    await build({ entryPoints: ["src/demo/main.ts"], bundle: true, platform: "node", format: "cjs", outfile: out, logLevel: "silent" });
    const child = spawn(process.execPath, [out, "--port", "0", "--demo"], { stdio: ["ignore", "pipe", "pipe"] });
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.once("data", (d: Buffer) => resolve(d.toString()));
      child.once("exit", (code) => reject(new Error(`exited ${code}`)));
    });
    expect(line).toMatch(/^scripted-llm listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    const url = line.trim().split(" ").at(-1)!;
    const res = await post(`${url}/v1/chat/completions`, { model: "demo", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "list_files" } }] });
    const json = (await res.json()) as { choices: Array<{ message: { tool_calls: Array<{ function: { name: string } }> } }> };
    expect(json.choices[0].message.tool_calls[0].function.name).toBe("list_files");
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
