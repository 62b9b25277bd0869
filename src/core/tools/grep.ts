/** grep: regex search over the workspace; results grouped by file, lines in the hashline view. */
import { z } from "zod";
import { formatHashline, hashlineReady } from "../edit/hashline";
import { displayPath, folderOf, normalizePath, resolveWorkspacePath, searchRoots } from "../paths";
import { isPathChanged, type GrepLine } from "../ports";
import { hiddenNote, pathChangedText, readablePaths, statFollow } from "./file-access";
import { MAX_OUTPUT_BYTES, byteLength, cutLine, note, plural } from "./output";
import { searchSummary } from "./cards";
import { defineTool, ToolError } from "./types";

export const MAX_GREP_MATCHES = 200;

const schema = z.object({
  pattern: z.string().min(1).describe('Regular expression (ripgrep syntax), e.g. "function\\s+load" or "TODO".'),
  path: z.string().optional().describe('File or folder to search, relative to the workspace root. Default "." (the root).'),
  glob: z.string().optional().describe('Only search files matching this glob, relative to `path`: "*.ts" matches at any depth, "src/**/*.tsx" only under src.'),
  ignore_case: z.boolean().optional().describe("Match case-insensitively. Default false."),
  context: z.number().int().min(0).max(10).optional().describe("Lines of context before and after each match. Default 0."),
});

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

export const grepTool = defineTool({
  name: "grep",
  description:
    "Search file contents with a regular expression (ripgrep). Results are grouped by file; every line is shown as " +
    "LINE#HASH|text, so you can pass these anchors to edit_file directly. Honours .gitignore. " +
    `At most ${MAX_GREP_MATCHES} matching lines; narrow with path, glob or a more specific pattern.`,
  schema,
  permission: "Grep",
  capabilities: { reads: true },
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
    const res: { lines: GrepLine[]; truncated: boolean } = { lines: [], truncated: false };
    for (const path of searchRoots(ctx.fs, abs, rel)) {
      const left = MAX_GREP_MATCHES - res.lines.filter((l) => l.match).length;
      if (left <= 0) {
        res.truncated = true;
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
          signal: ctx.signal,
          ...(within ? { within: normalizePath(within) } : {}),
        });
        res.lines.push(...part.lines);
        res.truncated ||= part.truncated;
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        if (isPathChanged(e)) throw new ToolError(pathChangedText("grep", rel, e.detail, "read"));
        throw new ToolError(`grep failed: ${(e as Error).message.trim()}. Check the pattern (ripgrep regex syntax; escape ( [ { . * + ? with \\) and try again.`);
      }
    }
    const where = rel === "." ? "the workspace" : `"${rel}"`;
    const filter = args.glob ? ` (files matching "${args.glob}")` : "";
    const { kept, hidden } = await readablePaths(ctx, [...new Set(res.lines.map((l) => normalizePath(l.path)))]);
    const lines = hidden ? res.lines.filter((l) => kept.has(normalizePath(l.path))) : res.lines;
    const hiddenText = hidden ? `\n${note(hiddenNote(hidden, "file"))}` : "";
    if (lines.length === 0) {
      return { text: `No matches for /${args.pattern}/ in ${where}${filter}.${hiddenText}`, meta: { matches: 0, files: 0, ...(hidden ? { hidden } : {}) } };
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
    const head = `${plural(matches, "matching line")}${res.truncated ? " (more exist)" : ""} in ${plural(files, "file")} for /${args.pattern}/ in ${where}${filter}:`;
    const parts = [head, ...out];
    if (hidden) parts.push(note(hiddenNote(hidden, "file")));
    if (res.truncated || cut) {
      const why = cut ? `the output limit of ${MAX_OUTPUT_BYTES} bytes` : `${MAX_GREP_MATCHES} matching lines`;
      parts.push(note(`Results stop at ${why}. Narrow the search with path=, glob= or a more specific pattern to see the rest.`));
    }
    return { text: parts.join("\n"), meta: { matches, files, truncated: res.truncated || cut, ...(hidden ? { hidden } : {}) } };
  },
});
