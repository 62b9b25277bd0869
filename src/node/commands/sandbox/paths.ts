/** Path helpers shared by the sandbox backends. */
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import type { SandboxPath, SandboxPolicy } from "./types";
import { registerAgentWritable } from "../../host-programs";

/** The real path when it exists, else the path resolved. */
export function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

export function expandHome(p: string, home: string): string {
  if (p === "~") return home;
  return p.startsWith("~/") ? join(home, p.slice(2)) : p;
}

export interface ResolvedPolicy {
  workspace: string;
  home: string;
  paths: SandboxPath[];
}

export function resolvePolicy(policy: SandboxPolicy): ResolvedPolicy {
  const home = real(policy.home ?? homedir());
  const resolved: ResolvedPolicy = {
    workspace: real(policy.workspace),
    home,
    paths: resolvePaths(policy.paths, home),
  };
  // Yoke's own host programs are never looked up in folders the agent can write (host-programs.ts).
  registerAgentWritable(resolved.workspace);
  for (const p of resolved.paths) if (p.mode === "rw") registerAgentWritable(p.path);
  return resolved;
}

function resolvePaths(paths: readonly SandboxPath[] | undefined, home: string): SandboxPath[] {
  return (paths ?? []).map((p) => ({ path: real(expandHome(p.path, home)), mode: p.mode }));
}

/**
 * The folders the sandbox settings make writable for commands besides the workspace (their `rw`
 * paths, resolved as the sandbox resolves them): what else decides where nothing of the agent's
 * may be picked up on the host (the person's MCP servers' start folder, src/node/mcp/setup.ts).
 */
export function sandboxWritablePaths(paths: readonly SandboxPath[] | undefined, home: string = homedir()): string[] {
  return resolvePaths(paths, real(home))
    .filter((p) => p.mode === "rw")
    .map((p) => p.path);
}

/** Is `child` equal to or inside `parent`? */
export function isWithin(child: string, parent: string): boolean {
  if (parent === "/") return true;
  return child === parent || child.startsWith(parent + "/");
}

/** The absolute path of an executable found on PATH, or undefined. */
export function which(name: string, path = process.env.PATH ?? ""): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, name);
    if (existsSync(full)) return full;
  }
  return undefined;
}

/** Folders under home where language toolchains live; exposed read-only when PATH points into them. */
const TOOLCHAIN_DIRS = [
  ".nvm",
  ".pyenv",
  ".rbenv",
  ".cargo",
  ".rustup",
  ".volta",
  ".bun",
  ".deno",
  ".sdkman",
  ".asdf",
  ".fnm",
  ".jenv",
  ".local/bin",
  ".local/share/pnpm",
  ".npm-global",
  ".yarn/bin",
  ".dotnet",
  ".ghcup",
  ".elan",
  "go",
  ".go",
  ".nix-profile",
];

/**
 * Read-only exceptions for the PATH folders under the hidden home (nvm, pyenv, cargo...), so
 * that the user's toolchains still run in the sandbox. A PATH folder inside a known toolchain
 * folder exposes that whole folder (the shims need their versions); any other, just itself.
 */
export function toolchainPaths(home: string, pathVar: string): SandboxPath[] {
  const out = new Set<string>();
  const realHome = real(home);
  for (const entry of pathVar.split(delimiter)) {
    if (!entry || (!isWithin(resolve(entry), home) && !isWithin(real(entry), realHome))) continue;
    const dir = real(entry);
    if (!existsSync(dir) || dir === realHome) continue;
    const known = TOOLCHAIN_DIRS.map((d) => join(realHome, d)).find((root) => isWithin(dir, root));
    out.add(known ?? dir);
    // rustup's proxies in ~/.cargo/bin need ~/.rustup.
    if (known === join(realHome, ".cargo") && existsSync(join(realHome, ".rustup"))) out.add(join(realHome, ".rustup"));
  }
  return [...out].map((path) => ({ path, mode: "ro" as const }));
}
