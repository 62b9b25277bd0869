/** grep: regex search over the workspace; results grouped by file, lines in the hashline view. */
import { z } from "zod";
import { formatHashline, hashlineReady } from "../edit/hashline";
import { displayPath, folderOf, normalizePath, resolveWorkspacePath, searchRoots } from "../paths";
import { isPathChanged, type GrepLine, type WorkspaceFs } from "../ports";
import { hiddenNote, pathChangedText, readablePaths, statFollow } from "./file-access";
import { MAX_OUTPUT_BYTES, byteLength, cutLine, note, plural } from "./output";
import { searchSummary } from "./cards";
import { defineTool, ToolError, type ToolDefinition } from "./types";
import { builtinSchema } from "./schema-table";

export const MAX_GREP_MATCHES = 200;
/** The search stops here and answers with what it found (the tool's own timeout is 60 s). */
export const GREP_TIME_LIMIT_MS = 45_000;

const schema = builtinSchema("grep", () =>
  z.object({
    pattern: z.string().min(1),
    path: z.string().optional().describe("File or folder to search (default: the workspace)."),
    glob: z.string().optional().describe('Only search files matching this glob, relative to `path`: "*.ts" matches at any depth, "src/**/*.tsx" only under src.'),
    ignore_case: z.boolean().optional(),
    context: z.number().int().min(0).max(10).optional().describe("Lines shown before and after each match."),
  }),
);

function render(lines: GrepLine[], show: (abs: string) => string): { blocks: string[]; files: number; matches: number } {
  const blocks: string[] = [];
  let files = 0;
  let matches = 0;
  let file = "";
  let prev = -1;
  for (const l of lines) {
    const path = normalizePath(l.path);
    if (path !== file) {
      file = path;
      files++;
      blocks.push(`${show(path)}:`);
    } else if (prev >= 0 && l.line > prev + 1) {
      blocks.push("--");
    }
    prev = l.line;
    if (l.match) matches++;
    blocks.push(cutLine(formatHashline(l.line, l.text)));
  }
  return { blocks, files, matches };
}

/** Concurrent checked reads of the files grep verifies. */
const CHECK_PARALLEL = 8;

/**
 * The lines whose text is what the file at their path holds, read without following links
 * (WorkspaceFs.readChecked, as read_file reads); a file with any line that differs — or that
 * cannot be read that way — is left out whole. ripgrep opens each file it listed by name, so a
 * link a running command swaps in between the listing and the open is followed: a background
 * command exchanging a folder of ordinary files with one of links to a Read-denied `.env` put the
 * secret into grep's result under the ordinary names (red team 21-host). What grep shows is now
 * only what the checked file says at that line.
 */
async function checkedLines(fs: WorkspaceFs, lines: readonly GrepLine[]): Promise<{ lines: GrepLine[]; changed: number }> {
  const byPath = new Map<string, GrepLine[]>();
  for (const l of lines) {
    const p = normalizePath(l.path);
    const have = byPath.get(p);
    if (have) have.push(l);
    else byPath.set(p, [l]);
  }
  const paths = [...byPath.keys()];
  const bad = new Set<string>();
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const p = paths[next++]!;
      if (!(await fileHolds(fs, p, byPath.get(p)!))) bad.add(p);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHECK_PARALLEL, paths.length) }, worker));
  return { lines: bad.size ? lines.filter((l) => !bad.has(normalizePath(l.path))) : [...lines], changed: bad.size };
}

/**
 * Does the file at `path` hold each of `lines`? Only the lines' own bytes are read where the
 * searcher said where they are (a multi-GB file with one match is not read whole): each at its
 * offset, a whole line (a newline or the file's edge on either side), decoded as ripgrep decodes.
 * Else — or where those bytes do not say it (a UTF-16 file: ripgrep's offsets are of its UTF-8
 * transcoding) — the whole file, as read_file reads it.
 */
async function fileHolds(fs: WorkspaceFs, path: string, lines: readonly GrepLine[]): Promise<boolean> {
  if (fs.readCheckedBytes && lines.every((l) => l.bytes)) {
    // From the byte before each line to past its newline, for the offsets as given and 3 bytes on
    // (ripgrep drops a UTF-8 byte order mark and counts from after it), and the file's first 3 bytes.
    const ranges = [{ offset: 0, length: 3 }, ...lines.map((l) => ({ offset: Math.max(0, l.bytes!.offset - 1), length: l.bytes!.length + 5 }))];
    const got = await fs.readCheckedBytes(path, ranges).then(
      (r) => r,
      () => null,
    );
    if (!got) return false;
    const head = got.chunks[0]!;
    const utf16 = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
    if (!utf16) {
      const shift = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
      const ok = lines.every((l, i) => {
        const { offset, length } = l.bytes!;
        const chunk = got.chunks[i + 1]!;
        const start = offset + shift - Math.max(0, offset - 1);
        const at = offset + shift;
        const whole = (at === shift || chunk[start - 1] === 0x0a) && (chunk[start + length] === 0x0a || at + length === got.stat.size);
        return whole && start + length <= chunk.length && LINE_DECODER.decode(chunk.subarray(start, start + length)) === l.text;
      });
      if (ok) return true;
    }
  }
  const text = await fs.readChecked(path).then(
    (r) => fileLines(r.data),
    () => null,
  );
  return !!text && lines.every((l) => text[l.line - 1] === l.text);
}

/** One line's bytes decoded as the whole file's are (a U+FEFF inside the file is kept). */
const LINE_DECODER = new TextDecoder("utf-8", { ignoreBOM: true });

/** A file's lines as ripgrep reports them: decoded as it decodes (a UTF-8 BOM dropped, UTF-16 by its BOM), split on newlines. */
function fileLines(data: Uint8Array): string[] {
  let text: string;
  if (data[0] === 0xff && data[1] === 0xfe) text = new TextDecoder("utf-16le").decode(data.subarray(2));
  else if (data[0] === 0xfe && data[1] === 0xff) text = new TextDecoder("utf-16be").decode(data.subarray(2));
  else {
    text = new TextDecoder().decode(data);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  }
  return text.split("\n");
}

function changedNote(n: number): string {
  return `${plural(n, "file")} left out: ${n === 1 ? "it" : "they"} changed while grep searched (a symbolic link appeared at the name, or the content changed), so the lines found are not known to be the file's. Search again when no command is changing ${n === 1 ? "it" : "them"}.`;
}

/** What the model is told; edit_file, which takes the anchors, is named only where the session has it (not beside apply_patch). */
const describe = (edit = true) =>
  "Search file contents with a regular expression (ripgrep), honouring .gitignore. Matching lines are shown as " +
  `LINE#HASH|text${edit ? " (the anchors edit_file takes)" : ""}, grouped by file; the result says when it stopped at a limit.`;

export const grepTool = defineTool({
  name: "grep",
  description: describe(),
  trimmed: (kept): ToolDefinition => (kept.some((t) => t.name === "edit_file") ? grepTool : { ...grepTool, description: describe(false) }),
  schema,
  permission: "Grep",
  permissionClass: "path",
  capabilities: { reads: true },
  kind: "search",
  pathArgs: ["path"],
  summarize: (i) => searchSummary(i),
  timeoutMs: 60_000,
  hookInput: (a) => ({ pattern: a.pattern, path: a.path ?? ".", glob: a.glob }),
  hookResponse: (_a, out) => {
    const meta = (out.meta ?? {}) as { matches?: number; files?: number };
    return { mode: "content", numFiles: meta.files ?? 0, filenames: [], content: out.text, numLines: meta.matches ?? 0 };
  },
  async run(args, ctx) {
    await hashlineReady();
    const { abs, rel } = await resolveWorkspacePath(ctx.fs, args.path ?? ".");
    if (!(await statFollow(ctx.fs, abs))) {
      throw new ToolError(`Path not found: "${rel}". Call grep without a path to search the whole workspace.`);
    }
    const res: { lines: GrepLine[]; truncated: boolean; timedOut: boolean } = { lines: [], truncated: false, timedOut: false };
    const started = Date.now();
    for (const path of searchRoots(ctx.fs, abs, rel)) {
      const left = MAX_GREP_MATCHES - res.lines.filter((l) => l.match).length;
      const timeLeft = GREP_TIME_LIMIT_MS - (Date.now() - started);
      if (left <= 0 || timeLeft <= 0 || res.timedOut) {
        res.truncated = true;
        res.timedOut ||= timeLeft <= 0;
        break;
      }
      try {
        // The path is canonical (prepared before the check): the searcher reads only what is really there.
        const within = folderOf(ctx.fs, path)?.root;
        const part = await ctx.search.grep({
          pattern: args.pattern,
          path,
          glob: args.glob,
          ignoreCase: args.ignore_case,
          context: args.context,
          maxMatches: left,
          timeLimitMs: timeLeft,
          signal: ctx.signal,
          ...(within ? { within: normalizePath(within) } : {}),
        });
        res.lines.push(...part.lines);
        res.truncated ||= part.truncated;
        res.timedOut ||= part.stopped === "time";
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        if (isPathChanged(e)) throw new ToolError(pathChangedText("grep", rel, e.detail, "read"));
        throw new ToolError(`grep failed: ${(e as Error).message.trim()}. Check the pattern (ripgrep regex syntax; escape ( [ { . * + ? with \\) and try again.`);
      }
    }
    const where = rel === "." ? "the workspace" : `"${rel}"`;
    const filter = args.glob ? ` (files matching "${args.glob}")` : "";
    const { kept, hidden } = await readablePaths(ctx, [...new Set(res.lines.map((l) => normalizePath(l.path)))]);
    const readable = hidden ? res.lines.filter((l) => kept.has(normalizePath(l.path))) : res.lines;
    const { lines, changed } = await checkedLines(ctx.fs, readable);
    const hiddenText = (hidden ? `\n${note(hiddenNote(hidden, "file"))}` : "") + (changed ? `\n${note(changedNote(changed))}` : "");
    const seconds = `${GREP_TIME_LIMIT_MS / 1000} s`;
    if (lines.length === 0) {
      const text = res.timedOut
        ? `No matches for /${args.pattern}/ found in ${where}${filter} before the search stopped at its time limit of ${seconds}: it did not cover all of ${where}. Give a path or glob to search less.${hiddenText}`
        : `No matches for /${args.pattern}/ in ${where}${filter}.${hiddenText}`;
      return { text, meta: { matches: 0, files: 0, ...(res.timedOut ? { truncated: true, stopped: "time" } : {}), ...(hidden ? { hidden } : {}) } };
    }
    const { blocks, files, matches } = render(lines, (p) => displayPath(ctx.fs, p));
    const out: string[] = [];
    let bytes = 0;
    let cut = false;
    for (const b of blocks) {
      const size = byteLength(b) + 1;
      if (bytes + size > MAX_OUTPUT_BYTES) {
        cut = true;
        break;
      }
      out.push(b);
      bytes += size;
    }
    const more = res.timedOut ? " (the search stopped early)" : res.truncated ? " (more exist)" : "";
    // The pattern is not echoed: it is in the call just above this result (a long alternation cost
    // as many tokens again in every later request); the scope searched is said, as it may be the default.
    const head = `${plural(matches, "matching line")}${more} in ${plural(files, "file")} (searched ${where}${args.glob ? `, files matching "${args.glob}"` : ""}):`;
    const parts = [head, ...out];
    if (hidden) parts.push(note(hiddenNote(hidden, "file")));
    if (changed) parts.push(note(changedNote(changed)));
    if (res.timedOut) {
      parts.push(
        note(
          `The search stopped at its time limit of ${seconds} before it had read every file: files it had not reached may match too. Narrow the search with path=, glob= or a more specific pattern.`,
        ),
      );
    } else if (res.truncated || cut) {
      const why = cut ? `the output limit of ${MAX_OUTPUT_BYTES} bytes` : `${MAX_GREP_MATCHES} matching lines`;
      parts.push(note(`Results stop at ${why}. Narrow the search with path=, glob= or a more specific pattern to see the rest.`));
    }
    const stopped = res.timedOut ? { stopped: "time" } : res.truncated ? { stopped: "limit" } : {};
    return { text: parts.join("\n"), meta: { matches, files, truncated: res.truncated || cut, ...stopped, ...(hidden ? { hidden } : {}) } };
  },
});
