// URL-mode elicitation (MCP 2025-11-25) with a real server from the npm registry
// (@modelcontextprotocol/server-everything's trigger-url-elicitation, offered only to a client that
// declares the capability), through full sessions with the scripted model: the user is shown the
// server's name, message and URL and answers; nothing is opened without a yes; a headless
// `yoke run` declines; a URL that is not http(s) is never shown.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { buildCliSession } from "../../src/cli/session-setup";
import { AgentSession } from "../../src/core/loop/agent-session";
import type { McpUrlElicitRequest } from "../../src/core/mcp/client-requests";
import { ensureBuilt, runCli } from "../support/cli";

const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function workspace(): { cwd: string; home: string } {
  const base = mkdtempSync(join(tmpdir(), "yoke-mcp-url-"));
  temps.push(base);
  const cwd = join(base, "ws");
  const home = join(base, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".yoke"), { recursive: true });
  const settings = { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], startOnSessionStart: true } }, permissions: { allow: ["mcp__everything"] } };
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify(settings));
  return { cwd, home };
}

const call = (url: string): ScriptedTurn[] => [{ toolCalls: [{ name: "mcp__everything__trigger-url-elicitation", input: { url, message: "Link your account to continue." } }] }, { text: "done" }];
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

async function session(url: string, answer: "accept" | "decline" | "cancel", shown: McpUrlElicitRequest[]) {
  const ws = workspace();
  const llm = await startScriptedLlmServer({ script: call(url) });
  const saved = process.env.HOME;
  process.env.HOME = ws.home;
  try {
    const setup = await buildCliSession(
      { cwd: ws.cwd, provider: "openai-compatible", baseUrl: llm.openaiBaseUrl, model: "m", sessionDir: join(ws.home, "sessions"), json: false, trust: true },
      undefined,
      {
        approver: { ask: () => Promise.resolve({ decision: "deny" as const }) } as never,
        elicitor: {
          elicit: () => Promise.resolve({ action: "cancel" as const }),
          openUrl: (req) => {
            shown.push(req);
            return Promise.resolve(answer);
          },
        },
      },
    );
    const s = await AgentSession.create(setup.options);
    await s.send("link my account");
    await setup.dispose();
    return { result: lastToolResult(llm.requests as Req[]), log: log(join(ws.home, "sessions")) };
  } finally {
    process.env.HOME = saved;
    await llm.close();
  }
}

describe("URL-mode elicitation", () => {
  it("the user is shown the server, its message and the URL; a yes is the server's accept; the log names the origin only", async () => {
    const shown: McpUrlElicitRequest[] = [];
    const r = await session("https://auth.example.com/link?code=one-time-123", "accept", shown);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ server: "everything", message: "Link your account to continue.", url: "https://auth.example.com/link?code=one-time-123" });
    expect(shown[0]!.elicitationId).toBeTruthy();
    expect(r.result).toContain("User completed the URL elicitation flow");
    expect(r.log).toContain('"outcome":"accepted"');
    expect(r.log).toContain("a URL at https://auth.example.com, by the user");
    expect(
      r.log
        .split("\n")
        .filter((l) => l.includes('"mcp_request"'))
        .join("\n"),
    ).not.toContain("one-time-123");
  }, 90_000);

  it("a no is the server's decline", async () => {
    const shown: McpUrlElicitRequest[] = [];
    const r = await session("https://auth.example.com/link", "decline", shown);
    expect(shown).toHaveLength(1);
    expect(r.result).toContain("User declined to open the URL");
  }, 90_000);

  it("a URL that is not http(s) is never shown: the server gets an error", async () => {
    const shown: McpUrlElicitRequest[] = [];
    const r = await session("file:///etc/passwd", "accept", shown);
    expect(shown).toEqual([]);
    expect(r.result).toContain("Yoke cannot show this URL");
    expect(r.log).toContain("only http and https URLs are opened");
  }, 90_000);

  it("headless yoke run: declined, nobody is asked", async () => {
    const ws = workspace();
    const llm = await startScriptedLlmServer({ script: call("https://auth.example.com/link") });
    try {
      const sessions = join(ws.home, "sessions");
      const r = await runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", llm.openaiBaseUrl, "--model", "m", "--cwd", ws.cwd, "--session-dir", sessions, "link my account"], {
        env: { HOME: ws.home },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(lastToolResult(llm.requests as Req[])).toContain("User declined to open the URL");
      expect(log(sessions)).toContain("a URL at https://auth.example.com: no one to ask");
    } finally {
      await llm.close();
    }
  }, 90_000);
});
