/**
 * The mode's default decision, used when no rule decides (and as the whole policy when no
 * permission engine is configured): read-only tools are allowed; edits ask in `default` and are
 * allowed in `acceptEdits`; anything else that changes things asks; `plan` refuses changes;
 * bypass allows. "Read-only" and "edit" come from the tool's own capabilities.
 */
import type { PermissionDecision, PermissionMode } from "../loop/types";
import { isReadOnly, type ToolCapabilities } from "../tools/types";

/** How a VS Code user trusts a workspace; the CLI names `yoke trust DIR` and `--trust` instead. */
export const VSCODE_TRUST_HINT = 'they can trust the workspace ("Workspaces: Manage Workspace Trust") if the task needs it';

export function restrictedModeReason(hint: string = VSCODE_TRUST_HINT): string {
  return `Restricted Mode: this workspace is not trusted, so Yoke does not write files or run commands here. Tell the user; ${hint}.`;
}

export const RESTRICTED_REASON = restrictedModeReason();

export function defaultDecision(def: { name: string; permission: string; capabilities: ToolCapabilities }, mode: PermissionMode): PermissionDecision {
  const caps = def.capabilities;
  if (isReadOnly(caps)) return { decision: "allow", by: "mode", reason: `${def.name} does not change anything`, rule: null };
  switch (mode) {
    case "bypassPermissions":
      return { decision: "allow", by: "mode", reason: "bypassPermissions mode", rule: null };
    case "plan":
      return { decision: "deny", by: "mode", reason: "plan mode is on: no edits or commands until the user approves the plan", rule: null };
    case "acceptEdits":
      return caps.writes && !caps.runs && !caps.network
        ? { decision: "allow", by: "mode", reason: "acceptEdits mode", rule: null }
        : { decision: "ask", by: "mode", reason: `${def.permission} asks in acceptEdits mode`, rule: null };
    default:
      return { decision: "ask", by: "mode", reason: `${def.permission} asks in default mode`, rule: null };
  }
}
