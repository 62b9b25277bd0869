/**
 * `yoke mcp add` with Claude Code's flags for a pre-registered OAuth client (`--client-id`,
 * `--client-secret`, `--callback-port`), through the built CLI against the authorization server the
 * mcpauth tests run (test/support/mcp-oauth-server.ts, `preRegistered`: no registration endpoint,
 * only the client's exact redirect URI, the SDK's token endpoint checking the secret). The test plays
 * the browser. Asserted: the definition lands in ~/.claude.json's entry for the folder (Claude
 * Code's local scope) with the client id and port and without the secret; the secret (from
 * MCP_CLIENT_SECRET) is in the credential store only; `yoke mcp login` then signs in with that
 * client and secret; a headless `yoke run` calls the tool; the secret is in no output, settings
 * file, session log or request to the model. A secret given as an argument, or none to read, writes nothing.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { runCli, startCli } from "../support/cli";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/mcp-oauth-server";
import { scriptedRunArgs, toldOf } from "../support/scripted-run";

const temps: string[] = [];
let server: OAuthMcpServer | undefined;
afterAll(async () => {
  await server?.close();
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const SECRET = "cs-mcp22-add-7c1e94b2d05a";

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

function folders(): { base: string; cwd: string; home: string } {
  const base = mkdtempSync(join(tmpdir(), "yoke-mcp22-add-"));
  temps.push(base);
  const cwd = join(base, "ws");
  const home = join(base, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".yoke"), { recursive: true });
  return { base, cwd, home };
}

describe("yoke mcp add with a pre-registered OAuth client", () => {
  it("--client-id --client-secret --callback-port: the definition in ~/.claude.json (local scope) without the secret, the secret in the store; login and a session use that client", async () => {
    const port = await freePort();
    const redirect = `http://localhost:${port}/callback`;
    server = await startOAuthMcpServer({
      preRegistered: [
        {
          client_id: "yoke-add",
          client_secret: SECRET,
          redirect_uris: [redirect],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_post",
        },
      ],
    });
    const srv = server;
    const { cwd, home } = folders();
    // The person's own settings: a rule allowing the server's tools, and a comment the edit must keep.
    writeFileSync(join(home, ".claude.json"), '{\n  // Claude Code\'s own state\n  "numStartups": 3\n}\n', { mode: 0o600 });
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ permissions: { allow: ["mcp__secure"] } }));
    const env = { HOME: home, YOKE_MCP_CREDENTIALS: "file" };

    const add = await runCli(["mcp", "add", "--transport", "http", "--client-id", "yoke-add", "--client-secret", "--callback-port", String(port), "--cwd", cwd, "secure", srv.url], {
      env: { ...env, MCP_CLIENT_SECRET: SECRET },
    });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain(`Added the http MCP server "secure" (${srv.url}) to ~/.claude.json (local scope: only ${cwd}).`);
    expect(add.stdout).toContain("The client secret is kept in ");
    const claudeText = readFileSync(join(home, ".claude.json"), "utf8");
    expect(claudeText).toContain("// Claude Code's own state");
    expect(statSync(join(home, ".claude.json")).mode & 0o777).toBe(0o600);
    const claude = JSON.parse(claudeText.replace(/^\s*\/\/.*$/m, "")) as { numStartups: number; projects: Record<string, { mcpServers: Record<string, unknown> }> };
    expect(claude.numStartups).toBe(3);
    expect(claude.projects[cwd]!.mcpServers.secure).toEqual({ type: "http", url: srv.url, oauth: { clientId: "yoke-add", callbackPort: port } });
    const storeFile = join(home, ".yoke", "mcp-oauth.json");
    expect(statSync(storeFile).mode & 0o777).toBe(0o600);
    expect((JSON.parse(readFileSync(storeFile, "utf8")) as Record<string, string>)[`${srv.url}#client_secret`]).toBe(SECRET);
    expect(srv.events, "nothing was asked of the server yet").toEqual([]);

    // The sign-in (no MCP_CLIENT_SECRET now): the added client, its port, the kept secret at the token endpoint.
    const login = startCli(["mcp", "login", "secure", "--cwd", cwd], { env });
    let stderr = "";
    let exited = false;
    login.stderr!.on("data", (d) => (stderr += d));
    login.on("exit", () => (exited = true));
    const authUrl = await until(() => {
      if (exited) throw new Error(`yoke mcp login ended before printing the authorization URL: ${stderr}`);
      return /^\s+(http:\/\/\S+\/authorize\S*)$/m.exec(stderr)?.[1];
    }, "the authorization URL");
    const auth = new URL(authUrl);
    expect(auth.searchParams.get("client_id")).toBe("yoke-add");
    expect(auth.searchParams.get("redirect_uri")).toBe(redirect);
    const answer = await fetch(authUrl, { redirect: "manual" });
    expect(answer.status, await answer.clone().text()).toBe(302);
    const back = new URL(answer.headers.get("location")!);
    back.hostname = "127.0.0.1";
    expect(await (await fetch(back)).text()).toContain("signed in to the MCP server secure");
    const done = await login.result;
    expect(done.code, done.stderr).toBe(0);
    expect(
      srv.events.filter((e) => e.startsWith("register")),
      "no dynamic registration",
    ).toEqual([]);
    // The SDK's token endpoint checks the secret (client_secret_post): the exchange went through with it.
    expect(srv.events).toContain("exchange yoke-add");

    // A headless session: the tool, with the kept tokens.
    const llm = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "mcp__secure__whoami", input: {} }] }, { text: "done" }] });
    const sessions = join(home, "sessions");
    let run;
    try {
      run = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, sessions), "call it"], { env });
    } finally {
      await llm.close();
    }
    expect(run.code, run.stderr).toBe(0);
    expect(toldOf(llm.requests)).toContain("protected answer for yoke-add");
    const log = readdirSync(sessions)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => readFileSync(join(sessions, f), "utf8"))
      .join("\n");
    for (const [what, text] of [
      ["yoke mcp add's output", add.stdout + add.stderr],
      ["yoke mcp login's output", done.stdout + done.stderr],
      ["yoke run's output", run.stdout + run.stderr],
      ["the session log", log],
      ["the requests to the model", JSON.stringify(llm.requests)],
      ["~/.claude.json", readFileSync(join(home, ".claude.json"), "utf8")],
      ["~/.yoke/settings.json", readFileSync(join(home, ".yoke", "settings.json"), "utf8")],
    ] as const)
      expect(text.includes(SECRET), `the client secret in ${what}`).toBe(false);
  }, 120_000);

  it("a secret given as an argument, no secret to read, a name already there: refused, the secret repeated nowhere, nothing written", async () => {
    const { cwd, home } = folders();
    const env = { HOME: home, YOKE_MCP_CREDENTIALS: "file", MCP_CLIENT_SECRET: "" };
    // `--client-secret VALUE` (the flag takes no value): VALUE would be read as the name.
    const asArg = await runCli(["mcp", "add", "-t", "http", "--client-id", "c1", "--client-secret", SECRET, "--cwd", cwd, "s", "https://mcp.example.com/mcp"], { env });
    expect(asArg.code).toBe(2);
    expect(asArg.stderr).toContain("--client-secret takes no value: the secret is read from MCP_CLIENT_SECRET or a hidden prompt, never from an argument");
    expect((asArg.stdout + asArg.stderr).includes(SECRET)).toBe(false);
    // A header or env value written wrong is not repeated either (it usually carries a token).
    const badHeader = await runCli(["mcp", "add", "-t", "http", "-H", `Authorization Bearer ${SECRET}`, "--cwd", cwd, "s", "https://mcp.example.com/mcp"], { env });
    const badEnv = await runCli(["mcp", "add", "-e", `API_KEY ${SECRET}`, "--cwd", cwd, "s", "--", "node", "s.js"], { env });
    expect([badHeader.code, badEnv.code]).toEqual([2, 2]);
    expect(badHeader.stderr).toContain('--header number 1 is not "Name: value"');
    expect(badEnv.stderr).toContain("--env number 1 is not KEY=VALUE");
    expect((badHeader.stderr + badEnv.stderr).includes(SECRET)).toBe(false);
    // No MCP_CLIENT_SECRET and no terminal: asked for nothing, wrote nothing.
    const none = await runCli(["mcp", "add", "-t", "http", "--client-id", "c1", "--client-secret", "--cwd", cwd, "s", "https://mcp.example.com/mcp"], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--client-secret: set MCP_CLIENT_SECRET, or run `yoke mcp add` in a terminal");
    for (const f of [join(home, ".claude.json"), join(home, ".yoke", "mcp-oauth.json"), join(cwd, ".mcp.json")]) expect(() => statSync(f), f).toThrow();
    // --scope user into ~/.yoke/settings.json; the same name again is refused and the file is unchanged.
    const user = await runCli(["mcp", "add", "-s", "user", "-e", "K=v", "--cwd", cwd, "tool", "--", "node", "server.js", "--flag"], { env });
    expect(user.code, user.stderr).toBe(0);
    const settings = readFileSync(join(home, ".yoke", "settings.json"), "utf8");
    expect(JSON.parse(settings)).toEqual({ mcpServers: { tool: { type: "stdio", command: "node", args: ["server.js", "--flag"], env: { K: "v" } } } });
    const again = await runCli(["mcp", "add", "-s", "user", "--cwd", cwd, "tool", "other"], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`an MCP server "tool" is already defined in ${join(home, ".yoke", "settings.json")}: nothing was written`);
    expect(readFileSync(join(home, ".yoke", "settings.json"), "utf8")).toBe(settings);
    // --scope project: .mcp.json, and the definition typed here is approved for this folder (it starts).
    const probe = join(__dirname, "..", "support", "mcp-probe-server.cjs");
    const project = await runCli(["mcp", "add", "--scope", "project", "--cwd", cwd, "proj", "--", process.execPath, probe], { env });
    expect(project.code, project.stderr).toBe(0);
    expect(project.stdout).toContain(`Approved it for ${cwd} (you wrote it); a changed definition asks again.`);
    expect(JSON.parse(readFileSync(join(cwd, ".mcp.json"), "utf8"))).toEqual({ mcpServers: { proj: { type: "stdio", command: process.execPath, args: [probe] } } });
    const listed = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env });
    expect((JSON.parse(listed.stdout) as { servers: Array<{ name: string; state: string }> }).servers.find((x) => x.name === "proj")?.state).toBe("running");
  }, 60_000);
});
