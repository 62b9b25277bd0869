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
