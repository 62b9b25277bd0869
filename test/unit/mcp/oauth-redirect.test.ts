// The way back of an MCP OAuth sign-in in VS Code (src/node/mcp/oauth-redirect.ts): which one a
// window uses (loopback locally; the URI handler where the extension host is remote or the window
// is a web page; the setting overrides), and the URI handler's answers checked against the state
// of a sign-in in progress (a forged, stale or repeated link is ignored).
import { readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  chooseRedirect,
  isPortMappedHost,
  receiverAppliesTo,
  oauthRedirects,
  PendingRedirects,
  readRedirectAnswer,
  redirectUriBatch,
  YOKE_EXTENSION_ID,
  type McpRedirectReceiver,
} from "../../../src/node/mcp/oauth-redirect";
import { FileCredentialStore, McpOAuthProvider } from "../../../src/node/mcp/oauth";

const dir = mkdtempSync(join(tmpdir(), "yoke-oauth-redirect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("chooseRedirect", () => {
  it("auto: loopback in a local window, the URI handler where the extension host is remote or the window is a web page", () => {
    expect(chooseRedirect({ web: false })).toBe("loopback");
    expect(chooseRedirect({ setting: "auto", web: false })).toBe("loopback");
    for (const remoteName of ["ssh-remote", "wsl", "dev-container", "codespaces"]) expect(chooseRedirect({ remoteName, web: false })).toBe("uriHandler");
    // A web window without a remote name (code-server, vscode.dev): the browser may be on any machine.
    expect(chooseRedirect({ web: true })).toBe("uriHandler");
    expect(chooseRedirect({ remoteName: "ssh-remote", web: true })).toBe("uriHandler");
  });
  it("the setting overrides, both ways; an unknown value is auto", () => {
    expect(chooseRedirect({ setting: "loopback", remoteName: "ssh-remote", web: true })).toBe("loopback");
    expect(chooseRedirect({ setting: "uriHandler", web: false })).toBe("uriHandler");
    expect(chooseRedirect({ setting: "bogus", web: false })).toBe("loopback");
  });
  it("a web window leaves servers on the hosts VS Code port-maps to the loopback (their URL would be opened decoded)", () => {
    for (const u of ["http://127.0.0.1:8080/mcp", "http://localhost:3000/mcp", "https://0.0.0.0:9/x"]) {
      expect(isPortMappedHost(u)).toBe(true);
      expect(receiverAppliesTo({ web: true, serverUrl: u })).toBe(false);
      expect(receiverAppliesTo({ web: false, serverUrl: u })).toBe(true);
    }
    // Not port-mapped: another loopback address, a host without a port, a real server, a bad URL.
    for (const u of ["http://127.0.0.2:8080/mcp", "http://localhost/mcp", "https://api.example.com/mcp", "not a url"]) {
      expect(isPortMappedHost(u)).toBe(false);
      expect(receiverAppliesTo({ web: true, serverUrl: u })).toBe(true);
    }
  });
  it("the URI handler's authority is this extension's id", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "package.json"), "utf8")) as { publisher: string; name: string };
    expect(YOKE_EXTENSION_ID).toBe(`${pkg.publisher}.${pkg.name}`);
  });
});

describe("readRedirectAnswer", () => {
  it("a code or an error with its state; anything else is not an answer", () => {
    expect(readRedirectAnswer(new URLSearchParams("code=c1&state=s1"))).toEqual({ kind: "code", code: "c1", state: "s1" });
    expect(readRedirectAnswer(new URLSearchParams("error=access_denied&error_description=no&state=s1"))).toEqual({ kind: "error", error: "access_denied", description: "no", state: "s1" });
    expect(readRedirectAnswer(new URLSearchParams("state=s1")).kind).toBe("invalid");
  });
});

describe("PendingRedirects (the URI handler's state check)", () => {
  const never = new AbortController().signal;
  it("hands a code only to the sign-in with its state, once", async () => {
    const p = new PendingRedirects();
    const a = p.wait("state-a", never, 10_000);
    const b = p.wait("state-b", never, 10_000);
    expect(p.deliver("code=forged&state=state-x")).toBe("unknown-state");
    expect(p.deliver("code=no-state")).toBe("unknown-state");
    expect(p.deliver("state=state-a")).toBe("not-an-answer");
    expect(p.deliver("code=code-b&state=state-b")).toBe("delivered");
    await expect(b).resolves.toBe("code-b");
    // Replayed: that sign-in is over.
    expect(p.deliver("code=code-b2&state=state-b")).toBe("unknown-state");
    expect(p.size).toBe(1);
    expect(p.deliver(new URLSearchParams({ code: "code-a", state: "state-a" }))).toBe("delivered");
    await expect(a).resolves.toBe("code-a");
    expect(p.size).toBe(0);
  });
  it("an error answer fails the sign-in, saying what the server said", async () => {
    const p = new PendingRedirects();
    const a = p.wait("s", never, 10_000);
    expect(p.deliver("error=access_denied&error_description=the%20user%20said%20no&state=s")).toBe("delivered");
    await expect(a).rejects.toThrow("the authorization server answered access_denied (the user said no)");
  });
  it("the time running out and the abort end the wait (and forget it)", async () => {
    const p = new PendingRedirects();
    await expect(p.wait("t", never, 20)).rejects.toThrow("no answer from the browser within 0 s");
    const ac = new AbortController();
    const w = p.wait("u", ac.signal, 10_000);
    ac.abort();
    await expect(w).rejects.toThrow("the sign-in was cancelled");
    expect(p.size).toBe(0);
    expect(p.deliver("code=late&state=u")).toBe("unknown-state");
  });
  it("one set per window, shared by the activation bundle and the session bundle (globalThis)", () => {
    expect(oauthRedirects()).toBe(oauthRedirects());
    expect((globalThis as Record<symbol, unknown>)[Symbol.for("yoke.mcp.oauthRedirects")]).toBe(oauthRedirects());
  });
});

describe("McpOAuthProvider with a receiver (a remote window)", () => {
  const receiver = (uri: string, p: PendingRedirects): McpRedirectReceiver => ({ redirectUri: () => Promise.resolve(uri), wait: (s, sig, ms) => p.wait(s, sig, ms) });
  it("registers and sends the receiver's redirect URI, and waits for the answer with its own state", async () => {
    const pending = new PendingRedirects();
    const uri = `vscode://${YOKE_EXTENSION_ID}/mcp-oauth`;
    const prov = new McpOAuthProvider("s", "https://s.example/mcp", new FileCredentialStore(join(dir, "r1.json")), receiver(uri, pending));
    await prov.load();
    expect(prov.redirectUrl).toBe(uri);
    // With the loopback listener's (a local window reading the same store shares the client).
    expect(prov.clientMetadata.redirect_uris).toEqual([uri, expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)]);
    const state = prov.state();
    const { code } = await prov.listen(new AbortController().signal, 10_000);
    expect(pending.deliver(`code=c9&state=${state}x`)).toBe("unknown-state");
    expect(pending.deliver(`code=c9&state=${state}`)).toBe("delivered");
    await expect(code).resolves.toBe("c9");
  });
  it("a receiver that does not serve the server leaves it to the loopback listener", async () => {
    const pending = new PendingRedirects();
    const r: McpRedirectReceiver = { ...receiver("http://cs.example/callback?vscode-reqid=1", pending), appliesTo: (u) => !u.includes("127.0.0.1") };
    const served = new McpOAuthProvider("s", "https://s.example/mcp", new FileCredentialStore(join(dir, "r3.json")), r);
    await served.load();
    expect(served.redirectUrl).toBe("http://cs.example/callback?vscode-reqid=1");
    const local = new McpOAuthProvider("s", "http://127.0.0.1:9/mcp", new FileCredentialStore(join(dir, "r4.json")), r);
    await local.load();
    expect(local.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  });
  it("a client registered with another redirect URI (a local window's loopback) is registered anew", async () => {
    const store = new FileCredentialStore(join(dir, "r2.json"));
    const local = new McpOAuthProvider("s", "https://s.example/mcp", store);
    await local.load();
    await local.saveClientInformation({ client_id: "c-local", redirect_uris: [local.redirectUrl] } as never);
    const remote = new McpOAuthProvider("s", "https://s.example/mcp", store, receiver("vscode://yoke-dev.yoke/mcp-oauth", new PendingRedirects()));
    await remote.load();
    expect(remote.clientInformation()).toBeUndefined();
    const again = new McpOAuthProvider("s", "https://s.example/mcp", store);
    await again.load();
    expect(again.clientInformation()).toMatchObject({ client_id: "c-local" });
  });
});

describe("a web window's one-shot redirect URIs (asExternalUri counts vscode-reqid up at each call)", () => {
  const pageOf = () => {
    let reqid = 0;
    const asks: string[] = [];
    const make = () => {
      const uri = `https://cs.example/callback?vscode-reqid=${++reqid}&vscode-scheme=code-oss&vscode-authority=yoke-dev.yoke&vscode-path=%2Fmcp-oauth`;
      asks.push(uri);
      return Promise.resolve(uri);
    };
    return { make, asks };
  };
  const id = (u: string) => new URL(u).searchParams.get("vscode-reqid");

  it("each connection holds one of its own; one not sent goes back; one sent to the browser is never handed out again; a new batch only when all are spent or held", async () => {
    const page = pageOf();
    const uris = redirectUriBatch(page.make, 3);
    // Two connections at the same moment: two callbacks.
    const [a, b] = await Promise.all([uris.take(), uris.take()]);
    expect([id(a.uri), id(b.uri)]).toEqual(["1", "2"]);
    expect(a.batch.map(id)).toEqual(["1", "2", "3"]);
    a.release(); // a needed no sign-in
    const c = await uris.take();
    expect(id(c.uri)).toBe("1");
    c.spend(); // its page was opened
    c.release(); // (too late: spent stays spent)
    b.release();
    expect(id((await uris.take()).uri)).toBe("2");
    expect(id((await uris.take()).uri)).toBe("3");
    expect(page.asks).toHaveLength(3);
    // All held or spent: a new batch (a new client will be registered with it).
    const d = await uris.take();
    expect(id(d.uri)).toBe("4");
    expect(d.batch.map(id)).toEqual(["4", "5", "6"]);
    expect((await uris.all()).map(id)).toEqual(["4", "5", "6"]);
  });

  it("two providers loading at once hold different callbacks, both of the batch the client was registered with", async () => {
    const pending = new PendingRedirects();
    const uris = redirectUriBatch(pageOf().make);
    const receiver: McpRedirectReceiver = { redirectUri: async () => (await uris.all())[0]!, hold: () => uris.take(), wait: (s, sig, ms) => pending.wait(s, sig, ms) };
    const store = new FileCredentialStore(join(dir, "web-hold.json"));
    const first = new McpOAuthProvider("s", "https://s.example/mcp", store, receiver);
    const second = new McpOAuthProvider("s", "https://s.example/mcp", store, receiver);
    await Promise.all([first.load(), second.load()]);
    expect(first.redirectUrl).not.toBe(second.redirectUrl);
    expect(first.clientMetadata.redirect_uris).toEqual(expect.arrayContaining(await uris.all()));
    await first.saveClientInformation({ client_id: "c-web", redirect_uris: first.clientMetadata.redirect_uris } as never);
    await second.load();
    expect(second.clientInformation()).toMatchObject({ client_id: "c-web" });
  });

  it("an ask that failed is not kept", async () => {
    let calls = 0;
    const uris = redirectUriBatch(() => (++calls === 1 ? Promise.reject(new Error("no window")) : Promise.resolve("https://cs.example/callback?vscode-reqid=1")), 1);
    await expect(uris.take()).rejects.toThrow("no window");
    await expect(uris.take()).resolves.toMatchObject({ uri: expect.stringContaining("vscode-reqid=1") });
  });
});
