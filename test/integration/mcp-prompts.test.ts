// MCP prompts as slash commands, `@server:uri` resource mentions and images from tools, through
// the real CLI (`yoke run`) with the real server-everything from the npm registry and the scripted
// model over HTTP (both wire formats): asserts what reached the model (the request bodies the
// scripted server received) and what the user saw (the CLI's output and the session log).
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { TOOL_IMAGES_NOTE } from "../../src/core/providers/openai";
import { ensureBuilt, runCli } from "../support/cli";
import { pidsOf } from "../support/processes";
import { everythingArgv } from "../support/mcp-fixtures";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A workspace and a HOME whose ~/.yoke/settings.json defines server-everything (a unique argv per test). */
function workspace(tag: string, permissions: Record<string, unknown> = {}): { cwd: string; home: string; argv: string[] } {
  const argv = everythingArgv(tag);
  const settings = JSON.stringify({ mcpServers: { everything: { command: argv[0], args: argv.slice(1) } }, permissions });
  const { cwd, home } = createWorkspaceWithHome("yoke-mcp-prompts-", { "~/.yoke/settings.json": settings }, temps);
  return { cwd, home, argv };
}

type Wire = "openai" | "anthropic";

async function run(ws: { cwd: string; home: string }, message: string, script: ScriptedTurn[], wire: Wire = "openai") {
  const llm = await startScriptedLlmServer({ script, apiKey: "sk-test" });
  try {
    const provider = wire === "openai" ? ["--provider", "openai-compatible", "--base-url", llm.openaiBaseUrl] : ["--provider", "anthropic", "--base-url", llm.anthropicBaseUrl];
    const r = await runCli(["run", "--trust", ...provider, "--model", "m", "--cwd", ws.cwd, "--session-dir", join(ws.home, "sessions"), message], {
      env: { HOME: ws.home, ANTHROPIC_API_KEY: "sk-test", OPENAI_API_KEY: "sk-test" },
    });
    return { ...r, requests: llm.requests };
  } finally {
    await llm.close();
  }
}

/** The session log's events (the one session of the test's HOME). */
function events(home: string): Array<Record<string, unknown>> {
  const dir = join(home, "sessions");
  const file = readdirSync(dir).find((f) => f.endsWith(".jsonl"))!;
  return readFileSync(join(dir, file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

type OpenAiMsg = { role: string; content: unknown; tool_call_id?: string };

describe("MCP prompts as slash commands (server-everything's prompts)", () => {
  it("/mcp__everything__args-prompt with a positional and a name=value argument: the prompt's text is the user's turn", async () => {
    const ws = workspace("args");
    const r = await run(ws, "/mcp__everything__args-prompt Paris state=Texas", [{ text: "Sunny." }]);
    expect(r.code, r.stderr).toBe(0);
    const msgs = r.requests[0]!.body.messages as OpenAiMsg[];
    const user = msgs.filter((m) => m.role === "user");
    expect(user.at(-1)!.content).toBe("What's weather in Paris, Texas?");
    // The log keeps what the user typed, and says which prompt answered.
    const log = events(ws.home);
    expect(log.find((e) => e.type === "user_message")).toMatchObject({ text: "What's weather in Paris, Texas?", typed: "/mcp__everything__args-prompt Paris state=Texas" });
    expect(log.some((e) => e.type === "extension" && String(e.detail).includes('the prompt "args-prompt" of the MCP server "everything" (city="Paris", state="Texas")'))).toBe(true);
    expect(pidsOf(ws.argv)).toEqual([]);
  }, 90_000);

  it("a required argument not given refuses the message with the prompt's usage; no model call", async () => {
    const ws = workspace("missing");
    const r = await run(ws, "/mcp__everything__args-prompt", [{ text: "never" }]);
    expect(r.requests).toHaveLength(0);
    expect(r.stdout + r.stderr).toContain("/mcp__everything__args-prompt needs city (Name of the city). Usage: /mcp__everything__args-prompt <city> [state]");
    expect(pidsOf(ws.argv)).toEqual([]);
  }, 90_000);

  it("an unknown prompt of a known server lists the server's prompts", async () => {
    const ws = workspace("unknown");
    const r = await run(ws, "/mcp__everything__no-such-prompt", [{ text: "never" }]);
    expect(r.requests).toHaveLength(0);
    expect(r.stdout + r.stderr).toMatch(
      /\/mcp__everything__no-such-prompt: the MCP server "everything" has no such prompt \(its prompts: .*\/mcp__everything__simple-prompt.*\/mcp__everything__args-prompt/,
    );
  }, 90_000);

  it("resource-prompt: the embedded resource's text reaches the model with its URI (Anthropic wire)", async () => {
    const ws = workspace("resource");
    const r = await run(ws, "/mcp__everything__resource-prompt Text 1", [{ text: "Analysed." }], "anthropic");
    expect(r.code, r.stderr).toBe(0);
    const body = r.requests[0]!.body as { messages: Array<{ role: string; content: Array<{ type: string; text?: string }> }> };
    const text = body.messages
      .at(-1)!
      .content.map((b) => b.text ?? "")
      .join("\n");
    expect(text).toContain("This prompt includes the Text resource with id: 1.");
    expect(text).toMatch(/\[resource demo:\/\/resource\/dynamic\/text\/1 \(text\/plain\)\]\nResource 1:/);
  }, 90_000);
});

describe("@server:uri mentions attach the resource", () => {
  it("the text resource's content reaches the model after the message; the user's words stay as typed", async () => {
    const ws = workspace("mention");
    const r = await run(ws, "Summarise @everything:demo://resource/dynamic/text/2 please.", [{ text: "Summary." }]);
    expect(r.code, r.stderr).toBe(0);
    const msgs = r.requests[0]!.body.messages as OpenAiMsg[];
    const userTexts = msgs.filter((m) => m.role === "user").map((m) => String(m.content));
    expect(userTexts[0]).toBe("Summarise @everything:demo://resource/dynamic/text/2 please.");
    const attached = userTexts.find((t) => t.includes('<resource server="everything" uri="demo://resource/dynamic/text/2">'));
    expect(attached).toBeDefined();
    expect(attached).toContain("The user mentioned this MCP resource:");
    expect(attached).toMatch(/Resource 2: This is a plaintext resource/);
  }, 90_000);

  it("a binary resource is described, not sent", async () => {
    const ws = workspace("blob");
    const r = await run(ws, "Look at @everything:demo://resource/dynamic/blob/1", [{ text: "ok" }]);
    expect(r.code, r.stderr).toBe(0);
    const msgs = r.requests[0]!.body.messages as OpenAiMsg[];
    const attached = msgs.map((m) => String(m.content)).find((t) => t.includes("<resource server"))!;
    expect(attached).toMatch(/binary content, \d+ bytes, not shown to the model/);
  }, 90_000);
});

describe("images from MCP tools reach the model", () => {
  const script: ScriptedTurn[] = [{ toolCalls: [{ name: "mcp__everything__get-tiny-image", input: {} }] }, { text: "I see a tiny image." }];

  it("Anthropic: an image block inside the tool_result, after its text", async () => {
    const ws = workspace("img-anthropic", { allow: ["mcp__everything__get-tiny-image"] });
    const r = await run(ws, "show me the image", script, "anthropic");
    expect(r.code, r.stderr).toBe(0);
    const body = r.requests[1]!.body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    const result = body.messages.flatMap((m) => m.content).find((b) => b.type === "tool_result")!;
    const content = result.content as Array<{ type: string; text?: string; source?: { type: string; media_type: string; data: string } }>;
    expect(content[0]!.text).toMatch(/\[image \(image\/png, [\d.]+ (KB|bytes)\) returned by the tool: image 1, attached\]/);
    const image = content.find((c) => c.type === "image")!;
    expect(image.source).toMatchObject({ type: "base64", media_type: "image/png" });
    expect(Buffer.from(image.source!.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(r.stdout).toContain("I see a tiny image.");
  }, 90_000);

  it("OpenAI Chat Completions: the tool message is text, the image follows in a user message that says why", async () => {
    const ws = workspace("img-openai", { allow: ["mcp__everything__get-tiny-image"] });
    const r = await run(ws, "show me the image", script);
    expect(r.code, r.stderr).toBe(0);
    const msgs = r.requests[1]!.body.messages as OpenAiMsg[];
    const toolAt = msgs.findIndex((m) => m.role === "tool");
    expect(typeof msgs[toolAt]!.content).toBe("string");
    const next = msgs[toolAt + 1]!;
    expect(next.role).toBe("user");
    const parts = next.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(parts[0]).toEqual({ type: "text", text: TOOL_IMAGES_NOTE });
    expect(parts[1]!.text).toMatch(/^mcp__everything__get-tiny-image \(call .+\):$/);
    expect(parts[2]!.image_url!.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
  }, 90_000);
});
