/**
 * How git is asked which tracked files below a folder match globs (`git ls-files -z --cached`),
 * and the running listing: read by gitTracked (git-tracked.ts), which keeps exactly what the
 * globs match. Kept apart from it so that the CLI's entry (dist/cli.js) can start the listing
 * without loading the glob matcher.
 *
 * `prefetchTracked`: the CLI's entry starts the same git for `yoke lessons list` before the
 * command's bundle loads (at a million files git reads a 107 MB index for seconds: Node's start-up
 * then runs beside it, not before it). The listing that asks for the same folder and globs takes
 * the running git and what it printed so far; an unclaimed one never keeps the process alive.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { HOST_GIT_READ_ARGS, HOST_GIT_READ_ENV } from "./host-git";
import { hostProgram } from "./host-programs";

export type End = { code: number | null } | { error: true };

interface Listing {
  key: string;
  child?: ChildProcess;
  /** Output read before anyone listened. */
  chunks: string[];
  end?: End;
  sink?: { data(chunk: string): void; end(e: End): void };
}

const PREFETCH = Symbol.for("yoke.gitTracked.prefetch");
type Holder = { [PREFETCH]?: Listing };

export const toPosix = (p: string) => p.replace(/\\/g, "/");

/**
 * What git is asked for `globs` (git's `:(glob)` semantics), and the test that keeps exactly the
 * paths those `:(glob)` pathspecs would list.
 *
 * Matching `:(glob)` pathspecs is most of what `git ls-files` spends on a large index: git runs
 * wildmatch on every entry for every glob (at 100,000 files the four guidance globs cost git about
 * 2.4× a listing with no pathspec). A glob made of `**` folders, literal text and `*` is asked
 * instead as a plain pathspec that holds every path it matches — `**` and `*` become `*`, which
 * matches `/` too — and `**` + `/` + literal text becomes `*` + that text, which git compares as a
 * suffix without wildmatch (its "one star" case). git prints those paths in index order; only the
 * ones the glob matches are kept here, so the answer and its order are those of the `:(glob)`
 * pathspecs. git also lists, for any pathspec, a path that equals the pattern's text or lies below
 * it as a folder (a folder literally named `**`): `:(literal)` + the globs' common literal start
 * asks for those too, and they are kept as git would. Any other glob (`?`, classes, braces,
 * escapes) is asked as `:(glob)` and kept as git answers.
 */
export function trackedPathspecs(globs: readonly string[]): { pathspecs: string[]; exact: boolean } {
  const plain = globs.map(plainPathspec);
  // No glob (git then lists everything) or one that is not plain: asked as `:(glob)` and kept as git answers.
  if (!globs.length || plain.some((p) => p === undefined)) return { pathspecs: globs.map((g) => `:(glob)${g}`), exact: true };
  // A plain pathspec lists what lies below its own text as git's literal reading would; one whose text differs (`**` became
  // `*`) needs the glob's text asked literally: once for all when they share a start like `**/` (only names that begin so).
  const changed = globs.filter((g, i) => plain[i] !== g);
  const start = commonStart(changed).replace(/[^/]*$/, "");
  const literal = start.includes("*") ? [start] : changed;
  return { pathspecs: [...(plain as string[]), ...literal.map((g) => `:(literal)${g}`)], exact: false };
}

/** A glob of `**` folders, literal text and `*` as a plain (fnmatch) pathspec matching a superset of it; undefined for any other glob. */
function plainPathspec(glob: string): string | undefined {
  if (!glob || /[?[\]\\{}!]/.test(glob) || glob.startsWith(":") || glob.startsWith("/")) return undefined;
  const parts = glob.split("/");
  if (parts.some((s, i) => s === "" || s === "." || s === ".." || (s.includes("**") && (s !== "**" || i === parts.length - 1)))) return undefined;
  // `**/x/**/y` → `*x/*y`: each `**/` (any folders, or none) becomes one `*`.
  return parts
    .map((s) => (s === "**" ? "*" : `${s}/`))
    .join("")
    .replace(/\/$/, "")
    .replace(/\*+/g, "*");
}

function commonStart(xs: readonly string[]): string {
  let c = xs[0] ?? "";
  for (const x of xs) while (!x.startsWith(c)) c = c.slice(0, -1);
  return c;
}

/** git's arguments for the listing of `globs` below `path` (asked as trackedPathspecs says). */
export function lsFilesArgs(path: string, globs: readonly string[]): string[] {
  return lsFilesWith(path, trackedPathspecs(globs).pathspecs);
}

/** The same listing asked with `:(glob)` pathspecs, as a person would type it: the bench's baseline. */
export function globLsFilesArgs(path: string, globs: readonly string[]): string[] {
  return lsFilesWith(
    path,
    globs.map((g) => `:(glob)${g}`),
  );
}

export function lsFilesWith(path: string, pathspecs: readonly string[]): string[] {
  // host-git.ts: fsmonitor off (reading the index would otherwise run the program core.fsmonitor names), no bare repository found by itself, no fetch.
  return ["-C", path, ...HOST_GIT_READ_ARGS, "-c", "core.quotePath=false", "ls-files", "-z", "--cached", "--", ...pathspecs];
}

/** The environment of the listing: host-git.ts's, and pathspecs read as written whatever GIT_*_PATHSPECS the user's environment sets. */
export const LS_FILES_ENV: Readonly<Record<string, string>> = {
  ...HOST_GIT_READ_ENV,
  GIT_LITERAL_PATHSPECS: "0",
  GIT_GLOB_PATHSPECS: "0",
  GIT_NOGLOB_PATHSPECS: "0",
  GIT_ICASE_PATHSPECS: "0",
};

export function start(args: string[]): Listing {
  const l: Listing = { key: args.join("\0"), chunks: [] };
  const finish = (e: End) => {
    if (l.end) return;
    l.end = e;
    l.sink?.end(e);
  };
  try {
    l.child = spawn(hostProgram("git"), args, { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, ...LS_FILES_ENV } });
  } catch {
    l.end = { error: true };
    return l;
  }
  l.child.stdout!.setEncoding("utf8");
  l.child.stdout!.on("data", (chunk: string) => (l.sink ? l.sink.data(chunk) : l.chunks.push(chunk)));
  l.child.on("error", () => finish({ error: true }));
  l.child.on("close", (code) => finish({ code }));
  return l;
}

/** Starts the listing `gitTracked` would run for `path` and `globs`, for it to take later (one at a time). */
export function prefetchTracked(path: string, globs: readonly string[]): void {
  const l = start(lsFilesArgs(toPosix(path).replace(/\/+$/, "") || "/", globs));
  // Unclaimed (a usage error, another folder), it must not hold the process open.
  l.child?.unref();
  (l.child?.stdout as { unref?: () => void } | null | undefined)?.unref?.();
  const holder = globalThis as Holder;
  holder[PREFETCH]?.child?.kill("SIGKILL");
  holder[PREFETCH] = l;
}

export function take(args: string[]): Listing {
  const holder = globalThis as Holder;
  const pre = holder[PREFETCH];
  if (pre && pre.key === args.join("\0")) {
    delete holder[PREFETCH];
    pre.child?.ref();
    (pre.child?.stdout as { ref?: () => void } | null | undefined)?.ref?.();
    return pre;
  }
  return start(args);
}
