/** glob: files whose path matches a glob pattern, most recently modified first. */
import { z } from "zod";
import { displayPath, folderOf, normalizePath, resolveWorkspacePath, searchRoots, workspaceFolders } from "../paths";
import type { WorkspaceFs } from "../ports";
import { hiddenNote, readablePaths, statFollow } from "./file-access";
import { note } from "./output";
import { searchSummary } from "./cards";
import { defineTool, ToolError } from "./types";
import { builtinSchema } from "./schema-table";

export const MAX_GLOB_RESULTS = 200;
/** Matches ranked by modification time at most: the search stops at the next one (the first ones found are ranked). */
export const MAX_GLOB_RANKED = 2_000;
/** The search stops here and answers with what it found (the tool's own timeout is 30 s). */
export const GLOB_TIME_LIMIT_MS = 20_000;

const schema = builtinSchema("glob", () =>
  z.object({
    pattern: z.string().min(1).describe('Relative to `path`; without a "/" it matches file names at any depth.'),
    path: z.string().optional().describe("Folder to search (default: the workspace)."),
  }),
);

/** Strips a leading "./" or an absolute prefix equal to the search folder from a pattern. */
function relativePattern(pattern: string, base: string): string {
  let p = pattern.trim().replace(/\\/g, "/");
  if (p.startsWith(base + "/")) p = p.slice(base.length + 1);
  while (p.startsWith("./")) p = p.slice(2);
  return p;
}

/** Across the folders of a multi-root workspace, a pattern that starts with a folder's name searches only that folder. */
function patternPerRoot(fs: WorkspaceFs, pattern: string, roots: string[]): Array<{ path: string; pattern: string }> {
  if (roots.length < 2) return roots.map((path) => ({ path, pattern }));
  const p = pattern.trim().replace(/\\/g, "/").replace(/^\.\//, "");
  const named = workspaceFolders(fs).find((f) => p.startsWith(`${f.name}/`));
  if (named) return [{ path: normalizePath(named.root), pattern: p.slice(named.name.length + 1) }];
  return roots.map((path) => ({ path, pattern }));
}

export const globTool = defineTool({
  name: "glob",
  description: `Find files by glob pattern (e.g. "**/*.ts", "src/**/index.*"). Returns paths, most recently modified first, at most ${MAX_GLOB_RESULTS}. Honours .gitignore; skips .git.`,
  schema,
  permission: "Glob",
  permissionClass: "path",
  capabilities: { reads: true },
  kind: "search",
  pathArgs: ["path"],
  summarize: (i) => searchSummary(i),
  timeoutMs: 30_000,
  hookInput: (a) => ({ pattern: a.pattern, path: a.path ?? "." }),
  hookResponse: (_a, out) => {
    const meta = (out.meta ?? {}) as { paths?: string[]; truncated?: boolean };
    const filenames = meta.paths ?? [];
    return { filenames, numFiles: filenames.length, truncated: meta.truncated === true };
  },
  async run(args, ctx) {
    const { abs, rel } = await resolveWorkspacePath(ctx.fs, args.path ?? ".");
    const st = await statFollow(ctx.fs, abs);
    if (!st) throw new ToolError(`Folder not found: "${rel}". Call glob without a path to search the whole workspace.`);
    if (st.type !== "directory") throw new ToolError(`"${rel}" is a file, not a folder; glob needs a folder as path.`);
    const res: { paths: string[]; truncated: boolean; found: number; stopped?: "limit" | "time" } = { paths: [], truncated: false, found: 0 };
    for (const { path, pattern } of patternPerRoot(ctx.fs, args.pattern, searchRoots(ctx.fs, abs, rel))) {
      const left = MAX_GLOB_RESULTS - res.paths.length;
      if (left <= 0 || res.stopped) {
        res.truncated = true;
        res.stopped ??= "limit";
        break;
      }
      const maxRanked = MAX_GLOB_RANKED - res.found;
      const part = await ctx.search.glob({ pattern: relativePattern(pattern, path), path, maxResults: left, maxRanked, timeLimitMs: GLOB_TIME_LIMIT_MS, signal: ctx.signal });
      res.paths.push(...part.paths);
      res.truncated ||= part.truncated;
      res.found += part.found ?? part.paths.length;
      if (part.stopped) res.stopped = part.stopped;
    }
    const inside = res.paths.map((p) => normalizePath(p)).filter((p) => folderOf(ctx.fs, p));
    const { kept, hidden } = await readablePaths(ctx, inside);
    const paths = inside.filter((p) => kept.has(p)).map((p) => displayPath(ctx.fs, p));
    const where = rel === "." ? "the workspace" : `"${rel}"`;
    const meta = { paths, truncated: res.truncated, found: res.found, ...(res.stopped ? { stopped: res.stopped } : {}), ...(hidden ? { hidden } : {}) };
    const seconds = `${GLOB_TIME_LIMIT_MS / 1000} s`;
    if (paths.length === 0) {
      const left = hidden ? ` ${hiddenNote(hidden, "matching file")}` : "";
      if (res.stopped === "time") {
        return {
          text: `No files matching "${args.pattern}" found in ${where} before the search stopped at its time limit of ${seconds}: it did not cover all of ${where}. Give a path to search a smaller folder.${left}`,
          meta,
        };
      }
      return { text: `No files match "${args.pattern}" in ${where} (files ignored by .gitignore are not searched).${left}`, meta };
    }
    let head: string;
    let more: string | undefined;
    if (res.stopped === "time") {
      head = `${paths.length} of the ${res.found} files matching "${args.pattern}" found in ${where} before the search stopped at its time limit of ${seconds}, most recently modified first:`;
      more = `The search did not finish: files it had not reached may match too. Give a path or a more specific pattern to search less.`;
    } else if (res.stopped === "limit") {
      head = `${paths.length} of more than ${res.found} files matching "${args.pattern}" in ${where}, most recently modified first:`;
      more =
        `More than ${MAX_GLOB_RANKED} files match: the search stopped at the ${MAX_GLOB_RANKED}th it found, and these are the most recently ` +
        `modified of those (the files it had not reached were not looked at). Use a more specific pattern or a path to narrow the search.`;
    } else if (res.truncated) {
      head = `${paths.length} of ${res.found} files matching "${args.pattern}" in ${where}, most recently modified first:`;
      more = `${res.found - res.paths.length} more matching files are not shown. Use a more specific pattern or a path to narrow the search.`;
    } else {
      head = `${paths.length} ${paths.length === 1 ? "file matches" : "files match"} "${args.pattern}" in ${where}:`;
    }
    const parts = [head, ...paths];
    if (hidden) parts.push(note(hiddenNote(hidden, "matching file")));
    if (more) parts.push(note(more));
    return { text: parts.join("\n"), meta };
  },
});
