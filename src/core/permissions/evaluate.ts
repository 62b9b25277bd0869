/** One permission check: dispatches on the permission name. */
import type { PermissionCheck, PermissionDecision, PermissionMode } from "../loop/types";
import { decide, planModeReason, restrictedReason, ruleLabel, rulesFor, type EvalContext } from "./context";
import { evaluateBash } from "./evaluate-bash";
import { evaluateFileTool } from "./evaluate-file";
import { nameGlob, paramSpecifier, PATH_TOOLS, ruleAppliesTo } from "./rule-syntax";
import { TOOL_PERMISSIONS } from "./tool-permissions";

/** Tools that change nothing outside the session (they declare `permissionClass: "session"`): allowed in every mode unless a rule says otherwise. */
const SESSION_TOOLS = TOOL_PERMISSIONS.session;
/** Tools that run or control shell commands (`permissionClass: "command"`): Bash. */
const COMMAND_TOOLS = TOOL_PERMISSIONS.command;

/**
 * The decision for one call. After the tool's own check, three settings-wide rules apply, each only
 * ever stricter: bypassPermissions is read as default when disableBypassPermissionsMode is set; an
 * "allow" becomes "ask" where a setting Yoke could not read might have forbidden it (FailClosed);
 * in dontAsk mode (settings defaultMode "dontAsk", while the session is in default mode) an "ask"
 * becomes "deny".
 */
export async function evaluate(req: PermissionCheck, requested: PermissionMode, ctx: EvalContext): Promise<PermissionDecision> {
  const { settings } = ctx;
  const mode = requested === "bypassPermissions" && settings.bypassDisabled ? "default" : requested;
  let decision = await evaluateTool(req, mode, ctx);
  if (mode !== requested && decision.decision !== "deny") {
    decision = { ...decision, reason: `${decision.reason} (bypassPermissions mode is disabled by ${settings.bypassDisabled!.label}, so default mode applies.)` };
  }
  if (decision.decision === "allow" && !isOwnCommand(req)) {
    const unread = settings.failClosed.find((f) => ruleAppliesTo(f.tool, req.permission));
    if (unread) decision = decide("ask", "mode", `Yoke asks because ${unread.why}, so it cannot tell whether this call is allowed; fix the settings to stop these questions.`);
  }
  if (decision.decision === "ask" && mode === "default" && settings.defaultMode?.dontAsk) {
    decision = { ...decision, decision: "deny", reason: `${decision.reason} Yoke is in dontAsk mode (${settings.defaultMode.source.label}), which denies whatever would need approval.` };
  }
  return decision;
}

function isOwnCommand(req: PermissionCheck): boolean {
  return COMMAND_TOOLS.has(req.permission) && req.input.command === undefined && req.input.id !== undefined;
}

async function evaluateTool(req: PermissionCheck, mode: PermissionMode, ctx: EvalContext): Promise<PermissionDecision> {
  const perm = req.permission;
  if (COMMAND_TOOLS.has(perm)) {
    const command = req.input.command;
    if (typeof command === "string" && command.trim() !== "") return evaluateBash(command, mode, ctx);
    if (command === undefined && req.input.id !== undefined) return ownCommand(req, ctx);
    return decide("ask", "mode", `${perm} was called without a command, so Yoke cannot check it.`);
  }
  if (PATH_TOOLS.has(perm)) return evaluateFileTool(req, mode, ctx);
  return evaluateOther(req, mode, ctx);
}

/** command_output / kill_command: they act on a command already approved. */
function ownCommand(req: PermissionCheck, ctx: EvalContext): PermissionDecision {
  const whole = rulesFor(ctx, "deny", req.permission).find((r) => r.specifier === undefined);
  if (whole) return decide("deny", "rule", `Denied by the rule ${ruleLabel(whole)}.`, whole);
  return decide("allow", "mode", `${req.tool} only reads or stops a command Yoke already started.`);
}

function evaluateOther(req: PermissionCheck, mode: PermissionMode, ctx: EvalContext): PermissionDecision {
  const perm = req.permission;
  const name = specifierTarget(req);
  const matches = (list: "deny" | "ask" | "allow") =>
    rulesFor(ctx, list, perm).find((r) => {
      if (r.specifier === undefined) return true;
      // Deny and ask rules may match an input parameter, `Task(model:opus)` (Claude Code's Tool(param:value)).
      const param = list === "allow" ? undefined : paramSpecifier(r.specifier);
      if (param) {
        // A parameter the call leaves out never matches.
        const value = req.input[param.param];
        if ((typeof value === "string" || typeof value === "number" || typeof value === "boolean") && globMatch(param.value, String(value))) return true;
      }
      // A sub-agent's or skill's name in any case for deny and ask (the task tool finds agents so; red team O).
      // `Skill(plugin:name)` is that name, not a parameter; `Skill(name:*)` (Claude Code's: with any
      // arguments) is `name` itself and any `name:…` (session 23: both were matched as a parameter, never).
      const ci = list !== "allow";
      if (name === undefined) return false;
      if (nameGlob(r.specifier, ci).test(name) || (r.specifier.endsWith(":*") && nameGlob(r.specifier.slice(0, -2), ci).test(name))) return true;
      // load_skill finds a skill by a looser spelling than the name (blanks trimmed, `_` and blanks
      // as `-`, and a bare NAME finds one plugin's PLUGIN:NAME): a deny or ask rule matches every
      // spelling that reaches the skill it names (red team F, session 23: `deploy_prod` loaded the
      // skill `Skill(deploy-prod)` denies, `deploy` the one `Skill(acme:deploy)` denies).
      return ci && perm === "Skill" && skillSpellingMatches(r.specifier, name);
    });
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

/** load_skill's own spelling of a name: trimmed, lower case, blanks and `_` as `-`. */
function skillSpelling(t: string): string {
  return t
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-");
}

/** Whether a deny or ask rule's skill name covers a name load_skill would resolve to that skill. */
function skillSpellingMatches(specifier: string, name: string): boolean {
  const n = skillSpelling(name);
  const spec = skillSpelling(specifier);
  const forms = [spec, ...(spec.endsWith(":*") ? [spec.slice(0, -2)] : [])];
  // A bare NAME reaches a plugin's PLUGIN:NAME: the rule's part after the namespace names it too.
  if (!n.includes(":")) for (const f of [...forms]) if (f.includes(":") && !f.endsWith(":*")) forms.push(f.slice(f.indexOf(":") + 1));
  return forms.some((f) => nameGlob(f, true).test(n));
}

/** Task(agent) and Skill(name) specifiers name the subagent or skill. */
function specifierTarget(req: PermissionCheck): string | undefined {
  for (const key of ["subagent_type", "name", "skill"]) if (typeof req.input[key] === "string") return req.input[key] as string;
  return undefined;
}

function globMatch(pattern: string, value: string): boolean {
  return nameGlob(pattern).test(value);
}
