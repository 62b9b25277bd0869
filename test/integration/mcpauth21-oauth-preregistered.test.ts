/**
 * Claude Code's pre-registered OAuth client for a remote MCP server (`"oauth": { "clientId",
 * "callbackPort", "authServerMetadataUrl", "scopes" }`, `--client-secret` with MCP_CLIENT_SECRET),
 * with the built CLI against an authorization server that has NO registration endpoint and accepts
 * only the redirect URI registered for the client, exactly (test/support/mcp-oauth-server.ts,
 * `preRegistered`: the SDK's own router and token endpoint, which checks the client secret).
 * The test plays the browser. Asserted: `yoke mcp login NAME --client-secret` signs in with that
 * client (no registration; the code exchanged with the secret; the scopes asked are the
 * definition's; the redirect is http://localhost:<callbackPort>/callback); a headless `yoke run`
 * then calls the tool with the kept tokens; the secret is in the credential store (0600) and in no
 * output, session log or request to the model; `yoke mcp logout` forgets it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { FileCredentialStore } from "../../src/node/mcp/oauth";
import { createNodeMcp } from "../../src/node/mcp/setup";
import { runCli, startCli } from "../support/cli";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/mcp-oauth-server";
import { scriptedRunArgs, toldOf } from "../support/scripted-run";

const temps: string[] = [];
let server: OAuthMcpServer | undefined;
const closers: Array<() => void> = [];
afterAll(async () => {
  await server?.close();
  for (const c of closers) c();
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const SECRET = "cs-mcpauth21-5b8e0d4a97f1";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function until<T>(f: () => T | undefined, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("a pre-registered OAuth client (no dynamic registration)", () => {
  it("signs in with the definition's client, port, metadata URL and scopes; the secret is kept with the tokens and shown nowhere; a later headless run uses the tokens; logout forgets it", async () => {
    const port = await freePort();
    const redirect = `http://localhost:${port}/callback`;
    server = await startOAuthMcpServer({
      preRegistered: [
        {
          client_id: "yoke-pre",
          client_secret: SECRET,
          redirect_uris: [redirect],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_post",
        },
      ],
    });
    const srv = server;
    const origin = new URL(srv.url).origin;
    const meta = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta.registration_endpoint, "the authorization server has no registration endpoint").toBeUndefined();
    // oauth.authServerMetadataUrl: the same document at a place discovery would not look (counted: it is read from there).
    let metaHits = 0;
    const metaServer = createHttpServer((_req, res) => {
      metaHits++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(meta));
    });
    await new Promise<void>((r) => metaServer.listen(0, "127.0.0.1", r));
    const metaUrl = `http://127.0.0.1:${(metaServer.address() as { port: number }).port}/custom/openid-configuration`;
    closers.push(() => metaServer.close());

    const base = mkdtempSync(join(tmpdir(), "yoke-mcpauth21-oauth-"));
    temps.push(base);
    const cwd = join(base, "ws");
    const home = join(base, "home");
    mkdirSync(cwd, { recursive: true });
    mkdirSync(join(home, ".yoke"), { recursive: true });
    const settings = {
      mcpServers: {
        secure: {
          type: "http",
          url: srv.url,
          oauth: { clientId: "yoke-pre", callbackPort: port, scopes: "mcp:tools files:read", authServerMetadataUrl: metaUrl },
        },
      },
      permissions: { allow: ["mcp__secure"] },
    };
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify(settings));
    const env = { HOME: home, YOKE_MCP_CREDENTIALS: "file" };

    // 1. yoke mcp login --client-secret: the secret from MCP_CLIENT_SECRET, the URL printed, the test as the browser.
    const login = startCli(["mcp", "login", "secure", "--client-secret", "--cwd", cwd], { env: { ...env, MCP_CLIENT_SECRET: SECRET } });
    let stderr = "";
    let exited = false;
    login.stderr!.on("data", (d) => (stderr += d));
    login.on("exit", () => (exited = true));
    const authUrl = await until(() => {
      if (exited) throw new Error(`yoke mcp login ended before printing the authorization URL: ${stderr}`);
      return /^\s+(http:\/\/\S+\/authorize\S*)$/m.exec(stderr)?.[1];
    }, "the authorization URL");
    const auth = new URL(authUrl);
    expect(auth.searchParams.get("client_id")).toBe("yoke-pre");
    expect(auth.searchParams.get("redirect_uri")).toBe(redirect);
    expect(auth.searchParams.get("scope")).toBe("mcp:tools files:read");
    const answer = await fetch(authUrl, { redirect: "manual" });
    expect(answer.status, await answer.clone().text()).toBe(302);
    const back = new URL(answer.headers.get("location")!);
    expect(`${back.origin}${back.pathname}`).toBe(redirect);
    // The listener is on 127.0.0.1; a browser tries localhost's addresses in turn (the test goes there directly).
    back.hostname = "127.0.0.1";
    expect(await (await fetch(back)).text()).toContain("signed in to the MCP server secure");
    const done = await login.result;
    expect(done.code, done.stderr).toBe(0);
    expect(
      srv.events.filter((e) => e.startsWith("register")),
      "no dynamic registration",
    ).toEqual([]);
    expect(srv.events).toContain("scope mcp:tools files:read");
    // The SDK's token endpoint checks the secret (client_secret_post): the exchange went through with it.
    expect(srv.events).toContain("exchange yoke-pre");
    expect(metaHits, "the metadata was read from oauth.authServerMetadataUrl").toBeGreaterThanOrEqual(1);

    const storeFile = join(home, ".yoke", "mcp-oauth.json");
    expect(statSync(storeFile).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(storeFile, "utf8")) as Record<string, string>;
    // Kept under the server's URL and the authorization server named (its tokens too): bound to that authorization server.
    const record = `${srv.url}#as=${metaUrl}`;
    expect(stored[`${record}#client_secret`]).toBe(SECRET);
    expect(stored[record]!.includes(SECRET), "the secret is not copied into the token record").toBe(false);
    expect(JSON.parse(stored[record]!)).toHaveProperty("tokens.refresh_token");

    // 2. A headless yoke run (no terminal, no secret in its environment): the kept tokens call the tool.
    const llm = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "mcp__secure__whoami", input: {} }] }, { text: "done" }] });
    const sessions = join(home, "sessions");
    let run;
    try {
      run = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, sessions), "call it"], { env });
    } finally {
      await llm.close();
    }
    expect(run.code, run.stderr).toBe(0);
    expect(toldOf(llm.requests)).toContain("protected answer for yoke-pre");
    const log = readdirSync(sessions)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => readFileSync(join(sessions, f), "utf8"))
      .join("\n");
    for (const [what, text] of [
      ["yoke mcp login's output", done.stdout + done.stderr],
      ["yoke run's output", run.stdout + run.stderr],
      ["the session log", log],
      ["the requests to the model", JSON.stringify(llm.requests)],
      ["the settings", readFileSync(join(home, ".yoke", "settings.json"), "utf8")],
    ] as const)
      expect(text.includes(SECRET), `the client secret in ${what}`).toBe(false);

    // 3. logout forgets the tokens and the secret.
    const out = await runCli(["mcp", "logout", "secure", "--cwd", cwd], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(readFileSync(storeFile, "utf8").includes(SECRET)).toBe(false);
  }, 180_000);

  it("where someone can be asked (VS Code's password box), the secret is asked once at the first sign-in, kept in the store, and not asked again", async () => {
    const port = await freePort();
    const redirect = `http://localhost:${port}/callback`;
    const as = await startOAuthMcpServer({
      preRegistered: [
        {
          client_id: "yoke-asked",
          client_secret: SECRET,
          redirect_uris: [redirect],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_post",
        },
      ],
    });
    closers.push(() => void as.close());
    const base = mkdtempSync(join(tmpdir(), "yoke-mcpauth21-oauth-"));
    temps.push(base);
    const home = join(base, "home");
    mkdirSync(join(home, ".yoke"), { recursive: true });
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { secure: { type: "http", url: as.url, oauth: { clientId: "yoke-asked", callbackPort: port } } } }));
    const storeFile = join(base, "store.json");
    const asked: string[] = [];
    const hubOnce = async () => {
      const mcp = createNodeMcp({
        cwd: base,
        home,
        trusted: true,
        env: { HOME: home, PATH: process.env.PATH },
        oauth: {
          store: new FileCredentialStore(storeFile),
          authorize: async (req) => {
            const r = await fetch(req.url, { redirect: "manual" });
            const back = new URL(r.headers.get("location")!);
            expect(`${back.origin}${back.pathname}`).toBe(redirect);
            back.hostname = "127.0.0.1";
            await fetch(back);
          },
          askClientSecret: ({ server, clientId }) => {
            asked.push(`${server} ${clientId}`);
            return Promise.resolve(SECRET);
          },
        },
      });
      try {
        return await mcp.hub.login("secure");
      } finally {
        await mcp.dispose();
      }
    };
    expect((await hubOnce()).state).toBe("running");
    expect(asked).toEqual(["secure yoke-asked"]);
    expect(as.events).toContain("exchange yoke-asked");
    expect(as.events.filter((e) => e.startsWith("register"))).toEqual([]);
    expect((JSON.parse(readFileSync(storeFile, "utf8")) as Record<string, string>)[`${as.url}#client_secret`]).toBe(SECRET);
    // A revoked sign-in: the browser again, the secret not asked again.
    as.revokeAll();
    expect((await hubOnce()).state).toBe("running");
    expect(asked).toHaveLength(1);
    expect(as.events.filter((e) => e === "exchange yoke-asked")).toHaveLength(2);
  }, 120_000);

  it("--client-secret on a terminal: a hidden prompt (nothing echoed), the secret kept in the store", async () => {
    const { spawn } = await import("node:child_process");
    const base = mkdtempSync(join(tmpdir(), "yoke-mcpauth21-oauth-"));
    temps.push(base);
    const home = join(base, "home");
    mkdirSync(join(home, ".yoke"), { recursive: true });
    // Port 9 (discard): nothing answers, so the login fails after the secret is kept.
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { s: { type: "http", url: "http://127.0.0.1:9/mcp", oauth: { clientId: "c1" } } } }));
    // util-linux's script(1) gives the CLI a terminal; the test types once the prompt is there (raw mode, no echo).
    const cli = join(__dirname, "..", "..", "dist", "cli.js");
    const child = spawn("script", ["-qfec", `${JSON.stringify(process.execPath)} ${cli} mcp login s --client-secret --cwd ${base}`, "/dev/null"], {
      env: { ...process.env, HOME: home, YOKE_MCP_CREDENTIALS: "file", MCP_CLIENT_SECRET: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const ended = new Promise<void>((r) => child.on("close", () => r()));
    await until(() => (out.includes("(not shown): ") ? true : undefined), "the prompt");
    child.stdin.write(`${SECRET}\r`);
    await ended;
    expect(out).toContain("the client secret is kept in");
    expect(out.includes(SECRET), `echoed: ${out}`).toBe(false);
    expect((JSON.parse(readFileSync(join(home, ".yoke", "mcp-oauth.json"), "utf8")) as Record<string, string>)["http://127.0.0.1:9/mcp#client_secret"]).toBe(SECRET);
  }, 60_000);

  it("--client-secret for a server that names no clientId is refused, saying what to write; nothing is stored", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-mcpauth21-oauth-"));
    temps.push(base);
    const home = join(base, "home");
    mkdirSync(join(home, ".yoke"), { recursive: true });
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { plain: { type: "http", url: "http://127.0.0.1:9/mcp" } } }));
    const r = await runCli(["mcp", "login", "plain", "--client-secret", "--cwd", base], { env: { HOME: home, YOKE_MCP_CREDENTIALS: "file", MCP_CLIENT_SECRET: SECRET } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the MCP server "plain" names no pre-registered OAuth client: a client secret goes with "oauth": { "clientId": "…" } in its definition`);
    expect(r.stderr.includes(SECRET)).toBe(false);
    expect(() => statSync(join(home, ".yoke", "mcp-oauth.json"))).toThrow();
  }, 60_000);
});
