// An MCP OAuth sign-in as a remote VS Code window makes it (src/node/mcp/oauth-redirect.ts): the
// redirect URI is the extension's link (vscode://yoke-dev.yoke/mcp-oauth), not a listener on
// 127.0.0.1, and the answer comes through the URI handler's set of waiting sign-ins. Against the
// real authorization server of mcp-oauth.test.ts (the SDK's mcpAuthRouter: dynamic registration
// of that redirect URI, PKCE, the code exchange). The test plays the browser and VS Code: it
// follows the authorization URL, and hands the redirect's query to the URI handler's code
// (PendingRedirects.deliver), as VS Code does when the OS opens the vscode:// link.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeMcpHub } from "../../src/node/mcp/hub";
import { createNodeMcp } from "../../src/node/mcp/setup";
import { FileCredentialStore, type McpAuthorizeRequest } from "../../src/node/mcp/oauth";
import { oauthRedirects, OAUTH_URI_PATH, PendingRedirects, redirectUriBatch, YOKE_EXTENSION_ID, type McpRedirectReceiver } from "../../src/node/mcp/oauth-redirect";
import type { McpServerConfig } from "../../src/core/mcp/config";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/mcp-oauth-server";

let server: OAuthMcpServer;
const dir = mkdtempSync(join(tmpdir(), "yoke-mcp-oauth-remote-"));
beforeAll(async () => {
  server = await startOAuthMcpServer();
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const LINK = `vscode://${YOKE_EXTENSION_ID}${OAUTH_URI_PATH}`;
// The host's receiver in a remote window (src/host/mcp-oauth.ts: asExternalUri of the link, then the shared set).
const receiver: McpRedirectReceiver = { redirectUri: () => Promise.resolve(LINK), wait: (state, signal, ms) => oauthRedirects().wait(state, signal, ms) };

describe("sign-in through the URI handler (a remote window)", () => {
  it("registers the extension's link as redirect URI; the link's answer with the sign-in's state completes it; a forged one is ignored", async () => {
    const config: McpServerConfig = {
      name: "secure",
      source: "user-settings",
      sourcePath: "test",
      workspace: false,
      startAtSessionStart: false,
      transport: "http",
      url: server.url,
      headers: {},
      fallbackToSse: false,
    };
    const delivered: string[] = [];
    const authorize = async (req: McpAuthorizeRequest) => {
      const auth = new URL(req.url);
      expect(auth.searchParams.get("redirect_uri")).toBe(LINK);
      const r = await fetch(req.url, { redirect: "manual" });
      const to = new URL(r.headers.get("location") ?? "");
      expect(`${to.protocol}//${to.host}${to.pathname}`).toBe(LINK);
      // A link someone else made (another state) is ignored; the real one is taken.
      delivered.push(oauthRedirects().deliver(`code=forged&state=${to.searchParams.get("state")}-not`));
      delivered.push(oauthRedirects().deliver(to.search.slice(1)));
    };
    const hub = new NodeMcpHub({
      cwd: dir,
      storageDir: join(dir, "store"),
      home: dir,
      servers: [config],
      trusted: true,
      oauth: { store: new FileCredentialStore(join(dir, "tokens.json")), authorize, receiver },
    });
    try {
      const status = await hub.login("secure");
      expect(status.state).toBe("running");
      expect(delivered).toEqual(["unknown-state", "delivered"]);
      expect(server.events).toContainEqual(expect.stringMatching(new RegExp(`^register client-1 ${LINK}(,http://127\\.0\\.0\\.1:\\d+/callback)?$`)));
      expect(server.events).toContain("exchange client-1");
      const r = await hub.call("secure", "whoami", {}, { signal: new AbortController().signal, timeoutMs: 10_000 });
      expect(JSON.stringify(r.content)).toContain("protected answer for client-1");
      expect(oauthRedirects().size).toBe(0);
    } finally {
      await hub.dispose();
    }
  }, 60_000);
});

describe("a sign-in kept in one window reused in the other (VS Code keeps a remote window's secrets on the local machine)", () => {
  it("signed in from a local window (loopback); in a remote window the expired token is refreshed with that client — no new registration, no browser; revoked: registered anew with the link and asked", async () => {
    const srv = await startOAuthMcpServer();
    const store = new FileCredentialStore(join(dir, "shared.json"));
    const config: McpServerConfig = {
      name: "secure",
      source: "user-settings",
      sourcePath: "test",
      workspace: false,
      startAtSessionStart: false,
      transport: "http",
      url: srv.url,
      headers: {},
      fallbackToSse: false,
    };
    const hubOf = (remote: boolean, authorize: (req: McpAuthorizeRequest) => Promise<void>) =>
      new NodeMcpHub({ cwd: dir, storageDir: join(dir, "store2"), home: dir, servers: [config], trusted: true, oauth: { store, authorize, ...(remote ? { receiver } : {}) } });
    const call = async (h: NodeMcpHub) => {
      await h.catalog();
      return h.call("secure", "whoami", {}, { signal: new AbortController().signal, timeoutMs: 10_000 });
    };
    try {
      // The local window: the browser goes to the loopback listener.
      const local = hubOf(false, async (req) => void (await fetch(req.url)));
      try {
        await local.login("secure");
      } finally {
        await local.dispose();
      }
      expect(srv.events.filter((e) => e.startsWith("register"))).toEqual([expect.stringMatching(/^register client-1 http:\/\/127\.0\.0\.1:\d+\/callback$/)]);
      // The remote window, later: the access token expired.
      srv.expireAll();
      const asked: string[] = [];
      const remote = hubOf(true, async (req) => void asked.push(req.url));
      try {
        const r = await call(remote);
        expect(JSON.stringify(r.content)).toContain("protected answer for client-1");
      } finally {
        await remote.dispose();
      }
      expect(asked).toEqual([]);
      expect(srv.events.filter((e) => !e.startsWith("call"))).toEqual([expect.stringMatching(/^register client-1 /), "authorize client-1", "exchange client-1", "expire all", "refresh client-1"]);
      // Revoked: the refresh is refused, the client is registered anew with the link and the user is asked.
      srv.revokeAll();
      const again = hubOf(true, async (req) => {
        asked.push(req.url);
        const to = new URL((await fetch(req.url, { redirect: "manual" })).headers.get("location") ?? "");
        oauthRedirects().deliver(to.search.slice(1));
      });
      try {
        await again.login("secure");
        const r = await call(again);
        expect(JSON.stringify(r.content)).toContain("protected answer for client-2");
      } finally {
        await again.dispose();
      }
      expect(asked).toHaveLength(1);
      // (A client registered before both ways back were registered together, or by a window that does not share them.)
      expect(srv.events).toContainEqual(expect.stringMatching(new RegExp(`^register client-2 ${LINK},http://127\\.0\\.0\\.1:\\d+/callback$`)));
    } finally {
      await srv.close();
    }
  }, 90_000);
});

describe("sign-ins in a web window (code-server, vscode.dev): the page's callback URIs are one-shot", () => {
  /**
   * The page as VS Code's web workbench makes it (LocalStorageURLCallbackProvider): each
   * asExternalUri gives `…/callback?vscode-reqid=N` with N counted up from 1 per page load, and the
   * page hands an answer to the URI handler only while it listens for that N — once, then never
   * again. A reload counts from 1 again.
   */
  function webPage(pending: PendingRedirects) {
    let reqid = 0;
    const listening = new Set<number>();
    const page = {
      make: () => {
        const id = ++reqid;
        listening.add(id);
        return Promise.resolve(`https://cs.example/callback?vscode-reqid=${id}&vscode-scheme=code-oss&vscode-authority=${YOKE_EXTENSION_ID}&vscode-path=%2Fmcp-oauth`);
      },
      /** The browser: follows the authorization URL; the redirect reaches the page, which answers only a callback it still listens for. */
      browser: async (req: McpAuthorizeRequest) => {
        const to = new URL((await fetch(req.url, { redirect: "manual" })).headers.get("location") ?? "");
        const id = Number(to.searchParams.get("vscode-reqid"));
        page.used.push(id);
        if (!listening.delete(id)) throw new Error(`the page no longer listens for vscode-reqid=${id}: the answer is lost`);
        expect(pending.deliver(to.search.slice(1))).toBe("delivered");
      },
      used: [] as number[],
    };
    return page;
  }

  /** The host's receiver in a web window (src/host/mcp-oauth.ts): each connection holds a callback of the batch. */
  function batchReceiver(uris: ReturnType<typeof redirectUriBatch>, pending: PendingRedirects): McpRedirectReceiver {
    return { redirectUri: async () => (await uris.all())[0]!, redirectUris: () => uris.all(), hold: () => uris.take(), wait: (s, sig, ms) => pending.wait(s, sig, ms) };
  }

  async function signIn(srv: OAuthMcpServer, store: FileCredentialStore, receiver: McpRedirectReceiver, browser: (req: McpAuthorizeRequest) => Promise<void>) {
    const config: McpServerConfig = {
      name: "secure",
      source: "user-settings",
      sourcePath: "test",
      workspace: false,
      startAtSessionStart: false,
      transport: "http",
      url: srv.url,
      headers: {},
      fallbackToSse: false,
    };
    const hub = new NodeMcpHub({ cwd: dir, storageDir: join(dir, "store3"), home: dir, servers: [config], trusted: true, oauth: { store, authorize: browser, receiver } });
    try {
      expect((await hub.login("secure")).state).toBe("running");
      const r = await hub.call("secure", "whoami", {}, { signal: new AbortController().signal, timeoutMs: 10_000 });
      return JSON.stringify(r.content);
    } finally {
      await hub.dispose();
    }
  }

  it("a second and third sign-in in the same page, and one after a reload, keep the client registered at the first: the registration endpoint is hit once", async () => {
    const srv = await startOAuthMcpServer();
    try {
      const pending = new PendingRedirects();
      const store = new FileCredentialStore(join(dir, "web.json"));
      const page = webPage(pending);
      const receiver = batchReceiver(redirectUriBatch(page.make), pending);
      expect(await signIn(srv, store, receiver, page.browser)).toContain("protected answer for client-1");
      // The user revokes Yoke's access (or the tokens are lost): signing in again, in the same page.
      for (let i = 0; i < 2; i++) {
        srv.revokeAll();
        expect(await signIn(srv, store, receiver, page.browser)).toContain("protected answer for client-1");
      }
      // Each sign-in came back through a callback of its own, all registered with the one client.
      expect(page.used).toEqual([1, 2, 3]);
      const registrations = srv.events.filter((e) => e.startsWith("register"));
      expect(registrations).toHaveLength(1);
      const registered = registrations[0]!.split(" ")[2]!.split(",");
      // The page's eight callbacks, and the loopback listener's (a local window sharing the store).
      expect(registered.map((u) => new URL(u).searchParams.get("vscode-reqid"))).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", null]);
      expect(registered.at(-1)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      expect(srv.events.filter((e) => e.startsWith("authorize"))).toEqual(["authorize client-1", "authorize client-1", "authorize client-1"]);

      // The page reloaded: it counts from 1 again, the batch is the registered one, the client is kept.
      srv.revokeAll();
      const reloaded = webPage(pending);
      const receiver2 = batchReceiver(redirectUriBatch(reloaded.make), pending);
      expect(await signIn(srv, store, receiver2, reloaded.browser)).toContain("protected answer for client-1");
      expect(reloaded.used).toEqual([1]);
      expect(srv.events.filter((e) => e.startsWith("register"))).toHaveLength(1);
    } finally {
      await srv.close();
    }
  }, 120_000);

  it("(the cause) one callback URI at a time, as before: the second sign-in in the page has a URI the client does not know, and registers a new client", async () => {
    const srv = await startOAuthMcpServer();
    try {
      const pending = new PendingRedirects();
      const store = new FileCredentialStore(join(dir, "web-one.json"));
      const page = webPage(pending);
      const receiver = batchReceiver(redirectUriBatch(page.make, 1), pending);
      expect(await signIn(srv, store, receiver, page.browser)).toContain("client-1");
      srv.revokeAll();
      expect(await signIn(srv, store, receiver, page.browser)).toContain("client-2");
      expect(srv.events.filter((e) => e.startsWith("register"))).toHaveLength(2);
    } finally {
      await srv.close();
    }
  }, 120_000);

  /** Two real OAuth-protected servers in one hub (one page), signing in at the same moment. */
  async function signInTogether(receiver: McpRedirectReceiver, store: FileCredentialStore, browser: (req: McpAuthorizeRequest) => Promise<void>) {
    const servers = [await startOAuthMcpServer(), await startOAuthMcpServer()];
    const config = (name: string, url: string): McpServerConfig => ({
      name,
      source: "user-settings",
      sourcePath: "test",
      workspace: false,
      startAtSessionStart: false,
      transport: "http",
      url,
      headers: {},
      fallbackToSse: false,
    });
    // The browser answers only once both pages are open: both sign-ins wait at the same time.
    const shown: McpAuthorizeRequest[] = [];
    let bothShown!: () => void;
    const together = new Promise<void>((r) => (bothShown = r));
    const authorize = async (req: McpAuthorizeRequest) => {
      shown.push(req);
      if (shown.length === 2) bothShown();
      await together;
      await browser(req);
    };
    const hub = new NodeMcpHub({
      cwd: dir,
      storageDir: join(dir, "store-together"),
      home: dir,
      servers: [config("a", servers[0]!.url), config("b", servers[1]!.url)],
      trusted: true,
      oauth: { store, authorize, receiver },
    });
    try {
      const results = await Promise.allSettled([hub.login("a"), hub.login("b")]);
      const answers = await Promise.all(
        ["a", "b"].map(async (name, i) =>
          results[i]!.status === "fulfilled" ? JSON.stringify((await hub.call(name, "whoami", {}, { signal: new AbortController().signal, timeoutMs: 10_000 })).content) : "",
        ),
      );
      return { results, answers, shown, servers };
    } finally {
      await hub.dispose();
      for (const srv of servers) await srv.close();
    }
  }

  it("two servers signing in at the same moment in one page each hold a callback of their own: both answers arrive, both servers run", async () => {
    const pending = new PendingRedirects();
    const page = webPage(pending);
    const { results, answers, shown, servers } = await signInTogether(batchReceiver(redirectUriBatch(page.make), pending), new FileCredentialStore(join(dir, "together.json")), page.browser);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    for (const a of answers) expect(a).toContain("protected answer for client-1");
    // Two different callbacks went to the browser, each answered once.
    const sent = shown.map((r) => new URL(new URL(r.url).searchParams.get("redirect_uri")!).searchParams.get("vscode-reqid"));
    expect(new Set(sent).size).toBe(2);
    expect([...page.used].sort()).toEqual([1, 2]);
    expect(pending.size).toBe(0);
    // Each server registered once, with the page's batch.
    for (const srv of servers) expect(srv.events.filter((e) => e.startsWith("register"))).toHaveLength(1);
  }, 120_000);

  it("(the cause) one current callback for every connection, as before: the two sign-ins share it and the second answer is lost", async () => {
    const pending = new PendingRedirects();
    const page = webPage(pending);
    const uris = redirectUriBatch(page.make);
    // No hold: every connection gets the batch's first callback until an answer spends it.
    const shared: McpRedirectReceiver = { redirectUri: async () => (await uris.all())[0]!, redirectUris: () => uris.all(), wait: (s, sig, ms) => pending.wait(s, sig, ms) };
    const { results, shown } = await signInTogether(shared, new FileCredentialStore(join(dir, "together-old.json")), page.browser);
    const sent = shown.map((r) => new URL(r.url).searchParams.get("redirect_uri"));
    expect(sent[0]).toBe(sent[1]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const failed = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(String(failed.reason)).toContain("the page no longer listens for vscode-reqid=1");
  }, 120_000);
});

describe("one registration for a local and a remote window (one secret storage: VS Code keeps a remote window's secrets on the local machine)", () => {
  const config = (url: string): McpServerConfig => ({
    name: "secure",
    source: "user-settings",
    sourcePath: "test",
    workspace: false,
    startAtSessionStart: false,
    transport: "http",
    url,
    headers: {},
    fallbackToSse: false,
  });
  // A desktop window's receiver: the extension link as written (no windowId), as src/host/mcp-oauth.ts makes it.
  const desktop = (): McpRedirectReceiver => {
    const uris = redirectUriBatch(() => Promise.resolve(LINK));
    return { redirectUri: () => Promise.resolve(LINK), hold: () => uris.take(), wait: (s, sig, ms) => oauthRedirects().wait(s, sig, ms) };
  };
  const loopbackBrowser = async (req: McpAuthorizeRequest) => void (await fetch(req.url));
  const linkBrowser = async (req: McpAuthorizeRequest) => {
    const to = new URL((await fetch(req.url, { redirect: "manual" })).headers.get("location") ?? "");
    expect(`${to.protocol}//${to.host}${to.pathname}`).toBe(LINK);
    expect(oauthRedirects().deliver(to.search.slice(1))).toBe("delivered");
  };
  async function window(srv: OAuthMcpServer, store: FileCredentialStore, remote: boolean) {
    const hub = new NodeMcpHub({
      cwd: dir,
      storageDir: join(dir, "store-shared"),
      home: dir,
      servers: [config(srv.url)],
      trusted: true,
      oauth: { store, authorize: remote ? linkBrowser : loopbackBrowser, alsoRegister: [LINK], ...(remote ? { receiver: desktop() } : {}) },
    });
    try {
      expect((await hub.login("secure")).state).toBe("running");
      return JSON.stringify((await hub.call("secure", "whoami", {}, { signal: new AbortController().signal, timeoutMs: 10_000 })).content);
    } finally {
      await hub.dispose();
    }
  }

  it("registered once with both ways back; signing in again from the other window (revoked each time) keeps that client", async () => {
    const srv = await startOAuthMcpServer();
    const store = new FileCredentialStore(join(dir, "one-client.json"));
    try {
      expect(await window(srv, store, false)).toContain("client-1");
      const registrations = () => srv.events.filter((e) => e.startsWith("register"));
      expect(registrations()).toEqual([expect.stringMatching(new RegExp(`^register client-1 http://127\\.0\\.0\\.1:\\d+/callback,${LINK.replace(/[.]/g, "\\.")}$`))]);
      for (const remote of [true, false, true]) {
        srv.revokeAll();
        expect(await window(srv, store, remote)).toContain("protected answer for client-1");
      }
      expect(registrations()).toHaveLength(1);
      expect(srv.events.filter((e) => e.startsWith("authorize"))).toEqual(Array(4).fill("authorize client-1"));
    } finally {
      await srv.close();
    }
  }, 120_000);

  it("the host's way in (createNodeMcp's oauth.alsoRegister, as src/host/mcp.ts passes it) registers the link too", async () => {
    const srv = await startOAuthMcpServer();
    const settings = join(dir, "host-settings.json");
    writeFileSync(settings, JSON.stringify({ mcpServers: { secure: { type: "http", url: srv.url } } }));
    const mcp = createNodeMcp({
      cwd: dir,
      home: dir,
      storageDir: join(dir, "store-host"),
      trusted: true,
      extraSettings: [settings],
      oauth: { store: new FileCredentialStore(join(dir, "host.json")), authorize: loopbackBrowser, alsoRegister: [LINK] },
    });
    try {
      expect((await mcp.hub.login("secure")).state).toBe("running");
      expect(srv.events.filter((e) => e.startsWith("register"))).toEqual([
        expect.stringMatching(new RegExp(`^register client-1 http://127\\.0\\.0\\.1:\\d+/callback,${LINK.replace(/[.]/g, "\\.")}$`)),
      ]);
    } finally {
      await mcp.dispose();
      await srv.close();
    }
  }, 60_000);

  it.each(["invalid_client_metadata", "invalid_redirect_uri"] as const)(
    "an authorization server that refuses the link (http redirect URIs only, %s) registers for the window alone, and the sign-in still works",
    async (refusalCode) => {
      const srv = await startOAuthMcpServer({ acceptsRedirect: (u) => u.startsWith("http://127.0.0.1:"), refusalCode });
      const store = new FileCredentialStore(join(dir, `strict-${refusalCode}.json`));
      try {
        expect(await window(srv, store, false)).toContain("protected answer for client-1");
        expect(srv.events.filter((e) => e.startsWith("re"))).toEqual([expect.stringMatching(/^refuse vscode:/), expect.stringMatching(/^register client-1 http:\/\/127\.0\.0\.1:\d+\/callback$/)]);
      } finally {
        await srv.close();
      }
    },
    60_000,
  );
});
