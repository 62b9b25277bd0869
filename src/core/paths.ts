/**
 * Workspace path safety: pure POSIX path handling (no node:path in the core) and the single
 * check every tool runs before touching a file.
 */
import type { WorkspaceFs } from "./ports";
import { ToolError } from "./tools/types";

const DRIVE = /^[A-Za-z]:(\/|$)/;

/** True for `/x` and Windows drive paths such as `C:/x`. */
export function isAbsolutePath(p: string): boolean {
  return p.startsWith("/") || DRIVE.test(p);
}

/** Collapses `//`, `.` and `..`; keeps a leading `/` (or drive); never ends with `/` except the root. */
export function normalizePath(p: string): string {
  const slashed = p.replace(/\\/g, "/");
  let prefix = "";
  let rest = slashed;
  const drive = DRIVE.exec(slashed);
  if (drive) {
    prefix = slashed.slice(0, 2).toUpperCase() + "/";
    rest = slashed.slice(2);
  } else if (slashed.startsWith("/")) {
    prefix = "/";
  }
  const out: string[] = [];
  for (const seg of rest.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!prefix) out.push("..");
      continue;
    }
    out.push(seg);
  }
  const body = out.join("/");
  if (prefix) return prefix + body;
  return body === "" ? "." : body;
}

export function joinPath(base: string, ...parts: string[]): string {
  return normalizePath([base, ...parts].join("/"));
}

export function dirName(p: string): string {
  const n = normalizePath(p);
  const i = n.lastIndexOf("/");
  if (i < 0) return ".";
  if (i === 0) return "/";
  if (i === 2 && DRIVE.test(n)) return n.slice(0, 3);
  return n.slice(0, i);
}

export function baseName(p: string): string {
  const n = normalizePath(p);
  return n.slice(n.lastIndexOf("/") + 1);
}

function comparable(p: string): string {
  return DRIVE.test(p) ? p[0]!.toUpperCase() + p.slice(1) : p;
}

/** Is `abs` the folder `root` or inside it? Both must be normalised absolute paths. */
export function isInside(root: string, abs: string): boolean {
  const r = comparable(root);
  const a = comparable(abs);
  if (a === r) return true;
  return a.startsWith(r.endsWith("/") ? r : r + "/");
}

/** `abs` relative to `root` ("." for the root itself); `abs` must be inside `root`. */
export function relativePath(root: string, abs: string): string {
  const r = comparable(root);
  const a = comparable(abs);
  if (a === r) return ".";
  return a.slice(r.endsWith("/") ? r.length : r.length + 1);
}

const realRoots = new WeakMap<WorkspaceFs, Promise<string>>();

function realRoot(fs: WorkspaceFs): Promise<string> {
  let p = realRoots.get(fs);
  if (!p) {
    p = fs.realPath(fs.root).then((r) => normalizePath(r ?? fs.root));
    realRoots.set(fs, p);
  }
  return p;
}

/**
 * The real location of `abs`: symlinks of its deepest existing ancestor resolved, the rest
 * appended. `undefined` when a symlink on the way is dangling (its target is unknown).
 */
async function realLocation(fs: WorkspaceFs, abs: string): Promise<string | undefined> {
  const tail: string[] = [];
  let cur = abs;
  for (;;) {
    const real = await fs.realPath(cur);
    if (real !== undefined) return joinPath(normalizePath(real), ...tail.reverse());
    if ((await fs.stat(cur))?.type === "symlink") return undefined;
    const parent = dirName(cur);
    if (parent === cur) return abs;
    tail.push(baseName(cur));
    cur = parent;
  }
}

const HOW = 'Use a path relative to the workspace root (for example "src/index.ts"), or an absolute path inside it.';

/**
 * Resolves a path the model gave (relative to the workspace root, or absolute inside it) to a
 * normalised absolute path. Throws a model-facing ToolError when the path is empty-ish, uses `~`,
 * or lies outside the workspace, also when a symlink on the way leads outside.
 */
export async function resolveWorkspacePath(fs: WorkspaceFs, userPath: string): Promise<{ abs: string; rel: string }> {
  const root = normalizePath(fs.root);
  const given = userPath.trim();
  if (given.includes("\0")) throw new ToolError(`The path ${JSON.stringify(given)} contains a NUL character. ${HOW}`);
  if (given === "~" || given.startsWith("~/") || given.startsWith("~\\")) {
    throw new ToolError(
      `The path "${given}" starts with "~", which is not expanded here (home folders are outside the workspace). ` +
        `The workspace root is ${root}. ${HOW}`,
    );
  }
  const p = given === "" ? "." : given.replace(/\\/g, "/");
  const abs = isAbsolutePath(p) ? normalizePath(p) : joinPath(root, p);
  if (!isInside(root, abs)) {
    throw new ToolError(
      `The path "${given}" is outside the workspace (it resolves to ${abs}; the workspace root is ${root}). ` +
        `Only files inside the workspace can be used. ${HOW}`,
    );
  }
  const realRootPath = await realRoot(fs);
  const real = await realLocation(fs, abs);
  if (real === undefined) {
    throw new ToolError(
      `The path "${given}" goes through a symbolic link whose target does not exist, so where it leads cannot be checked ` +
        `(the workspace root is ${root}). Use a path without that link.`,
    );
  }
  if (!isInside(realRootPath, real) && !isInside(root, real)) {
    throw new ToolError(
      `The path "${given}" is inside the workspace but a symbolic link on the way leads outside it ` +
        `(it resolves to ${real}; the workspace root is ${root}). Files outside the workspace cannot be used; ` +
        `pick a file whose real location is inside the workspace.`,
    );
  }
  return { abs, rel: relativePath(root, abs) };
}
