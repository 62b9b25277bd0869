// An MCP OAuth sign-in as a remote VS Code window makes it (src/node/mcp/oauth-redirect.ts): the
// redirect URI is the extension's link (vscode://yoke-dev.yoke/mcp-oauth), not a listener on
// 127.0.0.1, and the answer comes through the URI handler's set of waiting sign-ins. Against the
// real authorization server of mcp-oauth.test.ts (the SDK's mcpAuthRouter: dynamic registration
// of that redirect URI, PKCE, the code exchange). The test plays the browser and VS Code: it
// follows the authorization URL, and hands the redirect's query to the URI handler's code
// (PendingRedirects.deliver), as VS Code does when the OS opens the vscode:// link.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeMcpHub } from "../../src/node/mcp/hub";
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
      expect(server.events).toContain(`register client-1 ${LINK}`);
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
      expect(srv.events).toContain(`register client-2 ${LINK}`);
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
      const uris = redirectUriBatch(page.make, pending);
      const receiver: McpRedirectReceiver = { redirectUri: () => uris.current(), redirectUris: () => uris.all(), wait: (s, sig, ms) => pending.wait(s, sig, ms) };
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
      expect(registered.map((u) => new URL(u).searchParams.get("vscode-reqid"))).toEqual(["1", "2", "3", "4", "5", "6", "7", "8"]);
      expect(srv.events.filter((e) => e.startsWith("authorize"))).toEqual(["authorize client-1", "authorize client-1", "authorize client-1"]);

      // The page reloaded: it counts from 1 again, the batch is the registered one, the client is kept.
      srv.revokeAll();
      const reloaded = webPage(pending);
      const again = redirectUriBatch(reloaded.make, pending);
      const receiver2: McpRedirectReceiver = { redirectUri: () => again.current(), redirectUris: () => again.all(), wait: (s, sig, ms) => pending.wait(s, sig, ms) };
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
      const one = redirectUriBatch(page.make, pending, 1);
      const receiver: McpRedirectReceiver = { redirectUri: () => one.current(), redirectUris: () => one.all(), wait: (s, sig, ms) => pending.wait(s, sig, ms) };
      expect(await signIn(srv, store, receiver, page.browser)).toContain("client-1");
      srv.revokeAll();
      expect(await signIn(srv, store, receiver, page.browser)).toContain("client-2");
      expect(srv.events.filter((e) => e.startsWith("register"))).toHaveLength(2);
    } finally {
      await srv.close();
    }
  }, 120_000);
});
