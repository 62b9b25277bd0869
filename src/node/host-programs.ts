/**
 * The programs Yoke itself runs on the host (git for its checks, bash for the descriptor-closing
 * step before the sandbox, bwrap, firejail, docker, ps, rg), found on PATH without the folders the
 * agent can write.
 *
 * A PATH that names a workspace folder is ordinary (direnv's `PATH_add bin`, `./node_modules/.bin`,
 * a relative entry). Found by name there, a `bash` or `git` the agent wrote into that folder ran on
 * the host, outside every sandbox: the close step's `bash` before each command, the new-repository
 * check's `git config` (red team 22-gate, checked by outcome: the planted program wrote a file from
 * the host's mount namespace). Here an entry that is empty or relative, or lies inside a folder a
 * sandbox policy makes writable (registered by resolvePolicy), is skipped, and a program is looked
 * up again after such a folder is registered. The folder this process started in counts from the
 * start (the CLI's workspace; settings are read with git before any sandbox exists), unless it is `/`.
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

const writableFolders = new Set<string>();
const found = new Map<string, string | undefined>();

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function within(child: string, parent: string): boolean {
  return parent === "/" || child === parent || child.startsWith(`${parent}/`);
}

/** A folder the agent's commands can write (a sandbox policy's workspace and writable paths): never searched for host programs. */
export function registerAgentWritable(folder: string): void {
  const r = real(folder);
  if (r === "/") return;
  if (writableFolders.has(r)) return;
  writableFolders.add(r);
  found.clear();
}

registerAgentWritable(startFolder());

function startFolder(): string {
  try {
    return process.cwd();
  } catch {
    return "/";
  }
}

/** May Yoke run programs found in PATH entry `dir` on the host? */
export function trustedSearchDir(dir: string): boolean {
  if (!dir || !isAbsolute(dir)) return false;
  const r = real(dir);
  for (const w of writableFolders) if (within(r, w) || within(dir, w)) return false;
  return true;
}

/** The PATH entries Yoke searches for its own host programs. */
export function hostSearchDirs(path = process.env.PATH ?? ""): string[] {
  return path.split(delimiter).filter(trustedSearchDir);
}

function executableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path of host program `name` (on the trusted PATH entries), or undefined. */
export function findHostProgram(name: string): string | undefined {
  if (found.has(name)) return found.get(name);
  let hit: string | undefined;
  for (const dir of hostSearchDirs()) {
    const full = join(dir, name);
    if (executableFile(full)) {
      hit = full;
      break;
    }
  }
  found.set(name, hit);
  return hit;
}

/**
 * `name` (a bare program name) on `path`'s trusted entries, uncached: for programs the user's own
 * configuration names (an MCP server's `npx`), which would otherwise be found in a workspace folder
 * on PATH first — a `bin/npx` the agent wrote ran on the host when the user's MCP server started
 * (red team 22-gate). Undefined when no trusted entry holds it.
 */
export function findOnTrustedPath(name: string, path: string): string | undefined {
  for (const dir of hostSearchDirs(path)) {
    const full = join(dir, name);
    if (executableFile(full)) return full;
  }
  return undefined;
}

/** What to spawn for host program `name`: its absolute path, or a path that does not exist (never a PATH lookup). */
export function hostProgram(name: string): string {
  return findHostProgram(name) ?? join("/nonexistent-host-program", name);
}
