/** POSIX path arithmetic for the core (which does not import node:path). */

/** Collapses `.`, `..` and repeated slashes of an absolute path. */
export function normalizeAbs(p: string): string {
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return "/" + out.join("/");
}

/** Absolute, normalised path of `p` taken relative to `base`, with `~` meaning `home`. */
export function resolveFrom(base: string, p: string, home: string): string {
  if (p === "~") return normalizeAbs(home);
  if (p.startsWith("~/")) return normalizeAbs(home + "/" + p.slice(2));
  if (p.startsWith("/")) return normalizeAbs(p);
  return normalizeAbs(base + "/" + p);
}

/** Is `p` equal to `dir` or below it? Both absolute and normalised. */
export function isWithin(p: string, dir: string): boolean {
  if (dir === "/") return true;
  return p === dir || p.startsWith(dir + "/");
}

/** `p` relative to `dir` (no leading `./`), or undefined when `p` is not within `dir`. */
export function relativeTo(p: string, dir: string): string | undefined {
  if (!isWithin(p, dir)) return undefined;
  if (dir === "/") return p.slice(1);
  return p === dir ? "" : p.slice(dir.length + 1);
}

export function dirnameOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

export function basenameOf(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

/**
 * The path with symlinks resolved: the deepest existing ancestor goes through `realPath`, the
 * rest (not yet existing) is appended. Without `realPath`, the lexical path.
 */
export async function resolveReal(p: string, realPath?: (p: string) => Promise<string | undefined>): Promise<string> {
  if (!realPath) return p;
  let head = p;
  const tail: string[] = [];
  for (;;) {
    const real = await realPath(head).catch(() => undefined);
    if (real !== undefined) return normalizeAbs([real, ...tail].join("/"));
    if (head === "/") return p;
    tail.unshift(basenameOf(head));
    head = dirnameOf(head);
  }
}

/**
 * `written` resolved from the real folder `realBase` segment by segment, following symlinks before
 * each `..` as the kernel does (`link/..` is the parent of the link's target). Segments that do
 * not exist are appended as written.
 */
export async function resolvePhysical(realBase: string, written: string, realPath?: (p: string) => Promise<string | undefined>): Promise<string> {
  let cur = written.startsWith("/") ? "/" : realBase;
  let missing = false;
  for (const seg of written.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      cur = dirnameOf(cur);
      continue;
    }
    cur = cur === "/" ? `/${seg}` : `${cur}/${seg}`;
    if (missing || !realPath) continue;
    const real = await realPath(cur).catch(() => undefined);
    if (real === undefined) missing = true;
    else cur = normalizeAbs(real);
  }
  return normalizeAbs(cur);
}
