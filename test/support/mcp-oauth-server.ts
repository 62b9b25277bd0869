/**
 * A real OAuth-protected MCP server for tests, on 127.0.0.1, made of the SDK's own server pieces:
 * `mcpAuthRouter` (authorization-server metadata, protected-resource metadata, dynamic client
 * registration, /authorize, /token with PKCE checks, /revoke) and `requireBearerAuth` in front of
 * a streamable HTTP MCP endpoint (stateless). The OAuth provider below is this test's own: an
 * in-memory store that approves every authorization at once (the "user" clicks Allow), issues
 * opaque random tokens with a configurable lifetime, rotates refresh tokens, and can revoke all.
 */
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { CustomOAuthError, InvalidClientMetadataError, InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { AuthorizationParams, OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

// Express is the SDK's own dependency (its auth router is an Express router); this project has no
// @types/express, so the little used here is typed here.
type Req = IncomingMessage & { body?: unknown; auth?: AuthInfo };
type Res = ServerResponse & { status(code: number): Res; redirect(status: number, url: string): void };
type Handler = (req: Req, res: Res, next: () => void) => void;
interface ExpressApp {
  use(h: unknown): void;
  all(path: string, ...h: Handler[]): void;
  post(path: string, ...h: unknown[]): void;
  get(path: string, ...h: unknown[]): void;
  delete(path: string, ...h: unknown[]): void;
  listen(port: number, host: string, cb: () => void): Server;
}
type ExpressModule = (() => ExpressApp) & { json(): Handler };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express = require("express") as ExpressModule;

interface Issued {
  clientId: string;
  expiresAt: number;
  resource?: string;
}

export interface OAuthMcpServer {
  /** The MCP endpoint (…/mcp). */
  url: string;
  /** What happened, in order: registrations, authorizations, code exchanges, refreshes, tool calls (with the client). */
  events: string[];
  /** Every Authorization header the MCP endpoint received. */
  bearers: string[];
  /** Access tokens issued (so tests can look for them where they must not be). */
  accessTokens: string[];
  refreshTokens: string[];
  /** Lifetime of the access tokens issued from now on, in seconds. */
  /** Every access token issued so far expires now (refresh tokens stay valid). */
  expireAll(): void;
  /** Forgets every token issued (access and refresh): the user revoked Yoke's access. */
  revokeAll(): void;
  close(): Promise<void>;
}

const secret = () => randomBytes(24).toString("base64url");

/**
 * `transport: "sse"`: the older HTTP+SSE transport behind the same bearer check (GET /sse is the
 * event stream, POST /messages?sessionId=… the client's messages); the URL is then …/sse.
 */
/**
 * `host`: the address to listen on (default 127.0.0.1). Another loopback address (127.0.0.2) is a
 * host VS Code does not port-map (as a real authorization server); the SDK's router accepts an
 * http issuer there only with MCP_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL=1 set before it loads.
 */
/**
 * `acceptsRedirect`: a strict authorization server's rule for the redirect URIs a client may
 * register (default: any); a registration with one it refuses is answered `refusalCode`
 * (default invalid_client_metadata; RFC 7591 also has invalid_redirect_uri).
 */
/**
 * `preRegistered`: clients registered beforehand (a developer portal's): the server then has **no
 * registration endpoint** (none in its metadata), and an authorization request must name one of a
 * client's redirect URIs exactly (the SDK's router lets a loopback URI's port vary).
 */
export async function startOAuthMcpServer(
  o: {
    transport?: "streamable" | "sse";
    host?: string;
    acceptsRedirect?: (uri: string) => boolean;
    refusalCode?: "invalid_client_metadata" | "invalid_redirect_uri";
    preRegistered?: OAuthClientInformationFull[];
  } = {},
): Promise<OAuthMcpServer> {
  const events: string[] = [];
  const bearers: string[] = [];
  const accessTokens: string[] = [];
  const refreshTokens: string[] = [];
  const lifetime = 3600;
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  const access = new Map<string, Issued>();
  const refresh = new Map<string, { clientId: string; resource?: string }>();

  for (const c of o.preRegistered ?? []) clients.set(c.client_id, c);
  const registering: OAuthRegisteredClientsStore = {
    getClient: (id) => clients.get(id),
    registerClient: (c) => {
      const refused = c.redirect_uris.filter((u) => o.acceptsRedirect && !o.acceptsRedirect(u));
      if (refused.length) {
        events.push(`refuse ${refused.join(",")}`);
        const why = `redirect URI not allowed: ${refused.join(", ")}`;
        throw o.refusalCode === "invalid_redirect_uri" ? new CustomOAuthError("invalid_redirect_uri", why) : new InvalidClientMetadataError(why);
      }
      const full = { ...c, client_id: `client-${clients.size + 1}`, client_id_issued_at: Math.floor(Date.now() / 1000) } as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      events.push(`register ${full.client_id} ${full.redirect_uris.join(",")}`);
      return full;
    },
  };
  // Without registerClient the SDK's router serves no /register and advertises no registration_endpoint.
  const clientsStore: OAuthRegisteredClientsStore = o.preRegistered ? { getClient: (id) => clients.get(id) } : registering;

  const issue = (clientId: string, resource?: string): OAuthTokens => {
    const a = secret();
    const r = secret();
    access.set(a, { clientId, expiresAt: Math.floor(Date.now() / 1000) + lifetime, ...(resource ? { resource } : {}) });
    refresh.set(r, { clientId, ...(resource ? { resource } : {}) });
    accessTokens.push(a);
    refreshTokens.push(r);
    return { access_token: a, token_type: "Bearer", expires_in: lifetime, refresh_token: r };
  };

  const provider: OAuthServerProvider = {
    get clientsStore() {
      return clientsStore;
    },
    async authorize(client, params, res) {
      if (o.preRegistered && !client.redirect_uris.includes(params.redirectUri)) {
        events.push(`refuse redirect ${params.redirectUri}`);
        return void res.status(400).end(`redirect_uri ${params.redirectUri} is not registered for ${client.client_id}`);
      }
      if (o.preRegistered) events.push(`scope ${params.scopes?.join(" ") ?? ""}`);
      // The user approves at once: back to the client's redirect URI with a code.
      const code = secret();
      codes.set(code, { clientId: client.client_id, params });
      events.push(`authorize ${client.client_id}`);
      const to = new URL(params.redirectUri);
      to.searchParams.set("code", code);
      if (params.state !== undefined) to.searchParams.set("state", params.state);
      res.redirect(302, to.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const c = codes.get(code);
      if (!c) throw new InvalidGrantError("unknown authorization code");
      return c.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, redirectUri) {
      const c = codes.get(code);
      if (!c || c.clientId !== client.client_id) throw new InvalidGrantError("unknown authorization code");
      if (redirectUri !== undefined && redirectUri !== c.params.redirectUri) throw new InvalidGrantError("redirect_uri differs from the authorization request's");
      codes.delete(code);
      events.push(`exchange ${client.client_id}`);
      return issue(client.client_id, c.params.resource?.href);
    },
    async exchangeRefreshToken(client, token) {
      const r = refresh.get(token);
      if (!r || r.clientId !== client.client_id) throw new InvalidGrantError("refresh token unknown or revoked");
      refresh.delete(token); // rotated
      events.push(`refresh ${client.client_id}`);
      return issue(client.client_id, r.resource);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const t = access.get(token);
      if (!t) throw new InvalidTokenError("unknown or revoked token");
      return { token, clientId: t.clientId, scopes: [], expiresAt: t.expiresAt, ...(t.resource ? { resource: new URL(t.resource) } : {}) };
    },
  };

  const app = express();
  const http: Server = await new Promise((resolve) => {
    const s = app.listen(0, o.host ?? "127.0.0.1", () => resolve(s));
  });
  const base = `http://${o.host ?? "127.0.0.1"}:${(http.address() as AddressInfo).port}`;
  const sse = o.transport === "sse";
  const mcpUrl = new URL(sse ? `${base}/sse` : `${base}/mcp`);
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl, resourceName: "Yoke OAuth test server" }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  const record = (req: Req, _res: Res, next: () => void) => {
    bearers.push(req.headers.authorization ?? "");
    next();
  };
  const build = (clientId: string) => {
    const server = new McpServer({ name: "oauth-protected", version: "1.0.0" });
    server.registerTool("whoami", { description: "Says which OAuth client called", inputSchema: { note: z.string().optional() } }, async () => {
      events.push(`call whoami ${clientId}`);
      return { content: [{ type: "text", text: `protected answer for ${clientId}` }] };
    });
    return server;
  };
  const streams = new Map<string, SSEServerTransport>();
  if (sse) {
    app.all("/sse", record);
    app.all("/messages", record);
    app.get("/sse", bearer, async (req: Req, res: Res) => {
      const transport = new SSEServerTransport("/messages", res);
      streams.set(transport.sessionId, transport);
      const server = build(req.auth?.clientId ?? "?");
      res.on("close", () => {
        streams.delete(transport.sessionId);
        void server.close();
      });
      await server.connect(transport);
    });
    app.post("/messages", bearer, express.json(), async (req: Req, res: Res) => {
      const id = new URL(req.url ?? "/", base).searchParams.get("sessionId") ?? "";
      const transport = streams.get(id);
      if (!transport) return void res.status(404).end("unknown session");
      await transport.handlePostMessage(req, res, req.body);
    });
  }
  app.all("/mcp", record);
  app.post("/mcp", bearer, express.json(), async (req: Req, res: Res) => {
    const server = build(req.auth?.clientId ?? "?");
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get("/mcp", bearer, (_req: Req, res: Res) => void res.status(405).end());
  app.delete("/mcp", bearer, (_req: Req, res: Res) => void res.status(405).end());

  return {
    url: mcpUrl.href,
    events,
    bearers,
    accessTokens,
    refreshTokens,
    expireAll: () => {
      for (const t of access.values()) t.expiresAt = Math.floor(Date.now() / 1000) - 10;
      events.push("expire all");
    },
    revokeAll: () => {
      access.clear();
      refresh.clear();
      events.push("revoke all");
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
