/**
 * Files git's index holds below a folder whose paths match globs: `git ls-files -z --
 * ':(glob)PATTERN'…`, read as it streams. No walk of the tree: git reads its index (one file)
 * and prints only the matches, so the cost is that of reading the index and memory holds only
 * what matched. Used to find nested AGENTS.md/CLAUDE.md and `.cursor/rules` (Searcher.tracked);
 * outside a git work tree (or without git) the answer is undefined and the caller walks instead.
 *
 * `prefetchTracked`: the CLI's entry starts the same git for `yoke lessons list` before the
 * command's bundle loads (at a million files git reads a 107 MB index for seconds: Node's start-up
 * then runs beside it, not before it). The listing that asks for the same folder and globs takes
 * the running git and what it printed so far; an unclaimed one never keeps the process alive.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { GlobResult, TrackedOptions } from "../core/ports";
import { HOST_GIT_READ_ARGS, HOST_GIT_READ_ENV } from "./host-git";
import { hostProgram } from "./host-programs";

type End = { code: number | null } | { error: true };

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

const toPosix = (p: string) => p.replace(/\\/g, "/");

/** git's arguments for the listing (the bench runs the same command line as its baseline). */
export function lsFilesArgs(path: string, globs: readonly string[]): string[] {
  // host-git.ts: fsmonitor off (reading the index would otherwise run the program core.fsmonitor names), no bare repository found by itself, no fetch.
  return ["-C", path, ...HOST_GIT_READ_ARGS, "-c", "core.quotePath=false", "ls-files", "-z", "--cached", "--", ...globs.map((g) => `:(glob)${g}`)];
}

function start(args: string[]): Listing {
  const l: Listing = { key: args.join("\0"), chunks: [] };
  const finish = (e: End) => {
    if (l.end) return;
    l.end = e;
    l.sink?.end(e);
  };
  try {
    l.child = spawn(hostProgram("git"), args, { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, ...HOST_GIT_READ_ENV } });
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

function take(args: string[]): Listing {
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

export function gitTracked(opts: TrackedOptions): Promise<GlobResult | undefined> {
  return new Promise((resolve) => {
    const root = toPosix(opts.path).replace(/\/+$/, "");
    const l = take(lsFilesArgs(root || "/", opts.globs));
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
