/** Loads the MCP SDK on first use: its own bundle next to this one (dist/mcp-sdk.js), or the sources in tests. */
import { existsSync } from "node:fs";
import { join } from "node:path";

export type McpSdk = typeof import("./sdk");

let loaded: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loaded ??= (async () => {
    const bundled = join(__dirname, "mcp-sdk.js");
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    if (existsSync(bundled)) return require(bundled) as McpSdk;
    // From sources (tests): a computed specifier, so a bundler does not inline the SDK here.
    const source = "./sdk";
    return (await import(source)) as McpSdk;
  })();
  return loaded;
}
