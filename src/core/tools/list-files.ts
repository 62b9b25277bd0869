/** list_files: a folder tree down to a depth, honouring .gitignore. */
import { z } from "zod";
import { joinPath, normalizePath, resolveWorkspacePath } from "../paths";
import type { FileType, WorkspaceFs } from "../ports";
import { IgnoreRules } from "./ignore-rules";
import { note } from "./output";
import { fsRuleSource, statFollow } from "./file-access";
import { defineTool, ToolError } from "./types";

export const MAX_LIST_ENTRIES = 500;
const SKIPPED = new Set([".git", "node_modules"]);

const schema = z.object({
  path: z.string().optional().describe('Folder to list, relative to the workspace root. Default "." (the root).'),
  depth: z.number().int().min(1).max(10).optional().describe("How many folder levels to show. Default 2."),
});

function byName(a: [string, FileType], b: [string, FileType]): number {
  const da = a[1] === "directory" ? 0 : 1;
  const db = b[1] === "directory" ? 0 : 1;
  return da - db || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

interface Walk {
  fs: WorkspaceFs;
  maxDepth: number;
  lines: string[];
  truncated: boolean;
  signal: AbortSignal;
}

async function visible(fs: WorkspaceFs, dir: string, rules: IgnoreRules): Promise<Array<[string, FileType]>> {
  const entries = await fs.readDir(dir);
  return entries
    .filter(([name, type]) => !(SKIPPED.has(name) && type !== "file") && !rules.ignores(joinPath(dir, name), type === "directory"))
    .sort(byName);
}

async function walk(w: Walk, dir: string, rules: IgnoreRules, depth: number): Promise<void> {
  const entries = await visible(w.fs, dir, rules);
  const indent = "  ".repeat(depth - 1);
  for (const [name, type] of entries) {
    if (w.signal.aborted) throw new ToolError("list_files was cancelled.");
    if (w.lines.length >= MAX_LIST_ENTRIES) {
      w.truncated = true;
      return;
    }
    const abs = joinPath(dir, name);
    if (type !== "directory") {
      w.lines.push(`${indent}${name}${type === "symlink" ? "@" : ""}`);
      continue;
    }
    if (depth >= w.maxDepth) {
      const inner = await visible(w.fs, abs, await rules.enter(abs)).then(
        (e) => e.length,
        () => 0,
      );
      w.lines.push(`${indent}${name}/${inner ? ` (${inner} entr${inner === 1 ? "y" : "ies"} not shown)` : ""}`);
      continue;
    }
    w.lines.push(`${indent}${name}/`);
    await walk(w, abs, await rules.enter(abs), depth + 1);
  }
}

export const listFilesTool = defineTool({
  name: "list_files",
  description:
    "List a folder as a tree (folders end with /, symlinks with @), down to `depth` levels (default 2). " +
    "Skips .git, node_modules and files ignored by .gitignore. Use glob to find files by name pattern.",
  schema,
  permission: "Read",
  mutates: false,
  timeoutMs: 30_000,
  hookInput: (a) => ({ path: a.path ?? "." }),
  async run(args, ctx) {
    const given = args.path ?? ".";
    const { abs, rel } = await resolveWorkspacePath(ctx.fs, given);
    const st = await statFollow(ctx.fs, abs);
    if (!st) throw new ToolError(`Folder not found: "${given}". Call list_files without a path to see the workspace root.`);
    if (st.type !== "directory") {
      throw new ToolError(`"${rel}" is a file, not a folder. Call read_file with path="${rel}" to read it.`);
    }
    const depth = args.depth ?? 2;
    const root = normalizePath(ctx.fs.root);
    const rules = await IgnoreRules.forDir(fsRuleSource(ctx.fs), root, abs);
    const w: Walk = { fs: ctx.fs, maxDepth: depth, lines: [], truncated: false, signal: ctx.signal };
    await walk(w, abs, rules, 1);
    const header = `${rel === "." ? "Workspace root" : rel + "/"} (depth ${depth}):`;
    const body = w.lines.length ? w.lines : ["(empty folder)"];
    const parts = [header, ...body];
    if (w.truncated) {
      parts.push(
        note(
          `Listing stopped at ${MAX_LIST_ENTRIES} entries. Call list_files on a sub-folder (path="<folder>") ` +
            "or with a smaller depth, or use glob with a pattern, to see the rest.",
        ),
      );
    }
    return { text: parts.join("\n"), meta: { path: rel, entries: w.lines.length, truncated: w.truncated } };
  },
});
