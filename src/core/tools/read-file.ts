/** read_file: a file (or a range of it) in the hashline view. */
import { z } from "zod";
import { formatHashline, hashlineReady, splitLines } from "../edit/hashline";
import { resolveWorkspacePath } from "../paths";
import { decodeText, readChecked, readStamp, similarFiles, statFollow } from "./file-access";
import { MAX_OUTPUT_BYTES, byteLength, cutLine, note } from "./output";
import { defineTool, field, ToolError, type ToolContext, type ToolDefinition } from "./types";
import { builtinSchema } from "./schema-table";

export const DEFAULT_READ_LIMIT = 2000;
/** Files larger than this are not loaded; grep finds lines in them. */
export const MAX_READ_BYTES = 50_000_000;
/**
 * The lines of one read fit in the tool-result budget with room for the header and the note, so a
 * full page is never spilled to the session folder (SPILL_CHARS, src/core/compaction/render.ts).
 */
export const READ_PAGE_BYTES = MAX_OUTPUT_BYTES - 1_000;

const schema = builtinSchema("read_file", () =>
  z.object({
    path: z.string().min(1),
    offset: z.number().int().min(1).optional().describe("First line to show (1-based)."),
    limit: z.number().int().min(1).optional(),
    force: z.boolean().optional(),
  }),
);

type Stamp = { mtimeMs: number; size: number };

/** Ranges already sent this session, per read state (so one map per session). */
const sentRanges = new WeakMap<ToolContext["readState"], Map<string, Stamp>>();

function rangesOf(ctx: ToolContext): Map<string, Stamp> {
  let m = sentRanges.get(ctx.readState);
  if (!m) {
    m = new Map();
    sentRanges.set(ctx.readState, m);
  }
  return m;
}

/**
 * Forgets which ranges were sent, so the next read_file re-sends text (call it when the model's
 * context no longer holds earlier results, e.g. after compaction). Write permission is kept.
 */
export function forgetSentRanges(readState: ToolContext["readState"]): void {
  sentRanges.delete(readState);
}

function same(a: Stamp | undefined, b: Stamp): boolean {
  return a !== undefined && a.mtimeMs === b.mtimeMs && a.size === b.size;
}

async function missing(ctx: ToolContext, path: string, abs: string): Promise<ToolError> {
  const near = await similarFiles(ctx, abs);
  const hint = near.length ? ` Files with similar names: ${near.map((p) => `"${p}"`).join(", ")}.` : " Use glob or list_files to find the right path.";
  return new ToolError(`File not found: "${path}".${hint}`);
}

/** What the model is told; edit_file, which takes the anchors, is named only where the session has it (not beside apply_patch). */
const describe = (edit = true) =>
  `Read a text file, each line shown as LINE#HASH|text${edit ? " (the anchors edit_file takes)" : ""}. ` +
  `At most ${DEFAULT_READ_LIMIT} lines per call: use offset/limit for long files, and prefer grep to find the part you need. ` +
  "A range already read is not sent again while the file is unchanged (force: true sends it).";

export const readFileTool = defineTool({
  name: "read_file",
  description: describe(),
  trimmed: (kept): ToolDefinition => (kept.some((t) => t.name === "edit_file") ? readFileTool : { ...readFileTool, description: describe(false) }),
  schema,
  permission: "Read",
  permissionClass: "path",
  capabilities: { reads: true },
  kind: "read",
  pathArgs: ["path"],
  summarize: (i) => {
    const path = field(i, "path", "file_path") ?? "";
    const offset = field(i, "offset");
    return offset ? `${path}:${offset}` : path;
  },
  timeoutMs: 30_000,
  hookInput: (a) => ({ file_path: a.path, offset: a.offset, limit: a.limit }),
  // Claude Code's Read response: the raw text of the lines shown (without the hashline anchors).
  hookResponse: (a, out) => {
    const meta = (out.meta ?? {}) as { path?: string; from?: number; to?: number; total?: number; unchanged?: boolean };
    const filePath = meta.path ?? a.path;
    if (meta.unchanged) return { type: "file_unchanged", file: { filePath } };
    const content = out.text
      .split("\n")
      .filter((l) => /^\d+#[ZPMQVRWSNKTXJBYH]{2}\|/.test(l))
      .map((l) => l.replace(/^\d+#[ZPMQVRWSNKTXJBYH]{2}\|/, ""))
      .join("\n");
    const from = meta.from ?? 1;
    const to = meta.to ?? 0;
    return { type: "text", file: { filePath, content, numLines: Math.max(0, to - from + 1), startLine: from, totalLines: meta.total ?? 0 } };
  },
  fromHookInput: (u) => ({
    ...(typeof u.file_path === "string" ? { path: u.file_path } : {}),
    ...(typeof u.offset === "number" ? { offset: u.offset } : {}),
    ...(typeof u.limit === "number" ? { limit: u.limit } : {}),
  }),
  async run(args, ctx) {
    await hashlineReady();
    const { abs, rel } = await resolveWorkspacePath(ctx.fs, args.path);
    const st = await statFollow(ctx.fs, abs);
    if (!st) throw await missing(ctx, rel, abs);
    if (st.type === "directory") {
      throw new ToolError(`"${rel}" is a directory, not a file. Call list_files with path="${rel}" to see what it contains.`);
    }
    const stamp = readStamp(st);
    const offset = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_READ_LIMIT;
    const key = `${abs}\n${offset}\n${limit}`;
    const ranges = rangesOf(ctx);
    if (!args.force && same(ranges.get(key), stamp) && same(ctx.readState.get(abs), stamp)) {
      return {
        text:
          `${rel} (lines from ${offset}, limit ${limit}) is unchanged since you read it earlier in this session; ` +
          "the earlier result is still valid. Call read_file with force: true to get the text again.",
        meta: { path: rel, unchanged: true },
      };
    }
    if (st.size > MAX_READ_BYTES) {
      throw new ToolError(
        `"${rel}" is too large to read (${(st.size / 1e6).toFixed(1)} MB; the limit is ${MAX_READ_BYTES / 1e6} MB). ` +
          `Use grep with path="${rel}" to find the lines you need, or run_command with a tool such as \`sed -n '100,200p'\`.`,
      );
    }
    // The stamp stays the port's stat (VS Code's mtime is whole milliseconds, Node's is not): what
    // write_file and edit_file compare it with later.
    // The range asked for: a file system that can read just those lines (the ACP editor's) does.
    const opened = await readChecked(ctx, "read_file", abs, rel, { line: offset, limit });
    const decoded = decodeText(opened.data);
    if (decoded.binary) {
      throw new ToolError(
        `"${rel}" is a binary file (${opened.stat.size} bytes); read_file shows text files only. ` +
          "Use run_command with a suitable tool (for example `file` or `xxd | head`) if you need to inspect it.",
      );
    }
    const lines = splitLines(decoded.text);
    // `lines` holds the file from line `first` on (1 unless the file system read just the range).
    const first = opened.range?.from ?? 1;
    const total = opened.range?.total ?? lines.length;
    ctx.readState.set(abs, stamp);
    if (total === 0) {
      ranges.set(key, stamp);
      return { text: `File: ${rel} (empty file, 0 lines)`, meta: { path: rel, from: 0, to: 0, total } };
    }
    if (offset > total) {
      throw new ToolError(`offset ${offset} is past the end of "${rel}", which has ${total} line${total === 1 ? "" : "s"}. ` + `Call read_file with an offset from 1 to ${total}.`);
    }
    const last = Math.min(total, offset + limit - 1, first + lines.length - 1);
    const out: string[] = [];
    let bytes = 0;
    let n = offset;
    for (; n <= last; n++) {
      const line = cutLine(formatHashline(n, lines[n - first]!));
      const size = byteLength(line) + 1;
      if (bytes + size > READ_PAGE_BYTES && out.length > 0) break;
      out.push(line);
      bytes += size;
    }
    const to = n - 1;
    const header = `File: ${rel} (lines ${offset}-${to} of ${total}${decoded.bom ? "; UTF-8 BOM not shown" : ""})`;
    const parts = [header, ...out];
    // A range the model asked for in full needs no note: the header says which lines these are and
    // how many the file has. The note is for a page cut short by the default limit or the byte limit.
    if (to < total && (to < last || args.limit === undefined)) {
      const why = to < last ? `the output limit of ${READ_PAGE_BYTES} bytes was reached` : `limit ${limit}`;
      parts.push(note(`Showing lines ${offset}-${to} of ${total} (${why}). Call read_file with offset=${to + 1} to see more.`));
    }
    ranges.set(key, stamp);
    return { text: parts.join("\n"), meta: { path: rel, from: offset, to, total } };
  },
});
