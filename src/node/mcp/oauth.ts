/**
 * OAuth 2.1 for remote MCP servers (the MCP authorization spec), with the SDK's client auth doing
 * the protocol: discovery of the protected-resource and authorization-server metadata, dynamic
 * client registration, PKCE, the code exchange and refresh (`auth()` in
 * @modelcontextprotocol/sdk/client/auth.js, called by its HTTP transports on a 401). What is
 * Yoke's own, here: where the registration and tokens are kept (a credential store: VS Code's
 * SecretStorage in the host, a 0600 file in the CLI), the loopback listener on 127.0.0.1 that
 * receives the browser's redirect (RFC 8252), and asking the user to open the URL.
 *
 * Nothing here writes a token to a log or a message: the store holds them, the SDK's transport
 * sends them to the server, and errors name the server, never the token.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname } from "node:path";
import { z } from "zod";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpOAuthPreset } from "../../core/mcp/config";
import { loadMcpSdk } from "./load-sdk";
import { readRedirectAnswer, type McpRedirectReceiver, type RedirectLease } from "./oauth-redirect";

/** Where a server's OAuth registration and tokens are kept, as one JSON text per key. */
export interface McpCredentialStore {
  /** What this store is, for messages ("~/.yoke/mcp-oauth.json", "VS Code's secret storage"). */
  readonly where: string;
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Asks the user to open an authorization URL (the CLI prints it; VS Code asks, then opens the browser). */
export interface McpAuthorizeRequest {
  server: string;
  /** The authorization server's URL to open: it carries no secret (a PKCE challenge, a state). */
  url: string;
  signal: AbortSignal;
}

export interface McpOAuthOptions {
  store: McpCredentialStore;
  /**
   * Shows the authorization URL to the user (resolves once shown, or rejects when the user
   * refuses). Undefined: no one to ask (headless): a server that needs signing in fails with how to do it.
   */
  authorize?(req: McpAuthorizeRequest): Promise<void>;
  /**
   * Asks for a pre-registered client's secret (VS Code: a password box) the first time it signs in
   * with none kept: a string is kept in the store ("" for a public client: not asked again),
   * undefined goes on without one. Undefined (the CLI): `yoke mcp login NAME --client-secret`.
   */
  askClientSecret?(req: { server: string; clientId: string }): Promise<string | undefined>;
  /** What to tell a headless run about signing in to this server. */
  howToSignIn?(server: string): string;
  /** How long the user has to finish in the browser (default 5 minutes). */
  timeoutMs?: number;
  /**
   * Where the browser's answer comes back, other than the loopback listener: VS Code's URI handler
   * in a remote window (src/node/mcp/oauth-redirect.ts). Undefined: the loopback listener.
   */
  receiver?: McpRedirectReceiver;
  /**
   * The ways back of the user's other windows that share this store, registered with the client
   * too (besides this window's and the loopback listener's): VS Code keeps a remote window's
   * secrets on the local machine, so a local and a Remote-SSH window read one record, and a client
   * registered with both their redirect URIs serves both (see McpOAuthProvider.clientMetadata).
   */
  alsoRegister?: readonly string[];
}

/**
 * What is kept per server URL. The tokens and the registration are validated again on read with
 * loose schemas (the SDK validates what it receives from the server; a store edited by hand or
 * from an older Yoke is dropped rather than sent).
 */
const storedRecordSchema = () =>
  z.object({
    client: z
      .object({ client_id: z.string().min(1) })
      .passthrough()
      .optional(),
    tokens: z
      .object({ access_token: z.string().min(1), token_type: z.string() })
      .passthrough()
      .optional(),
    discovery: z.object({ authorizationServerUrl: z.string() }).passthrough().optional(),
    /** The loopback port the client was registered with (reused so a strict server's exact redirect check holds). */
    port: z.number().int().positive().optional(),
    /** `discovery` came from this `oauth.authServerMetadataUrl` (not from discovery). */
    metadataUrl: z.string().optional(),
    savedAt: z.string().optional(),
  });
type StoredRecord = z.infer<ReturnType<typeof storedRecordSchema>>;
// Built on the first read of a store, not when the module loads (every `yoke run` loads it before
// its first request and most never read a store: docs/benchmarks.md, "Session 20: start20").
let storedRecord: ReturnType<typeof storedRecordSchema> | undefined;

/** The key of a server's credentials: its URL without the fragment (tokens are per resource). */
export function credentialKey(url: string): string {
  const u = new URL(url);
  u.hash = "";
  return u.href;
}

/**
 * The key of a server's record when its definition names the authorization server
 * (`oauth.authServerMetadataUrl`): the server's key with that URL. Tokens and a client secret are
 * so bound to the authorization server they were given for: a definition of the same server URL
 * that names another metadata URL (a repository's `.mcp.json` beside your own server) gets a record
 * of its own — your refresh token and client secret are never sent to its token endpoint.
 */
export function recordKey(url: string, authServerMetadataUrl?: string): string {
  return authServerMetadataUrl ? `${credentialKey(url)}#as=${authServerMetadataUrl}` : credentialKey(url);
}

/**
 * The key a pre-registered client's secret is kept under, beside the server's record (so dropping
 * the tokens or a registration never drops it): the record's key with `#client_secret`.
 */
export function clientSecretKey(key: string): string {
  return `${key}#client_secret`;
}

/**
 * The CLI's store: one JSON file (default ~/.yoke/mcp-oauth.json) readable by you alone (mode
 * 0600, set on every write, in a folder created 0700), written whole through a temporary file.
 */
export class FileCredentialStore implements McpCredentialStore {
  constructor(private readonly file: string) {}
  get where(): string {
    return this.file;
  }
  private read(): Record<string, string> {
    try {
      const v = JSON.parse(readFileSync(this.file, "utf8")) as unknown;
      return z.record(z.string(), z.string()).catch({}).parse(v);
    } catch {
      return {};
    }
  }
  private write(all: Record<string, string>): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(tmp, JSON.stringify(all, null, 1), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
  }
  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.read()[key]);
  }
  set(key: string, value: string): Promise<void> {
    this.write({ ...this.read(), [key]: value });
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    const all = this.read();
    if (key in all) {
      delete all[key];
      this.write(all);
    }
    return Promise.resolve();
  }
}

/** A free loopback port, to put in the redirect URL before the listener is needed. */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolvePort(port));
    });
  });
}

/**
 * One server's OAuth client for the SDK's transports. `load()` first (reads the store, picks the
 * redirect port). When the SDK decides the user must sign in, it calls redirectToAuthorization:
 * the URL is kept (`pending`) and the transport fails with UnauthorizedError; the hub then calls
 * `waitForCode()` (the loopback listener) while the user is shown the URL, and hands the code to
 * the transport's finishAuth.
 */
export class McpOAuthProvider implements OAuthClientProvider {
  private record: StoredRecord = {};
  private verifier: string | undefined;
  private expectedState: string | undefined;
  private port = 0;
  /** The receiver that serves this server (undefined: the loopback listener). */
  private via: McpRedirectReceiver | undefined;
  /** The redirect URI given by the receiver (undefined: the loopback listener's). */
  private redirect: string | undefined;
  /** The redirect URIs a new client is registered with (the receiver's batch; undefined: the current one alone). */
  private registerUris: string[] | undefined;
  /** The redirect URI this connection holds (a web page's one-shot callback), until it knows whether it signs in. */
  private lease: RedirectLease | undefined;
  /** The authorization server refused a client registered with more redirect URIs than this window's: only this window's from now on. */
  narrow = false;
  /** The last registration asked for more redirect URIs than this window's own. */
  widened = false;
  /**
   * The SDK found no usable client and is registering one (set when clientInformation() gives
   * none, cleared when the registration is saved): an error while it is set is the registration's.
   */
  registering = false;
  /** The authorization URL the SDK asked to open (undefined: no sign-in pending). */
  pending: URL | undefined;
  /** Tokens were kept when this connection began (a new sign-in means they were refused). */
  hadTokens = false;

  constructor(
    readonly server: string,
    private readonly serverUrl: string,
    private readonly store: McpCredentialStore,
    private readonly receiver?: McpRedirectReceiver,
    private readonly alsoRegister: readonly string[] = [],
    /** The definition's `oauth` (Claude Code's): a pre-registered client, a fixed port, the metadata URL, the scopes. */
    private readonly preset: McpOAuthPreset = {},
  ) {}

  /** A pre-registered client's secret, read from the store at load (never from a file, never logged). */
  private secret: string | undefined;

  private get key(): string {
    return recordKey(this.serverUrl, this.preset.authServerMetadataUrl);
  }

  async load(): Promise<void> {
    const text = await this.store.get(this.key).catch(() => undefined);
    let parsed: StoredRecord = {};
    if (text) {
      try {
        parsed = (storedRecord ??= storedRecordSchema()).catch({}).parse(JSON.parse(text));
      } catch {
        parsed = {};
      }
    }
    this.record = parsed;
    this.hadTokens = !!parsed.tokens;
    this.secret = this.preset.clientId ? ((await this.store.get(clientSecretKey(this.key)).catch(() => undefined)) ?? undefined) : undefined;
    if (this.preset.authServerMetadataUrl && parsed.metadataUrl !== this.preset.authServerMetadataUrl) await this.readMetadata(this.preset.authServerMetadataUrl);
    this.via = this.receiver && (this.receiver.appliesTo?.(this.serverUrl) ?? true) ? this.receiver : undefined;
    this.settleRedirect(false);
    this.registering = false;
    // The loopback port is chosen (and kept) in every window: the loopback redirect URI is registered in a remote window too.
    // A definition's `callbackPort` is the one registered with the authorization server beforehand.
    this.port = this.preset.callbackPort ?? parsed.port ?? (this.port || (await freePort()));
    if (this.via?.hold) {
      this.lease = await this.via.hold();
      this.redirect = this.lease.uri;
      this.registerUris = this.lease.batch;
    } else if (this.via) {
      this.redirect = await this.via.redirectUri();
      this.registerUris = await this.via.redirectUris?.();
    }
  }

  /**
   * This connection is done with the redirect URI it holds: `spent` when its sign-in's page was
   * opened (the browser may answer through it), else it is free for another connection.
   */
  settleRedirect(spent: boolean): void {
    if (spent) this.lease?.spend();
    else this.lease?.release();
    this.lease = undefined;
  }

  private async save(change: Partial<StoredRecord>): Promise<void> {
    this.record = { ...this.record, ...change, ...(this.port ? { port: this.port } : {}), savedAt: new Date().toISOString() };
    await this.store.set(this.key, JSON.stringify(this.record));
  }

  /**
   * The loopback redirect URI: `http://127.0.0.1:<port>/callback`, or with a definition's
   * `callbackPort`, `http://localhost:<port>/callback` — the form Claude Code documents, so the URI
   * registered for it with the authorization server is the one sent.
   */
  private get loopbackUrl(): string {
    return `http://${this.preset.callbackPort ? "localhost" : "127.0.0.1"}:${this.port}/callback`;
  }

  get redirectUrl(): string {
    return this.redirect ?? this.loopbackUrl;
  }

  /**
   * `oauth.authServerMetadataUrl`: the authorization server's metadata read from that URL (RFC 8414
   * or OpenID discovery, checked with the SDK's schemas) and given to the SDK as the discovery's
   * result, so it skips its own discovery. Kept with the record, read again when the URL changes.
   */
  private async readMetadata(url: string): Promise<void> {
    const { OAuthMetadataSchema, OpenIdProviderDiscoveryMetadataSchema } = await loadMcpSdk();
    let body: unknown;
    try {
      const r = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      body = await r.json();
    } catch (err) {
      throw new Error(`could not read the authorization server's metadata at ${url} (oauth.authServerMetadataUrl): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const parsed = OAuthMetadataSchema.safeParse(body);
    const metadata = parsed.success ? parsed.data : OpenIdProviderDiscoveryMetadataSchema.safeParse(body).data;
    if (!metadata) throw new Error(`${url} (oauth.authServerMetadataUrl) is not an authorization server's metadata (RFC 8414 or OpenID discovery)`);
    const discovery = { authorizationServerUrl: metadata.issuer, authorizationServerMetadata: metadata } as unknown as StoredRecord["discovery"];
    this.record = { ...this.record, discovery, metadataUrl: url };
  }

  /**
   * A new client is registered with this window's redirect URIs (a web page's batch) and, unless
   * the authorization server refused that before (`narrow`), those of the user's other windows
   * sharing the store: the loopback listener's (a local window, the port kept in the record) and
   * `alsoRegister` (a desktop window's extension link). A local and a remote window then share one
   * registration and its tokens: switching between them signs in with the client already there.
   */
  get clientMetadata(): OAuthClientMetadata {
    const own = this.registerUris?.includes(this.redirectUrl) ? this.registerUris : [this.redirectUrl];
    const all = this.narrow ? own : [...new Set([...own, this.loopbackUrl, ...this.alsoRegister])];
    this.widened = all.length > own.length;
    return {
      client_name: "Yoke",
      redirect_uris: all,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      // A public client (a native app): PKCE, no secret.
      token_endpoint_auth_method: "none",
      ...(this.preset.scopes ? { scope: this.preset.scopes } : {}),
    };
  }

  /** A pre-registered client whose secret (or that it has none) was never given. */
  get secretUnknown(): boolean {
    return !!this.preset.clientId && this.secret === undefined;
  }

  /** The definition names a client registered beforehand (no dynamic registration). */
  get preRegistered(): boolean {
    return !!this.preset.clientId;
  }

  state(): string {
    this.expectedState = randomBytes(16).toString("base64url");
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    // A pre-registered client (`oauth.clientId`), with its secret from the store when it has one:
    // the SDK then authenticates at the token endpoint (client_secret_basic/post, as the server's
    // metadata says) and never registers.
    if (this.preset.clientId) {
      this.registering = false;
      return { client_id: this.preset.clientId, ...(this.secret ? { client_secret: this.secret } : {}) };
    }
    const client = this.record.client as (OAuthClientInformationMixed & { redirect_uris?: unknown }) | undefined;
    // A client registered without this window's redirect URI would be refused it: registered anew
    // — except while a refresh token of that client is kept: the SDK refreshes before it asks for
    // a sign-in, and a refresh needs no redirect URI, so the sign-in carries over. A refused
    // refresh forgets the tokens (the SDK's invalidateCredentials("tokens")), and the next attempt
    // registers anew. A local and a remote desktop window each find their own among a client's
    // redirect URIs (clientMetadata registers both), so this happens only for a client registered
    // before that, by a web window, or where the authorization server allowed one URI (`narrow`).
    const tokens = this.record.tokens as OAuthTokens | undefined;
    const usable = client && Array.isArray(client.redirect_uris) && !client.redirect_uris.includes(this.redirectUrl) && !tokens?.refresh_token ? undefined : client;
    this.registering = !usable;
    return usable;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    this.registering = false;
    // A pre-registered client is the definition's (the SDK stamps it with its issuer): nothing to keep, and its secret stays where it is.
    if (this.preset.clientId) return;
    await this.save({ client: info as StoredRecord["client"] });
  }

  tokens(): OAuthTokens | undefined {
    return this.record.tokens as OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.save({ tokens: tokens as StoredRecord["tokens"] });
  }

  redirectToAuthorization(url: URL): void {
    // `oauth.scopes` are asked for instead of what the server advertises (Claude Code: they take precedence).
    if (this.preset.scopes) url.searchParams.set("scope", this.preset.scopes);
    this.pending = url;
  }

  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no sign-in was started in this process (no PKCE verifier)");
    return this.verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.record.discovery as OAuthDiscoveryState | undefined;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.save({ discovery: state as StoredRecord["discovery"] });
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") {
      this.verifier = undefined;
      return;
    }
    const next: StoredRecord = { ...this.record };
    if (scope === "all" || scope === "client") delete next.client;
    if (scope === "all" || scope === "tokens") delete next.tokens;
    if (scope === "all" || scope === "discovery") {
      delete next.discovery;
      delete next.metadataUrl;
    }
    this.record = next;
    await this.store.set(this.key, JSON.stringify({ ...next, ...(this.port ? { port: this.port } : {}) }));
  }

  /** Forgets everything kept for this server (`yoke mcp logout`), a pre-registered client's secret included. */
  async forget(): Promise<void> {
    this.record = {};
    this.secret = undefined;
    await this.store.delete(this.key);
    await this.store.delete(clientSecretKey(this.key));
  }

  /** Keeps a pre-registered client's secret in the store (`yoke mcp login NAME --client-secret`). */
  async saveClientSecret(secret: string): Promise<void> {
    this.secret = secret;
    await this.store.set(clientSecretKey(this.key), secret);
  }

  /**
   * Listens on the redirect URL's port for the browser's answer; resolves once listening, with
   * the code to come (or an error, or the time running out). The browser gets a short page.
   */
  async listen(signal: AbortSignal, timeoutMs: number): Promise<{ code: Promise<string> }> {
    if (this.via) {
      const state = this.expectedState;
      if (!state) throw new Error("no sign-in was started in this process (no state)");
      return { code: this.via.wait(state, signal, timeoutMs) };
    }
    let settle!: { resolve: (code: string) => void; reject: (e: Error) => void };
    const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", this.redirectUrl);
      const page = (status: number, text: string) => res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end(text);
      if (url.pathname !== "/callback") return page(404, "not found");
      const q = readRedirectAnswer(url.searchParams);
      if (q.kind === "invalid") return page(400, "Yoke: this is not an authorization answer.");
      if (this.expectedState !== undefined && q.state !== this.expectedState) return page(400, "Yoke: the answer's state does not match this sign-in; ignored.");
      if (q.kind === "error") {
        page(200, `Yoke: the sign-in to the MCP server ${this.server} failed (${q.error}). You can close this tab.`);
        settle.reject(new Error(`the authorization server answered ${q.error}${q.description ? ` (${q.description})` : ""}`));
      } else {
        page(200, `Yoke: signed in to the MCP server ${this.server}. You can close this tab.`);
        settle.resolve(q.code);
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", (e) => reject(new Error(`could not listen on ${this.redirectUrl} for the browser's answer: ${e.message}`)));
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    const timer = setTimeout(() => settle.reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    const onAbort = () => settle.reject(new Error("the sign-in was cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    void code
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        server.closeIdleConnections();
        server.close();
      });
    return { code };
  }
}
