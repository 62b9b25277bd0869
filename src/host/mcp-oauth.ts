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
  const choice = await vscode.window.showInformationMessage(`Yoke: the MCP server "${req.server}" needs you to sign in (OAuth) at ${host}. Open the sign-in page in your browser?`, "Open", "Not now");
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
 * `<uri scheme>://<extension id>/mcp-oauth` passed through `env.asExternalUri` (in VS Code for
 * the web it becomes the web page's own callback), and the answer comes to the URI handler
 * registered at activation (`mcpOAuthUriHandler`), which hands it to the waiting sign-in.
 */
export function uriHandlerReceiver(extensionId: string, o: { loopbackForMappedHosts: boolean }): McpRedirectReceiver {
  return {
    appliesTo: (serverUrl) => receiverAppliesTo({ web: o.loopbackForMappedHosts, serverUrl }),
    redirectUri: () => windowRedirectUris(extensionId).current(),
    redirectUris: () => windowRedirectUris(extensionId).all(),
    wait: (state, signal, timeoutMs) => oauthRedirects().wait(state, signal, timeoutMs),
  };
}

const windowUris = new Map<string, ReturnType<typeof redirectUriBatch>>();
/** The window's redirect URIs through the URI handler, a batch asked of VS Code at once and a new one only when all are spent (redirectUriBatch). */
function windowRedirectUris(extensionId: string): ReturnType<typeof redirectUriBatch> {
  let uris = windowUris.get(extensionId);
  if (!uris) {
    uris = redirectUriBatch(async () => {
      const own = vscode.Uri.parse(`${vscode.env.uriScheme}://${extensionId}${OAUTH_URI_PATH}`);
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
  return mode === "uriHandler" ? uriHandlerReceiver(extensionId, { loopbackForMappedHosts: web && setting !== "uriHandler" }) : undefined;
}
