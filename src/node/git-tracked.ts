/**
 * Files git's index holds below a folder whose paths match globs: `git ls-files -z --
 * ':(glob)PATTERN'…`, read as it streams. No walk of the tree: git reads its index (one file)
 * and prints only the matches, so the cost is that of reading the index and memory holds only
 * what matched. Used to find nested AGENTS.md/CLAUDE.md and `.cursor/rules` (Searcher.tracked);
 * outside a git work tree (or without git) the answer is undefined and the caller walks instead.
 */
import { spawn } from "node:child_process";
import type { GlobResult, TrackedOptions } from "../core/ports";
import { HOST_GIT_READ_ARGS, HOST_GIT_READ_ENV } from "./host-git";
import { toPosix } from "./node-fs";

export function gitTracked(opts: TrackedOptions): Promise<GlobResult | undefined> {
  return new Promise((resolve) => {
    const root = toPosix(opts.path).replace(/\/+$/, "");
    // host-git.ts: fsmonitor off (reading the index would otherwise run the program core.fsmonitor names), no bare repository found by itself, no fetch.
    const args = ["-C", opts.path, ...HOST_GIT_READ_ARGS, "-c", "core.quotePath=false", "ls-files", "-z", "--cached", "--", ...opts.globs.map((g) => `:(glob)${g}`)];
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn("git", args, { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, ...HOST_GIT_READ_ENV } });
    } catch {
      resolve(undefined);
      return;
    }
    const paths: string[] = [];
    let rest = "";
    let stopped: GlobResult["stopped"];
    const stop = (why: "limit" | "time") => {
      stopped ??= why;
      child.kill("SIGKILL");
    };
    const timer = opts.timeLimitMs !== undefined ? setTimeout(() => stop("time"), opts.timeLimitMs) : undefined;
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      if (stopped) return;
      const parts = (rest + chunk).split("\0");
      rest = parts.pop()!;
      for (const p of parts) {
        if (paths.length >= opts.maxResults) return stop("limit");
        paths.push(`${root}/${p}`);
      }
    });
    child.on("error", () => {
      if (timer) clearTimeout(timer);
      resolve(undefined);
    });
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      if (!stopped && code !== 0) return resolve(undefined); // not a work tree (or git failed): walk instead
      resolve({ paths, truncated: stopped !== undefined, found: paths.length, ...(stopped ? { stopped } : {}) });
    });
  });
}
