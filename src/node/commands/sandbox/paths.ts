/** Path helpers shared by the sandbox backends. */
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import type { SandboxPath, SandboxPolicy } from "./types";

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
  return {
    workspace: real(policy.workspace),
    home,
    paths: (policy.paths ?? []).map((p) => ({ path: real(expandHome(p.path, home)), mode: p.mode })),
  };
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
