/** glob: files whose path matches a glob pattern, most recently modified first. */
import { z } from "zod";
import { isInside, normalizePath, relativePath, resolveWorkspacePath } from "../paths";
import { statFollow } from "./file-access";
import { note } from "./output";
import { defineTool, ToolError } from "./types";

export const MAX_GLOB_RESULTS = 200;

const schema = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('Glob pattern, relative to `path`, e.g. "**/*.ts" or "src/**/*.test.ts". Without a "/" it matches file names at any depth.'),
  path: z.string().optional().describe('Folder to search in, relative to the workspace root. Default "." (the root).'),
});

/** Strips a leading "./" or an absolute prefix equal to the search folder from a pattern. */
function relativePattern(pattern: string, base: string): string {
  let p = pattern.trim().replace(/\\/g, "/");
  if (p.startsWith(base + "/")) p = p.slice(base.length + 1);
  while (p.startsWith("./")) p = p.slice(2);
  return p;
}

export const globTool = defineTool({
  name: "glob",
  description:
    "Find files by glob pattern (e.g. \"**/*.ts\", \"src/**/index.*\"). Returns workspace-relative paths, most recently " +
    `modified first, at most ${MAX_GLOB_RESULTS}. Honours .gitignore; skips .git.`,
  schema,
  permission: "Glob",
  mutates: false,
  timeoutMs: 30_000,
  hookInput: (a) => ({ pattern: a.pattern, path: a.path ?? "." }),
  hookResponse: (_a, out) => {
    const meta = (out.meta ?? {}) as { paths?: string[]; truncated?: boolean };
    const filenames = meta.paths ?? [];
    return { filenames, numFiles: filenames.length, truncated: meta.truncated === true };
  },
  async run(args, ctx) {
    const given = args.path ?? ".";
    const { abs, rel } = await resolveWorkspacePath(ctx.fs, given);
    const st = await statFollow(ctx.fs, abs);
    if (!st) throw new ToolError(`Folder not found: "${given}". Call glob without a path to search the whole workspace.`);
    if (st.type !== "directory") throw new ToolError(`"${rel}" is a file, not a folder; glob needs a folder as path.`);
    const pattern = relativePattern(args.pattern, abs);
    const res = await ctx.search.glob({ pattern, path: abs, maxResults: MAX_GLOB_RESULTS, signal: ctx.signal });
    const root = normalizePath(ctx.fs.root);
    const paths = res.paths.map((p) => normalizePath(p)).filter((p) => isInside(root, p)).map((p) => relativePath(root, p));
    const where = rel === "." ? "the workspace" : `"${rel}"`;
    if (paths.length === 0) {
      return { text: `No files match "${args.pattern}" in ${where} (files ignored by .gitignore are not searched).`, meta: { paths } };
    }
    const count = `${paths.length}${res.truncated ? "+" : ""}`;
    const verb = paths.length === 1 && !res.truncated ? "file matches" : "files match";
    const parts = [`${count} ${verb} "${args.pattern}" in ${where}:`, ...paths];
    if (res.truncated) {
      parts.push(note(`Only the ${MAX_GLOB_RESULTS} most recently modified matches are shown. Use a more specific pattern or a path to narrow the search.`));
    }
    return { text: parts.join("\n"), meta: { paths, truncated: res.truncated } };
  },
});
