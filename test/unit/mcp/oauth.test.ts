// The pieces of MCP OAuth that are Yoke's own (src/node/mcp/oauth.ts): the CLI's token file (0600),
// what is read back from a store (validated; a bad record is dropped, not sent), and the loopback
// listener that receives the browser's answer (validated with zod; a wrong state is ignored).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { credentialKey, FileCredentialStore, McpOAuthProvider } from "../../../src/node/mcp/oauth";

const dir = mkdtempSync(join(tmpdir(), "yoke-oauth-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("FileCredentialStore", () => {
  it("keeps one JSON file readable by its owner only, in a folder it creates", async () => {
    const file = join(dir, "nested", "mcp-oauth.json");
    const store = new FileCredentialStore(file);
    await store.set("https://a.example/mcp", '{"x":1}');
    await store.set("https://b.example/mcp", '{"y":2}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "nested")).mode & 0o777).toBe(0o700);
    expect(await store.get("https://a.example/mcp")).toBe('{"x":1}');
    await store.delete("https://a.example/mcp");
    expect(await store.get("https://a.example/mcp")).toBeUndefined();
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ "https://b.example/mcp": '{"y":2}' });
  });

  it("a file that is not a map of strings reads as empty", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(file, '{"k": {"not": "a string"}}');
    expect(await new FileCredentialStore(file).get("k")).toBeUndefined();
  });
});

describe("McpOAuthProvider", () => {
  it("drops a stored record that is not what Yoke wrote (no token without access_token is sent)", async () => {
    const store = new FileCredentialStore(join(dir, "p1.json"));
    await store.set(credentialKey("https://s.example/mcp#frag"), JSON.stringify({ tokens: { token_type: "Bearer" }, client: { client_id: "c1" } }));
    const p = new McpOAuthProvider("s", "https://s.example/mcp", store);
    await p.load();
    expect(p.tokens()).toBeUndefined();
    expect(p.clientInformation()).toBeUndefined();
    expect(p.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(p.clientMetadata).toMatchObject({ redirect_uris: [p.redirectUrl], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] });
  });

  it("keeps the registration's redirect port across processes", async () => {
    const store = new FileCredentialStore(join(dir, "p2.json"));
    const a = new McpOAuthProvider("s", "https://s.example/mcp", store);
    await a.load();
    await a.saveClientInformation({ client_id: "c1", redirect_uris: [a.redirectUrl] } as never);
    const b = new McpOAuthProvider("s", "https://s.example/mcp", store);
    await b.load();
    expect(b.redirectUrl).toBe(a.redirectUrl);
    expect(b.clientInformation()).toMatchObject({ client_id: "c1" });
  });

  it("the listener takes the code with the right state, ignores a wrong state and not-an-answer, and reports an error answer", async () => {
    const p = new McpOAuthProvider("s", "https://s.example/mcp", new FileCredentialStore(join(dir, "p3.json")));
    await p.load();
    const state = p.state();
    const ac = new AbortController();
    const { code } = await p.listen(ac.signal, 10_000);
    const base = p.redirectUrl;
    expect((await fetch(`${base}?code=abc&state=wrong`)).status).toBe(400);
    expect((await fetch(`${base}?nothing=1`)).status).toBe(400);
    expect((await fetch(base.replace("/callback", "/other"))).status).toBe(404);
    const ok = await fetch(`${base}?code=the-code&state=${state}`);
    expect(await ok.text()).toContain("signed in to the MCP server s");
    await expect(code).resolves.toBe("the-code");

    const second = await p.listen(ac.signal, 10_000);
    await fetch(`${base}?error=access_denied&error_description=no&state=${state}`);
    await expect(second.code).rejects.toThrow("the authorization server answered access_denied (no)");

    const third = await p.listen(ac.signal, 10_000);
    ac.abort();
    await expect(third.code).rejects.toThrow("the sign-in was cancelled");
  });
});

describe("McpOAuthProvider with a definition's oauth (pre-registered client, session 21)", () => {
  it("gives the SDK the pre-registered client with its stored secret, the fixed localhost redirect and the scopes; never registers", async () => {
    const store = new FileCredentialStore(join(dir, "pre.json"));
    const p = new McpOAuthProvider("s", "https://s.example/mcp", store, undefined, [], { clientId: "app-1", callbackPort: 8123, scopes: "a b" });
    await p.saveClientSecret("sec-1");
    await p.load();
    expect(p.clientInformation()).toEqual({ client_id: "app-1", client_secret: "sec-1" });
    expect(p.registering).toBe(false);
    expect(p.redirectUrl).toBe("http://localhost:8123/callback");
    expect(p.clientMetadata).toMatchObject({ redirect_uris: ["http://localhost:8123/callback"], scope: "a b" });
    const url = new URL("https://auth.example/authorize?scope=server+advertised");
    p.redirectToAuthorization(url);
    expect(url.searchParams.get("scope")).toBe("a b");
    // The SDK stamping the client with its issuer keeps nothing (the secret is not copied into the record).
    await p.saveClientInformation({ client_id: "app-1", client_secret: "sec-1", issuer: "https://auth.example" } as never);
    expect(readFileSync(join(dir, "pre.json"), "utf8")).not.toMatch(/"client\\":/);
    await p.forget();
    expect(readFileSync(join(dir, "pre.json"), "utf8")).not.toContain("sec-1");
  });

  it("tokens and the secret are bound to the authorization server the definition names: another metadata URL for the same server gets none of them", async () => {
    const { createServer } = await import("node:http");
    const meta = (issuer: string) => ({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, response_types_supported: ["code"] });
    const http = createServer((req, res) => {
      const issuer = req.url === "/evil" ? "http://127.0.0.1/evil-as" : "http://127.0.0.1/good-as";
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(meta(issuer)));
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
    try {
      const store = new FileCredentialStore(join(dir, "bound.json"));
      const mine = new McpOAuthProvider("mine", "https://s.example/mcp", store, undefined, [], { clientId: "app-1", authServerMetadataUrl: `${base}/good` });
      await mine.saveClientSecret("sec-mine");
      await mine.load();
      await mine.saveTokens({ access_token: "at-mine", token_type: "Bearer", refresh_token: "rt-mine" });
      expect(mine.discoveryState()).toMatchObject({ authorizationServerUrl: "http://127.0.0.1/good-as" });
      // A repository's definition of the same URL naming another authorization server.
      const theirs = new McpOAuthProvider("theirs", "https://s.example/mcp", store, undefined, [], { clientId: "app-1", authServerMetadataUrl: `${base}/evil` });
      await theirs.load();
      expect(theirs.tokens()).toBeUndefined();
      expect(theirs.clientInformation()).toEqual({ client_id: "app-1" });
      expect(theirs.discoveryState()).toMatchObject({ authorizationServerUrl: "http://127.0.0.1/evil-as" });
      // Yours still has everything.
      await mine.load();
      expect(mine.tokens()?.refresh_token).toBe("rt-mine");
      expect(mine.clientInformation()).toEqual({ client_id: "app-1", client_secret: "sec-mine" });
    } finally {
      http.close();
    }
  });

  it("a metadata URL that does not answer a metadata document is a clear error", async () => {
    const store = new FileCredentialStore(join(dir, "nometa.json"));
    const p = new McpOAuthProvider("s", "https://s.example/mcp", store, undefined, [], { authServerMetadataUrl: "http://127.0.0.1:9/meta" });
    await expect(p.load()).rejects.toThrow(/could not read the authorization server's metadata at http:\/\/127\.0\.0\.1:9\/meta \(oauth\.authServerMetadataUrl\)/);
  });
});
