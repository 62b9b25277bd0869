/**
 * The extension's URI handler (registered once, at activation: VS Code allows one per extension),
 * routed by path. `/mcp-oauth`: the browser's answer to an MCP OAuth sign-in started in a remote
 * window (src/node/mcp/oauth-redirect.ts); it is handed to the sign-in whose `state` it carries,
 * and an answer no sign-in in progress is waiting for is ignored (said in a warning).
 */
import * as vscode from "vscode";
import { OAUTH_URI_PATH, oauthRedirects } from "../node/mcp/oauth-redirect";
import { notify } from "./shown";

export function mcpOAuthUriHandler(log: vscode.LogOutputChannel): vscode.UriHandler {
  return {
    handleUri(uri: vscode.Uri): void {
      if (uri.path !== OAUTH_URI_PATH) {
        log.warn(`a vscode:// link for Yoke with an unknown path was ignored: ${uri.path}`);
        return;
      }
      const outcome = oauthRedirects().deliver(uri.query);
      // The query carries the one-time code: never logged.
      log.info(`MCP sign-in answer through the URI handler: ${outcome}`);
      if (outcome === "unknown-state") void notify("warning", "Yoke: a sign-in answer arrived that no MCP sign-in in progress is waiting for; it was ignored.");
      else if (outcome === "not-an-answer") void notify("warning", "Yoke: a sign-in link without an answer was ignored.");
    },
  };
}
