/** list_files: a folder tree down to a depth, honouring .gitignore. */
import { z } from "zod";
import { folderOf, joinPath, normalizePath, resolveWorkspacePath, searchRoots, workspaceFolders } from "../paths";
import type { FileType, WorkspaceFs } from "../ports";
import { IgnoreRules } from "./ignore-rules";
import { note } from "./output";
import { fsRuleSource, hiddenNote, readablePaths, statFollow } from "./file-access";
import { defineTool, field, ToolError, type ToolContext } from "./types";
import { builtinSchema } from "./schema-table";

export const MAX_LIST_ENTRIES = 500;
const SKIPPED = new Set([".git", "node_modules"]);

const schema = builtinSchema("list_files", () =>
  z.object({
    path: z.string().optional().describe("Folder to list (default: the workspace)."),
    depth: z.number().int().min(1).max(10).optional().describe("Folder levels to show (default 2)."),
  }),
);

function byName(a: [string, FileType], b: [string, FileType]): number {
  const da = a[1] === "directory" ? 0 : 1;
  const db = b[1] === "directory" ? 0 : 1;
  return da - db || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

interface Walk {
  fs: WorkspaceFs;
  access: ToolContext["access"];
  /** Entries left out because a deny rule covers them. */
  hidden: number;
  maxDepth: number;
  lines: string[];
  truncated: boolean;
  signal: AbortSignal;
}

async function visible(w: Pick<Walk, "fs" | "access" | "hidden">, dir: string, rules: IgnoreRules): Promise<Array<[string, FileType]>> {
  const entries = (await w.fs.readDir(dir)).filter(([name, type]) => !(SKIPPED.has(name) && type !== "file") && !rules.ignores(joinPath(dir, name), type === "directory"));
  const { kept, hidden } = await readablePaths(
    w,
    entries.map(([name]) => joinPath(dir, name)),
  );
  w.hidden += hidden;
  return entries.filter(([name]) => kept.has(joinPath(dir, name))).sort(byName);
}

async function walk(w: Walk, dir: string, rules: IgnoreRules, depth: number): Promise<void> {
  const entries = await visible(w, dir, rules);
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
      const inner = await visible({ ...w, hidden: 0 }, abs, await rules.enter(abs)).then(
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
  description: "List a folder as a tree (folders end with /, symlinks with @), skipping .git, node_modules and files .gitignore ignores.",
  deferred: true,
  brief: "list a folder as a tree",
  schema,
  permission: "Read",
  permissionClass: "path",
  capabilities: { reads: true },
  kind: "search",
  pathArgs: ["path"],
  summarize: (i) => field(i, "path") ?? ".",
  timeoutMs: 30_000,
  hookInput: (a) => ({ path: a.path ?? "." }),
  async run(args, ctx) {
    const { abs, rel } = await resolveWorkspacePath(ctx.fs, args.path ?? ".");
    const st = await statFollow(ctx.fs, abs);
    if (!st) throw new ToolError(`Folder not found: "${rel}". Call list_files without a path to see the workspace root.`);
    if (st.type !== "directory") {
      throw new ToolError(`"${rel}" is a file, not a folder. Call read_file with path="${rel}" to read it.`);
    }
    const depth = args.depth ?? 2;
    const w: Walk = { fs: ctx.fs, access: ctx.access, hidden: 0, maxDepth: depth, lines: [], truncated: false, signal: ctx.signal };
    const roots = searchRoots(ctx.fs, abs, rel);
    if (roots.length > 1) {
      // The whole multi-root workspace: its folders head the listing, each shown `depth` levels deep.
      w.maxDepth = depth + 1;
      for (const folder of workspaceFolders(ctx.fs)) {
        const root = normalizePath(folder.root);
        w.lines.push(`${folder.name}/ (${root})`);
        await walk(w, root, await IgnoreRules.forDir(fsRuleSource(ctx.fs), root, root), 2);
      }
    } else {
      const root = normalizePath(folderOf(ctx.fs, abs)?.root ?? ctx.fs.root);
      await walk(w, abs, await IgnoreRules.forDir(fsRuleSource(ctx.fs), root, abs), 1);
    }
    const header = `${rel === "." ? (roots.length > 1 ? "Workspace folders" : "Workspace root") : rel + "/"} (depth ${depth}):`;
    const body = w.lines.length ? w.lines : ["(empty folder)"];
    const parts = [header, ...body];
    if (w.hidden) parts.push(note(hiddenNote(w.hidden, "entry", "entries")));
    if (w.truncated) {
      parts.push(note(`Listing stopped at ${MAX_LIST_ENTRIES} entries. Call list_files on a sub-folder (path="<folder>") ` + "or with a smaller depth, or use glob with a pattern, to see the rest."));
    }
    return { text: parts.join("\n"), meta: { path: rel, entries: w.lines.length, truncated: w.truncated, ...(w.hidden ? { hidden: w.hidden } : {}) } };
  },
});
