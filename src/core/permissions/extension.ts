/**
 * The permission engine as a loop extension: Restricted Mode, then the gate (rules, modes, the
 * shell analysis) — or, without a configured gate, the mode's default — answer at tool.before.
 * It runs after the Claude hooks (which may rewrite the input first) and fails closed: if it
 * throws, the call asks.
 */
import type { Extension } from "../extensions/types";
import type { PermissionCheck, PermissionDecision, PermissionGate, PermissionMode } from "../loop/types";
import { resolveTouches } from "../tools/touches";
import { isReadOnly } from "../tools/types";
import { defaultDecision, restrictedModeReason } from "./mode-default";

/**
 * Last of the handlers that may change a call: after the hooks (100) and extensions at the default
 * priority (0), so the engine checks the input as they left it; a rewrite after it is ignored.
 */
export const PERMISSION_PRIORITY = -100;

export function permissionExtension(opts: { gate?: PermissionGate; restrictedHint?: string }): Extension {
  const restricted = restrictedModeReason(opts.restrictedHint);
  return {
    name: "permissions",
    setup(api) {
      api.on(
        "tool.before",
        async ({ tool, args }) => {
          const readOnly = isReadOnly(tool.capabilities);
          if (!api.session.trusted && !readOnly) return { decision: { decision: "deny", by: "restricted", reason: restricted } };
          const req = { tool: tool.name, permission: tool.permission, input: tool.hookInput(args), mutates: !readOnly };
          // A call that changes several files (a patch) is each file's call: the strictest answer counts.
          const touched = await resolveTouches(tool, args, api.session.services.fs);
          const bad = touched.find((t) => "error" in t);
          if (bad && "error" in bad) return { decision: { decision: "deny", by: "rule", reason: bad.error } };
          const reqs = touched.length ? touched.map((t) => ({ ...req, permission: t.permission, input: { file_path: "abs" in t ? t.abs : t.path } })) : [req];
          const one = (r: PermissionCheck, mode: PermissionMode) => (opts.gate ? opts.gate.check(r, mode) : Promise.resolve(defaultDecision(tool, mode)));
          const check = async (mode: PermissionMode) => strictest(await Promise.all(reqs.map((r) => one(r, mode))));
          const d = await check(api.session.mode);
          if (d.decision !== "ask") return { decision: d };
          // An explicit allow (a hook's) is as strong as bypassPermissions mode: it lifts this question
          // only if the engine would allow the call in that mode — never an ask rule, a protected
          // file, or a command it cannot analyse while a deny rule could apply.
          const bypass = api.session.mode === "bypassPermissions" ? d : await check("bypassPermissions");
          const liftable = bypass.decision === "allow" && !d.confine?.writable?.length;
          return { decision: { ...d, overridable: liftable, ...(liftable ? {} : { notLiftable: bypass.reason }) } };
        },
        { priority: PERMISSION_PRIORITY, failClosed: true },
      );
    },
  };
}

/** Of several decisions: the first deny, else the first ask, else the first allow. */
function strictest(ds: PermissionDecision[]): PermissionDecision {
  return ds.find((d) => d.decision === "deny") ?? ds.find((d) => d.decision === "ask") ?? ds[0]!;
}
