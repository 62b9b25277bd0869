/**
 * The permission engine as a loop extension: Restricted Mode, then the gate (rules, modes, the
 * shell analysis) — or, without a configured gate, the mode's default — answer at tool.before.
 * It runs after the Claude hooks (which may rewrite the input first) and fails closed: if it
 * throws, the call asks.
 */
import type { Extension } from "../extensions/types";
import type { PermissionGate } from "../loop/types";
import { isReadOnly } from "../tools/types";
import { defaultDecision, RESTRICTED_REASON } from "./mode-default";

/** After hooks (which run at 100) and before observers. */
export const PERMISSION_PRIORITY = 0;

export function permissionExtension(opts: { gate?: PermissionGate }): Extension {
  return {
    name: "permissions",
    setup(api) {
      api.on(
        "tool.before",
        async ({ tool, args }) => {
          const readOnly = isReadOnly(tool.capabilities);
          if (!api.session.trusted && !readOnly) return { decision: { decision: "deny", by: "restricted", reason: RESTRICTED_REASON } };
          const d = opts.gate
            ? await opts.gate.check({ tool: tool.name, permission: tool.permission, input: tool.hookInput(args as never), mutates: !readOnly }, api.session.mode)
            : defaultDecision(tool, api.session.mode);
          // Only the mode's own default may be lifted by an explicit allow (a hook's); a protected write never.
          return { decision: { ...d, overridable: d.by === "mode" && d.decision === "ask" && !d.confine?.writable?.length } };
        },
        { priority: PERMISSION_PRIORITY, failClosed: true },
      );
    },
  };
}
