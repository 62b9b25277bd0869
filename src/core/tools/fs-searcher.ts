/**
 * A Searcher in plain TypeScript over a WorkspaceFs: the fallback when ripgrep is missing.
 * It follows ripgrep's rules (as `rg --hidden --no-require-git --sort path`): .gitignore/.ignore
 * honoured, .git skipped, symlinks not followed, files with NUL bytes skipped, a `glob` whitelists
 * files (even ignored ones) and is matched gitignore-style relative to the searched folder.
 */
import { globMatcher } from "../glob";
import { baseName, joinPath, normalizePath, relativePath } from "../paths";
import type { GlobOptions, GlobResult, GrepLine, GrepOptions, GrepResult, Searcher, WorkspaceFs } from "../ports";
import { fsRuleSource } from "./file-access";
import { IgnoreRules } from "./ignore-rules";
import { deadline, GlobMatches } from "./search-bounds";

type Override = (rel: string, isDir: boolean) => "include" | "exclude" | undefined;

/** Compiles a ripgrep-style `--glob`: no "/" matches at any depth, "!" negates, trailing "/" only folders. */
function compileOverride(glob: string | undefined): Override {
  if (!glob) return (rel, isDir) => (baseName(rel) === ".git" && isDir ? "exclude" : undefined);
  let p = glob;
  const negated = p.startsWith("!");
  if (negated) p = p.slice(1);
  let dirOnly = false;
  if (p.endsWith("/")) {
    dirOnly = true;
    p = p.slice(0, -1);
  }
  const anchored = p.includes("/");
  if (p.startsWith("/")) p = p.slice(1);
  // Matched in bounded time: a model's `+(a|aa)+X` against long names cannot hold the host (src/core/glob).
  const match = globMatcher(anchored ? p : `**/${p}`, { dot: true });
  if (!match) throw new Error(`glob ${JSON.stringify(glob)} uses regular-expression syntax (a back-reference or octal escape) that is not matched here; write it as a plain glob`);
  return (rel, isDir) => {
    if (baseName(rel) === ".git") return "exclude";
    const hit = (!dirOnly || isDir) && match(rel);
    if (negated) return hit ? "exclude" : undefined;
    if (hit) return "include";
    return isDir ? undefined : "exclude";
  };
}

function byName(a: [string, unknown], b: [string, unknown]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function aborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new Error("aborted");
}

/** Every searchable file under `dir`, in ripgrep's `--sort path` order. */
async function* walk(fs: WorkspaceFs, base: string, dir: string, rules: IgnoreRules, override: Override, signal?: AbortSignal): AsyncGenerator<string> {
  const entries = (await fs.readDir(dir).catch(() => [] as Array<[string, string]>)).sort(byName);
  for (const [name, type] of entries) {
    aborted(signal);
    if (type !== "file" && type !== "directory") continue;
    const abs = joinPath(dir, name);
    const isDir = type === "directory";
    const o = override(relativePath(base, abs), isDir);
    if (o === "exclude") continue;
    if (o !== "include" && rules.ignores(abs, isDir)) continue;
    if (isDir) yield* walk(fs, base, abs, await rules.enter(abs), override, signal);
    else yield abs;
  }
}

function compileRegex(pattern: string, ignoreCase?: boolean): RegExp {
  let p = pattern.replace(/\(\?P</g, "(?<");
  let flags = ignoreCase ? "i" : "";
  if (p.startsWith("(?i)")) {
    p = p.slice(4);
    flags = "i";
  }
  try {
    return new RegExp(p, flags + "u");
  } catch {
    try {
      return new RegExp(p, flags);
    } catch (e) {
      throw new Error(`regex parse error: ${(e as Error).message}`, { cause: e });
    }
  }
}

const decoder = new TextDecoder();
/** Files read in parallel ahead of the one being searched. */
const READ_AHEAD = 16;

/** Options of createFsSearcher. */
export interface FsSearcherOptions {
  /** Folder from which .gitignore files above the searched folder are read. Default: fs.root. */
  ignoreRoot?: string;
}

/** Where each line of `bytes` is (its offset less `skip`, its length without the newline). */
function lineBytes(bytes: Uint8Array, skip: number): Array<{ offset: number; length: number }> {
  const out: Array<{ offset: number; length: number }> = [];
  let start = skip;
  for (;;) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    out.push({ offset: start - skip, length: end - start });
    if (nl < 0) return out;
    start = nl + 1;
  }
}

export function createFsSearcher(fs: WorkspaceFs, opts: FsSearcherOptions = {}): Searcher {
  const read = fsRuleSource(fs);
  const ignoreRoot = normalizePath(opts.ignoreRoot ?? fs.root);

  /** The searchable files under `path` (or `path` itself when it is a file), streamed in path order. */
  async function* files(path: string, glob: string | undefined, signal?: AbortSignal): AsyncGenerator<string> {
    const abs = normalizePath(path);
    const st = await fs.stat(abs);
    if (!st) throw new Error(`${abs}: No such file or directory`);
    if (st.type !== "directory") {
      yield abs;
      return;
    }
    const rules = await IgnoreRules.forDir(read, ignoreRoot, abs);
    yield* walk(fs, abs, abs, rules, compileOverride(glob), signal);
  }

  /** The file's text and bytes when it is searchable (no NUL byte) and the prefilter hits; `bom`: a UTF-8 byte order mark was dropped. */
  async function readCandidate(file: string, anyLine: RegExp): Promise<{ text: string; bytes: Uint8Array; bom: boolean } | undefined> {
    const bytes = await fs.readFile(file).catch(() => undefined);
    if (!bytes || bytes.includes(0)) return undefined;
    let text = decoder.decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    // (The decoder drops a byte order mark itself.)
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    return anyLine.test(text) ? { text, bytes, bom } : undefined;
  }

  return {
    async grep(o: GrepOptions): Promise<GrepResult> {
      const re = compileRegex(o.pattern, o.ignoreCase);
      // Whole-file prefilter: any line that matches also matches the text in multiline mode.
      const anyLine = new RegExp(re.source, re.flags + "m");
      const ctx = o.context ?? 0;
      const lines: GrepLine[] = [];
      const time = deadline(o.timeLimitMs);
      let matches = 0;
      const walker = files(o.path, o.glob, o.signal);
      for (;;) {
        // The next few files, read in parallel.
        const batch: string[] = [];
        while (batch.length < READ_AHEAD) {
          const next = await walker.next();
          if (next.done) break;
          batch.push(next.value);
        }
        if (batch.length === 0) return { lines, truncated: false };
        const texts = await Promise.all(batch.map((f) => readCandidate(f, anyLine)));
        for (let f = 0; f < batch.length; f++) {
          aborted(o.signal);
          const read = texts[f];
          if (read === undefined) continue;
          const file = batch[f]!;
          const all = read.text.split("\n");
          // Each line's bytes, counted as ripgrep counts them (after a dropped byte order mark): a newline ends each.
          const at = lineBytes(read.bytes, read.bom ? 3 : 0);
          const line = (j: number, match: boolean): GrepLine => ({ path: file, line: j + 1, text: all[j]!, match, ...(at[j] ? { bytes: at[j] } : {}) });
          if (all[all.length - 1] === "") all.pop();
          const hits = all.map((l) => re.test(l));
          let lastShown = -1;
          for (let i = 0; i < all.length; i++) {
            if (!hits[i]) continue;
            if (matches === o.maxMatches) return { lines, truncated: true, stopped: "limit" };
            matches++;
            for (let j = Math.max(lastShown + 1, i - ctx); j < i; j++) lines.push(line(j, false));
            lines.push(line(i, true));
            lastShown = i;
            for (let j = i + 1; j <= Math.min(all.length - 1, i + ctx) && !hits[j]; j++) {
              lines.push(line(j, false));
              lastShown = j;
            }
          }
        }
        if (time.passed()) return { lines, truncated: true, stopped: "time" };
      }
    },

    async glob(o: GlobOptions): Promise<GlobResult> {
      const found = new GlobMatches(o);
      const time = deadline(o.timeLimitMs);
      for await (const p of files(o.path, o.pattern, o.signal)) {
        if (time.passed()) return found.result(true);
        if (!found.admit()) break;
        found.add(p, found.ranked ? ((await fs.stat(p))?.mtimeMs ?? 0) : 0);
      }
      return found.result();
    },
  };
}
