/** grep: regex search over the workspace; results grouped by file, lines in the hashline view. */
import { z } from "zod";
import { formatHashline, hashlineReady } from "../edit/hashline";
import { isInside, normalizePath, relativePath, resolveWorkspacePath } from "../paths";
import type { GrepLine } from "../ports";
import { statFollow } from "./file-access";
import { MAX_OUTPUT_BYTES, byteLength, cutLine, note, plural } from "./output";
import { defineTool, ToolError } from "./types";

export const MAX_GREP_MATCHES = 200;

const schema = z.object({
  pattern: z.string().min(1).describe("Regular expression (ripgrep syntax), e.g. \"function\\s+load\" or \"TODO\"."),
  path: z.string().optional().describe('File or folder to search, relative to the workspace root. Default "." (the root).'),
  glob: z
    .string()
    .optional()
    .describe('Only search files matching this glob, relative to `path`: "*.ts" matches at any depth, "src/**/*.tsx" only under src.'),
  ignore_case: z.boolean().optional().describe("Match case-insensitively. Default false."),
  context: z.number().int().min(0).max(10).optional().describe("Lines of context before and after each match. Default 0."),
});

function render(lines: GrepLine[], root: string): { blocks: string[]; files: number; matches: number } {
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
      prev = -1;
      blocks.push(`${isInside(root, path) ? relativePath(root, path) : path}:`);
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
  mutates: false,
  timeoutMs: 60_000,
  hookInput: (a) => ({ pattern: a.pattern, path: a.path ?? ".", glob: a.glob }),
  hookResponse: (_a, out) => {
    const meta = (out.meta ?? {}) as { matches?: number; files?: number };
    return { mode: "content", numFiles: meta.files ?? 0, filenames: [], content: out.text, numLines: meta.matches ?? 0 };
  },
  async run(args, ctx) {
    await hashlineReady();
    const given = args.path ?? ".";
    const { abs, rel } = await resolveWorkspacePath(ctx.fs, given);
    if (!(await statFollow(ctx.fs, abs))) {
      throw new ToolError(`Path not found: "${given}". Call grep without a path to search the whole workspace.`);
    }
    let res;
    try {
      res = await ctx.search.grep({
        pattern: args.pattern,
        path: abs,
        glob: args.glob,
        ignoreCase: args.ignore_case,
        context: args.context,
        maxMatches: MAX_GREP_MATCHES,
        signal: ctx.signal,
      });
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      throw new ToolError(`grep failed: ${(e as Error).message.trim()}. Check the pattern (ripgrep regex syntax; escape ( [ { . * + ? with \\) and try again.`);
    }
    const root = normalizePath(ctx.fs.root);
    const where = rel === "." ? "the workspace" : `"${rel}"`;
    const filter = args.glob ? ` (files matching "${args.glob}")` : "";
    if (res.lines.length === 0) {
      return { text: `No matches for /${args.pattern}/ in ${where}${filter}.`, meta: { matches: 0, files: 0 } };
    }
    const { blocks, files, matches } = render(res.lines, root);
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
    if (res.truncated || cut) {
      const why = cut ? `the output limit of ${MAX_OUTPUT_BYTES} bytes` : `${MAX_GREP_MATCHES} matching lines`;
      parts.push(note(`Results stop at ${why}. Narrow the search with path=, glob= or a more specific pattern to see the rest.`));
    }
    return { text: parts.join("\n"), meta: { matches, files, truncated: res.truncated || cut } };
  },
});
