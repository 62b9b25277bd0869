/**
 * The mode's default decision, used when no rule decides (and as the whole gate until a
 * permission engine is configured): reads are allowed; edits ask in `default`, are allowed in
 * `acceptEdits`; anything else that changes things asks; `plan` refuses changes; bypass allows.
 */
import type { ToolDefinition } from "../tools/types";
import type { PermissionDecision, PermissionMode } from "./types";

export const RESTRICTED_REASON =
  "Restricted Mode: this workspace is not trusted, so Yoke does not write files or run commands here. Tell the user; they can trust the workspace (\"Workspaces: Manage Workspace Trust\") if the task needs it.";

const EDIT_PERMISSIONS: ReadonlySet<string> = new Set(["Edit", "Write", "TodoWrite"]);

export function defaultDecision(def: Pick<ToolDefinition, "permission" | "mutates" | "name">, mode: PermissionMode): PermissionDecision {
  if (!def.mutates || def.permission === "TodoWrite") return { decision: "allow", by: "mode", reason: `${def.name} does not change anything`, rule: null };
  switch (mode) {
    case "bypassPermissions":
      return { decision: "allow", by: "mode", reason: "bypassPermissions mode", rule: null };
    case "plan":
      return { decision: "deny", by: "mode", reason: "plan mode is on: no edits or commands until the user approves the plan", rule: null };
    case "acceptEdits":
      return EDIT_PERMISSIONS.has(def.permission)
        ? { decision: "allow", by: "mode", reason: "acceptEdits mode", rule: null }
        : { decision: "ask", by: "mode", reason: `${def.permission} asks in acceptEdits mode`, rule: null };
    default:
      return { decision: "ask", by: "mode", reason: `${def.permission} asks in default mode`, rule: null };
  }
}
