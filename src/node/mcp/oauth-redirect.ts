/**
 * Where the browser's answer to an MCP OAuth sign-in comes back (RFC 8252 §7), and the check of
 * that answer. Two ways:
 * - **loopback** (the CLI, a local VS Code window): Yoke's own listener on 127.0.0.1 receives the
 *   redirect (src/node/mcp/oauth.ts). The browser and Yoke are on one machine.
 * - **URI handler** (a remote window: Remote-SSH, WSL, a dev container, Codespaces, or VS Code in
 *   a browser): the extension host runs on another machine than the browser, so a listener there
 *   is out of the browser's reach. The redirect goes to `vscode://<publisher>.<name>/mcp-oauth`
 *   (passed through `env.asExternalUri`), which VS Code hands to the extension's URI handler
 *   wherever the extension host runs; the handler gives the answer to the sign-in waiting for it.
 *
 * Plain code (no vscode, no SDK): the activation bundle's URI handler uses it too.
 */

/** An answer to a sign-in, as the authorization server sends it in the redirect's query (RFC 6749 §4.1.2). */
export type RedirectAnswer = { kind: "code"; code: string; state?: string } | { kind: "error"; error: string; description?: string; state?: string } | { kind: "invalid"; why: string };

/** Reads the redirect's query: a code or an error, with its state; anything else is not an answer. */
export function readRedirectAnswer(q: URLSearchParams): RedirectAnswer {
  const state = q.get("state") ?? undefined;
  const code = q.get("code");
  const error = q.get("error");
  if (code) return { kind: "code", code, ...(state !== undefined ? { state } : {}) };
  if (error) {
    const description = q.get("error_description") ?? undefined;
    return { kind: "error", error, ...(description ? { description } : {}), ...(state !== undefined ? { state } : {}) };
  }
  return { kind: "invalid", why: "this is not an authorization answer (no code, no error)" };
}

export type RedirectMode = "loopback" | "uriHandler";

/**
 * The way back for a VS Code window. `setting` is `yoke.mcp.oauthRedirect` ("auto", "loopback",
 * "uriHandler"); auto: the URI handler where the extension host is remote (`env.remoteName` set:
 * Remote-SSH, WSL, containers, Codespaces) or the window is a web page (code-server, vscode.dev:
 * the browser may be on any machine), else loopback. In a web window the URI handler's redirect
 * URI is the page's own callback (`…/callback?vscode-reqid=…&vscode-scheme=…`): see
 * `receiverAppliesTo` for the one case it cannot serve.
 */
export function chooseRedirect(o: { setting?: string; remoteName?: string; web: boolean }): RedirectMode {
  if (o.setting === "loopback" || o.setting === "uriHandler") return o.setting;
  return o.remoteName || o.web ? "uriHandler" : "loopback";
}

/**
 * The hosts VS Code's opener maps to a forwarded port (`localhost`, `127.0.0.1`, `0.0.0.0` with a
 * port: VS Code's `extractLocalHostUriMetaDataForPortMapping`). A URL to one of them is opened as
 * the *mapped* URI's decoded text (`encodeURI(uri.toString(true))`), not as written: an escaped
 * query inside a parameter (the web callback's redirect URI, `…%3Fvscode-reqid%3D1%26vscode-scheme…`)
 * comes out as bare `?`/`&`, and the authorization server refuses the cut redirect URI (seen in
 * code-server). Any other host's URL is opened as written.
 */
export function isPortMappedHost(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === "http:" || u.protocol === "https:") && !!u.port && ["localhost", "127.0.0.1", "0.0.0.0"].includes(u.hostname);
  } catch {
    return false;
  }
}

/**
 * Whether a web window's URI-handler way back can serve the server at `serverUrl`: not when the
 * server is on a port-mapped host (above) — its authorization URL would be opened decoded; the
 * loopback listener is used for it (a server on the extension host's own loopback is reachable
 * by a browser on that machine only, where the loopback way back works too). A redirect URI
 * without a query (`vscode://…/mcp-oauth` in a desktop window) survives the decoding, so outside
 * a web window the URI handler serves every server.
 */
export function receiverAppliesTo(o: { web: boolean; serverUrl: string }): boolean {
  return !(o.web && isPortMappedHost(o.serverUrl));
}

/** A way back other than the loopback listener (the host's URI handler). */
export interface McpRedirectReceiver {
  /** The redirect URI to send with the sign-in (and to register with the authorization server). */
  redirectUri(): Promise<string>;
  /**
   * Every redirect URI to register a client with (the current one among them): later sign-ins
   * whose URI is one of them keep the client. Absent: the current one alone.
   */
  redirectUris?(): Promise<string[]>;
  /**
   * Holds a redirect URI of its own for one connection (RedirectLease: a web page's callbacks are
   * one-shot, so sign-ins at the same moment must not share one). Absent: `redirectUri` serves all.
   */
  hold?(): Promise<RedirectLease>;
  /** The code of the sign-in with this state (rejects on an error answer, the time running out, or the abort). */
  wait(state: string, signal: AbortSignal, timeoutMs: number): Promise<string>;
  /** Whether this way back serves the server at this URL (absent: every server); when not, the loopback listener does. */
  appliesTo?(serverUrl: string): boolean;
}

/** This extension's id (`<publisher>.<name>` of package.json): the authority of its URI handler's links. */
export const YOKE_EXTENSION_ID = "yoke-dev.yoke";

/** The path of the URI handler's sign-in answers (`vscode://<extension id>/mcp-oauth`). */
export const OAUTH_URI_PATH = "/mcp-oauth";

/**
 * Sign-ins waiting for their answer through a URI the host receives, by their state: an answer is
 * handed only to the sign-in whose state it carries (a forged or stale link is ignored: RFC 6749
 * §10.12), once.
 */
export class PendingRedirects {
  private readonly waiting = new Map<string, { resolve(code: string): void; reject(e: Error): void }>();

  /** How many sign-ins wait. */
  get size(): number {
    return this.waiting.size;
  }

  wait(state: string, signal: AbortSignal, timeoutMs: number): Promise<string> {
    if (!state) return Promise.reject(new Error("a sign-in without a state cannot be answered through a URI"));
    return new Promise<string>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.waiting.delete(state);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const onAbort = () => {
        done();
        reject(new Error("the sign-in was cancelled"));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(state, {
        resolve: (code) => {
          done();
          resolve(code);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
    });
  }

  /**
   * An answer arrived (the URI's query). "delivered": the sign-in with its state has it;
   * "unknown-state": no sign-in in progress has that state (ignored); "not-an-answer".
   */
  deliver(query: string | URLSearchParams): "delivered" | "unknown-state" | "not-an-answer" {
    const a = readRedirectAnswer(typeof query === "string" ? new URLSearchParams(query) : query);
    if (a.kind === "invalid") return "not-an-answer";
    const w = a.state !== undefined ? this.waiting.get(a.state) : undefined;
    if (!w) return "unknown-state";
    if (a.kind === "code") w.resolve(a.code);
    else w.reject(new Error(`the authorization server answered ${a.error}${a.description ? ` (${a.description})` : ""}`));
    return "delivered";
  }
}

const KEY = Symbol.for("yoke.mcp.oauthRedirects");

/**
 * The window's one set of waiting sign-ins, shared by the URI handler (registered at activation,
 * in the activation bundle) and the sessions' hubs (in the session bundle): kept on globalThis
 * because the two bundles each have their own copy of this module.
 */
export function oauthRedirects(): PendingRedirects {
  const g = globalThis as { [KEY]?: PendingRedirects };
  return (g[KEY] ??= new PendingRedirects());
}

/** How many redirect URIs a web window asks for at once (a client is registered with all of them). */
export const REDIRECT_BATCH = 8;

/** One redirect URI held for one connection's sign-in (redirectUriBatch). */
export interface RedirectLease {
  uri: string;
  /** Every URI of the batch it is from: a client is registered with all of them. */
  batch: string[];
  /** The sign-in sent it to the browser: never handed out again (the page answers each URI once). */
  spend(): void;
  /** It was not sent (no sign-in was needed, or the user did not open the page): free for another connection. */
  release(): void;
}

/**
 * The redirect URIs of the URI handler's way back, asked of VS Code (`make`: `env.asExternalUri`).
 * In a web window each call gives a new one-shot callback (`…/callback?vscode-reqid=N…`, N counted
 * up by the page; the page listens for every one it gave until an answer came through it, then
 * forgets it). One URI, asked again after each answer, meant a new URI at every sign-in, and the
 * authorization server's registration (whose redirect URIs must match exactly) was made anew at
 * every sign-in of the page. So `size` URIs are asked at once and a client is registered with all
 * of them (`all`, `RedirectLease.batch`).
 *
 * Each connection holds a URI of its own (`take`) until it knows whether it signs in: two servers
 * signing in at the same moment in one page used to share the one current URI, and the second
 * answer came through a callback the page had already forgotten (lost). A held URI is spent when
 * its sign-in's page was opened (the browser may answer through it, once) and released otherwise;
 * only when every URI of the batch is spent or held is a new batch asked (and a new client
 * registered). A reloaded page counts from 1 again: its first batch is the registered one when
 * nothing else asked the page for a callback URI first. Where the URI does not change (a desktop
 * window's `vscode://…`), every URI of the batch is that one URI.
 */
export function redirectUriBatch(make: () => Promise<string>, size = REDIRECT_BATCH): { take(): Promise<RedirectLease>; all(): Promise<string[]> } {
  type Batch = { uris: Promise<string[]>; slots: Array<"free" | "held" | "spent"> };
  let batch: Batch | undefined;
  const fresh = (): Batch => {
    const uris = (async () => {
      const out: string[] = [];
      // One after the other: the page numbers them in order.
      for (let i = 0; i < size; i++) out.push(await make());
      return out;
    })();
    const b: Batch = { uris, slots: Array.from({ length: size }, () => "free" as const) };
    batch = b;
    // A failed ask is not kept.
    uris.catch(() => {
      if (batch === b) batch = undefined;
    });
    return b;
  };
  return {
    async take() {
      const b = batch && batch.slots.includes("free") ? batch : fresh();
      // Claimed before any await: two connections starting together never get the same one.
      const i = b.slots.indexOf("free");
      b.slots[i] = "held";
      const uris = await b.uris;
      return {
        uri: uris[i]!,
        batch: [...new Set(uris)],
        spend: () => void (b.slots[i] = "spent"),
        release: () => {
          if (b.slots[i] === "held") b.slots[i] = "free";
        },
      };
    },
    async all() {
      return [...new Set(await (batch ?? fresh()).uris)];
    },
  };
}
