/**
 * Files git's index holds below a folder whose paths match globs, read as git prints them
 * (git-ls-files.ts says how git is asked): no walk of the tree, git reads its index (one file) and
 * prints only candidates, so the cost is that of reading the index and memory holds only what
 * matched. Used to find nested AGENTS.md/CLAUDE.md and `.cursor/rules` (Searcher.tracked);
 * outside a git work tree (or without git) the answer is undefined and the caller walks instead.
 */
import type { GlobResult, TrackedOptions } from "../core/ports";
import { boundedRegExp } from "../core/glob";
import { lsFilesWith, take, toPosix, trackedPathspecs, type End } from "./git-ls-files";

/**
 * The paths `:(glob)` pathspecs for `globs` list: a path equal to a glob's text or below it as a
 * folder (git's literal reading of any pathspec), or one the glob matches as wildmatch does.
 * Only for the globs trackedPathspecs asks as plain pathspecs (`**` folders, `*`, literal text).
 */
export function globKeeper(globs: readonly string[]): (path: string) => boolean {
  const tests = globs.map((g) => {
    // `**/NAME`: NAME as the last part (the memory files' globs; no automaton per path).
    const name = /^\*\*\/([^*/]+)$/.exec(g)?.[1];
    if (name !== undefined) return (path: string) => path === name || path.endsWith(`/${name}`) || path === g || path.startsWith(`${g}/`);
    const re = boundedRegExp(globRegExpSource(g), "s");
    if (!re) throw new Error(`glob not read: ${g}`);
    return (path: string) => path === g || path.startsWith(`${g}/`) || re.test(path);
  });
  return (path) => tests.some((t) => t(path));
}

/** The glob (`**` folders, `*`, literal text) as a regular expression with wildmatch's reading (WM_PATHNAME): `*` stops at `/`. */
function globRegExpSource(glob: string): string {
  const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return `^${glob
    .split("/")
    .map((s, i, all) => (s === "**" ? "(?:.*/)?" : s.split("*").map(esc).join("[^/]*") + (i < all.length - 1 ? "/" : "")))
    .join("")}$`;
}

export function gitTracked(opts: TrackedOptions): Promise<GlobResult | undefined> {
  return new Promise((resolve) => {
    const root = toPosix(opts.path).replace(/\/+$/, "");
    const { pathspecs, exact } = trackedPathspecs(opts.globs);
    const keep = exact ? undefined : globKeeper(opts.globs);
    const l = take(lsFilesWith(root || "/", pathspecs));
    const paths: string[] = [];
    let rest = "";
    let stopped: GlobResult["stopped"];
    const stop = (why: "limit" | "time") => {
      stopped ??= why;
      l.child?.kill("SIGKILL");
    };
    const timer = opts.timeLimitMs !== undefined ? setTimeout(() => stop("time"), opts.timeLimitMs) : undefined;
    const sink = {
      data(chunk: string) {
        if (stopped) return;
        const parts = (rest + chunk).split("\0");
        rest = parts.pop()!;
        for (const p of parts) {
          if (keep && !keep(p)) continue;
          if (paths.length >= opts.maxResults) return stop("limit");
          paths.push(`${root}/${p}`);
        }
      },
      end(e: End) {
        if (timer) clearTimeout(timer);
        if ("error" in e) return resolve(undefined);
        if (!stopped && e.code !== 0) return resolve(undefined); // not a work tree (or git failed): walk instead
        resolve({ paths, truncated: stopped !== undefined, found: paths.length, ...(stopped ? { stopped } : {}) });
      },
    };
    l.sink = sink;
    for (const c of l.chunks.splice(0)) sink.data(c);
    if (l.end) sink.end(l.end);
  });
}
