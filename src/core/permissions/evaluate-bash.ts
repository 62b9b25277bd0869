/**
 * Bash: the command is parsed; every simple command (after unwrapping) is checked against the
 * rules, every redirection as a write or read of its target. Deny if any part is denied; allow
 * only if every part is allowed; anything not analysable asks.
 */
import type { PermissionDecision, PermissionMode } from "../loop/types";
import { matchBashSpec } from "./bash-spec";
import { checkPath, decide, matchPathRule, planModeReason, restrictedReason, ruleLabel, rulesFor, showPath, type CheckedPath, type EvalContext } from "./context";
import { resolveFrom } from "./posix-path";
import { namedPaths } from "./command-paths";
import { classifyReadOnly } from "./readonly-commands";
import { SENSITIVE_PROBES } from "./sensitive";
import { analyseCommand } from "./shell/extract";
import type { CommandPart, CommandView, Redirect } from "./shell/types";
import type { Word } from "./shell/words";
import picomatch from "picomatch";
import type { PermissionRule } from "./types";

/** Variables a read-only command may be given without asking (others could change what it reads or runs). */
const SAFE_ENV = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|TERM|COLUMNS|LINES)$/;
const HARMLESS_TARGETS = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

interface PartInfo {
  part: CommandPart;
  cwd: string;
  /** The view that actually runs and may be allowed. */
  effective: CommandView;
  /** The innermost view, for deny checks. */
  innermost: CommandView;
}

export async function evaluateBash(command: string, mode: PermissionMode, ctx: EvalContext): Promise<PermissionDecision> {
  if (!ctx.parser) return decide("ask", "mode", `Yoke's shell parser is not available (${ctx.parserError ?? "not loaded"}), so every command needs approval.`);
  const analysis = analyseCommand(ctx.parser, command);
  const infos = trackCwd(analysis.parts, ctx);
  const denyRules = rulesFor(ctx, "deny", "Bash");
  const maybe: Array<{ rule: PermissionRule; part: CommandPart }> = [];

  // 1. Deny rules: any part, any view; redirection targets; paths read by read-only commands.
  for (const info of infos) {
    for (const view of info.part.views) {
      for (const rule of denyRules) {
        const m = matchBashSpec(rule.specifier, view.words, info.part.extraArgs);
        if (m === "yes") return decide("deny", "rule", `Denied by the rule ${ruleLabel(rule)}: the command runs \`${info.part.text}\`.`, rule);
        if (m === "maybe") maybe.push({ rule, part: info.part });
      }
    }
  }
  const io = await collectPaths(infos, ctx);
  for (const t of io) {
    const rule = matchPathRule(ctx, "deny", t.kind === "write" ? "Write" : "Read", t.path);
    if (rule) return decide("deny", "rule", `Denied by the rule ${ruleLabel(rule)}: the command ${t.kind === "write" ? "writes to" : "reads"} ${showPath(ctx, t.path)}.`, rule);
  }
  if (!ctx.trusted) return decide("deny", "restricted", restrictedReason("running commands"));

  // 2. Deny rules that might match a part only known at run time (`git $SUB`, `xargs git`), then ask rules.
  const possible = maybe.find((m) => m.part.problems.length === 0);
  if (possible) {
    const { rule, part } = possible;
    return decide("ask", "rule", `\`${part.text}\` might run what the deny rule ${ruleLabel(rule)} forbids (part of it is only known when it runs), so it needs approval.`, rule);
  }
  for (const wanted of ["yes", "maybe"] as const) {
    for (const info of infos) {
      if (wanted === "maybe" && info.part.problems.length) continue;
      for (const view of info.part.views) {
        for (const rule of rulesFor(ctx, "ask", "Bash")) {
          if (matchBashSpec(rule.specifier, view.words, info.part.extraArgs) === wanted)
            return decide("ask", "rule", `The rule ${ruleLabel(rule)} asks before running \`${info.part.text}\`.`, rule);
        }
      }
    }
  }
  for (const t of io) {
    const rule = matchPathRule(ctx, "ask", t.kind === "write" ? "Write" : "Read", t.path);
    if (rule) return decide("ask", "rule", `The rule ${ruleLabel(rule)} asks before the command ${t.kind === "write" ? "writes to" : "reads"} ${showPath(ctx, t.path)}.`, rule);
  }
  const config = io.find((t) => t.kind === "write" && t.path.sensitive?.kind === "config");
  if (config && mode !== "plan") return decide("ask", "mode", `The command writes to ${showPath(ctx, config.path)}, which holds agent settings (${config.path.sensitive!.why}); that needs approval in every mode.`);

  // 3. Anything the parser could not analyse confidently.
  const problems = [...analysis.problems, ...infos.flatMap((i) => i.part.problems.map((p) => `\`${i.part.text}\`: ${p}`))];
  for (const t of io) if (t.dynamic) problems.push(`the ${t.kind === "write" ? "output" : "input"} file ${t.raw} is only known when it runs`);
  if (problems.length) {
    if (mode === "plan") return decide("deny", "mode", planModeReason(`a command Yoke cannot verify as read-only (${problems[0]})`));
    if (mode === "bypassPermissions") {
      const relevant = [...denyRules, ...rulesFor(ctx, "deny", "Write"), ...rulesFor(ctx, "deny", "Read")];
      if (relevant.length === 0) return decide("allow", "mode", "bypassPermissions mode allows everything no deny rule forbids.");
      return decide("ask", "mode", `Yoke cannot analyse this command (${problems[0]}), so it cannot rule out that a deny rule applies; it needs approval even in bypassPermissions mode.`);
    }
    return decide("ask", "mode", `Yoke cannot analyse this command confidently: ${problems.slice(0, 3).join("; ")}.`);
  }
  if (mode === "bypassPermissions") return decide("allow", "mode", "bypassPermissions mode allows everything no deny rule forbids.");

  // 4. Every part must be allowed: by a rule, or as a read-only command on workspace paths.
  const allowRules = rulesFor(ctx, "allow", "Bash");
  const failures: string[] = [];
  let usedRule: PermissionRule | undefined;
  for (const info of infos) {
    const { part } = info;
    let byRule: PermissionRule | undefined;
    if (!part.wrapper) {
      const views = part.views.filter((v) => v.allowable && !v.denyOnly);
      byRule = allowRules.find((r) => views.some((v) => matchBashSpec(r.specifier, v.words, part.extraArgs) === "yes"));
      const check = mode !== "plan" && byRule ? {} : await readOnlyProblem(info, ctx);
      if (check.why) {
        failures.push(mode === "plan" ? `\`${part.text}\` ${check.why}` : `\`${part.text}\` needs approval (${check.why})`);
        continue;
      }
      if (mode !== "plan") usedRule ??= byRule;
      usedRule ??= check.rule;
    }
    for (const r of part.redirects) {
      const check = await redirectProblem(r, info, ctx, mode, !!byRule);
      if (check.why) failures.push(`\`${part.text}\` ${check.why}`);
      usedRule ??= check.rule;
    }
  }
  if (failures.length) {
    if (mode === "plan") return decide("deny", "mode", planModeReason(`this command (${failures.slice(0, 2).join("; ")})`));
    return decide("ask", "mode", `${failures.slice(0, 3).join("; ")}.`);
  }
  if (usedRule) return decide("allow", "rule", `Allowed by the rule ${ruleLabel(usedRule)}${infos.length > 1 ? "; every other part is allowed too" : ""}.`, usedRule);
  return decide("allow", "mode", infos.length ? `Read-only command${infos.length > 1 ? "s" : ""} inside the workspace, allowed in ${mode} mode.` : "The command does nothing.");
}

function lastAllowable(part: CommandPart): CommandView {
  const views = part.views.filter((v) => v.allowable && !v.denyOnly);
  return views[views.length - 1] ?? part.views[0]!;
}

/** Each part with the folder it runs in (`cd` inside a command line moves later parts). */
function trackCwd(parts: CommandPart[], ctx: EvalContext): PartInfo[] {
  let cwd = ctx.cwd;
  return parts.map((part) => {
    const effective = lastAllowable(part);
    const innermost = part.views[part.views.length - 1]!;
    const info = { part, cwd, effective, innermost };
    const w = innermost.words;
    if (w[0]?.value === "cd") {
      const target = w.slice(1).find((x) => !x.value.startsWith("-") || x.value === "-");
      if (!target || target.value === "-" || target.dynamic || target.glob) cwd = ctx.home;
      else cwd = resolveFrom(cwd, target.value, ctx.home);
    }
    return info;
  });
}

interface TouchedPath {
  kind: "read" | "write";
  path: CheckedPath;
  dynamic: boolean;
  raw: string;
}

/** Redirection targets and the paths read-only commands read (for deny and ask rules). */
async function collectPaths(infos: PartInfo[], ctx: EvalContext): Promise<TouchedPath[]> {
  const out: TouchedPath[] = [];
  for (const info of infos) {
    for (const r of info.part.redirects) {
      if (r.kind === "dup") continue;
      const path = await checkPath(ctx, info.cwd, r.target.value);
      out.push({ kind: r.kind, path, dynamic: r.target.dynamic, raw: r.target.raw });
    }
    const cls = classifyReadOnly(info.innermost.words);
    const named = cls.ok ? { reads: cls.paths, writes: [] } : namedPaths(info.innermost.words);
    for (const [kind, list] of [["read", named.reads], ["write", named.writes]] as const) {
      for (const w of list) if (!w.dynamic) out.push({ kind, path: await checkPath(ctx, info.cwd, w.value), dynamic: false, raw: w.raw });
    }
  }
  return out;
}

interface Check {
  /** Why it is not allowed; undefined when it is. */
  why?: string;
  /** A path rule that allowed it. */
  rule?: PermissionRule;
}

/** Why a part is not a read-only command on allowed paths, or nothing when it is. */
async function readOnlyProblem(info: PartInfo, ctx: EvalContext): Promise<Check> {
  const { part } = info;
  if (part.elevated) return { why: "it runs with sudo" };
  const env = part.assignments.find((a) => !SAFE_ENV.test(a.name));
  if (env) return { why: `it sets ${env.name} for the command` };
  const cls = classifyReadOnly(info.effective.words);
  if (!cls.ok) return { why: cls.why };
  if (part.extraArgs && !["echo", "printf", "true", ":"].includes(info.effective.words[0]!.value))
    return { why: `it receives file names at run time (${part.via[part.via.length - 1] ?? "xargs"})` };
  let rule: PermissionRule | undefined;
  for (const w of cls.paths) {
    const check = await pathProblem(w, info.cwd, ctx);
    if (check.why) return check;
    rule ??= check.rule;
  }
  return { rule };
}

async function pathProblem(w: Word, cwd: string, ctx: EvalContext): Promise<Check> {
  if (w.dynamic) return { why: `the argument ${w.raw} is only known when it runs` };
  const path = await checkPath(ctx, cwd, w.value);
  if (w.glob) {
    const segs = w.value.split("/");
    const fixed = segs.slice(0, segs.findIndex((x) => /[*?[{]/.test(x)));
    const dir = await checkPath(ctx, cwd, fixed.join("/") || (w.value.startsWith("/") ? "/" : "."));
    if (!dir.inside) return { why: `${w.raw} may match files outside the workspace` };
    const m = picomatch(segs.slice(fixed.length).join("/"), { dot: false, windows: false });
    if (SENSITIVE_PROBES.some((probe) => m(probe)) || dir.sensitive?.kind === "secret") return { why: `${w.raw} may match sensitive files` };
    return {};
  }
  if (path.inside && path.sensitive?.kind !== "secret") return {};
  const rule = matchPathRule(ctx, "allow", "Read", path);
  if (rule) return { rule };
  if (!path.inside) return { why: `it reads ${showPath(ctx, path)}, outside the workspace` };
  return { why: `it reads ${showPath(ctx, path)}, a sensitive file (${path.sensitive!.why})` };
}

async function redirectProblem(r: Redirect, info: PartInfo, ctx: EvalContext, mode: PermissionMode, allowedByRule: boolean): Promise<Check> {
  if (r.kind === "dup" || HARMLESS_TARGETS.test(r.target.value)) return {};
  const path = await checkPath(ctx, info.cwd, r.target.value);
  const shown = showPath(ctx, path);
  if (r.kind === "read") {
    if (path.inside && path.sensitive?.kind !== "secret") return {};
    const rule = matchPathRule(ctx, "allow", "Read", path);
    if (rule) return { rule };
    return { why: `reads ${shown}${path.inside ? `, a sensitive file (${path.sensitive!.why})` : ", outside the workspace"}` };
  }
  if (mode === "plan") return { why: `writes to ${shown}` };
  if (path.sensitive?.kind === "config") return { why: `writes to ${shown}, which holds agent settings` };
  const rule = matchPathRule(ctx, "allow", "Write", path);
  if (rule) return { rule };
  if (!path.inside) return { why: `writes to ${shown}, outside the workspace` };
  if (path.sensitive) return { why: `writes to ${shown}, a sensitive file (${path.sensitive.why})` };
  if (mode === "acceptEdits" || allowedByRule) return {};
  return { why: `writes to ${shown} (writing files needs approval in default mode)` };
}
