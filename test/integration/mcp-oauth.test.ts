// OAuth 2.1 for a remote MCP server, against a real authorization server on 127.0.0.1 built from
// the SDK's own server pieces (test/support/mcp-oauth-server.ts: metadata discovery, dynamic
// client registration, PKCE, code and refresh grants, bearer auth on the MCP endpoint). Full
// sessions with the scripted model over HTTP: the test plays the browser (it follows the
// authorization URL with fetch, and the authorization server's redirect to Yoke's loopback
// listener). Asserted: the tool call reaches the server after the sign-in; the tokens are kept in
// ~/.yoke/mcp-oauth.json with mode 0600 and never reach the model, the session log or the output;
// a second session reuses them; an expired token is refreshed; a revoked one asks again, and a
// headless run says how to sign in.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { buildCliSession } from "../../src/cli/session-setup";
import { AgentSession } from "../../src/core/loop/agent-session";
import type { McpAuthorizeRequest } from "../../src/node/mcp/oauth";
import { ensureBuilt, runCli, startCli } from "../support/cli";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/mcp-oauth-server";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
let server: OAuthMcpServer;
beforeAll(async () => {
  server = await startOAuthMcpServer();
});
afterAll(async () => {
  await server?.close();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function workspace(url: string): { cwd: string; home: string } {
  const base = mkdtempSync(join(tmpdir(), "yoke-mcp-oauth-"));
  temps.push(base);
  const cwd = join(base, "ws");
  const home = join(base, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".yoke"), { recursive: true });
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { secure: { type: "http", url } }, permissions: { allow: ["mcp__secure"] } }));
  return { cwd, home };
}

const CALL: ScriptedTurn[] = [{ toolCalls: [{ name: "mcp__secure__whoami", input: {} }] }, { text: "done" }];
type Req = { body: Record<string, unknown> };

/** The browser: opens the authorization URL, follows the authorization server's redirect to Yoke's listener. */
async function browse(url: string): Promise<string> {
  const r = await fetch(url, { redirect: "manual" });
  const to = r.headers.get("location");
  if (r.status !== 302 || !to) throw new Error(`the authorization server answered ${r.status}: ${await r.text()}`);
  expect(new URL(to).hostname).toBe("127.0.0.1");
  const back = await fetch(to);
  return back.text();
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

/** A session as the CLI builds it, in this process, with a sign-in handler (or none: headless). */
async function session(ws: { cwd: string; home: string }, authorize: ((req: McpAuthorizeRequest) => Promise<void>) | undefined) {
  const llm = await startScriptedLlmServer({ script: CALL });
  const saved = process.env.HOME;
  process.env.HOME = ws.home;
  try {
    const setup = await buildCliSession(
      { cwd: ws.cwd, provider: "openai-compatible", baseUrl: llm.openaiBaseUrl, model: "m", sessionDir: join(ws.home, "sessions"), json: false, trust: true },
      undefined,
      // An approver of its own: no terminal questions; the sign-in is this test's "browser" (or nobody).
      {
        approver: { ask: () => Promise.resolve({ decision: "deny" as const }) } as never,
        ...(authorize ? { mcpAuthorize: authorize } : {}),
      },
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

function store(home: string): { mode: number; text: string } {
  const file = join(home, ".yoke", "mcp-oauth.json");
  return { mode: statSync(file).mode & 0o777, text: readFileSync(file, "utf8") };
}

function expectNoTokens(where: string, what: string): void {
  for (const t of [...server.accessTokens, ...server.refreshTokens]) expect(where.includes(t), `a token in ${what}`).toBe(false);
}

describe("OAuth sign-in for a remote MCP server, in full sessions", () => {
  it("signs in through the browser, keeps the tokens (0600, never shown), reuses them, refreshes an expired one, asks again after a revocation", async () => {
    const ws = workspace(server.url);
    const asked: McpAuthorizeRequest[] = [];
    const pages: string[] = [];
    const browser = async (req: McpAuthorizeRequest) => {
      asked.push(req);
      pages.push(await browse(req.url));
    };

    // 1. First session: the server answers 401; discovery, registration, PKCE, the browser, the code exchange; then the call.
    const first = await session(ws, browser);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.server).toBe("secure");
    const auth = new URL(asked[0]!.url);
    expect(auth.searchParams.get("code_challenge_method")).toBe("S256");
    expect(auth.searchParams.get("code_challenge")).toBeTruthy();
    expect(auth.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(auth.searchParams.get("resource")).toBe(server.url);
    expect(pages[0]).toContain("signed in to the MCP server secure");
    expect(first.result).toContain("protected answer for client-1");
    expect(server.events.filter((e) => !e.startsWith("call"))).toEqual([expect.stringMatching(/^register client-1 http:\/\/127\.0\.0\.1:\d+\/callback$/), "authorize client-1", "exchange client-1"]);
    expect(server.events).toContain("call whoami client-1");
    expect(server.bearers.filter(Boolean).every((b) => b === `Bearer ${server.accessTokens[0]}`)).toBe(true);

    const kept = store(ws.home);
    expect(kept.mode).toBe(0o600);
    expect(kept.text).toContain(server.accessTokens[0]!);
    expect(kept.text).toContain(server.refreshTokens[0]!);
    expectNoTokens(JSON.stringify(first.requests), "the model's requests");
    expectNoTokens(sessionLogs(join(ws.home, "sessions")), "the session log");

    // 2. A second session reuses the kept token: no registration, no browser.
    const before = server.events.length;
    const second = await session(ws, browser);
    expect(asked).toHaveLength(1);
    expect(second.result).toContain("protected answer for client-1");
    expect(server.events.slice(before)).toEqual(["call whoami client-1"]);

    // 3. The access token expired: the refresh token gets a new one (rotated), no browser.
    server.expireAll();
    const third = await session(ws, browser);
    expect(asked).toHaveLength(1);
    expect(third.result).toContain("protected answer for client-1");
    expect(server.events.slice(-3)).toEqual(["expire all", "refresh client-1", "call whoami client-1"]);
    expect(store(ws.home).text).toContain(server.accessTokens[1]!);
    expect(store(ws.home).text).not.toContain(server.accessTokens[0]!);
    expect(store(ws.home).mode).toBe(0o600);

    // 4. Revoked (access and refresh tokens): headless, the call fails saying how to sign in again.
    server.revokeAll();
    const headless = await session(ws, undefined);
    expect(headless.result).toContain('the MCP server "secure" needs you to sign in (OAuth) again: its saved sign-in was refused');
    expect(headless.result).toContain("yoke mcp login secure");
    expect(server.events.slice(-1)).toEqual(["revoke all"]);

    // …and with a browser, it asks again and the call goes through with the new tokens.
    const again = await session(ws, browser);
    expect(asked).toHaveLength(2);
    expect(again.result).toContain("protected answer for client-1");
    expect(server.events.slice(-3)).toEqual(["authorize client-1", "exchange client-1", "call whoami client-1"]);
    expectNoTokens(JSON.stringify([...second.requests, ...third.requests, ...headless.requests, ...again.requests]), "the model's requests");
    expectNoTokens(sessionLogs(join(ws.home, "sessions")), "the session logs");
  }, 120_000);
});

describe("the CLI: yoke run headless, yoke mcp login, then yoke run", () => {
  it("a headless yoke run says how to sign in; yoke mcp login prints the URL and waits for the browser; the next yoke run reaches the server", async () => {
    const ws = workspace(server.url);
    const sessions = join(ws.home, "sessions");
    const run = async () => {
      const llm = await startScriptedLlmServer({ script: CALL });
      try {
        const r = await runCli(
          ["run", "--trust", "--provider", "openai-compatible", "--base-url", llm.openaiBaseUrl, "--model", "m", "--cwd", ws.cwd, "--session-dir", sessions, "call the protected tool"],
          { env: { HOME: ws.home } },
        );
        return { ...r, requests: llm.requests as Req[] };
      } finally {
        await llm.close();
      }
    };

    const headless = await run();
    expect(headless.code, headless.stderr).toBe(0);
    // No tools were ever listed (no cache): the session goes on without them, and says why on stderr.
    expect(headless.stderr).toContain('yoke: mcp: the MCP server "secure" needs you to sign in (OAuth). Sign in from a terminal with `yoke mcp login secure`');
    expect(sessionLogs(sessions)).toContain("yoke mcp login secure");

    const login = startCli(["mcp", "login", "secure", "--cwd", ws.cwd], { env: { HOME: ws.home } });
    let stderr = "";
    const url = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no URL printed: ${stderr}`)), 30_000);
      login.stderr!.on("data", (d) => {
        stderr += String(d);
        const m = /needs you to sign in \(OAuth\)\. Open this URL in your browser[^\n]*\n\s+(\S+)/.exec(stderr);
        if (m) {
          clearTimeout(t);
          resolve(m[1]!);
        }
      });
    });
    expect(await browse(url)).toContain("signed in to the MCP server secure");
    const done = await login.result;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("secure: connected (1 tools)");
    expect(store(ws.home).mode).toBe(0o600);

    const after = await run();
    expect(after.code, after.stderr).toBe(0);
    expect(lastToolResult(after.requests)).toMatch(/protected answer for client-\d+/);
    for (const [what, text] of [
      ["the model's requests", JSON.stringify([...headless.requests, ...after.requests])],
      ["the session logs", sessionLogs(sessions)],
      ["the output", headless.stdout + headless.stderr + done.stdout + done.stderr + after.stdout + after.stderr],
    ] as const)
      expectNoTokens(text, what);

    // `yoke mcp logout` forgets them.
    const out = await runCli(["mcp", "logout", "secure", "--cwd", ws.cwd], { env: { HOME: ws.home } });
    expect(out.stdout).toContain("secure: signed out");
    expect(store(ws.home).text).not.toContain("access_token");
  }, 120_000);
});
