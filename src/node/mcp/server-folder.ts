/**
 * The folder a stdio MCP server starts in.
 *
 * Package runners resolve what they run from their working folder: `npx -y PKG` (no version or an
 * exact one), `npm exec`, `pnpm exec`, `yarn exec` and `bunx` run `node_modules/.bin/BIN` of the
 * nearest package root when a package of that name is installed there; `npx PKG@latest` and
 * `pnpm dlx` fetch from the registry a project `.npmrc` names; `deno run npm:PKG` follows the
 * import map of a `deno.json` above it; `python -m NAME` puts the folder first on `sys.path`. A
 * sandboxed command (or an `npm install` of a planted package.json) writes those files in the
 * workspace; a server the person defined for every project would then run them on the host,
 * outside the sandbox, with the person's environment (red team K, session 19).
 *
 * So one rule, no table of runners: a server defined **outside the workspace** (your own files:
 * `~/.yoke/settings.json`, `~/.claude.json`, VS Code's user `mcp.json`, plugins, `--settings`) with
 * no `cwd` of its own starts in your home folder — as VS Code starts the servers of its user
 * `mcp.json` — and nothing it resolves from its folder comes from the workspace. Where the home
 * folder is a workspace folder or inside one (the home opened as the workspace) — or inside any other
 * folder the agent can write: `permissions.additionalDirectories`, the sandbox settings' `rw` paths
 * (setup.ts) — or is no folder, it starts at the file system's root instead. `${workspaceFolder}` in its `args` still names the
 * workspace, and its MCP roots still list it. A definition that wants the workspace as its folder says so
 * (`"cwd": "${workspaceFolder}"`, or a relative `cwd`, which is relative to the workspace).
 * A server the workspace defined (approved by you) keeps the workspace, as before.
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, parse, relative, resolve, sep } from "node:path";
import type { McpStdioServer } from "../../core/mcp/config";

/** `path` with links resolved where it exists (else as given, made absolute). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Is `child` equal to or inside `parent` (absolute paths)? */
function within(child: string, parent: string): boolean {
  const r = relative(parent, child);
  return r === "" || (r !== ".." && !r.startsWith(`..${sep}`) && !isAbsolute(r));
}

/**
 * The folder a server the person defined starts in when its definition names none: the home folder,
 * unless a workspace folder is the home or holds it (then the root of the home's file system).
 */
export function neutralServerFolder(home: string, workspaceFolders: readonly string[]): string {
  const h = real(home);
  const inWorkspace = workspaceFolders.some((w) => within(h, real(w)) || within(resolve(home), resolve(w)));
  // A home that is no folder (HOME unset or gone in a container) cannot be started in: the root, not a failed spawn.
  return inWorkspace || !isFolder(h) ? parse(h).root : h;
}

/**
 * Where a stdio server starts: its own `cwd` (relative to the workspace), else the workspace for a
 * server the workspace defined, else `neutralServerFolder`.
 */
export function stdioServerFolder(c: Pick<McpStdioServer, "cwd" | "workspace">, workspace: string, home: string, workspaceFolders: readonly string[]): string {
  if (c.cwd) return isAbsolute(c.cwd) ? c.cwd : resolve(workspace, c.cwd);
  if (c.workspace) return workspace;
  return neutralServerFolder(home, [workspace, ...workspaceFolders]);
}
