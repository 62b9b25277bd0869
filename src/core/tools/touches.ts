/** The files a call changes besides its path arguments (ToolDefinition.touches), in canonical form. */
import { canonicalWorkspacePath } from "../paths";
import type { WorkspaceFs } from "../ports";
import type { ToolDefinition } from "./types";

export type Touched = { path: string; permission: string; abs: string } | { path: string; permission: string; error: string };

/** Each touched path resolved as the file tools resolve it (absolute, links below the folder resolved); a path that cannot be carries why. */
export async function resolveTouches(tool: ToolDefinition, args: unknown, fs: WorkspaceFs): Promise<Touched[]> {
  const list = tool.touches?.(args) ?? [];
  return Promise.all(
    list.map(async (t) => {
      try {
        return { ...t, abs: (await canonicalWorkspacePath(fs, t.path)).abs };
      } catch (err) {
        return { ...t, error: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
}
