/**
 * MCP OAuth in VS Code: a remote server's registration and tokens are kept in VS Code's secret
 * storage (the OS keychain through VS Code), and a sign-in is asked with a notification whose
 * "Open" opens the authorization URL in the browser (never without the click). The browser's
 * answer comes back to the hub's listener on 127.0.0.1 (src/node/mcp/oauth.ts) in a local window,
 * and to the extension's URI handler in a remote one (src/host/mcp-oauth-uri.ts).
 */
import * as vscode from "vscode";
import type { McpAuthorizeRequest, McpCredentialStore } from "../node/mcp/oauth";
import { yokeSetting } from "./settings";
import { chooseRedirect, OAUTH_URI_PATH, oauthRedirects, receiverAppliesTo, redirectUriBatch, type McpRedirectReceiver } from "../node/mcp/oauth-redirect";
import { notify } from "./shown";

const PREFIX = "yoke.mcp.oauth:";

export class SecretCredentialStore implements McpCredentialStore {
  readonly where = "VS Code's secret storage";
  constructor(private readonly secrets: vscode.SecretStorage) {}
  async get(key: string): Promise<string | undefined> {
    return this.secrets.get(PREFIX + key);
  }
  async set(key: string, value: string): Promise<void> {
    await this.secrets.store(PREFIX + key, value);
  }
  async delete(key: string): Promise<void> {
    await this.secrets.delete(PREFIX + key);
  }
}

/** Asks to open the sign-in page; resolves once the browser was opened, rejects when the user does not. */
export async function askToSignIn(req: McpAuthorizeRequest): Promise<void> {
  const host = new URL(req.url).host;
  const choice = await notify("info", `Yoke: the MCP server "${req.server}" needs you to sign in (OAuth) at ${host}. Open the sign-in page in your browser?`, "Open", "Not now");
  if (choice !== "Open") throw new Error("you did not open the sign-in page");
  if (!(await openExactly(req.url))) throw new Error("the browser could not be opened");
}

/**
 * Opens a URL in the browser as it is written. A vscode.Uri decodes the query's escapes, and its
 * text encodes again only some characters: an escaped `&` inside a parameter (the redirect URI
 * VS Code for the web gives, `…/callback?vscode-reqid=1&vscode-scheme=…`) came out as a bare `&`,
 * cutting the parameter short (the authorization server then refused the redirect URI).
 * openExternal takes the string itself too (the extension host keeps it as written), so the
 * string is passed; the Uri only where the string is refused.
 */
export async function openExactly(url: string): Promise<boolean> {
  const open = vscode.env.openExternal as unknown as (target: string | vscode.Uri) => Thenable<boolean>;
  try {
    return await open(url);
  } catch {
    return vscode.env.openExternal(vscode.Uri.parse(url, true));
  }
}

/**
 * The sign-in's way back in a remote window (src/node/mcp/oauth-redirect.ts): the redirect URI is
 * the extension's link `<uri scheme>://<extension id>/mcp-oauth`, and the answer comes to the URI
 * handler registered at activation (`mcpOAuthUriHandler`), which hands it to the waiting sign-in.
 * In VS Code for the web the link goes through `env.asExternalUri` and becomes the web page's own
 * one-shot callback (a batch of them, one held by each connection: redirectUriBatch). In a desktop
 * window it is used as written: `asExternalUri` would add `windowId=N`, a number of this window
 * alone, and a client registered with it would be of no use to the user's other windows (see
 * `alsoRegister`); without it VS Code hands the link to the last active window — the one whose
 * notification the user just clicked.
 */
export function uriHandlerReceiver(extensionId: string, o: { loopbackForMappedHosts: boolean; web: boolean }): McpRedirectReceiver {
  const uris = () => windowRedirectUris(extensionId, o.web);
  return {
    appliesTo: (serverUrl) => receiverAppliesTo({ web: o.loopbackForMappedHosts, serverUrl }),
    redirectUri: async () => (await uris().all())[0]!,
    redirectUris: () => uris().all(),
    hold: () => uris().take(),
    wait: (state, signal, timeoutMs) => oauthRedirects().wait(state, signal, timeoutMs),
  };
}

/** The extension's link for sign-in answers, as a desktop window registers it (no window id). */
export function extensionLink(extensionId: string): string {
  return `${vscode.env.uriScheme}://${extensionId}${OAUTH_URI_PATH}`;
}

const windowUris = new Map<string, ReturnType<typeof redirectUriBatch>>();
/** The window's redirect URIs through the URI handler, a batch asked of VS Code at once and a new one only when all are spent or held (redirectUriBatch). */
function windowRedirectUris(extensionId: string, web: boolean): ReturnType<typeof redirectUriBatch> {
  let uris = windowUris.get(extensionId);
  if (!uris) {
    uris = redirectUriBatch(async () => {
      if (!web) return extensionLink(extensionId);
      const own = vscode.Uri.parse(extensionLink(extensionId));
      return (await vscode.env.asExternalUri(own)).toString(true);
    });
    windowUris.set(extensionId, uris);
  }
  return uris;
}

/** The sign-in's way back for this window, by `yoke.mcp.oauthRedirect` (undefined: the loopback listener). */
export function windowReceiver(extensionId: string): McpRedirectReceiver | undefined {
  const web = vscode.env.uiKind === vscode.UIKind.Web;
  const setting = yokeSetting<string>("mcp.oauthRedirect").value;
  const mode = chooseRedirect({ setting, remoteName: vscode.env.remoteName, web });
  // `uriHandler` set by hand serves every server; `auto` leaves a web window's port-mapped servers to the loopback.
  return mode === "uriHandler" ? uriHandlerReceiver(extensionId, { loopbackForMappedHosts: web && setting !== "uriHandler", web }) : undefined;
}

/**
 * The redirect URIs of the user's other windows, registered with a client besides this window's
 * (McpOAuthOptions.alsoRegister): in a desktop window (local or remote) the extension link, so a
 * local window (loopback) and a Remote-SSH window (the link) share one registration and its tokens
 * (VS Code keeps both windows' secrets in one place, on the local machine). A web window's
 * secrets are its own: nothing more.
 */
export function sharedRedirects(extensionId: string): string[] {
  return vscode.env.uiKind === vscode.UIKind.Web ? [] : [extensionLink(extensionId)];
}
