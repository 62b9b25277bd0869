/**
 * MCP OAuth in VS Code: a remote server's registration and tokens are kept in VS Code's secret
 * storage (the OS keychain through VS Code), and a sign-in is asked with a notification whose
 * "Open" opens the authorization URL in the browser (never without the click). The browser's
 * answer comes back to the hub's listener on 127.0.0.1 (src/node/mcp/oauth.ts).
 */
import * as vscode from "vscode";
import type { McpAuthorizeRequest, McpCredentialStore } from "../node/mcp/oauth";

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
  if (!(await vscode.env.openExternal(vscode.Uri.parse(req.url, true)))) throw new Error("the browser could not be opened");
}
