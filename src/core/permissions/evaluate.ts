/** One permission check: dispatches on the permission name. */
import type { PermissionCheck, PermissionDecision, PermissionMode } from "../loop/types";
import { decide, planModeReason, restrictedReason, ruleLabel, rulesFor, type EvalContext } from "./context";
import { evaluateBash } from "./evaluate-bash";
import { evaluateFileTool } from "./evaluate-file";
import { PATH_TOOLS } from "./rule-syntax";

/** Tools that change nothing outside the session: allowed in every mode unless a rule says otherwise. */
const SESSION_TOOLS = new Set(["TodoWrite", "Task", "Skill"]);

export async function evaluate(req: PermissionCheck, mode: PermissionMode, ctx: EvalContext): Promise<PermissionDecision> {
  const perm = req.permission;
  if (perm === "Bash") {
    const command = req.input.command;
    if (typeof command === "string" && command.trim() !== "") return evaluateBash(command, mode, ctx);
    if (command === undefined && req.input.id !== undefined) return ownCommand(req, ctx);
    return decide("ask", "mode", "Bash was called without a command, so Yoke cannot check it.");
  }
  if (PATH_TOOLS.has(perm)) return evaluateFileTool(req, mode, ctx);
  return evaluateOther(req, mode, ctx);
}

/** command_output / kill_command: they act on a command already approved. */
function ownCommand(req: PermissionCheck, ctx: EvalContext): PermissionDecision {
  const whole = rulesFor(ctx, "deny", "Bash").find((r) => r.specifier === undefined);
  if (whole) return decide("deny", "rule", `Denied by the rule ${ruleLabel(whole)}.`, whole);
  return decide("allow", "mode", `${req.tool} only reads or stops a command Yoke already started.`);
}

function evaluateOther(req: PermissionCheck, mode: PermissionMode, ctx: EvalContext): PermissionDecision {
  const perm = req.permission;
  const name = specifierTarget(req);
  const matches = (list: "deny" | "ask" | "allow") =>
    rulesFor(ctx, list, perm).find((r) => r.specifier === undefined || (name !== undefined && globMatch(r.specifier, name)));
  const deny = matches("deny");
  if (deny) return decide("deny", "rule", `Permission to use ${perm} is denied by the rule ${ruleLabel(deny)}.`, deny);
  const session = SESSION_TOOLS.has(perm);
  if (!session && !ctx.trusted) return decide("deny", "restricted", restrictedReason(`calling ${perm}`));
  if (!session && mode === "plan" && req.mutates) return decide("deny", "mode", planModeReason(`${perm}, which may change things`));
  const ask = matches("ask");
  if (ask) return decide("ask", "rule", `The rule ${ruleLabel(ask)} asks before using ${perm}.`, ask);
  const allow = matches("allow");
  if (allow) return decide("allow", "rule", `Allowed by the rule ${ruleLabel(allow)}.`, allow);
  if (session) return decide("allow", "mode", `${perm} changes nothing outside the session; allowed in every mode.`);
  if (mode === "bypassPermissions") return decide("allow", "mode", "bypassPermissions mode allows everything no deny rule forbids.");
  return decide("ask", "mode", `${perm} needs approval unless a rule allows it.`);
}

/** Task(agent) and Skill(name) specifiers name the subagent or skill. */
function specifierTarget(req: PermissionCheck): string | undefined {
  for (const key of ["subagent_type", "name", "skill"]) if (typeof req.input[key] === "string") return req.input[key] as string;
  return undefined;
}

function globMatch(pattern: string, value: string): boolean {
  const re = new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return re.test(value);
}
