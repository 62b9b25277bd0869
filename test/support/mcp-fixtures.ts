/**
 * Fixtures of the MCP tests: the real stdio server from the npm registry
 * (@modelcontextprotocol/server-everything), an argv for it that finds its process again, and a
 * settings file that configures it with permission rules.
 */

/** server-everything's entry point (run it with `process.execPath … stdio`). */
export const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

/** The `--yoke-test=…` argument that makes a server's command line unique to this test (the server ignores it). */
export const uniqueTestArg = (tag: string): string => `--yoke-test=${tag}-${process.pid}-${Math.random().toString(36).slice(2)}`;

/** argv of a server-everything process unique to this test (pidsOf finds it again). */
export function everythingArgv(tag: string): string[] {
  return [process.execPath, EVERYTHING, "stdio", uniqueTestArg(tag)];
}

/** settings.json text: server-everything as "everything" with `argv`, and the permission rules. */
export function everythingSettings(argv: string[], allow: string[], deny: string[] = []): string {
  return JSON.stringify({ mcpServers: { everything: { command: argv[0], args: argv.slice(1) } }, permissions: { allow, deny } });
}
