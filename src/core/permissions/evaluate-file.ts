/** Read, Edit, Write, Glob and Grep: path rules, then the mode's default. */
import type { PermissionCheck, PermissionDecision, PermissionMode } from "../loop/types";
import { toolPathText } from "../paths";
import { checkPath, decide, ignoreFileHint, matchPathRule, planModeReason, restrictedReason, ruleLabel, showPath, type CheckedPath, type EvalContext } from "./context";
import { TOOL_PERMISSIONS } from "./tool-permissions";

/** Path permissions whose tools only read (Read, Glob, Grep), from the tools' capabilities. */
const READ_CLASS = TOOL_PERMISSIONS.reading;

/** The paths a file tool call touches, as written. */
export function pathsOf(req: PermissionCheck): string[] {
  const input = req.input;
  const str = (k: string) => (typeof input[k] === "string" && (input[k] as string) !== "" ? (input[k] as string) : undefined);
  // Read exactly as the file tools read it (trimmed, `\` as `/`): the path checked is the path opened.
  const given = str("file_path") ?? str("path") ?? str("notebook_path");
  const base = given === undefined ? undefined : toolPathText(given);
  if (req.permission === "Glob" || req.permission === "Grep") {
    const dir = base ?? ".";
    const out = [dir];
    for (const key of ["pattern", "glob"]) {
      const pat = req.permission === "Grep" && key === "pattern" ? undefined : str(key);
      if (pat) {
        const prefix = staticPrefix(pat);
        if (prefix) out.push(prefix.startsWith("/") || prefix.startsWith("~") ? prefix : `${dir}/${prefix}`);
      }
    }
    return out;
  }
  if (base !== undefined) return [base];
  return READ_CLASS.has(req.permission) ? ["."] : [];
}

/** The leading folders of a glob pattern, before the first wildcard. */
function staticPrefix(pattern: string): string {
  const segs = pattern.split("/");
  const fixed: string[] = [];
  for (const s of segs) {
    if (/[*?[{]/.test(s)) break;
    fixed.push(s);
  }
  if (fixed.length === segs.length) fixed.pop();
  return fixed.join("/") || (pattern.startsWith("/") ? "/" : "");
}

export async function evaluateFileTool(req: PermissionCheck, mode: PermissionMode, ctx: EvalContext): Promise<PermissionDecision> {
  const perm = req.permission;
  const reading = READ_CLASS.has(perm);
  const written = pathsOf(req);
  if (written.length === 0) return decide("ask", "mode", `${perm} was called without a file path, so Yoke cannot check it.`);
  const paths = await Promise.all(written.map((w) => checkPath(ctx, ctx.cwd, w)));

  for (const p of paths) {
    const rule = matchPathRule(ctx, "deny", perm, p);
    if (rule) return decide("deny", "rule", `Permission to ${verb(perm)} ${showPath(ctx, p)} is denied by the rule ${ruleLabel(rule)}.${ignoreFileHint(rule)}`, rule);
  }
  if (!reading && !ctx.trusted) return decide("deny", "restricted", restrictedReason(`${verb(perm)} files`));
  if (!reading && mode === "plan") return decide("deny", "mode", planModeReason(`${verb(perm)} ${showPath(ctx, paths[0]!)}`));
  for (const p of paths) {
    const rule = matchPathRule(ctx, "ask", perm, p);
    if (rule) return decide("ask", "rule", `The rule ${ruleLabel(rule)} asks before ${verbIng(perm)} ${showPath(ctx, p)}.`, rule);
  }
  if (!reading) {
    // Protected paths run code later (git hooks, editor tasks, agent settings...): every mode asks, whatever the allow rules say.
    // A workspace's protected path is also guarded under another name it has (the target of a
    // `.vscode -> cfg` link), which the name-based sensitivity cannot see.
    const guarded = paths.find((p) => p.sensitive?.protected || p.sensitive?.kind === "config" || p.protected);
    if (guarded) return decide("ask", "mode", `Changing ${showPath(ctx, guarded)} needs approval in every mode: ${guarded.sensitive?.protected ?? guarded.protected?.why ?? guarded.sensitive?.why}.`);
  }
  const allowRules = paths.map((p) => matchPathRule(ctx, "allow", perm, p));
  if (allowRules.every((r) => r)) return decide("allow", "rule", `Allowed by the rule ${ruleLabel(allowRules[0]!)}.`, allowRules[0]);

  const problem = (p: CheckedPath) =>
    !p.inside
      ? `${showPath(ctx, p)} is outside the workspace`
      : p.sensitive && (reading ? p.sensitive.kind === "secret" : true)
        ? `${showPath(ctx, p)} is a sensitive file (${p.sensitive.why})`
        : undefined;
  const issues = paths.map((p, i) => (allowRules[i] ? undefined : problem(p))).filter((x): x is string => !!x);
  if (mode === "bypassPermissions") return decide("allow", "mode", "bypassPermissions mode allows everything no deny rule forbids.");
  if (reading) {
    if (issues.length === 0) return decide("allow", "mode", `Reading inside the workspace is allowed in ${mode} mode.`);
    return decide("ask", "mode", `${issues.join("; ")}, so reading it needs approval.`);
  }
  if (mode === "acceptEdits") {
    if (issues.length === 0) return decide("allow", "mode", "acceptEdits mode allows edits inside the workspace.");
    return decide("ask", "mode", `${issues.join("; ")}, so ${verbIng(perm)} it needs approval even in acceptEdits mode.`);
  }
  const extra = issues.length ? ` (${issues.join("; ")})` : "";
  return decide("ask", "mode", `${capitalise(verbIng(perm))} files needs approval in default mode${extra}.`);
}

function verb(perm: string): string {
  return perm === "Edit" ? "edit" : perm === "Write" ? "write" : perm === "Glob" || perm === "Grep" ? "search" : "read";
}

function verbIng(perm: string): string {
  return perm === "Edit" ? "editing" : perm === "Write" ? "writing" : perm === "Glob" || perm === "Grep" ? "searching" : "reading";
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
