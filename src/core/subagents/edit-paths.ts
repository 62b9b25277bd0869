/**
 * A custom agent whose edits are limited to some files (Roo Code's edit group with a `fileRegex`):
 * a call that would change a file outside them is refused, with the limit and the path named, so
 * the model can edit a matching file instead. Which calls edit which files is read from the tools'
 * own descriptions — a tool whose permission is an edit permission (Edit, Write) changes the files
 * its path arguments name, and any tool changes the files its `touches` name with an edit
 * permission — never from tool names. Commands are not limited (as in Roo Code, where fileRegex
 * limits the edit group only); the permission rules still decide them.
 */
import type { Extension, ExtensionDecision } from "../extensions/types";
import type { WorkspaceFs } from "../ports";
import type { ToolDefinition } from "../tools/types";
import { folderOf, relativePath } from "../paths";
import { resolveTouches } from "../tools/touches";
import { editAllowed, fileRegexLabel, type FileRegex } from "./file-regex";

export const EDIT_PATHS_EXTENSION = "edit-paths";

/** Roo's edit group in Yoke's permission names (GROUP_TOOLS.edit of roo-modes.ts). */
export const EDIT_PERMISSIONS: ReadonlySet<string> = new Set(["Edit", "Write"]);

/** Whose limit it is: the agent's name, where it was defined, and the files it may edit. */
export interface EditLimit {
  name: string;
  source: string;
  editPaths: readonly FileRegex[];
}

/**
 * The refusal of a call that would edit a file outside `agent`'s limit, or undefined when every
 * file it edits matches (or it edits none). One check for each way an agent's limit applies: the
 * agent run through `task` (editPathsExtension) and a prompt file running under the agent
 * (src/core/custom-commands).
 */
export async function editOutsideLimit(agent: EditLimit, tool: ToolDefinition, args: unknown, fs: WorkspaceFs): Promise<ExtensionDecision | undefined> {
  const limit = agent.editPaths.map(fileRegexLabel).join(" or ");
  const paths: string[] = [];
  if (EDIT_PERMISSIONS.has(tool.permission) && args && typeof args === "object") {
    for (const k of tool.pathArgs ?? []) {
      const v = (args as Record<string, unknown>)[k];
      if (typeof v === "string" && v) paths.push(v);
    }
  }
  const touched = (await resolveTouches(tool, args, fs)).filter((t) => EDIT_PERMISSIONS.has(t.permission));
  for (const t of touched) paths.push("abs" in t ? t.abs : t.path);
  if (!paths.length && !(EDIT_PERMISSIONS.has(tool.permission) && !tool.touches)) return undefined;
  const refuse = (why: string): ExtensionDecision => ({
    decision: "deny",
    by: "extension",
    rule: null,
    reason: `the "${agent.name}" agent (${agent.source}) may edit only files whose path matches ${limit}: ${why}. Edit a matching file, or say in your answer what should change there.`,
  });
  if (!paths.length) return refuse(`${tool.name} names no file it edits`);
  for (const p of paths) {
    const folder = folderOf(fs, p);
    if (!folder) return refuse(`${p} is outside the workspace`);
    const rel = relativePath(folder.root, p);
    const ok = editAllowed(agent.editPaths, rel);
    if (!ok.ok) return refuse(ok.why);
  }
  return undefined;
}

export function editPathsExtension(agent: EditLimit): Extension {
  return {
    name: EDIT_PATHS_EXTENSION,
    setup(api) {
      // After the hooks (100) and other extensions, just before the gate (-100): the paths checked are
      // the ones the call will open (a hook's rewrite comes first), and a refused call is never asked about.
      api.on(
        "tool.before",
        async ({ tool, args }) => {
          const decision = await editOutsideLimit(agent, tool, args, api.session.services.fs);
          return decision ? { decision } : undefined;
        },
        { priority: -90, failClosed: true },
      );
    },
  };
}
