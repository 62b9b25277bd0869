/**
 * Shared file helpers for the tools: stat through a final symlink, text decoding with binary
 * detection, and "did you mean" suggestions for a missing path.
 */
import { baseName, dirName, displayPath, folderOf, isInside, normalizePath } from "../paths";
import { isPathChanged, type CheckedRead, type FileStat, type ReadRange, type WorkspaceFs } from "../ports";
import { ToolError } from "./types";
import type { RuleSource } from "./ignore-rules";
import type { ToolContext } from "./types";

/** Stat that follows a final symlink (which resolveWorkspacePath already checked stays inside). */
export async function statFollow(fs: WorkspaceFs, abs: string): Promise<FileStat | undefined> {
  const st = await fs.stat(abs);
  if (st?.type !== "symlink") return st;
  const real = await fs.realPath(abs);
  return real === undefined ? undefined : fs.stat(normalizePath(real));
}

/** What the model is told when a path changed between the permission check and the open. */
export function pathChangedText(tool: string, rel: string, detail: string, nothing: "read" | "written"): string {
  return (
    `${tool} refused: "${rel}" changed after the permission check (${detail}). Nothing was ${nothing}: ` +
    "file tools open only the very file that was checked and never follow a symbolic link that appears while they run. " +
    `If a running command is changing this path, wait for it to finish, then call ${tool} again.`
  );
}

/**
 * The file at the canonical path `abs` (as prepared for the permission check), read from the one
 * descriptor that was opened without following links; a path that changed since is refused.
 */
export async function readChecked(ctx: Pick<ToolContext, "fs">, tool: string, abs: string, rel: string, range?: ReadRange): Promise<CheckedRead> {
  try {
    return await ctx.fs.readChecked(abs, range);
  } catch (e) {
    if (isPathChanged(e)) throw new ToolError(pathChangedText(tool, rel, e.detail, "read"));
    throw e;
  }
}

/** writeChecked with the model-facing refusal; the written file's stat. */
export async function writeChecked(ctx: Pick<ToolContext, "fs">, tool: string, abs: string, rel: string, data: Uint8Array): Promise<FileStat> {
  try {
    return await ctx.fs.writeChecked(abs, data);
  } catch (e) {
    if (isPathChanged(e)) throw new ToolError(pathChangedText(tool, rel, e.detail, "written"));
    throw e;
  }
}

export type Decoded = { binary: true } | { binary: false; text: string; bom: boolean };

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Text files decode as UTF-8 (invalid bytes become U+FFFD); a NUL byte in the first 8 KB means binary. */
export function decodeText(bytes: Uint8Array): Decoded {
  const probe = bytes.subarray(0, 8192);
  if (probe.includes(0)) return { binary: true };
  let text = utf8.decode(bytes);
  const bom = text.charCodeAt(0) === 0xfeff;
  if (bom) text = text.slice(1);
  return { binary: false, text, bom };
}

/** The read-state record of a file as it is now. */
export function readStamp(st: FileStat): { mtimeMs: number; size: number } {
  return { mtimeMs: st.mtimeMs, size: st.size };
}

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

function stem(name: string): string {
  const i = name.lastIndexOf(".");
  return (i > 0 ? name.slice(0, i) : name).toLowerCase();
}

/** How long the search for a missing file's name elsewhere in the workspace may take (a hint, not worth a long wait in a large tree). */
const SIMILAR_SEARCH_MS = 3_000;

/**
 * Up to 5 existing workspace files with names like the missing one: siblings in the nearest
 * existing folder first, then same-named files anywhere.
 */
export async function similarFiles(ctx: ToolContext, abs: string): Promise<string[]> {
  const root = normalizePath(folderOf(ctx.fs, abs)?.root ?? ctx.fs.root);
  const want = baseName(abs).toLowerCase();
  const scored: Array<[number, string]> = [];
  let dir = dirName(abs);
  while (isInside(root, dir) && !(await ctx.fs.stat(dir))) dir = dirName(dir);
  if (isInside(root, dir)) {
    const entries = await ctx.fs.readDir(dir).catch(() => [] as Array<[string, string]>);
    for (const [name] of entries) {
      const lower = name.toLowerCase();
      const d = Math.min(distance(lower, want), distance(stem(name), stem(want)) + 1);
      const close = d <= Math.max(2, Math.floor(want.length / 3)) || lower.includes(stem(want)) || want.includes(stem(name));
      if (close) scored.push([d, displayPath(ctx.fs, `${dir === "/" ? "" : dir}/${name}`)]);
    }
  }
  scored.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
  const out = scored.map(([, p]) => p);
  if (out.length < 5 && want) {
    const glob = await ctx.search
      .glob({ pattern: `**/${baseName(abs).replace(/[*?[\]{}()!\\]/g, "\\$&")}`, path: root, maxResults: 5, order: "path", timeLimitMs: SIMILAR_SEARCH_MS, signal: ctx.signal })
      .catch(() => ({ paths: [] as string[] }));
    for (const p of glob.paths) {
      const rel = displayPath(ctx.fs, normalizePath(p));
      if (!out.includes(rel)) out.push(rel);
    }
  }
  return out.slice(0, 5);
}

/** Rule files read through the workspace fs. */
export function fsRuleSource(fs: WorkspaceFs): RuleSource {
  const dec = new TextDecoder();
  return {
    async read(abs) {
      const st = await fs.stat(abs).catch(() => undefined);
      if (st?.type !== "file") return undefined;
      return fs.readFile(abs).then(
        (b) => dec.decode(b),
        () => undefined,
      );
    },
    async exists(abs) {
      return (await fs.stat(abs).catch(() => undefined)) !== undefined;
    },
  };
}

/**
 * The absolute paths no deny rule forbids reading; content tools (grep, glob, list_files) leave
 * the others out of what the model sees, as read_file would refuse them.
 */
export async function readablePaths(ctx: Pick<ToolContext, "access">, paths: readonly string[]): Promise<{ kept: Set<string>; hidden: number }> {
  const access = ctx.access;
  if (!access) return { kept: new Set(paths), hidden: 0 };
  const verdicts = await Promise.all(paths.map(async (p) => [p, await access.deniedBy("Read", p)] as const));
  const kept = new Set(verdicts.filter(([, rule]) => rule === null).map(([p]) => p));
  return { kept, hidden: verdicts.length - kept.size };
}

/** The note a content tool adds when it left out files a deny rule covers. */
export function hiddenNote(hidden: number, one: string, many = `${one}s`): string {
  return `${hidden} ${hidden === 1 ? one : many} left out: a permission rule denies reading ${hidden === 1 ? "it" : "them"}.`;
}
