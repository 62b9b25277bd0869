/**
 * MCP OAuth in a terminal: a remote server that needs a sign-in has its authorization URL printed
 * on stderr (Yoke does not start a browser itself); the browser's answer comes back to Yoke's
 * listener on 127.0.0.1. Without a terminal there is no one to show it to: `yoke run` then fails
 * that server with how to sign in (`yoke mcp login NAME`).
 */
import type { McpAuthorizeRequest } from "../node/mcp/oauth";
import { terminalStdin } from "./terminal";

export function printSignIn(req: McpAuthorizeRequest, output: NodeJS.WritableStream = process.stderr): Promise<void> {
  output.write(`\n? The MCP server "${req.server}" needs you to sign in (OAuth). Open this URL in your browser; Yoke waits for its answer on 127.0.0.1:\n  ${req.url}\n`);
  return Promise.resolve();
}

/** The terminal's sign-in, or undefined when stdin is not a terminal (headless). */
export function createTerminalSignIn(
  input: NodeJS.ReadStream | undefined = terminalStdin(),
  output: NodeJS.WritableStream = process.stderr,
): ((req: McpAuthorizeRequest) => Promise<void>) | undefined {
  if (!input?.isTTY) return undefined;
  return (req) => printSignIn(req, output);
}
