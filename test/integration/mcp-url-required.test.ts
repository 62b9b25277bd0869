// "URL elicitation required" (error -32042, MCP 2025-11-25) with a real stdio server built on the
// SDK (test/support/mcp-url-required-server.cjs), through full sessions with the scripted model:
// a tool call answered with -32042 asks the user the same URL question as a URL-mode elicitation;
// once the user went there (the test plays the browser: it fetches the URL) and the server says
// it is done (notifications/elicitation/complete) — or, from a server that never says so, once the
// call's timeout passed — the call is made once more and its answer reaches the model. A no, or a
// headless run, gives the model an error naming where the URL leads, never the URL.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { buildCliSession } from "../../src/cli/session-setup";
import { AgentSession } from "../../src/core/loop/agent-session";
import type { McpUrlDoneRequest, McpUrlElicitRequest } from "../../src/core/mcp/client-requests";
import { ensureBuilt, runCli } from "../support/cli";

const SERVER = join(__dirname, "..", "support", "mcp-url-required-server.cjs");
beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function workspace(extra: { silent?: boolean; timeout?: number } = {}): { cwd: string; home: string; record: string } {
  const base = mkdtempSync(join(tmpdir(), "yoke-mcp-32042-"));
  temps.push(base);
  const cwd = join(base, "ws");
  const home = join(base, "home");
  const record = join(base, "record.txt");
  writeFileSync(record, "");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".yoke"), { recursive: true });
  const def = {
    command: process.execPath,
    args: [SERVER, ...(extra.silent ? ["--silent"] : [])],
    env: { URL_SERVER_RECORD: record },
    startOnSessionStart: true,
    ...(extra.timeout ? { timeout: extra.timeout } : {}),
  };
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { links: def }, permissions: { allow: ["mcp__links"] } }));
  return { cwd, home, record };
}

const CALL: ScriptedTurn[] = [{ toolCalls: [{ name: "mcp__links__account", input: {} }] }, { text: "done" }];
type Req = { body: Record<string, unknown> };
function lastToolResult(requests: Req[]): string {
  const msgs = requests[requests.length - 1]!.body.messages as Array<{ role: string; content?: unknown }>;
  const tool = msgs.filter((m) => m.role === "tool").pop();
  return typeof tool?.content === "string" ? tool.content : JSON.stringify(tool?.content);
}
function log(dir: string): string {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");
}
const lines = (file: string) => readFileSync(file, "utf8").trim().split("\n").filter(Boolean);

async function session(
  ws: { cwd: string; home: string },
  answer: (req: McpUrlElicitRequest) => Promise<"accept" | "decline" | "cancel">,
  urlDone?: (req: McpUrlDoneRequest, signal: AbortSignal) => Promise<void>,
) {
  const llm = await startScriptedLlmServer({ script: CALL });
  const saved = process.env.HOME;
  process.env.HOME = ws.home;
  try {
    const setup = await buildCliSession(
      { cwd: ws.cwd, provider: "openai-compatible", baseUrl: llm.openaiBaseUrl, model: "m", sessionDir: join(ws.home, "sessions"), json: false, trust: true },
      undefined,
      {
        approver: { ask: () => Promise.resolve({ decision: "deny" as const }) } as never,
        elicitor: { elicit: () => Promise.resolve({ action: "cancel" as const }), openUrl: answer, ...(urlDone ? { urlDone } : {}) },
      },
    );
    const s = await AgentSession.create(setup.options);
    const began = Date.now();
    await s.send("show my account");
    const ms = Date.now() - began;
    await setup.dispose();
    return { requests: llm.requests as Req[], result: lastToolResult(llm.requests as Req[]), log: log(join(ws.home, "sessions")), ms };
  } finally {
    process.env.HOME = saved;
    await llm.close();
  }
}

describe("a tool call answered with -32042 (URL elicitation required)", () => {
  it("asks the user; after the user opened the URL and the server said so, the call is retried once and its answer reaches the model", async () => {
    const ws = workspace();
    const shown: McpUrlElicitRequest[] = [];
    const pages: string[] = [];
    const r = await session(ws, async (req) => {
      shown.push(req);
      // The browser: the user opens the page and finishes there.
      pages.push(await (await fetch(req.url)).text());
      return "accept";
    });
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ server: "links", message: "Link your account to continue." });
    expect(shown[0]!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/link\?id=.+&code=one-time-xyz$/);
    expect(pages).toEqual(["Account linked. You can close this tab."]);
    expect(r.result).toContain("account: ada@example.com (call 2)");
    expect(lines(ws.record)).toEqual(["call 1 not linked", expect.stringMatching(/^linked /), "call 2 linked"]);
    // The completion notification ended the wait (not the call's 120 s timeout).
    expect(r.ms).toBeLessThan(60_000);
    // The URL (its one-time code) reaches neither the model nor the log; the log names its origin.
    expect(JSON.stringify(r.requests)).not.toContain("one-time-xyz");
    expect(r.log).not.toContain("one-time-xyz");
    expect(r.log).toContain('"kind":"elicitation","outcome":"accepted"');
  }, 90_000);

  it("the server's completion withdraws the Done question (the user never pressed it)", async () => {
    const ws = workspace();
    const asked: McpUrlDoneRequest[] = [];
    let withdrawn = false;
    const r = await session(
      ws,
      async (req) => {
        await fetch(req.url);
        return "accept";
      },
      (req, signal) => {
        asked.push(req);
        // The user never presses Done: only the server's word ends the wait.
        return new Promise<void>((_, reject) => signal.addEventListener("abort", () => ((withdrawn = true), reject(new Error("withdrawn"))), { once: true }));
      },
    );
    expect(r.result).toContain("account: ada@example.com (call 2)");
    expect(r.ms).toBeLessThan(60_000);
    expect(asked).toEqual([{ server: "links", where: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), timeoutMs: 120_000 }]);
    expect(withdrawn).toBe(true);
    expect(lines(ws.record)).toEqual(["call 1 not linked", expect.stringMatching(/^linked /), "call 2 linked"]);
    expect(r.log).not.toContain("said they finished");
  }, 90_000);

  it("Done: from a server that never sends the completion, the user's Done retries the call at once (not after the timeout)", async () => {
    const ws = workspace({ silent: true, timeout: 60_000 });
    const r = await session(
      ws,
      async (req) => {
        await fetch(req.url);
        return "accept";
      },
      // The user finished in the browser (above) and presses Done.
      () => new Promise<void>((resolve) => setTimeout(resolve, 200)),
    );
    expect(r.result).toContain("account: ada@example.com (call 2)");
    expect(r.ms).toBeLessThan(30_000);
    expect(lines(ws.record)).toEqual(["call 1 not linked", expect.stringMatching(/^linked /), "call 2 linked"]);
    expect(r.log).toMatch(/the user said they finished at http:\/\/127\.0\.0\.1:\d+ \(before the server did\)/);
    expect(r.log).not.toContain("one-time-xyz");
  }, 90_000);

  it("Done pressed before the user finished: retried once at once, then the model is told the server still needs it", async () => {
    const ws = workspace({ silent: true, timeout: 60_000 });
    const r = await session(
      ws,
      () => Promise.resolve("accept"),
      () => Promise.resolve(),
    );
    expect(r.result).toMatch(/the MCP server "links" still needs the user to finish at http:\/\/127\.0\.0\.1:\d+ before account can run/);
    expect(r.ms).toBeLessThan(30_000);
    expect(lines(ws.record)).toEqual(["call 1 not linked", "call 2 not linked"]);
  }, 90_000);

  it("a no: the model is told the user declined, where the URL leads and the server's message; no retry", async () => {
    const ws = workspace();
    const shown: McpUrlElicitRequest[] = [];
    const r = await session(ws, (req) => {
      shown.push(req);
      return Promise.resolve("decline");
    });
    expect(shown).toHaveLength(1);
    expect(r.result).toMatch(/the MCP server "links" needs the user to complete something at http:\/\/127\.0\.0\.1:\d+ first \("Link your account to continue\."\); the user declined it/);
    expect(r.result).not.toContain("one-time-xyz");
    expect(lines(ws.record)).toEqual(["call 1 not linked"]);
    expect(r.log).toContain('"outcome":"declined"');
  }, 90_000);

  it("a server that never sends the completion: the call is retried once the call's timeout passed", async () => {
    const ws = workspace({ silent: true, timeout: 3_000 });
    const r = await session(ws, async (req) => {
      await fetch(req.url);
      return "accept";
    });
    expect(r.result).toContain("account: ada@example.com (call 2)");
    expect(r.ms).toBeGreaterThanOrEqual(3_000);
    expect(lines(ws.record)).toEqual(["call 1 not linked", expect.stringMatching(/^linked /), "call 2 linked"]);
  }, 90_000);

  it("the user said yes but did not finish: retried once, then the model is told the server still needs it", async () => {
    const ws = workspace({ timeout: 2_000 });
    const r = await session(ws, () => Promise.resolve("accept"));
    expect(r.result).toMatch(/the MCP server "links" still needs the user to finish at http:\/\/127\.0\.0\.1:\d+ before account can run/);
    expect(lines(ws.record)).toEqual(["call 1 not linked", "call 2 not linked"]);
  }, 90_000);

  it("headless yoke run: declined, nobody is asked, the model is told", async () => {
    const ws = workspace();
    const llm = await startScriptedLlmServer({ script: CALL });
    try {
      const sessions = join(ws.home, "sessions");
      const r = await runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", llm.openaiBaseUrl, "--model", "m", "--cwd", ws.cwd, "--session-dir", sessions, "show my account"], {
        env: { HOME: ws.home },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(lastToolResult(llm.requests as Req[])).toMatch(/needs the user to complete something at http:\/\/127\.0\.0\.1:\d+ first .*the user declined it \(or no one could be asked\)/);
      expect(log(sessions)).toContain(": no one to ask");
      expect(lines(ws.record)).toEqual(["call 1 not linked"]);
    } finally {
      await llm.close();
    }
  }, 90_000);
});
