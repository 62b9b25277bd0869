// OAuth 2.1 over the older HTTP+SSE transport: the same real authorization server as
// mcp-oauth.test.ts (the SDK's mcpAuthRouter and requireBearerAuth), here in front of the SDK's
// SSEServerTransport (GET /sse, POST /messages). The SDK's SSE client transport with Yoke's auth
// provider: a 401 on the event stream starts the sign-in (discovery, registration, PKCE, the
// browser — played by this test —, the code exchange); the kept tokens are reused by the next
// session, an expired one is refreshed, a revoked one asks again (headless: says how).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { buildCliSession } from "../../src/cli/session-setup";
import { AgentSession } from "../../src/core/loop/agent-session";
import type { McpAuthorizeRequest } from "../../src/node/mcp/oauth";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/mcp-oauth-server";

const temps: string[] = [];
let server: OAuthMcpServer;
beforeAll(async () => {
  server = await startOAuthMcpServer({ transport: "sse" });
});
afterAll(async () => {
  await server?.close();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function workspace(url: string): { cwd: string; home: string } {
  const base = mkdtempSync(join(tmpdir(), "yoke-mcp-oauth-sse-"));
  temps.push(base);
  const cwd = join(base, "ws");
  const home = join(base, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".yoke"), { recursive: true });
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { legacy: { type: "sse", url } }, permissions: { allow: ["mcp__legacy"] } }));
  return { cwd, home };
}

const CALL: ScriptedTurn[] = [{ toolCalls: [{ name: "mcp__legacy__whoami", input: {} }] }, { text: "done" }];
type Req = { body: Record<string, unknown> };

async function browse(url: string): Promise<string> {
  const r = await fetch(url, { redirect: "manual" });
  const to = r.headers.get("location");
  if (r.status !== 302 || !to) throw new Error(`the authorization server answered ${r.status}: ${await r.text()}`);
  expect(new URL(to).hostname).toBe("127.0.0.1");
  return (await fetch(to)).text();
}

function lastToolResult(requests: Req[]): string {
  const msgs = requests[requests.length - 1]!.body.messages as Array<{ role: string; content?: unknown }>;
  const tool = msgs.filter((m) => m.role === "tool").pop();
  return typeof tool?.content === "string" ? tool.content : JSON.stringify(tool?.content);
}

function sessionLogs(dir: string): string {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");
}

async function session(ws: { cwd: string; home: string }, authorize: ((req: McpAuthorizeRequest) => Promise<void>) | undefined) {
  const llm = await startScriptedLlmServer({ script: CALL });
  const saved = process.env.HOME;
  process.env.HOME = ws.home;
  try {
    const setup = await buildCliSession(
      { cwd: ws.cwd, provider: "openai-compatible", baseUrl: llm.openaiBaseUrl, model: "m", sessionDir: join(ws.home, "sessions"), json: false, trust: true },
      undefined,
      { approver: { ask: () => Promise.resolve({ decision: "deny" as const }) } as never, ...(authorize ? { mcpAuthorize: authorize } : {}) },
    );
    const s = await AgentSession.create(setup.options);
    await s.send("call the protected tool");
    await setup.dispose();
    return { requests: llm.requests as Req[], result: lastToolResult(llm.requests as Req[]) };
  } finally {
    process.env.HOME = saved;
    await llm.close();
  }
}

const store = (home: string) => {
  const file = join(home, ".yoke", "mcp-oauth.json");
  return { mode: statSync(file).mode & 0o777, text: readFileSync(file, "utf8") };
};

describe("OAuth sign-in for a remote MCP server over SSE, in full sessions", () => {
  it("signs in on the event stream's 401, keeps the tokens (0600, never shown), reuses them, refreshes an expired one, asks again after a revocation", async () => {
    const ws = workspace(server.url);
    const asked: McpAuthorizeRequest[] = [];
    const pages: string[] = [];
    const browser = async (req: McpAuthorizeRequest) => {
      asked.push(req);
      pages.push(await browse(req.url));
    };

    const first = await session(ws, browser);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.server).toBe("legacy");
    const auth = new URL(asked[0]!.url);
    expect(auth.searchParams.get("code_challenge_method")).toBe("S256");
    expect(auth.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(auth.searchParams.get("resource")).toBe(server.url);
    expect(pages[0]).toContain("signed in to the MCP server legacy");
    expect(first.result).toContain("protected answer for client-1");
    expect(server.events.filter((e) => !e.startsWith("call"))).toEqual([expect.stringMatching(/^register client-1 /), "authorize client-1", "exchange client-1"]);
    // Every request that carried a token carried the one issued (the stream and the posted messages).
    expect(server.bearers.filter(Boolean).length).toBeGreaterThanOrEqual(2);
    expect(server.bearers.filter(Boolean).every((b) => b === `Bearer ${server.accessTokens[0]}`)).toBe(true);
    expect(store(ws.home).mode).toBe(0o600);
    expect(store(ws.home).text).toContain(server.accessTokens[0]!);

    const before = server.events.length;
    const second = await session(ws, browser);
    expect(asked).toHaveLength(1);
    expect(second.result).toContain("protected answer for client-1");
    expect(server.events.slice(before)).toEqual(["call whoami client-1"]);

    server.expireAll();
    const third = await session(ws, browser);
    expect(asked).toHaveLength(1);
    expect(third.result).toContain("protected answer for client-1");
    expect(server.events.slice(-3)).toEqual(["expire all", "refresh client-1", "call whoami client-1"]);
    expect(store(ws.home).text).toContain(server.accessTokens[1]!);
    expect(store(ws.home).text).not.toContain(server.accessTokens[0]!);

    server.revokeAll();
    const headless = await session(ws, undefined);
    expect(headless.result).toContain('the MCP server "legacy" needs you to sign in (OAuth) again: its saved sign-in was refused');
    expect(headless.result).toContain("yoke mcp login legacy");

    const again = await session(ws, browser);
    expect(asked).toHaveLength(2);
    expect(again.result).toContain("protected answer for client-1");
    expect(server.events.slice(-3)).toEqual(["authorize client-1", "exchange client-1", "call whoami client-1"]);

    const everything = JSON.stringify([first, second, third, headless, again].map((r) => r.requests)) + sessionLogs(join(ws.home, "sessions"));
    for (const t of [...server.accessTokens, ...server.refreshTokens]) expect(everything.includes(t), "a token reached the model or the log").toBe(false);
  }, 120_000);
});
