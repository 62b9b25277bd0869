import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { parseLog } from "../../src/core/session/session-log";
import { ensureBuilt, runCli, startCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];

function workspace(): { ws: string; sessions: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-cli-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "README.md"), "# Widget\n\nWidgets are counted by count.ts.\n");
  writeFileSync(join(ws, "count.ts"), "export function count(xs: number[]): number {\n  return xs.length;\n}\n");
  return { ws, sessions: join(dir, "sessions") };
}

function sessionEvents(dir: string) {
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  const id = files[0]!.replace(/\.jsonl$/, "");
  return { id, ...parseLog(readFileSync(join(dir, files[0]!), "utf8").split("\n").filter(Boolean)) };
}

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

describe("yoke run", () => {
  it("reads the workspace through a real OpenAI client and answers (openai-compatible, streaming)", async () => {
    const { ws, sessions } = workspace();
    server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "read_file", input: { path: "README.md" } }] }, { text: "The README says widgets are counted by count.ts." }],
    });
    const r = await runCli([
      "run",
      "--trust",
      "--provider",
      "openai-compatible",
      "--base-url",
      server.openaiBaseUrl,
      "--model",
      "local-model",
      "--cwd",
      ws,
      "--session-dir",
      sessions,
      "What is this project?",
    ]);
    expect(r.stderr).not.toContain("Error");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("⏺ read_file README.md");
    expect(r.stdout).toContain("The README says widgets are counted by count.ts.");
    // The model received the hashline view of the file as the tool result.
    const second = server.requests[1]!.body as { messages: Array<{ role: string; content: string }> };
    const toolMsg = second.messages.find((m) => m.role === "tool")!;
    expect(toolMsg.content).toMatch(/^1#[ZPMQVRWSNKTXJBYH]{2}\|# Widget$/m);
    expect(toolMsg.content).toMatch(/^3#[ZPMQVRWSNKTXJBYH]{2}\|Widgets are counted by count\.ts\.$/m);
    const log = sessionEvents(sessions);
    expect(log.events.map((e) => e.type)).toEqual([
      "session_start",
      "status",
      "user_message",
      "status",
      "assistant_message",
      "usage",
      "permission_decision",
      "tool_call",
      "status",
      "tool_result",
      "status",
      "assistant_message",
      "usage",
      "status",
      "turn_time",
    ]);
    // The run ends with its status, then the time it took (src/core/turn-time).
    expect(log.events.at(-2)).toMatchObject({ type: "status", state: "done" });
    expect(log.events.at(-1)).toMatchObject({ type: "turn_time", outcome: "done" });
  });

  it("speaks Anthropic's wire format to --base-url and reports JSON with --json", async () => {
    const { ws, sessions } = workspace();
    server = await startScriptedLlmServer({ script: [{ text: "Hello from the Anthropic wire." }], apiKey: "sk-test" });
    const r = await runCli(["run", "--trust", "--provider", "anthropic", "--base-url", server.anthropicBaseUrl, "--model", "claude-sonnet-5", "--cwd", ws, "--session-dir", sessions, "--json", "hi"], {
      env: { ANTHROPIC_API_KEY: "sk-test" },
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: "done", text: "Hello from the Anthropic wire." });
    expect(out.usage.inputTokens).toBeGreaterThan(0);
    expect(typeof out.costUsd).toBe("number");
    // What the run cost, per turn: tokens, cache, price, requests (src/core/cost).
    expect(out.cost.turns).toEqual([expect.objectContaining({ turn: 1, requests: 1, inputTokens: out.usage.inputTokens, cacheBreaks: [], tools: [] })]);
    expect(out.cost.total).toMatchObject({ requests: 1, cacheBreaks: 0, costUsd: out.costUsd });
    expect(server.requests[0]!.format).toBe("anthropic");
    const h = server.requests[0]!.headers;
    expect(h["x-api-key"] ?? h.authorization).toBe("***");
  });

  it("works non-streaming (--no-stream) against a keyless server, finding the model from /v1/models", async () => {
    const { ws, sessions } = workspace();
    server = await startScriptedLlmServer({ script: [{ text: "Plain answer." }] });
    const r = await runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--no-stream", "--cwd", ws, "--session-dir", sessions, "hi"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Plain answer.");
    // The footer says what the run cost: tokens in (with the cache's share), out, price, requests.
    expect(r.stderr).toMatch(/yoke: done · [\d.]+k? in \(0% cached\) · \d+ out · (price unknown|\$[\d.]+) · 1 request · session /);
    expect(server.requests.find((q) => q.path.endsWith("/chat/completions"))!.stream).toBe(false);
  });

  it("exits 1 with the provider's message when the key is rejected", async () => {
    const { ws, sessions } = workspace();
    server = await startScriptedLlmServer({ script: [{ text: "never" }], apiKey: "right" });
    const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "hi"], {
      env: { OPENAI_API_KEY: "wrong" },
    });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/API key was rejected/i);
  });

  it("exits 2 with a usage message for bad options", async () => {
    const r1 = await runCli(["run", "--trust", "--provider", "openai-compatible", "hi"]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain("--provider openai-compatible needs --base-url");
    const r2 = await runCli(["run", "--trust", "--permission-mode", "yolo", "--provider", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1", "hi"]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("--permission-mode must be one of default, acceptEdits, plan, bypassPermissions");
    const r3 = await runCli(["frobnicate"]);
    expect(r3.code).toBe(2);
  });
});

describe("yoke resume after kill -9", () => {
  it("loses nothing that was logged and finishes the task", async () => {
    const { ws, sessions } = workspace();
    let killed = false;
    let onSecondRequest: () => void = () => {};
    const secondRequest = new Promise<void>((r) => (onSecondRequest = r));
    server = await startScriptedLlmServer({
      script: (req) => {
        const body = req.body as { messages: Array<{ role: string }> };
        const hasToolResult = body.messages.some((m) => m.role === "tool");
        if (!hasToolResult) return { toolCalls: [{ name: "read_file", input: { path: "count.ts" } }] };
        if (!killed) {
          onSecondRequest();
          return { text: "Looking at count.ts, it", hang: true };
        }
        return { text: "count() returns the number of items." };
      },
    });
    const child = startCli([...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "What does count do?"]);
    await secondRequest;
    await new Promise((r) => setTimeout(r, 200));
    killed = true;
    child.kill("SIGKILL");
    const dead = await child.result;
    expect(dead.signal).toBe("SIGKILL");

    const before = sessionEvents(sessions);
    expect(before.events.map((e) => e.type)).toContain("tool_result");
    expect(before.events.at(-1)).toMatchObject({ type: "status", state: "thinking" });
    const list = await runCli(["sessions", "--session-dir", sessions, "--json"]);
    expect(JSON.parse(list.stdout).sessions[0]).toMatchObject({ id: before.id, status: "interrupted", title: "What does count do?" });

    const resumed = await runCli(["resume", "--trust", before.id, "--session-dir", sessions, "--cwd", ws]);
    expect(resumed.stderr).not.toContain("Error");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("count() returns the number of items.");
    const after = sessionEvents(sessions);
    // Everything logged before the kill is still there, unchanged, as the prefix of the log.
    expect(after.events.slice(0, before.events.length)).toEqual(before.events);
    expect(after.events.filter((e) => e.type === "status").at(-1)).toMatchObject({ type: "status", state: "done" });
    // The resumed request carried the whole conversation, including the tool result from before the kill.
    const last = server.requests.at(-1)!.body as { messages: Array<{ role: string; content?: string }> };
    expect(last.messages.filter((m) => m.role === "tool")).toHaveLength(1);
    expect(last.messages.find((m) => m.role === "user")!.content).toBe("What does count do?");
  });
});

describe("yoke run with bypassPermissions turned off by the settings", () => {
  it("refuses --permission-mode bypassPermissions with the reason (exit 1), and runs in another mode", async () => {
    const { ws, sessions } = workspace();
    const settings = join(ws, "..", "no-bypass.json");
    writeFileSync(settings, JSON.stringify({ permissions: { disableBypassPermissionsMode: "disable" } }));
    server = await startScriptedLlmServer({ script: [{ text: "ok" }] });
    const flags = ["--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", ws, "--session-dir", sessions, "--settings", settings];
    const refused = await runCli(["run", "--trust", ...flags, "--permission-mode", "bypassPermissions", "hi"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--permission-mode bypassPermissions is turned off by the permission settings (disableBypassPermissionsMode)");
    expect(server.requests).toHaveLength(0);
    const ok = await runCli(["run", "--trust", ...flags, "--permission-mode", "acceptEdits", "hi"]);
    expect(ok.code).toBe(0);
  });
});
