/** Temp workspaces on the real disk, and a way to run tools through the registry as the loop does. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { NewEvent } from "../../src/core/events";
import type { Searcher, WorkspaceFs } from "../../src/core/ports";
import { silentLogger } from "../../src/core/ports";
import { ToolRegistry } from "../../src/core/tools/registry";
import { ToolError, type ToolContext, type ToolDefinition, type ToolOutput } from "../../src/core/tools/types";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";

export interface TempWorkspace {
  /** Real absolute path of the workspace root (symlinks such as /tmp -> /private/tmp resolved). */
  root: string;
  fs: WorkspaceFs;
  search: Searcher;
  /** Writes files (paths relative to the root; parent folders created). */
  write(files: Record<string, string | Uint8Array>): void;
  read(rel: string): string;
  exists(rel: string): boolean;
  /** A tool context with a fresh read state unless one is given. */
  context(over?: Partial<ToolContext>): ToolContext;
  /** Events the tools recorded through their contexts (the todo list, reviews). */
  recorded: NewEvent[];
  cleanup(): void;
}

/** Creates a workspace in a new temp folder, filled with `files`. */
export function createTempWorkspace(files: Record<string, string | Uint8Array> = {}, opts: { search?: Searcher } = {}): TempWorkspace {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-ws-")));
  const wfs = createNodeWorkspaceFs(root);
  const search = opts.search ?? createRipgrepSearcher();
  const ws: TempWorkspace = {
    root,
    fs: wfs,
    search,
    write(more) {
      for (const [rel, content] of Object.entries(more)) {
        const abs = path.join(root, rel);
        fs.mkdirSync(path.dirname(abs), { recursive: true });
        fs.writeFileSync(abs, content);
      }
    },
    read: (rel) => fs.readFileSync(path.join(root, rel), "utf8"),
    exists: (rel) => fs.existsSync(path.join(root, rel)),
    recorded: [],
    context: (over = {}) => ({
      fs: wfs,
      search,
      signal: new AbortController().signal,
      sessionId: "test-session",
      callId: "call-1",
      log: silentLogger,
      readState: new Map(),
      record: (e) => void ws.recorded.push(e),
      ...over,
    }),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
  ws.write(files);
  return ws;
}

/**
 * Validates and runs one tool call as the loop does: validation errors and ToolErrors come back
 * as `{isError: true, text}`; any other exception is rethrown (a bug).
 */
export async function callTool(tools: ToolDefinition[] | ToolRegistry, name: string, input: unknown, ctx: ToolContext): Promise<ToolOutput> {
  const registry = tools instanceof ToolRegistry ? tools : new ToolRegistry(tools);
  const v = registry.validate(name, input);
  if (!v.ok) return { text: v.error, isError: true };
  try {
    return await registry.get(name)!.run(v.args, ctx);
  } catch (e) {
    if (e instanceof ToolError) return { text: e.message, isError: true };
    throw e;
  }
}

/**
 * A temp folder (pushed on `temps` for the caller to remove) holding a workspace `ws` and a HOME of
 * its own `home` (so ~/.yoke approvals and caches are the test's). `files` are relative to the
 * workspace, or to the home when they start with "~/". `realpath`: the folder's real path (links
 * such as /tmp -> /private/tmp resolved).
 */
export function createWorkspaceWithHome(prefix: string, files: Record<string, string>, temps: string[], opts: { realpath?: boolean } = {}): { base: string; cwd: string; home: string } {
  const made = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const base = opts.realpath ? fs.realpathSync(made) : made;
  temps.push(base);
  const cwd = path.join(base, "ws");
  const home = path.join(base, "home");
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    const abs = rel.startsWith("~/") ? path.join(home, rel.slice(2)) : path.join(cwd, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text);
  }
  return { base, cwd, home };
}

/** Writes a file at an absolute path, creating its parent folders. */
export function writeWithParents(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}
