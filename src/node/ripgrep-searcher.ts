/** Searcher over the ripgrep binary, with a pure-JS fallback when no rg can be found. */
import { spawn } from "node:child_process";
import { accessSync, constants, stat as statCb } from "node:fs";
import { lstat, stat, type FileHandle } from "node:fs/promises";
import * as nodePath from "node:path";
import { createFsSearcher } from "../core/tools/fs-searcher";
import { byPathOrder, GlobMatches } from "../core/tools/search-bounds";
import { PathChangedError, type GlobOptions, type GlobResult, type GrepLine, type GrepOptions, type GrepResult, type Logger, type Searcher } from "../core/ports";
import { createNodeWorkspaceFs, toPosix } from "./node-fs";
import { createSafeFiles } from "./safe-open";
import { gitTracked } from "./git-tracked";
import { hostSearchDirs } from "./host-programs";

/** Options of createRipgrepSearcher. */
export interface RipgrepSearcherOptions {
  /** Explicit rg binary; wins over everything else. */
  rgPath?: string;
  /** VS Code's appRoot (vscode.env.appRoot): its bundled rg is used next. */
  vscodeAppRoot?: string;
  /** Told once when the JS fallback is used. */
  log?: Logger;
}

const EXE = process.platform === "win32" ? "rg.exe" : "rg";

function executable(p: string | undefined): p is string {
  if (!p) return false;
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The rg binary to use: opts.rgPath, $YOKE_RG_PATH, VS Code's bundled rg, then rg on PATH. */
export function findRipgrep(opts: RipgrepSearcherOptions = {}): string | undefined {
  const candidates = [opts.rgPath, process.env.YOKE_RG_PATH];
  if (opts.vscodeAppRoot) {
    for (const nm of ["node_modules", "node_modules.asar.unpacked"]) {
      candidates.push(nodePath.join(opts.vscodeAppRoot, nm, "@vscode", "ripgrep", "bin", EXE));
    }
  }
  // Never a folder the agent can write (host-programs.ts): a planted rg would run on the host.
  for (const dir of hostSearchDirs()) candidates.push(nodePath.join(dir, EXE));
  return candidates.find(executable);
}

/**
 * Flags of every search. No `--sort path` but where the caller asks for path order: sorting makes
 * rg walk and search on one thread (its documentation says so); at 1 M files a full-scan grep with
 * it took 1.2-2x the wall time of the same search without it, the same CPU (docs/benchmarks.md,
 * session 16). A grep's lines are put in path order here instead; a bounded search takes what rg finds first.
 */
const COMMON = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--no-messages"];
const SORTED = ["--sort", "path"];

/** stderr kept at most (rg runs with --no-messages: only a fatal error is written). */
const MAX_STDERR = 64 * 1024;

interface RgRun {
  code: number | null;
  stderr: string;
  /** The time limit stopped rg. */
  timedOut: boolean;
}

/**
 * Runs rg with cwd = the searched folder (so globs are relative to it) and calls onLine for each
 * stdout line as it arrives, never holding more than one chunk and one partial line. When onLine
 * returns false, the signal fires or the time limit passes, rg is killed and its remaining output
 * is not read.
 */
export function runRg(rg: string, args: string[], cwd: string, o: { signal?: AbortSignal; timeLimitMs?: number }, onLine: (line: string) => boolean, input?: Uint8Array): Promise<RgRun> {
  const { signal } = o;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    const child = spawn(rg, args, { cwd, stdio: [input ? "pipe" : "ignore", "pipe", "pipe"], windowsHide: true });
    if (input) {
      child.stdin!.on("error", () => undefined);
      child.stdin!.end(input);
    }
    let rest = "";
    let stderr = "";
    let stopped = false;
    let timedOut = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      rest = "";
      child.stdout!.destroy();
      child.kill();
    };
    const onAbort = () => stop();
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer =
      o.timeLimitMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stop();
          }, o.timeLimitMs);
    const done = () => {
      signal?.removeEventListener("abort", onAbort);
      if (timer) clearTimeout(timer);
    };
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      if (stopped) return;
      const text = rest ? rest + chunk : chunk;
      let start = 0;
      let nl: number;
      while ((nl = text.indexOf("\n", start)) >= 0) {
        const line = text.slice(start, nl);
        start = nl + 1;
        if (!onLine(line)) {
          stop();
          return;
        }
        if (stopped) return;
      }
      rest = text.slice(start);
    });
    child.stdout!.on("error", () => {});
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (c: string) => {
      if (stderr.length < MAX_STDERR) stderr += c.slice(0, MAX_STDERR - stderr.length);
    });
    child.on("error", (e) => {
      done();
      reject(e);
    });
    child.on("close", (code) => {
      done();
      if (!stopped && rest) onLine(rest);
      if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
      resolve({ code: stopped ? 0 : code, stderr, timedOut });
    });
  });
}

/** Modification times (ms; 0 when the file cannot be read) fetched asynchronously, a few at a time. */
function mtimes(parallel: number): { get(path: string, then: (mtimeMs: number) => void): void; idle(): Promise<void> } {
  const queue: Array<[string, (m: number) => void] | undefined> = [];
  let head = 0;
  let active = 0;
  let onIdle: (() => void) | undefined;
  const pump = () => {
    while (active < parallel && head < queue.length) {
      const [path, then] = queue[head]!;
      queue[head++] = undefined; // let the entry go
      active++;
      statCb(path, (err, st) => {
        active--;
        then(err ? 0 : st.mtimeMs);
        pump();
        if (active === 0 && head === queue.length) onIdle?.();
      });
    }
  };
  return {
    get(path, then) {
      queue.push([path, then]);
      pump();
    },
    idle: () => new Promise<void>((r) => (active === 0 && head === queue.length ? r() : (onIdle = r))),
  };
}

/** rg's arguments for a grep of `target` (run in the searched folder): the bench runs the same command line. */
export function rgGrepArgs(o: Pick<GrepOptions, "pattern" | "glob" | "ignoreCase" | "context">, target: string): string[] {
  const args = ["--json", ...COMMON, o.ignoreCase ? "--ignore-case" : "--case-sensitive"];
  if ((o.context ?? 0) > 0) args.push("--context", String(o.context));
  if (o.glob) args.push("--glob", o.glob);
  args.push("--glob", "!.git", "--regexp", o.pattern, "--", target);
  return args;
}

/** rg's arguments for a glob (run in the searched folder); sorted only for order "path". */
export function rgGlobArgs(pattern: string, order: GlobOptions["order"] = "modified"): string[] {
  return ["--files", ...COMMON, ...(order === "path" ? SORTED : []), "--glob", pattern, "--glob", "!.git", "--", "."];
}

/**
 * Grep lines grouped by file, the files in path order. rg searches on all cores, so files arrive
 * in any order, but each file's lines arrive together and in order (rg prints a file's results
 * at once).
 */
function inPathOrder(lines: GrepLine[]): GrepLine[] {
  const byFile = new Map<string, GrepLine[]>();
  for (const l of lines) {
    const group = byFile.get(l.path);
    if (group) group.push(l);
    else byFile.set(l.path, [l]);
  }
  if (byFile.size < 2) return lines;
  return [...byFile.keys()].sort(byPathOrder).flatMap((p) => byFile.get(p)!);
}

type RgText = { text?: string; bytes?: string };
const decoder = new TextDecoder();

function rgText(t: RgText | undefined): string {
  if (!t) return "";
  if (t.text !== undefined) return t.text;
  return t.bytes ? decoder.decode(Buffer.from(t.bytes, "base64")) : "";
}

/** The raw bytes of an rg text (UTF-8 text, or base64 bytes where it was not UTF-8). */
function rgBytes(t: RgText | undefined): Buffer {
  if (!t) return Buffer.alloc(0);
  return t.text !== undefined ? Buffer.from(t.text, "utf8") : Buffer.from(t.bytes ?? "", "base64");
}

/** Folder to run rg in and the target to pass: the folder itself, or a file's folder and name. */
async function target(path: string): Promise<[string, string]> {
  const st = await stat(path);
  return st.isDirectory() ? [path, "."] : [nodePath.dirname(path), nodePath.basename(path)];
}

function absolute(cwd: string, p: string): string {
  return toPosix(nodePath.resolve(cwd, p));
}

/** Exit 2 with results means some files could not be read (messages are suppressed): keep the results. */
function check(code: number | null, stderr: string, found: number): void {
  if (code === 0 || code === 1) return;
  if (found > 0 && !stderr.trim()) return;
  throw new Error(stderr.trim() || `ripgrep exited with code ${code}`);
}

interface Checked {
  /** The folder searched (a folder target), opened and checked. */
  dir?: FileHandle;
  cwd: string;
  tgt: string;
  /** A file target's bytes, read from its checked descriptor (rg searches them on stdin). */
  data?: Uint8Array;
}

/**
 * The searched folder opened without following links and checked to be the canonical one (see
 * safe-open.ts); a file target's name must not be a link in it. rg then runs with that
 * descriptor as its working folder (/proc/self/fd/N), so the path is not resolved again. Without
 * /proc: the path is searched by name (best effort, like the fallback safe opens).
 */
async function checkedTarget(path: string, within: string): Promise<Checked | undefined> {
  const safe = createSafeFiles([within]);
  if (!safe.viaProc) return undefined;
  const st = await lstat(path);
  if (st.isSymbolicLink()) throw new PathChangedError(path, "the path is now a symbolic link");
  if (!st.isDirectory()) {
    const { data } = await safe.read(toPosix(path));
    return { cwd: toPosix(nodePath.dirname(path)), tgt: nodePath.basename(path), data };
  }
  return { dir: await safe.openDir(toPosix(path)), cwd: toPosix(path), tgt: "." };
}

function rgSearcher(rg: string): Searcher {
  /** The grep itself; `checked`: rg runs inside the checked folder's descriptor. */
  async function grepIn(o: GrepOptions, checked: Checked | undefined): Promise<GrepResult> {
    const [cwd, tgt] = checked ? [checked.cwd, checked.tgt] : await target(o.path);
    const runIn = checked?.dir ? `/proc/self/fd/${checked.dir.fd}` : cwd;
    // A checked file is searched from its bytes (rg names it <stdin>): its name is not opened again.
    const args = rgGrepArgs(o, checked?.data ? "-" : tgt);
    const ctx = o.context ?? 0;
    const lines: GrepLine[] = [];
    let matches = 0;
    let last: GrepLine | undefined;
    let truncated = false;
    const { code, stderr, timedOut } = await runRg(
      rg,
      args,
      runIn,
      o,
      (raw) => {
        let ev: { type: string; data: { path?: RgText; lines?: RgText; line_number?: number; absolute_offset?: number } };
        try {
          ev = JSON.parse(raw);
        } catch {
          return true;
        }
        if (ev.type !== "match" && ev.type !== "context") return true;
        const isMatch = ev.type === "match";
        if (isMatch && matches === o.maxMatches) {
          truncated = true;
          while (lines.length && !lines[lines.length - 1]!.match) {
            const l = lines[lines.length - 1]!;
            if (l.path === last!.path && l.line <= last!.line + ctx) break;
            lines.pop();
          }
          return false;
        }
        const path = checked?.data ? absolute(cwd, tgt) : absolute(cwd, rgText(ev.data.path));
        const text = rgText(ev.data.lines).replace(/\n$/, "").split("\n");
        // Each line's bytes in the file (as rg read it): where grep's race check reads it again (tools/grep.ts).
        const offset = ev.data.absolute_offset;
        const rawLines = rgBytes(ev.data.lines);
        let from = 0;
        text.forEach((t, i) => {
          const end = rawLines.indexOf(0x0a, from);
          const length = (end < 0 ? rawLines.length : end) - from;
          const bytes = typeof offset === "number" ? { offset: offset + from, length } : undefined;
          lines.push({ path, line: ev.data.line_number! + i, text: t, match: isMatch, ...(bytes ? { bytes } : {}) });
          from += length + 1;
        });
        if (isMatch) {
          matches++;
          last = lines[lines.length - 1];
        }
        return true;
      },
      checked?.data,
    );
    if (truncated) return { lines: inPathOrder(lines), truncated, stopped: "limit" };
    if (timedOut) return { lines: inPathOrder(lines), truncated: true, stopped: "time" };
    check(code, stderr, lines.length);
    return { lines: inPathOrder(lines), truncated };
  }

  return {
    async grep(o: GrepOptions): Promise<GrepResult> {
      const checked = o.within ? await checkedTarget(o.path, o.within) : undefined;
      try {
        return await grepIn(o, checked);
      } finally {
        await checked?.dir?.close();
      }
    },

    async glob(o: GlobOptions): Promise<GlobResult> {
      const [cwd] = await target(o.path);
      const args = rgGlobArgs(o.pattern, o.order);
      const found = new GlobMatches(o);
      const stats = mtimes(32);
      const { code, stderr, timedOut } = await runRg(rg, args, cwd, o, (line) => {
        if (!line) return true;
        if (!found.admit()) return false;
        const abs = absolute(cwd, line);
        if (found.ranked) stats.get(abs, (m) => found.add(abs, m));
        else found.add(abs);
        return true;
      });
      await stats.idle();
      const res = found.result(timedOut);
      if (!res.stopped) check(code, stderr, res.found ?? 0);
      return res;
    },
  };
}

let warned = false;

/** The pure-JS searcher used when no rg exists (reads .gitignore files from the disk root down). */
export function createJsSearcher(): Searcher {
  const root = toPosix(nodePath.parse(process.cwd()).root);
  return createFsSearcher(createNodeWorkspaceFs(root), { ignoreRoot: root });
}

/** ripgrep (or the JS searcher when there is no rg), and git's index for `tracked`. */
export function createRipgrepSearcher(opts: RipgrepSearcherOptions = {}): Searcher {
  const rg = findRipgrep(opts);
  if (rg) return { ...rgSearcher(rg), tracked: gitTracked };
  if (!warned) {
    warned = true;
    (opts.log ?? console).warn("yoke: ripgrep (rg) not found; using the slower built-in search. Set YOKE_RG_PATH to an rg binary to fix this.");
  }
  return { ...createJsSearcher(), tracked: gitTracked };
}
