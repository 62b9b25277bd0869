/**
 * Workspace path safety: pure POSIX path handling (no node:path in the core) and the single
 * check every tool runs before touching a file.
 */
import type { WorkspaceFolder, WorkspaceFs } from "./ports";
import { ToolError } from "./tools/types";

const DRIVE = /^[A-Za-z]:(\/|$)/;

/** True for `/x` and Windows drive paths such as `C:/x`. */
export function isAbsolutePath(p: string): boolean {
  return p.startsWith("/") || DRIVE.test(p);
}

/** Something normalizePath would change: a `\`, `//`, a `.` or `..` part, a drive. */
const NOT_NORMAL = /\\|\/\/|(?:^|\/)\.\.?(?:\/|$)|^[A-Za-z]:(?:\/|$)/;

/** Collapses `//`, `.` and `..`; keeps a leading `/` (or drive); never ends with `/` except the root. */
export function normalizePath(p: string): string {
  // Most paths are normal already (this runs several times per file the guidance loader reads): as they are.
  if (p !== "" && (p === "/" || !p.endsWith("/")) && !NOT_NORMAL.test(p)) return p;
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

const realRoots = new WeakMap<WorkspaceFs, Map<string, Promise<string>>>();

function realRoot(fs: WorkspaceFs, root: string): Promise<string> {
  let byRoot = realRoots.get(fs);
  if (!byRoot) realRoots.set(fs, (byRoot = new Map()));
  let p = byRoot.get(root);
  if (!p) {
    p = fs.realPath(root).then((r) => normalizePath(r ?? root));
    byRoot.set(root, p);
  }
  return p;
}

/** The folders of the workspace, first (primary) first; one folder named after its root when the fs has no list. */
export function workspaceFolders(fs: WorkspaceFs): readonly WorkspaceFolder[] {
  if (fs.folders && fs.folders.length > 0) return fs.folders;
  return [{ name: baseName(fs.root), root: normalizePath(fs.root) }];
}

/** Several folders: relative paths start with a folder's name. */
export function isMultiRoot(fs: WorkspaceFs): boolean {
  return (fs.folders?.length ?? 0) > 1;
}

/** The folder holding `abs`, or undefined. */
export function folderOf(fs: WorkspaceFs, abs: string): WorkspaceFolder | undefined {
  return workspaceFolders(fs).find((f) => isInside(normalizePath(f.root), abs));
}

/**
 * How a path is shown to the model and the user: relative to the workspace root, or, in a
 * multi-root workspace, `folder/relative` ("." for the whole workspace). Paths outside stay absolute.
 */
export function displayPath(fs: WorkspaceFs, abs: string): string {
  const folder = folderOf(fs, abs);
  if (!folder) return abs;
  const rel = relativePath(normalizePath(folder.root), abs);
  if (!isMultiRoot(fs)) return rel;
  return rel === "." ? folder.name : `${folder.name}/${rel}`;
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

function howMulti(fs: WorkspaceFs): string {
  const names = workspaceFolders(fs).map((f) => `"${f.name}/…"`);
  return `This workspace has several folders: start a relative path with the folder's name (${names.join(", ")}), or give an absolute path inside one of them.`;
}

/**
 * A path as a file tool reads the text the model gave: trimmed, `\` as `/`. The permission gate
 * applies the same function to file tools' paths, so it checks exactly the path the tool opens.
 */
export function toolPathText(userPath: string): string {
  const given = userPath.trim();
  return given === "" ? "." : given.replace(/\\/g, "/");
}

/** Where the model gave the workspace itself ("." or the empty path). */
export const WORKSPACE = ".";

/** The folders a search of `abs` covers: every folder for the whole multi-root workspace, else `abs`. */
export function searchRoots(fs: WorkspaceFs, abs: string, rel: string): string[] {
  return rel === WORKSPACE && isMultiRoot(fs) ? workspaceFolders(fs).map((f) => normalizePath(f.root)) : [abs];
}

/**
 * Resolves a path the model gave (relative to the workspace root — in a multi-root workspace,
 * starting with a folder's name — or absolute inside a folder) to a normalised absolute path and
 * its display form. The input is trimmed and `\` read as `/` — the one canonical form, which the
 * loop computes before the permission engine and hooks see the call. Throws a model-facing
 * ToolError when the path is empty-ish, uses `~`, or lies outside the workspace, also when a
 * symlink on the way leads outside. In a multi-root workspace "." is the workspace as a whole:
 * `abs` is then the first folder's root and `rel` is ".".
 */
export async function resolveWorkspacePath(fs: WorkspaceFs, userPath: string): Promise<{ abs: string; rel: string }> {
  const { abs, rel } = await resolveChecked(fs, userPath);
  return { abs, rel };
}

/** resolveWorkspacePath, with the real location it checked (`canonical`: that location under the folder's root as configured). */
async function resolveChecked(fs: WorkspaceFs, userPath: string): Promise<{ abs: string; rel: string; canonical: string }> {
  const root = normalizePath(fs.root);
  const given = userPath.trim();
  const multi = isMultiRoot(fs);
  const how = multi ? howMulti(fs) : HOW;
  if (given.includes("\0")) throw new ToolError(`The path ${JSON.stringify(given)} contains a NUL character. ${how}`);
  if (given === "~" || given.startsWith("~/") || given.startsWith("~\\")) {
    throw new ToolError(`The path "${given}" starts with "~", which is not expanded here (home folders are outside the workspace). ` + `${multi ? "" : `The workspace root is ${root}. `}${how}`);
  }
  const p = toolPathText(given);
  if (multi && normalizePath(p) === ".") return { abs: root, rel: WORKSPACE, canonical: root };
  const abs = isAbsolutePath(p) ? normalizePath(p) : multi ? await inFolder(fs, p, given) : joinPath(root, p);
  const folder = folderOf(fs, abs);
  if (!folder) {
    const where = multi
      ? `the workspace folders are ${workspaceFolders(fs)
          .map((f) => f.root)
          .join(", ")}`
      : `the workspace root is ${root}`;
    throw new ToolError(`The path "${given}" is outside the workspace (it resolves to ${abs}; ${where}). Only files inside the workspace can be used. ${how}`);
  }
  const folderRoot = normalizePath(folder.root);
  const realRootPath = await realRoot(fs, folderRoot);
  const real = await realLocation(fs, abs);
  const rootText = multi ? `the folder ${folder.name} is ${folderRoot}` : `the workspace root is ${folderRoot}`;
  if (real === undefined) {
    throw new ToolError(`The path "${given}" goes through a symbolic link whose target does not exist, so where it leads cannot be checked ` + `(${rootText}). Use a path without that link.`);
  }
  if (!isInside(realRootPath, real) && !isInside(folderRoot, real)) {
    throw new ToolError(
      `The path "${given}" is inside the workspace but a symbolic link on the way leads outside it ` +
        `(it resolves to ${real}; ${rootText}). Files outside the workspace cannot be used; ` +
        `pick a file whose real location is inside the workspace.`,
    );
  }
  const canonical = isInside(realRootPath, real) ? joinPath(folderRoot, relativePath(realRootPath, real)) : real;
  return { abs, rel: displayPath(fs, abs), canonical };
}

/**
 * The path the file tools act on: `resolveWorkspacePath`'s, with every symbolic link below the
 * workspace folder's root resolved (a link inside the workspace is used as the path of its
 * target). Computed once, before the permission check (ToolRegistry.prepare): the gate checks
 * this path, and the tools open it without following links (WorkspaceFs.readChecked and
 * writeChecked), so a link swapped in after the check is refused rather than followed.
 */
export async function canonicalWorkspacePath(fs: WorkspaceFs, userPath: string): Promise<{ abs: string; rel: string }> {
  const { abs, rel, canonical } = await resolveChecked(fs, userPath);
  return canonical === abs ? { abs, rel } : { abs: canonical, rel: displayPath(fs, canonical) };
}

/**
 * A relative path in a multi-root workspace: `folder/rest`; without a folder name, the one folder
 * where it exists (never a guess between several, nor for a path that exists nowhere).
 */
async function inFolder(fs: WorkspaceFs, p: string, given: string): Promise<string> {
  const norm = normalizePath(p);
  const [first, ...rest] = norm.split("/");
  const folders = workspaceFolders(fs);
  if (first === "..") return joinPath(normalizePath(fs.root), norm);
  const named = folders.filter((f) => f.name === first);
  if (named.length === 1) return joinPath(normalizePath(named[0]!.root), ...rest);
  if (named.length > 1) throw new ToolError(`The path "${given}" is ambiguous: several workspace folders are named "${first}". Give an absolute path.`);
  const existing: string[] = [];
  for (const f of folders) {
    const candidate = joinPath(normalizePath(f.root), norm);
    if (isInside(normalizePath(f.root), candidate) && (await fs.stat(candidate))) existing.push(candidate);
  }
  if (existing.length === 1) return existing[0]!;
  if (existing.length > 1) {
    throw new ToolError(`The path "${given}" exists in several workspace folders (${existing.map((e) => displayPath(fs, e)).join(", ")}). ${howMulti(fs)}`);
  }
  throw new ToolError(`The path "${given}" does not start with a workspace folder's name and exists in none of them. ${howMulti(fs)}`);
}
