/**
 * Bash: the command is parsed (shell/extract.ts); every simple command, in every folder it may run
 * in, is expanded as bash would (braces, `~`, globs against the real workspace) and checked:
 *
 * 1. deny rules on every reading of every part and on every path it touches (deny);
 * 2. deny rules that could apply to what is only known at run time (a `$X` argument, a folder a
 *    `cd` may or may not have reached, code run from a string or from input) ask, in every mode;
 * 3. ask rules; writes to protected paths ask in every mode (the decision names them in
 *    `confine.writable`);
 * 4. anything not analysable asks (bypassPermissions: only where a deny rule exists);
 * 5. every part must be allowed: by a rule that covers it (wrappers and options that run code
 *    included) or as a read-only command on allowed paths. Commands allowed as read-only (and every
 *    command allowed in plan mode) carry `confine.readOnly`.
 */
import { canonicalTool } from "./rule-syntax";
import type { PermissionDecision, PermissionMode } from "../loop/types";
import { commandEffects, isInterpreter, OPTION_SENSITIVE, type CommandEffects } from "./command-effects";
import { isOptionValue, namedPaths, type NamedPaths } from "./command-paths";
import {
  checkCommandPath,
  decide,
  ignoreFileHint,
  matchPathRule,
  planModeReason,
  restrictedReason,
  ruleLabel,
  rulesFor,
  showPath,
  type CheckedPath,
  type EvalContext,
  type SearchPathEntry,
} from "./context";
import { compileBashSpec, matchBashSpec, specLiteralWords, type SpecMatch } from "./bash-spec";
import { matchOptionSpellings } from "./option-spellings";
import { ANY, dynamicSegs, globSegs, litSegs, protectedCouldMatch, regionPattern, ruleCouldMatch, scopedToOneCheck, type PathPattern } from "./path-reach";
import { dirnameOf, isWithin, relativeTo, resolveFrom } from "./posix-path";
import { candidateCommands, isKnownProgram, namesCodeRunner } from "./known-programs";
import { classifyReadOnly, GIT_DUMPS_CONTENT, type ReadOnlyClass } from "./readonly-commands";
import { isKnownRunner, isShell, seeThrough, withNpmSettings, withScriptFiles, type NpmSettingsLookup, type ScriptFileLookup } from "./shell/unwrap";
import { NPM_CONFIG_VARIABLES, npmSettingValues, type NpmSettingValues } from "./npm-config";
import { markScriptsTheLineWrites } from "./line-scripts";
import { readsCommandInput } from "./command-input";
import { pushOptionsFromEnv, pushOptionsSetBy } from "./shell/git-push";
import { gitHoldsCovered, gitShowsNoObject, readsGitStore } from "./git-objects";
import { SENSITIVE_PROBES } from "./sensitive";
import { braceExpand, DEFAULT_BUDGET, escapeLiteral, globExpand, hasGlob, segmentMatcher, tildeExpand, unescapePattern, type ExpandEnv } from "./shell/expand";
import { estimateSize, MAX_COMMAND_LENGTH, MAX_COMMAND_STATEMENTS, MAX_COMMAND_TOKENS } from "./shell/bounds";
import { analyseCommand } from "./shell/extract";
import { isHarmlessSetting, QUIET_VARIABLE } from "./shell/variables";
import type { CommandAnalysis, CommandPart, CommandView, Redirect } from "./shell/types";
import { hasBraceList, literalWord, type Word } from "./shell/words";
import type { PermissionRule } from "./types";
import { gitLinkedCommand } from "../protected-paths";

export { estimateSize, MAX_COMMAND_LENGTH, MAX_COMMAND_STATEMENTS, MAX_COMMAND_TOKENS } from "./shell/bounds";
/** Builtins that run nothing and read no variable of their environment (red team U: `export MY_VAR=1; echo $MY_VAR` asked). */
const ENV_BLIND_BUILTINS = new Set(["echo", "printf", "true", "false", ":", "test", "[", "pwd"]);
/** A variable a read-only command may be given without asking (others could change what it reads or runs). */
const quiet = (a: CommandPart["assignments"][number]): boolean => QUIET_VARIABLE.test(a.name) || isHarmlessSetting(a.name, a.value);
const HARMLESS_TARGETS = /^\/dev\/(null|stdin|stdout|stderr|tty|zero|full|random|urandom|fd\/\d+)$/;
/** Commands whose run-time arguments are not files. */
const NO_RUNTIME_FILES = new Set(["echo", "printf", "true", ":", "false", "kill", "sleep"]);
/** Paths that are other paths in disguise (a process's folder, root or file descriptors). */
const ALIAS_PATHS = /^\/proc(\/|$)|^\/dev\/fd\/\d+\/|^\/dev\/(stdin|stdout|stderr)\/|^\/dev\/fd\/?$/;

/** An expanded word, with the glob it came from. */
interface XWord extends Word {
  from?: { pattern: string; cwd: string | null };
  /** Why its value is unknown (too many matches, a `~user`…). */
  unknownWhy?: string;
}

export interface Instance {
  part: CommandPart;
  /** One folder it may run in; null when unknown. */
  cwd: string | null;
  /** The views with their words expanded. */
  expanded: Array<{ view: CommandView; words: XWord[] }>;
  /** The view that runs and may be allowed (expanded). */
  effective: { view: CommandView; words: XWord[] };
  innermost: { view: CommandView; words: XWord[] };
  redirects: Array<{ redirect: Redirect; targets: XWord[] }>;
  /** Another part of the line may change the file system before this one's globs expand. */
  unstable: boolean;
  effects: CommandEffects;
  cls: ReadOnlyClass;
}

export type Touch = {
  kind: "read" | "write";
  raw: string;
  inst: Instance;
  /** Writes: the folder and everything below it. */
  region?: boolean;
  /**
   * A region the command only adds new files to (the folder `git clone` makes, CommandEffects.writeRegions words
   * marked `fresh`): a Read rule's cover of Edit (what may not be read may not be overwritten) does not reach it.
   */
  fresh?: boolean;
  /** Written by a redirection (allowed in acceptEdits or with the command's allow rule). */
  redirect?: boolean;
  /**
   * Written by git's own linked work (`git submodule add`'s `.gitmodules` and `.git/modules/<name>`), which the
   * sandbox lets exactly such a line write and checks when it ends: rules apply, being a protected path does not ask.
   */
  door?: boolean;
  /** A read the command does implicitly (its working folder). */
  implicit?: boolean;
} & TouchTarget;

type TouchTarget =
  | { exact: CheckedPath }
  | {
      pattern: PathPattern;
      why: string;
      fixedDir?: string;
      tail?: string;
      symbolic: "dynamic" | "cwd" | "alias" | "unstable" | "history";
      /** The pattern stands for one file (a blob `git show REV:PATH` prints), not for what may lie below it. */
      leaf?: boolean;
      /**
       * The history of a folder and what lies below it (null: of the whole repository). Another
       * agent's ignore file counts only when it ignores that folder itself, as for a recursive read
       * of the folder: Cline and Roo Code check the paths a command names, not what its program reads.
       */
      historyOf?: CheckedPath | null;
    };

export async function evaluateBash(command: string, mode: PermissionMode, gateCtx: EvalContext): Promise<PermissionDecision> {
  const d = await evaluateLine(command, mode, gateCtx);
  // git submodule add/update… writes .git/config and .gitmodules: the sandbox lets exactly such a
  // line write them and checks what it wrote (protected-paths.ts, isGitLinkedWork). Not a
  // read-only decision (that mounts nothing writable), nor a refusal.
  const linked = d.decision !== "deny" && !d.confine?.readOnly ? gitLinkedCommand(command) : undefined;
  if (linked && !(await submoduleFilesDenied(gateCtx))) d.confine = { ...d.confine, gitLinked: true, ...(linked === "submodule" ? { gitSubmodule: true } : {}) };
  return d;
}

/** Does a deny rule keep `.git/config` or `.gitmodules` from being written (then the sandbox keeps them read-only for git submodule too)? */
async function submoduleFilesDenied(ctx: EvalContext): Promise<boolean> {
  for (const rel of [".git/config", ".gitmodules"]) {
    const p = await checkCommandPath(ctx, ctx.cwd, rel);
    if (matchPathRule(ctx, "deny", "Write", p) || matchPathRule(ctx, "deny", "Edit", p)) return true;
  }
  return false;
}

/** `ctx` with only the rules `keep` passes (the same context when all pass), one per context and filter. */
const filteredCache = new WeakMap<EvalContext, Map<(r: PermissionRule) => boolean, EvalContext>>();
function withRules(ctx: EvalContext, keep: (r: PermissionRule) => boolean): EvalContext {
  if (ctx.settings.rules.every(keep)) return ctx;
  let byFilter = filteredCache.get(ctx);
  if (!byFilter) filteredCache.set(ctx, (byFilter = new Map()));
  let out = byFilter.get(keep);
  if (!out) byFilter.set(keep, (out = { ...ctx, settings: { ...ctx.settings, rules: ctx.settings.rules.filter(keep) } }));
  return out;
}

/**
 * The rules a command is held to: another agent's ignore file counts only where its tool refuses
 * commands too, and then only for what they read (PermissionRule.ignoreFileCommands).
 */
const commandRule = (r: PermissionRule) => !r.ignoreFile || r.ignoreFileCommands === true;
/** Without other agents' ignore files (for what only a program's own reading could touch). */
const notIgnoreFile = (r: PermissionRule) => !r.ignoreFile;
/**
 * For a folder a command only adds new files to: rules other than a Read rule's cover of Edit (it is there so that
 * what may not be read is not overwritten; nothing is, below such a folder) and another agent's ignore file (about the
 * workspace's files, not what a clone brings). Edit and Write rules as written stand.
 */
const notReadRule = (r: PermissionRule) => !r.ignoreFile && !(r.tool === "Edit" && canonicalTool(r.raw.replace(/\(.*$/s, "").trim()) === "Read");

async function evaluateLine(command: string, mode: PermissionMode, gateCtx: EvalContext): Promise<PermissionDecision> {
  const ctx = scopedToOneCheck(withRules(gateCtx, commandRule));
  if (!ctx.parser) return decide("ask", "mode", `Yoke's shell parser is not available (${ctx.parserError ?? "not loaded"}), so every command needs approval.`);
  if (command.length > MAX_COMMAND_LENGTH)
    return decide("ask", "mode", `The command is too large to analyse (${command.length} characters; the limit is ${MAX_COMMAND_LENGTH}), so it needs approval.`);
  const size = estimateSize(command);
  if (size.statements > MAX_COMMAND_STATEMENTS || size.tokens > MAX_COMMAND_TOKENS)
    return decide(
      "ask",
      "mode",
      `The command is too large to analyse (more than ${size.statements > MAX_COMMAND_STATEMENTS ? `${MAX_COMMAND_STATEMENTS} commands` : `${MAX_COMMAND_TOKENS} words`}), so it needs approval.`,
    );
  let analysis = analyseCommand(ctx.parser, command, { cwd: [ctx.cwd], home: ctx.home });
  // npm commands that run the program a setting names (npm-config.ts): the settings are read, and the line
  // analysed again with them known.
  const npmLookup = await readNpmSettings(analysis, command, ctx);
  const analyse = () => analyseCommand(ctx.parser!, command, { cwd: [ctx.cwd], home: ctx.home });
  if (npmLookup) analysis = withNpmSettings(npmLookup, analyse);
  // Script files the line's m4 and psql run (and what they include): read, and the line analysed again.
  analysis = await readScriptFiles(analysis, ctx, npmLookup ? () => withNpmSettings(npmLookup, analyse) : analyse);
  if (analysis.tooLarge)
    return decide(
      "ask",
      "mode",
      `The command is too large to analyse (more than ${analysis.problems.some((p) => p.includes(" commands, too many")) ? `${MAX_COMMAND_STATEMENTS} commands` : `${MAX_COMMAND_TOKENS} words`}), so it needs approval.`,
    );
  const env: ExpandEnv = { home: ctx.home, listDir: ctx.listDir, budget: DEFAULT_BUDGET(), cache: new Map() };
  const paths = new Map<string, Promise<CheckedPath>>();
  const check = (base: string, written: string) => {
    const key = `${base}\0${written}`;
    let p = paths.get(key);
    if (!p) paths.set(key, (p = checkCommandPath(ctx, base, written)));
    return p;
  };
  const instances = await buildInstances(analysis, ctx, env);
  for (const inst of instances) {
    const why = await workspaceProgram(inst.part, ctx);
    if (why && !inst.part.problems.includes(why)) inst.part.problems.push(why);
  }
  await checkoutDiscards(instances, ctx, command);
  const touches = await collectTouches(instances, ctx, check);
  touches.push(...(await gitObjectTouches(instances, touches, ctx)));
  markScriptsTheLineWrites(instances, touches, ctx.home);
  // Each part's own touches (the per-part checks below would otherwise scan every touch per part).
  const touchesOf = new Map<Instance, Touch[]>();
  for (const t of touches) {
    const list = touchesOf.get(t.inst);
    if (list) list.push(t);
    else touchesOf.set(t.inst, [t]);
  }
  const denyRules = rulesFor(ctx, "deny", "Bash");
  const pathDenyRules = [...rulesFor(ctx, "deny", "Write"), ...rulesFor(ctx, "deny", "Read")];
  const maybe: Array<{ rule: PermissionRule; inst: Instance; what: string }> = [];

  // 1. Deny rules: any part, any view (as written and expanded); paths touched.
  const askRulesEarly = rulesFor(ctx, "ask", "Bash");
  const unknownRuns = unknownProgramRuns(instances, [...denyRules, ...askRulesEarly]);
  const pushed = linePushOptions(instances);
  for (const inst of instances) {
    for (const rule of denyRules) {
      const m = matchViews(rule, inst, pushed.get(inst));
      if (m === "yes") return decide("deny", "rule", `Denied by the rule ${ruleLabel(rule)}: the command runs \`${inst.part.text}\`.`, rule);
      if (m === "maybe") maybe.push({ rule, inst, what: `\`${inst.part.text}\` might run what the deny rule ${ruleLabel(rule)} forbids (part of it is only known when it runs)` });
    }
  }
  for (const u of unknownRuns) if (u.rule.list === "deny") maybe.push({ rule: u.rule, inst: u.inst, what: u.what });
  for (const t of touches) {
    const perm = t.kind === "write" ? "Write" : "Read";
    if ("exact" in t) {
      const rule = matchPathRule(ctx, "deny", perm, t.exact);
      if (rule)
        return decide("deny", "rule", `Denied by the rule ${ruleLabel(rule)}: the command ${t.kind === "write" ? "writes to" : "reads"} ${showPath(ctx, t.exact)}.${ignoreFileHint(rule)}`, rule);
      if (t.region) {
        const rc = t.fresh ? withRules(ctx, notReadRule) : ctx;
        const below = ruleCouldMatch(rc, "deny", perm, regionPattern(t.exact.lexical)) ?? ruleCouldMatch(rc, "deny", perm, regionPattern(t.exact.real));
        if (below) maybe.push({ rule: below, inst: t.inst, what: `\`${t.inst.part.text}\` writes below ${showPath(ctx, t.exact)}, where the deny rule ${ruleLabel(below)} applies` });
      }
    } else {
      if (t.historyOf) {
        const folderRule = matchPathRule(ctx, "deny", "Read", t.historyOf);
        if (folderRule?.ignoreFile)
          return decide(
            "deny",
            "rule",
            `Denied by the rule ${ruleLabel(folderRule)}: the command reads ${showPath(ctx, t.historyOf)} in the repository history.${ignoreFileHint(folderRule)}`,
            folderRule,
          );
      }
      const rule = ruleCouldMatch(t.historyOf === undefined ? ctx : withRules(ctx, notIgnoreFile), "deny", perm, t.pattern, t.leaf);
      if (rule) maybe.push({ rule, inst: t.inst, what: `\`${t.inst.part.text}\` ${t.kind === "write" ? "writes to" : "reads"} ${t.why}, which the deny rule ${ruleLabel(rule)} might cover` });
    }
  }
  if (!ctx.trusted) return decide("deny", "restricted", restrictedReason("running commands"));

  // 2. Deny rules that might apply to what is only known at run time (where the command is not
  // unanalysable anyway: then the problem is the better reason, step 4).
  const hidden = instances.flatMap((i) =>
    [...i.part.hidden, ...i.effects.hidden, ...i.effects.execOptions.filter((o) => o.runs).map((o) => `${o.option}: ${o.why}`)].map((h) => ({ inst: i, why: h })),
  );
  // Another agent's ignore file does not hold what a program reads (as in Cline and Roo Code, whose
  // checks look at the paths a command names): code Yoke cannot see does not ask for it.
  const relevantDeny = [...denyRules, ...pathDenyRules].filter((r) => !r.ignoreFile);
  if (mode === "plan" && hidden.length && relevantDeny.length) return decide("deny", "mode", planModeReason(`a command that runs code Yoke cannot see (${hidden[0]!.why})`));
  const possible = analysis.problems.length ? undefined : maybe.find((m) => m.inst.part.problems.length === 0);
  if (possible) return decide("ask", "rule", `${possible.what}, so it needs approval.`, possible.rule);
  if (hidden.length && relevantDeny.length) {
    const h = hidden[0]!;
    const text = `\`${h.inst.part.text}\`: ${h.why}, so Yoke cannot rule out that the deny rule ${ruleLabel(relevantDeny[0]!)} applies; it needs approval`;
    if (mode === "plan") return decide("deny", "mode", planModeReason(`a command that runs code Yoke cannot see (${h.why})`));
    return decide("ask", "rule", `${text}${mode === "bypassPermissions" ? " even in bypassPermissions mode" : ""}.`, relevantDeny[0]);
  }

  // 3. Ask rules, then protected paths.
  const askRules = askRulesEarly;
  const unknownAsk = unknownRuns.find((u) => u.rule.list === "ask");
  if (unknownAsk && !unknownRuns.some((u) => u.rule.list === "deny")) return decide("ask", "rule", `${unknownAsk.what}, so it needs approval.`, unknownAsk.rule);
  for (const wanted of ["yes", "maybe"] as const) {
    for (const inst of instances) {
      if (wanted === "maybe" && inst.part.problems.length) continue;
      for (const rule of askRules)
        if (matchViews(rule, inst, pushed.get(inst)) === wanted) return decide("ask", "rule", `The rule ${ruleLabel(rule)} asks before running \`${inst.part.text}\`.`, rule);
    }
  }
  for (const t of touches) {
    const perm = t.kind === "write" ? "Write" : "Read";
    const rule =
      "exact" in t
        ? (matchPathRule(ctx, "ask", perm, t.exact) ?? (t.region ? ruleCouldMatch(t.fresh ? withRules(ctx, notReadRule) : ctx, "ask", perm, regionPattern(t.exact.lexical)) : undefined))
        : ruleCouldMatch(ctx, "ask", perm, t.pattern, t.leaf);
    if (rule) return decide("ask", "rule", `The rule ${ruleLabel(rule)} asks before the command ${t.kind === "write" ? "writes to" : "reads"} ${"exact" in t ? showPath(ctx, t.exact) : t.why}.`, rule);
  }
  // A bound on the work hit (wrapper readings past 8192 words, an unknown program's words past 256): the
  // rest is code Yoke did not follow, so an ask rule could apply to it as a deny rule could (red16g:
  // `foo a×300 rm -rf d` was allowed under Bash(foo:*) and the ask rule Bash(rm:*) while `foo a rm -rf d` asked).
  const overflow = hidden.find((h) => OVERFLOW.test(h.why));
  if (overflow && askRules.length)
    return decide("ask", "rule", `\`${overflow.inst.part.text}\`: ${overflow.why}, so Yoke cannot rule out that the ask rule ${ruleLabel(askRules[0]!)} applies; it needs approval.`, askRules[0]);
  const guarded = protectedWrites(touches, ctx);
  if (guarded.reasons.length) {
    if (mode === "plan") return decide("deny", "mode", planModeReason(`writing ${guarded.reasons[0]}`));
    const d = decide("ask", "mode", `The command writes to ${guarded.reasons.slice(0, 3).join("; ")}; that needs approval in every mode.`);
    if (guarded.writable.length) d.confine = { writable: guarded.writable };
    return d;
  }

  // 4. Anything the parser could not analyse confidently.
  const problems = [...analysis.problems, ...instances.flatMap((i) => i.part.problems.map((p) => `\`${i.part.text}\`: ${p}`))];
  for (const inst of instances)
    for (const r of inst.redirects)
      for (const t of r.targets)
        if (r.redirect.kind !== "dup" && t.dynamic)
          problems.push(`the ${r.redirect.kind === "write" ? "output" : "input"} file ${t.raw} is only known when it runs${t.unknownWhy ? ` (${t.unknownWhy})` : ""}`);
  if (problems.length) {
    const unique = [...new Set(problems)];
    if (mode === "plan") return decide("deny", "mode", planModeReason(`a command Yoke cannot verify as read-only (${unique[0]})`));
    if (mode === "bypassPermissions") {
      // Ask rules apply in bypassPermissions too: a command Yoke cannot analyse might run what one covers
      // (red16g: 1500 × `nice` then `rm -rf d` — more wrappers than Yoke follows — was allowed under the ask rule Bash(rm:*)).
      if (relevantDeny.length === 0 && askRules.length === 0) return unreviewed(decide("allow", "mode", "bypassPermissions mode allows everything no deny rule forbids."));
      if (relevantDeny.length === 0)
        return decide("ask", "rule", `Yoke cannot analyse this command (${unique[0]}), so it cannot rule out that the ask rule ${ruleLabel(askRules[0]!)} applies; it needs approval.`, askRules[0]);
      return decide("ask", "mode", `Yoke cannot analyse this command (${unique[0]}), so it cannot rule out that a deny rule applies; it needs approval even in bypassPermissions mode.`);
    }
    return decide("ask", "mode", `Yoke cannot analyse this command confidently: ${unique.slice(0, 3).join("; ")}.`);
  }
  if (mode === "bypassPermissions") return unreviewed(decide("allow", "mode", "bypassPermissions mode allows everything no deny rule forbids."));

  // 5. Every part must be allowed: by a rule, or as a read-only command on workspace paths.
  const allowRules = rulesFor(ctx, "allow", "Bash");
  const failures: string[] = [];
  let usedRule: PermissionRule | undefined;
  let allReadOnly = true;
  let edits = false;
  const byRuleParts = new Set<Instance>();
  for (const inst of instances) {
    const { part } = inst;
    if (!part.wrapper) {
      let rule = mode === "plan" ? undefined : allowRuleFor(inst, allowRules);
      const refused = rule && "why" in rule ? rule.why : undefined;
      if (refused) rule = undefined;
      if (inst.cls.ok && inst.effective.words[0]?.value === "git") {
        const why = await foreignRepository(inst, ctx);
        if (why) {
          failures.push(`\`${part.text}\` needs approval (${why})`);
          continue;
        }
      }
      if (rule && "rule" in rule) {
        byRuleParts.add(inst);
        usedRule ??= rule.rule;
        allReadOnly = false;
      } else if (mode === "acceptEdits" && !workspaceEditProblem(inst, touchesOf.get(inst) ?? [], ctx)) {
        // acceptEdits accepts file edits, and the commands that only create, copy, move or edit
        // files inside the workspace (as Claude Code does): `mkdir`, `touch`, `cp`, `mv`, `sed -i`.
        allReadOnly = false;
        edits = true;
      } else {
        const ro = await readOnlyProblem(inst, touchesOf.get(inst) ?? [], ctx);
        if (ro.why) {
          failures.push(mode === "plan" ? `\`${part.text}\` ${ro.why}` : `\`${part.text}\` needs approval (${refused ?? ro.why})`);
          continue;
        }
        usedRule ??= ro.rule;
      }
    } else if (part.hidden.length) {
      // A wrapper's scripts are parts of their own; code it hands on that Yoke cannot see (`xargs -I{} sh -c {}`,
      // `xargs sh -c` with no script) is no part at all, so the wrapper cannot count as read-only.
      failures.push(mode === "plan" ? `\`${part.text}\`: ${part.hidden[0]}` : `\`${part.text}\` needs approval (${part.hidden[0]})`);
    }
  }
  for (const t of touches) {
    if (t.kind !== "write") continue;
    allReadOnly = false;
    const check = writeProblem(t, ctx, mode, byRuleParts.has(t.inst));
    if (check.why) failures.push(`\`${t.inst.part.text}\` ${check.why}`);
    usedRule ??= check.rule;
  }
  if (failures.length) {
    const unique = [...new Set(failures)];
    if (mode === "plan") return decide("deny", "mode", planModeReason(`this command (${unique.slice(0, 2).join("; ")})`));
    return decide("ask", "mode", `${unique.slice(0, 3).join("; ")}.`);
  }
  const parts = new Set(instances.map((i) => i.part.text)).size;
  const d = usedRule
    ? decide("allow", "rule", `Allowed by the rule ${ruleLabel(usedRule)}${parts > 1 ? "; every other part is allowed too" : ""}.`, usedRule)
    : decide(
        "allow",
        "mode",
        edits
          ? "It only creates, copies, moves or edits files inside the workspace, which acceptEdits mode allows."
          : parts
            ? `Read-only command${parts > 1 ? "s" : ""} inside the workspace, allowed in ${mode} mode.`
            : "The command does nothing.",
      );
  if (mode === "plan" || allReadOnly) d.confine = { readOnly: true };
  else if (byRuleParts.size === 0) {
    // Allowed for the writes analysed (no rule covers a whole part): the sandbox lets it write those only.
    const writes = analysedWrites(touches);
    if (writes) d.confine = { writes };
  }
  return d;
}

/** Allowed by bypassPermissions mode alone: the sandbox keeps the programs ask rules name from starting (confine.unreviewed). */
/**
 * The npm settings the line's npm commands need (CommandPart.npmSettings), read through the gate's port
 * for each folder they run in; undefined when none is needed or they cannot be read. Not read (the
 * command keeps asking where a deny rule exists) when another command of the line may change files (it
 * may write a .npmrc npm then reads) or the line names npm's variables, the ones npm reads itself or one a
 * .npmrc read expands (`export npm_config_editor=…`, `EDITOR=… npm edit x`, `PREFIX=dir npm edit x`).
 */
async function readNpmSettings(analysis: CommandAnalysis, command: string, ctx: EvalContext): Promise<NpmSettingsLookup | undefined> {
  const wanting = analysis.parts.filter((p) => p.npmSettings);
  if (!wanting.length || !ctx.npmConfig || analysis.problems.length) return undefined;
  if (/npm_config_/i.test(command)) return undefined;
  // (What the one npm explore of a line runs comes after npm has read its settings.)
  const after = (p: CommandPart) => wanting.length === 1 && p.via.some((v) => v.startsWith("npm explore"));
  if (analysis.parts.some((p) => !p.npmSettings && !after(p) && mayChangeFiles(p))) return undefined;
  const found = new Map<string, NpmSettingValues>();
  const key = (cwd: string, userconfig: string | undefined) => `${cwd}\0${userconfig ?? ""}`;
  for (const p of wanting) {
    for (const cwd of p.cwd ?? []) {
      const k = key(cwd, p.npmSettings!.userconfig);
      if (found.has(k)) continue;
      found.set(k, await npmSettingValues(["editor", "shell", "script-shell"], cwd, { ...ctx.npmConfig, home: ctx.home, realPath: ctx.realPath }, { lineUserconfig: p.npmSettings!.userconfig }));
    }
  }
  // The line names a variable the values depend on (npm's own — EDITOR, HOME, PREFIX, DESTDIR… — or one a
  // .npmrc expands): it may set it for npm (`PREFIX=dir npm edit x`, `export USER=…; npm edit x`).
  const names = new Set([...NPM_CONFIG_VARIABLES, ...[...found.values()].flatMap((f) => f.variables)]);
  // Read in the text as written and as bash may make its words — quotes and escapes removed, braces expanded
  // (red team I, session 18: `export EDIT""OR='rm -rf'; npm edit x`, `export EDIT{OR,}=…`, `export
  // {EDITO,VISUA}R=…` set npm's editor, and npm ran it, while the text named no EDITOR). More readings than
  // bash makes, never fewer: the settings then stay unknown (ask where a deny rule exists).
  const dequoted = command
    .replace(/\\\n/g, "")
    .replace(/\$(?=["'])/g, "")
    .replace(/["'\\]/g, "");
  const texts = [command, dequoted];
  for (const token of dequoted.split(/[\s;&|()<>`]+/)) {
    if (!hasBraceList(token)) continue;
    const expanded = braceExpand(token);
    if (!expanded) return undefined;
    texts.push(...expanded);
  }
  for (const name of names) {
    const named = new RegExp(`(^|[^A-Za-z0-9_])${name.replace(/[^A-Za-z0-9_]/g, "\\$&")}([^A-Za-z0-9_]|$)`);
    if (texts.some((t) => named.test(t))) return undefined;
  }
  return (cwd, userconfig) => found.get(key(cwd, userconfig));
}

/** Bounds of the script files read for one line (readScriptFiles). */
export const SCRIPT_FILES = { files: 32, bytes: 256 * 1024, rounds: 8 };

/**
 * The script files the line's m4 and psql run (CommandPart.scriptFiles: m4's input files and what they include,
 * nested; psql's `-f`), read through the gate's port, and the line analysed again with their text known until
 * nothing more is asked for (bounded: SCRIPT_FILES). A file a Read deny rule covers is not read (the command
 * reads it: the deny rule denies the command, through the part's reads); one too large, not a regular file or
 * past the bounds stays code Yoke cannot see (asks where a deny rule exists, as before). Not read when another
 * part of the line may change files, or the part itself writes one of them (the text read would not be what
 * runs).
 *
 * The file may still change between this check and the run (a background command of an earlier call): what
 * the gate's answer relies on is enforced without it — a program a deny rule names cannot start in the
 * sandbox, a file a Read deny rule covers is hidden there, protected paths are read-only — so a swapped file
 * runs no more than an unread one would have in the same sandbox (test/integration/gate22-session.test.ts).
 */
async function readScriptFiles(analysis: CommandAnalysis, ctx: EvalContext, analyse: () => CommandAnalysis): Promise<CommandAnalysis> {
  const readText = ctx.readText;
  if (!readText || !analysis.parts.some((p) => p.scriptFiles?.length)) return analysis;
  const files = new Map<string, string | null | false>();
  const lookup: ScriptFileLookup = (abs) => files.get(abs);
  for (let round = 0; round < SCRIPT_FILES.rounds; round++) {
    const wanted = [...new Set(analysis.parts.flatMap((p) => p.scriptFiles ?? []))].filter((f) => !files.has(f));
    if (!wanted.length) break;
    // (What the files' own escapes run is not another part here: m4's scanner stops following includes once one ran.)
    const ownEscape = (p: CommandPart) => p.via.some((v) => v === "m4 syscmd" || v === "psql \\!");
    if (analysis.problems.length || analysis.parts.some((p) => !p.scriptFiles?.length && !ownEscape(p) && mayChangeFiles(p))) return withScriptFiles(() => false, analyse);
    for (const abs of wanted) {
      if (files.size >= SCRIPT_FILES.files) {
        files.set(abs, false);
        continue;
      }
      const p = await checkCommandPath(ctx, "/", abs);
      if (matchPathRule(ctx, "deny", "Read", p)) {
        files.set(abs, false);
        continue;
      }
      const text = await readText(abs, SCRIPT_FILES.bytes + 1);
      if (text !== undefined) files.set(abs, text.length > SCRIPT_FILES.bytes ? false : text);
      else files.set(abs, ctx.realPath && (await ctx.realPath(abs)) === undefined ? null : false);
    }
    analysis = withScriptFiles(lookup, analyse);
  }
  // The part that reads them must not write one of them (`m4 a.m4 > inc.m4`: bash empties it before m4 reads).
  for (const part of analysis.parts) {
    if (!part.scriptFiles?.length) continue;
    for (const r of part.redirects) {
      if (r.kind !== "write") continue;
      if (r.target.dynamic || part.cwd?.length !== 1 || files.has(resolveFrom(part.cwd[0]!, r.target.value, ctx.home))) return withScriptFiles(() => false, analyse);
    }
    if (part.writes?.length) return withScriptFiles(() => false, analyse);
  }
  return analysis;
}

function unreviewed(d: PermissionDecision): PermissionDecision {
  d.confine = { ...d.confine, unreviewed: true };
  return d;
}

/** The paths of the writes analysed (confine.writes); undefined when one is not a known path. */
function analysedWrites(touches: Touch[]): string[] | undefined {
  const out = new Set<string>();
  for (const t of touches) {
    if (t.kind !== "write") continue;
    if (!("exact" in t)) return undefined;
    out.add(t.exact.real);
  }
  return out.size ? [...out] : undefined;
}

// ---------------------------------------------------------------------------------------------
// Instances: each part in each folder it may run in, with its words expanded.

export async function buildInstances(analysis: CommandAnalysis, ctx: EvalContext, env: ExpandEnv): Promise<Instance[]> {
  const changes = analysis.parts.map((p) => mayChangeFiles(p));
  const changers = changes.filter(Boolean).length;
  const out: Instance[] = [];
  for (let i = 0; i < analysis.parts.length; i++) {
    const part = analysis.parts[i]!;
    const unstable = changers - (changes[i] ? 1 : 0) > 0;
    const cwds: Array<string | null> = part.cwd ?? [null];
    for (const cwd of cwds) {
      const memo = new Map<Word, XWord[]>();
      const expand = async (words: Word[]) => {
        if (!words.some((w) => w.glob || w.pattern?.startsWith("~"))) return words as XWord[];
        const res: XWord[] = [];
        for (const w of words) {
          let e = memo.get(w);
          if (!e) memo.set(w, (e = await expandWord(w, cwd, env, !!analysis.globOptionsChanged)));
          res.push(...e);
        }
        return res;
      };
      const expanded: Instance["expanded"] = [];
      for (const view of part.views) expanded.push({ view, words: await expand(view.words) });
      const allowable = expanded.filter((v) => v.view.allowable && !v.view.denyOnly);
      const effective = allowable[allowable.length - 1] ?? expanded[0]!;
      const innermost = expanded[expanded.length - 1]!;
      const redirects: Instance["redirects"] = [];
      for (const r of part.redirects) redirects.push({ redirect: r, targets: r.kind === "dup" ? [] : await expand([r.target]) });
      const words = effective.words.length ? effective.words : [literalWord(":")];
      const inner = innermost.words.length ? innermost.words : words;
      const fx = commandEffects(inner, part.extraArgs, part.stdin !== undefined, part.inputUnseen, part.npmSettingsRead, part.escapesReadFor);
      if (inner !== words) {
        const outerFx = commandEffects(words, part.extraArgs, part.stdin !== undefined, part.inputUnseen, part.npmSettingsRead, part.escapesReadFor);
        fx.hidden.push(...outerFx.hidden.filter((h) => !fx.hidden.includes(h)));
        // The wrapper's own options that run programs (`ssh -o ProxyCommand=…`) run on this machine too. When the
        // last reading is only a candidate of what it runs (deny and ask rules: a compiler's `-wrapper`, npm's
        // `--editor`), the command an allow rule matches is the effective one, and every option of it that runs
        // programs must be named by that rule (`npm run test --script-shell=./x.sh` under Bash(npm run test:*)).
        const all = !!innermost.view.denyOnly;
        fx.execOptions.push(...outerFx.execOptions.filter((o) => (all || o.runs) && !fx.execOptions.some((x) => x.option === o.option)));
        // And what the command itself reads and writes (`npm config edit --editor=vim` writes ~/.npmrc).
        if (all) {
          for (const w of outerFx.writes) if (!fx.writes.some((x) => x.value === w.value)) fx.writes.push(w);
          for (const w of outerFx.writeRegions) if (!fx.writeRegions.some((x) => x.value === w.value)) fx.writeRegions.push(w);
          for (const r of outerFx.reads) if (!fx.reads.some((x) => x.value === r.value)) fx.reads.push(r);
        }
      }
      for (const v of expanded) {
        if (v === innermost || v === effective || !v.view.denyOnly) continue;
        const vfx = commandEffects(v.words, part.extraArgs, false, part.inputUnseen);
        for (const h of vfx.hidden) if (!fx.hidden.includes(h)) fx.hidden.push(h);
        for (const o of vfx.execOptions) if (o.runs && !fx.execOptions.some((x) => x.option === o.option)) fx.execOptions.push(o);
        // What a candidate reads meets the read deny rules too, not only the last candidate's reads (differential
        // checker, session 16: `unshare -U tar -cf- README.md -Tl2` read the listed .env; the last reading was `README.md -Tl2`).
        for (const r of vfx.reads) if (!fx.reads.some((x) => x.value === r.value)) fx.reads.push(r);
        // And what its options write (`flock /dev/null sort -o .git/hooks/pre-commit a.c`: session 17, gate18).
        for (const w of vfx.writes) if (!fx.writes.some((x) => x.value === w.value)) fx.writes.push(w);
        for (const w of vfx.writeRegions) if (!fx.writeRegions.some((x) => x.value === w.value)) fx.writeRegions.push(w);
      }
      out.push({ part, cwd, expanded, effective: { view: effective.view, words }, innermost: { view: innermost.view, words: inner }, redirects, unstable, effects: fx, cls: classifyReadOnly(words) });
    }
  }
  return out;
}

/** The reasons a bound on the work gives (unknownProgramRuns below, candidate in shell/unwrap.ts). */
const OVERFLOW = /too many to search for a command it might run|more words than Yoke follows as that command/;

/** A shell escape in the input of a program that reads commands (command-input.ts): `!cmd`, `\\! cmd`, `syscmd(`, `system`, `.shell`. */
const SHELL_ESCAPE = /(^|\s)!|\\!|\b(e?syscmd|system|shell)\b/;

/** Words of an unknown program searched for a command it might run (see unknownProgramRuns). */
const MAX_SEARCHED_WORDS = 256;

/**
 * A program Yoke does not know may be a wrapper: the words it is given that name a program a deny
 * or ask rule covers (`setarch x86_64 rm -rf src` under `Bash(rm:*)`) could be what it runs (asks);
 * a shell or interpreter among them runs code Yoke cannot see (asks where a deny rule exists).
 */
function unknownProgramRuns(instances: Instance[], rules: PermissionRule[]): Array<{ rule: PermissionRule; inst: Instance; what: string }> {
  const out: Array<{ rule: PermissionRule; inst: Instance; what: string }> = [];
  const firsts = new Set<string>();
  let anyFirst = false;
  for (const r of rules) {
    const lit = specLiteralWords(r.specifier)[0];
    const first = lit?.split(" ")[0];
    if (!first || /[*?]/.test(first) || compileBashSpec(r.specifier).any) anyFirst = true;
    else firsts.add(first);
  }
  // A command found in the data starts with a name a rule covers, or with a wrapper around one
  // (`!timeout 5 rm -fr src`, `!git -C . reset --hard`): it is seen through as a command line's own is.
  const wanted = (n: string) => anyFirst || firsts.has(n) || isKnownRunner(n);
  for (const inst of instances) for (const run of programsItRuns(inst)) searchUnknown(inst, run.words, run.candidate);
  return out;

  /**
   * `candidate`: the words are one reading of what a wrapper runs. Each of its later whole words is then a
   * candidate of that wrapper already (seen through and matched on its own): only commands packed inside a
   * word (`-wrapper sh,-c,CODE`, `--shell=bash`, data on its input) are new (`taskset 1 bash -c …` is not
   * the unknown program `1` handed a shell).
   */
  function searchUnknown(inst: Instance, words: XWord[], candidate: boolean): void {
    const program = words[0];
    if (!program || program.dynamic) return;
    const name = program.value.slice(program.value.lastIndexOf("/") + 1);
    // Its data may be commands in its own language (`psql -c '\\! rm …'`, `m4 <<< 'syscmd(rm …)'`,
    // `echo '!rm …' | ed`): the literal text on its input counts as one more word it is given.
    // (Not where the program's own reader read its escapes in that text exactly: m4, psql — their commands are
    // the line's scripts already, and the rest of the text is no command: `m4 <<< 'eval(2+3)'` runs no eval.)
    const data = inst.part.escapesReadFor?.includes(name) ? [] : [inst.part.stdin, inst.part.pipedData].filter((d): d is string => d !== undefined);
    // What a command its escape runs reads or writes meets no Read or Edit rule here (differential checker,
    // session 16: `printf '%s\n' '!cat .env' q | ed -s f` read .env under Read(**/.env) in bypassPermissions):
    // code Yoke cannot see, which asks where a deny rule exists.
    if (readsCommandInput(name) && !inst.part.escapesRead && !inst.part.escapesReadFor?.includes(name) && data.some((d) => SHELL_ESCAPE.test(d))) {
      const why = `${name} runs the commands its input gives its shell escape, and what they read or write is not checked`;
      if (!inst.part.hidden.includes(why)) inst.part.hidden.push(why);
    }
    // A leading newline: data that starts with `-` (`echo -e …`) is not an option.
    // Each word may start a command, seen through and matched against every rule: past a bound the
    // rest is code Yoke does not search (asks where a deny rule exists), so the check stays fast.
    if (words.length > MAX_SEARCHED_WORDS) {
      const why = `${name} is not a program Yoke knows, and it is given more than ${MAX_SEARCHED_WORDS} words, too many to search for a command it might run`;
      if (!inst.part.hidden.includes(why)) inst.part.hidden.push(why);
    }
    const args = [...words.slice(1, MAX_SEARCHED_WORDS + 1), ...data.map((d) => literalWord(`\n${d}`))];
    const who = isKnownProgram(name) ? `${name} runs the commands in its input` : `${name} is not a program Yoke knows`;
    // Only a command that is a reading of the part on its own (a view that starts there) was matched already: a
    // program named by a path outside the system's folders (`./run.sh rm -f x`, `/lib64/ld-linux-x86-64.so.2
    // /usr/bin/rm -f x`) has a deny-only reading too, but nothing read its words as commands (red team I, session 24).
    const whole = (c: Word[]) =>
      candidate &&
      words.some((w) => !w.dynamic && w.raw === c[0]!.raw && w.value.slice(w.value.lastIndexOf("/") + 1) === c[0]!.value) &&
      inst.expanded.some((v) => v.words !== words && v.words[0] !== undefined && v.words[0].raw === c[0]!.raw && v.words.length === c.length);
    for (const c of candidateCommands(args, (n) => isShell(n) || isInterpreter(n) || isKnownRunner(n), 16)) {
      if (whole(c)) continue;
      const seen = seeThrough(inst.part, c);
      if (!namesCodeRunner(c[0]!) && !seen.runsCode && !seen.views.some((v) => v[0] !== undefined && namesCodeRunner(v[0]))) continue;
      const why = `${who}, and it is given ${c[0]!.value}, which it might run with code Yoke cannot see`;
      if (!inst.part.hidden.includes(why)) inst.part.hidden.push(why);
      break;
    }
    if (!rules.length) return;
    for (const c of candidateCommands(args, wanted, 64, true)) {
      if (whole(c)) continue;
      const views = seeThrough(inst.part, c).views;
      for (const rule of rules) {
        if (out.some((o) => o.inst === inst && o.rule === rule)) continue;
        // Every reading (wrappers and git's options seen through), with every spelling of the rule's
        // options, as for the command itself (`rm -rf` under `Bash(rm -f:*)`).
        const m = views.some((v) => matchBashSpec(rule.specifier, v, inst.part.extraArgs) !== "no" || matchOptionSpellings(rule.specifier, v) !== "no");
        if (!m) continue;
        out.push({
          rule,
          inst,
          what: `\`${inst.part.text}\`: ${who}, and it is given \`${c
            .map((w) => w.value)
            .join(" ")
            .slice(0, 80)}\`, which it might run and which the ${rule.list} rule ${ruleLabel(rule)} covers`,
        });
      }
    }
  }
}

/**
 * Every program a part may run: the command itself (its innermost reading) and each candidate a wrapper
 * may run (`setsid gccgo -wrapper sh,-c,CODE …`: the unknown gccgo was never searched for the command it
 * runs, as it was without setsid — session 16's note). A candidate that is a suffix of one already listed
 * unknown program is searched with it (its words are among the earlier one's), so the work stays linear
 * in the words.
 */
function programsItRuns(inst: Instance): Array<{ words: XWord[]; candidate: boolean }> {
  const out: Array<{ words: XWord[]; candidate: boolean }> = [];
  const lists = [
    ...(inst.part.wrapper ? [] : [{ words: inst.innermost.words, candidate: !!inst.innermost.view.denyOnly }]),
    ...inst.expanded.filter((v) => v.view.denyOnly).map((v) => ({ words: v.words, candidate: true })),
  ];
  for (const { words, candidate } of lists) {
    const program = words[0];
    if (!program || program.dynamic) continue;
    const name = program.value.slice(program.value.lastIndexOf("/") + 1);
    // Known programs are analysed by their own tables; those whose input is commands (dc) are searched too.
    if (isKnownProgram(name) && !readsCommandInput(name)) continue;
    const within = out.some(({ words: o }) => o.length >= words.length && o[o.length - 1] === words[words.length - 1] && o[o.length - words.length] === words[0]);
    if (!within) out.push({ words, candidate });
  }
  return out;
}

/** bash's builtins and keywords: a command named so is not looked up on PATH when bash runs it. */
const SHELL_BUILTINS = new Set(
  ". : [ [[ ]] alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait ! { } case coproc do done elif else esac fi for function if in select then time until while".split(
    " ",
  ),
);

/**
 * Does a program of this part come from a folder on the session's command path that the command line
 * can write (issue 18, session 21: relative PATH entries)? With `.`, `bin` or `<workspace>/node_modules/.bin`
 * before the folder that holds `ls`, `ls` may be the workspace's own file, written by the agent: code
 * Yoke cannot see, like `./ls`. A name no listed folder holds is looked up through every entry.
 */
export async function workspaceProgram(part: CommandPart, ctx: Pick<EvalContext, "searchPath" | "isExecutable">): Promise<string | undefined> {
  const entries = ctx.searchPath;
  if (!entries) return undefined;
  // Views run by bash itself (and its builtins `command`, `exec`, `time`…) may name a builtin; a program a
  // wrapper runs (env, xargs, timeout…) never is one.
  let byShell = true;
  for (const view of part.views) {
    if (view.denyOnly) continue;
    const w = view.words[0];
    if (!w || w.dynamic) {
      byShell = false;
      continue;
    }
    if (byShell && SHELL_BUILTINS.has(w.value)) continue;
    byShell = false;
    if (w.value.includes("/") || w.value === "") continue;
    for (const e of entries) {
      if (e.writable)
        return `${w.value} is looked up on the command path, whose entry ${e.dir === "" ? "'' (the current folder)" : e.dir} comes before any folder that holds it and can hold a ${w.value} the workspace wrote`;
      if (e.names?.has(w.value) && (await runnable(ctx, e, w.value))) break;
    }
  }
  return undefined;
}

/**
 * Does bash take this folder's file of that name when it looks the name up (findcmd.c): a folder, a broken
 * link or a file the user may not execute is passed over for a later entry (a relative one may hold the name).
 */
const runnableSeen = new WeakMap<object, Map<string, Promise<boolean>>>();
function runnable(ctx: Pick<EvalContext, "searchPath" | "isExecutable">, e: SearchPathEntry, name: string): Promise<boolean> {
  if (!ctx.isExecutable || !e.abs) return Promise.resolve(true);
  let seen = runnableSeen.get(ctx.searchPath!);
  if (!seen) runnableSeen.set(ctx.searchPath!, (seen = new Map()));
  const file = `${e.abs.replace(/\/+$/, "")}/${name}`;
  let got = seen.get(file);
  if (!got) seen.set(file, (got = ctx.isExecutable(file).catch(() => false)));
  return got;
}

/** Might this part create, remove or rename files (so that later globs match differently)? */
function mayChangeFiles(part: CommandPart): boolean {
  if (part.redirects.some((r) => r.kind === "write")) return true;
  if (part.writes?.length) return true;
  if (part.wrapper) return false;
  const views = part.views.filter((v) => v.allowable && !v.denyOnly);
  const words = (views[views.length - 1] ?? part.views[0]!).words;
  if (!words.length || words[0]!.value === ":") return false;
  return !classifyReadOnly(words).ok;
}

/** Brace, tilde and pathname expansion of one word in one folder. */
async function expandWord(w: Word, cwd: string | null, env: ExpandEnv, globOptionsChanged: boolean): Promise<XWord[]> {
  if (w.dynamic || w.pattern === undefined || (!w.glob && !w.pattern.startsWith("~"))) return [w];
  const needsBrace = w.glob;
  const patterns = needsBrace ? braceExpand(w.pattern) : [w.pattern];
  if (!patterns) return [{ ...w, dynamic: true, unknownWhy: `${w.raw} expands to too many words` }];
  // A shell without brace expansion (sh) passes the word as it is: keep that reading too.
  if (needsBrace && patterns.length > 1) patterns.push(w.pattern.replace(/\\?([{},])/g, (m, c: string) => (m.startsWith("\\") ? m : `\\${c}`)));
  const out: XWord[] = [];
  for (const p of patterns) {
    const t = tildeExpand(p, env.home);
    if (typeof t !== "string") {
      out.push({ ...w, dynamic: true, unknownWhy: t.unknown });
      continue;
    }
    if (!hasGlob(t)) {
      const value = unescapePattern(t);
      out.push({ value, raw: w.raw, dynamic: false, glob: false, pattern: t });
      continue;
    }
    if (globOptionsChanged) {
      out.push({ ...w, value: unescapePattern(t), dynamic: true, unknownWhy: "the command line changes how globs expand (shopt/set)" });
      continue;
    }
    if (cwd === null && !t.startsWith("/")) {
      out.push({ ...w, value: unescapePattern(t), dynamic: true, unknownWhy: `${w.raw} is expanded in a folder only known when it runs` });
      continue;
    }
    const e = await globExpand(t, cwd ?? "/", env);
    if ("unknown" in e) {
      out.push({ ...w, value: unescapePattern(t), dynamic: true, unknownWhy: e.unknown });
      continue;
    }
    for (const value of e.words) out.push({ value, raw: w.raw, dynamic: false, glob: false, pattern: escapeLiteral(value), from: { pattern: t, cwd } });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rules on commands.

/** The words with their globs taken as settled (one array per input array, so matchBashSpec's subject cache holds). */
const settled = new WeakMap<readonly Word[], Word[]>();
function settledGlobs(words: Word[]): Word[] {
  let out = settled.get(words);
  if (!out) settled.set(words, (out = words.some((x) => x.glob) ? words.map((x) => (x.glob ? { ...x, glob: false } : x)) : words));
  return out;
}

const isGit = (w: Word | undefined) => !!w && !w.dynamic && (w.value === "git" || w.value.endsWith("/git"));

/**
 * The push options the line's configuration gives each `git push` in it (shell/git-push.ts): set by
 * a `git config`/`git remote add --mirror` before it in the line, or by `GIT_CONFIG_*` on the
 * command itself. A run-time value is a word only known when it runs (the rule may match).
 */
function linePushOptions(instances: Instance[]): Map<Instance, Word[]> {
  const out = new Map<Instance, Word[]>();
  const before: Word[] = [];
  const unknown: Word = { value: "$GIT_CONFIG", raw: "$GIT_CONFIG", dynamic: true, glob: false };
  const words = (opts: string[] | "unknown") => (opts === "unknown" ? [unknown] : opts.map(literalWord));
  for (const inst of instances) {
    const env = words(pushOptionsFromEnv(inst.part.assignments));
    const pushes = inst.expanded.some(({ words: w }) => isGit(w[0]) && w[1]?.value === "push");
    if (pushes && (before.length || env.length)) out.set(inst, [...before, ...env]);
    for (const { words: w } of inst.expanded) if (isGit(w[0])) before.push(...words(pushOptionsSetBy(w.slice(1))));
  }
  return out;
}

/** The best match of a rule over the views of an instance, as written and expanded (`pushed`: linePushOptions). */
function matchViews(rule: PermissionRule, inst: Instance, pushed?: Word[]): SpecMatch {
  let best: SpecMatch = "no";
  const globsUnknown = inst.unstable || inst.expanded.some((v) => v.words.some((w) => w.unknownWhy));
  for (const { view, words } of inst.expanded) {
    const withPushed = (w: Word[]): Word[][] => (pushed && isGit(w[0]) && !w[1]?.dynamic && w[1]?.value === "push" ? [w, [w[0]!, w[1], ...pushed, ...w.slice(2)]] : [w]);
    for (const [w, uncertainGlobs] of [...withPushed(view.words).map((x) => [x, globsUnknown] as const), ...withPushed(words).map((x) => [x, false] as const)]) {
      const m = matchBashSpec(rule.specifier, uncertainGlobs ? w : settledGlobs(w), inst.part.extraArgs);
      if (m === "yes") return "yes";
      if (m === "maybe") best = "maybe";
      // Deny and ask rules hold for every spelling of their options (`rm -fr`, `rm -r -f`, `--recursive`).
      const o = matchOptionSpellings(rule.specifier, w);
      if (o === "yes") return "yes";
      if (o === "maybe") best = "maybe";
    }
  }
  // Other spellings of the same effect (`git checkout -f` is `git reset --hard`: shell/git-discard.ts).
  for (const w of inst.part.readings ?? []) if (matchBashSpec(rule.specifier, w, false) !== "no" || matchOptionSpellings(rule.specifier, w) !== "no") return "yes";
  return best;
}

/**
 * The allow rule that allows this part, if any: it must match a view that may be allowed, reach
 * the command that view wraps (`Bash(watch *)` does not allow what watch runs), and name every
 * option that makes the command run other programs.
 */
function allowRuleFor(inst: Instance, rules: PermissionRule[]): { rule: PermissionRule } | { why: string } | undefined {
  const eff = inst.effective.view;
  // Where the command that really runs starts (below sudo the effective view is the outer one).
  const effSkip = inst.innermost.view.skip ?? eff.skip ?? 0;
  let refused: string | undefined;
  for (const rule of rules) {
    for (const { view, words } of inst.expanded) {
      if (!view.allowable || view.denyOnly) continue;
      const skip = view.skip ?? 0;
      if (skip > effSkip) continue;
      const matched = matchBashSpec(rule.specifier, view.words, inst.part.extraArgs) === "yes" || matchBashSpec(rule.specifier, words, inst.part.extraArgs) === "yes";
      if (!matched) continue;
      const literal = specLiteralWords(rule.specifier);
      const whole = compileBashSpec(rule.specifier).any;
      if (!whole && effSkip > skip && literal.length <= effSkip - skip) {
        refused ??= `the rule ${rule.raw} allows \`${view.words[0]?.value}\` but not the command it runs, \`${inst.innermost.words.map((w) => w.value).join(" ")}\``;
        continue;
      }
      if (!whole && inst.part.runsUnknown && literal.length < inst.expanded[0]!.words.length) {
        refused ??= `\`${inst.expanded[0]!.words[0]?.value}\` runs another command, which the rule ${rule.raw} does not name`;
        continue;
      }
      const effWords = inst.effective.words;
      const runtimeOption = whole || !OPTION_SENSITIVE.has(effWords[0]?.value ?? "") ? -1 : effWords.findIndex((w, i) => i > 0 && w.dynamic && !isOptionValue(effWords, i));
      if (runtimeOption > 0) {
        refused ??= `${effWords[runtimeOption]!.raw} is only known when it runs and could be an option that makes ${effWords[0]!.value} run other programs, which the rule ${rule.raw} does not cover`;
        continue;
      }
      const uncovered = whole ? undefined : inst.effects.execOptions.find((o) => !literal.some((l) => l === o.option || l.startsWith(`${o.option}=`)));
      if (uncovered) {
        refused ??= `the rule ${rule.raw} does not cover ${uncovered.option}: ${uncovered.why}`;
        continue;
      }
      return { rule };
    }
  }
  return refused ? { why: refused } : undefined;
}

// ---------------------------------------------------------------------------------------------
// Paths.

export async function collectTouches(instances: Instance[], ctx: EvalContext, check: (base: string, written: string) => Promise<CheckedPath>): Promise<Touch[]> {
  const out: Touch[] = [];
  for (const inst of instances) {
    const add = async (kind: "read" | "write", w: XWord, extra: Partial<Touch> = {}) => {
      for (const t of await resolveWord(w, inst, ctx, check)) out.push({ ...t, kind, inst, ...extra } as Touch);
    };
    for (const { redirect, targets } of inst.redirects) {
      if (redirect.kind === "dup") continue;
      for (const t of targets) {
        if (!t.dynamic && HARMLESS_TARGETS.test(t.value)) continue;
        if (t.dynamic) continue; // a problem of its own (asks)
        await add(redirect.kind, t, { redirect: true });
      }
    }
    /**
     * The paths below a folder, one by one — unless one of them is protected: then the folder as a
     * region, so that an approved command may write it all (`rm -rf .git`, confine.writable).
     */
    const addTree = async (w: Word, rels: string[] | undefined): Promise<boolean> => {
      if (!rels) return false;
      const tmp: Touch[] = [];
      for (const rel of ["", ...rels]) for (const t of await resolveWord(below(w, rel), inst, ctx, check)) tmp.push({ ...t, kind: "write", inst } as Touch);
      if (tmp.some((t) => "exact" in t && t.exact.protected)) return false;
      out.push(...tmp);
      return true;
    };
    for (const w of inst.part.writes ?? []) await add("write", w as XWord, { redirect: true });
    for (const w of inst.part.reads ?? []) await add("read", w as XWord);
    const named: NamedPaths = inst.cls.ok ? { reads: inst.cls.paths, writes: [] } : namedPaths(inst.innermost.words);
    for (const w of named.reads) await add("read", w as XWord);
    // A program that runs another command Yoke does not unwrap (`setsid cat .env`, `ionice -c3 …`):
    // what each candidate inner command reads, so read deny rules apply in every mode.
    // The candidates are suffixes of one word list: a word is checked once, not once per candidate
    // (`setsid` and 600 words was 600² path checks, 20–40 s — red team round 12).
    // What each candidate writes too (`flock /dev/null sort -o .git/hooks/pre-commit a.c` wrote the hook in
    // bypassPermissions while only the last candidate, `a.c`, was read for its paths: session 17, gate18),
    // so protected paths and Edit deny rules meet it; and, when the last reading is only a candidate (a
    // compiler's `-wrapper`, npm's `--editor`), what the command itself names.
    const candidateWrites: Word[] = [];
    const candidateRegions: Word[] = [];
    if (inst.part.runsUnknown) {
      const seen = new Set<Word>();
      const seenWrite = new Set<Word>();
      for (const v of inst.expanded) {
        if (!v.view.denyOnly || !v.words.length || v.words[0]!.dynamic) continue;
        const c = classifyReadOnly(v.words);
        const n = c.ok ? undefined : namedPaths(v.words);
        for (const w of c.ok ? c.paths : n!.reads) {
          if (w.dynamic || seen.has(w)) continue;
          seen.add(w);
          await add("read", w as XWord);
        }
        for (const [list, into] of [
          [[...(n?.writes ?? []), ...(n?.copies ? [n.copies.target] : [])], candidateWrites],
          [n?.regions ?? [], candidateRegions],
        ] as const) {
          for (const w of list) {
            if (seenWrite.has(w)) continue;
            seenWrite.add(w);
            into.push(w);
          }
        }
      }
    }
    if (!inst.part.runsUnknown && !inst.cls.ok && inst.innermost.view.denyOnly && inst.effective.words !== inst.innermost.words) {
      const own = namedPaths(inst.effective.words);
      for (const w of own.reads) await add("read", w as XWord);
      candidateWrites.push(...own.writes);
      candidateRegions.push(...(own.regions ?? []));
    }
    for (const w of candidateWrites) await add("write", w as XWord);
    for (const w of candidateRegions) await add("write", w as XWord, { region: true });
    for (const w of named.writes) await add("write", w as XWord);
    // `rm -r coverage`, `chmod -R u+w build`: what is below an existing folder now, when it is small
    // and nothing earlier in the line changes files; else anything below it (a region).
    for (const w of named.regions ?? []) {
      if (!(await addTree(w, await existingTree(w, inst, ctx, check)))) await add("write", w as XWord, { region: true });
    }
    if (named.copies) {
      // The target, and `target/<source name>` when the target is a folder; below them when a
      // folder is copied recursively or moved. A moved source is written (removed), with what
      // is below it when it is a folder.
      const { sources, target, kind } = named.copies;
      const folders = await Promise.all(sources.map((s) => (kind === "copy" ? false : isFolder(s, inst, ctx, check))));
      // A folder source whose tree Yoke can list now: exactly the paths it puts below the target
      // (`cp -r src/utils src/helpers` writes src/helpers/<each file of src/utils>).
      const trees = await Promise.all(sources.map((s, k) => (folders[k] ? existingTree(s, inst, ctx, check) : Promise.resolve([] as string[]))));
      const anyFolder = folders.some(Boolean);
      const intoFolder = named.copies.intoFolder || target.dynamic || target.value.endsWith("/") || (await isFolder(target, inst, ctx, check));
      const exactTarget = anyFolder && !intoFolder && sources.length === 1 && trees[0] !== undefined;
      // Into an existing folder, with every folder source listed: target/<leaf>/<each path> below.
      const listedInto = intoFolder && !target.dynamic && sources.every((s, k) => !s.dynamic && (!folders[k] || trees[k] !== undefined));
      if (!(exactTarget && (await addTree(target, trees[0])))) await add("write", target as XWord, anyFolder && !listedInto ? { region: true } : {});
      for (let k = 0; k < sources.length; k++) {
        const s = sources[k]!;
        const tree = trees[k];
        if (kind === "move") {
          if (!(folders[k] && (await addTree(s, tree)))) await add("write", s as XWord, folders[k] ? { region: true } : {});
        }
        if (s.dynamic || target.dynamic || !intoFolder) continue;
        const base = s.value.replace(/\/+$/, "");
        const leaf = base.slice(base.lastIndexOf("/") + 1);
        if (!leaf || leaf === "." || leaf === "..") continue;
        const into = { ...target, value: `${target.value.replace(/\/+$/, "")}/${leaf}`, pattern: undefined, glob: false };
        if (!(folders[k] && (await addTree(into, tree)))) await add("write", into as XWord, folders[k] ? { region: true } : {});
      }
    }
    for (const w of inst.effects.writes) if (!HARMLESS_TARGETS.test(w.value)) await add("write", w as XWord, { redirect: true, ...((w as { door?: boolean }).door ? { door: true } : {}) });
    for (const w of inst.effects.writeRegions) await add("write", w as XWord, { region: true, fresh: !!(w as { fresh?: boolean }).fresh, ...((w as { door?: boolean }).door ? { door: true } : {}) });
    for (const w of inst.effects.reads) await add("read", w as XWord);
    // Files given at run time (xargs, find -exec … {}): any file.
    if (inst.part.extraArgs && !NO_RUNTIME_FILES.has(inst.effective.words[0]?.value ?? "")) {
      const how = inst.part.via[inst.part.via.length - 1] ?? "xargs";
      const from = inst.part.filesFrom;
      if (from && inst.cwd !== null && from.every((w) => !w.dynamic)) {
        for (const w of from) {
          const p = await check(inst.cwd, w.value);
          out.push({ kind: "read", raw: inst.part.text, inst, pattern: regionPattern(p.lexical), why: `files below ${showPath(ctx, p)} named at run time (${how})`, symbolic: "dynamic" });
          if (p.real !== p.lexical)
            out.push({ kind: "read", raw: inst.part.text, inst, pattern: regionPattern(p.real), why: `files below ${showPath(ctx, p)} named at run time (${how})`, symbolic: "dynamic" });
        }
      } else out.push({ kind: "read", raw: inst.part.text, inst, pattern: [ANY], why: `files named at run time (${how})`, symbolic: "dynamic" });
    }
    if (inst.cls.ok) {
      if (inst.cls.readsCwd) await add("read", literalWord(".") as XWord, { implicit: true });
      for (const d of inst.cls.gitDirs ?? []) await add("read", d as XWord);
      for (const p of inst.cls.repoPaths ?? []) if (!p.dynamic) out.push({ kind: "read", raw: p.raw, inst, exact: await check(ctx.cwd, p.value.replace(/^\/+/, "")) });
      // `git show REV:PATH` where REV names a subtree (a tag, a ref): PATH below any folder of it.
      for (const p of inst.cls.treePaths ?? [])
        if (!p.dynamic && !p.value.split("/").includes(".."))
          out.push({
            kind: "read",
            raw: p.raw,
            inst,
            pattern: [...litSegs(ctx.cwd), ANY, ...litSegs(p.value)],
            why: `${p.raw} (its path below any folder: the revision may name a subtree)`,
            symbolic: "history",
            leaf: true,
          });
      if (inst.cls.gitContent) out.push(...(await gitHistory(inst, ctx, check)));
    } else if (gitWritesContentOut(inst.innermost.words)) {
      // A git command that is not read-only and may write the repository's contents out (an
      // archive, a patch, --textconv, --ext-diff): every file of its history is read.
      out.push({ kind: "read", raw: inst.part.text, inst, pattern: regionPattern(ctx.cwd), why: "files from the repository history (a git command that writes contents out)", symbolic: "history" });
    }
  }
  return out;
}

/** How many paths existingTree lists at most (past that: anything below the folder). */
const MAX_TREE = 256;

/** `w/rel` as a word made up by the analysis. */
function below(w: Word, rel: string): XWord {
  return { ...w, value: rel ? `${w.value.replace(/\/+$/, "")}/${rel}` : w.value, pattern: undefined, glob: false } as XWord;
}

/**
 * The paths below an existing folder, relative to it (folders before what they hold), or
 * undefined when Yoke cannot know them all: not a folder now, a word only known at run time, an
 * earlier part of the line changes files, or more than MAX_TREE entries. Symbolic links are
 * listed, not followed (rm -r, chmod -R, cp -r and mv act on the link).
 */
async function existingTree(w: Word, inst: Instance, ctx: EvalContext, check: (base: string, written: string) => Promise<CheckedPath>): Promise<string[] | undefined> {
  if (w.dynamic || inst.unstable || inst.cwd === null || !ctx.listDir || !ctx.realPath) return undefined;
  if (w.value.startsWith("~") || ALIAS_PATHS.test(w.value) || w.value.startsWith("/proc")) return undefined;
  const top = await check(inst.cwd, w.value);
  if (!ctx.roots.some((r) => isWithin(top.real, r)) && !isWithin(top.real, ctx.cwd)) return undefined;
  const out: string[] = [];
  const queue: string[] = [""];
  while (queue.length) {
    const rel = queue.shift()!;
    const dir = rel ? `${top.real}/${rel}` : top.real;
    if (rel) {
      // A link is not entered: its own path is what the command removes, copies or moves.
      const real = await ctx.realPath(dir).catch(() => undefined);
      if (real !== dir) continue;
    }
    const names = await ctx.listDir(dir).catch(() => undefined);
    if (!names) {
      if (!rel) return undefined;
      continue;
    }
    for (const name of names) {
      const child = rel ? `${rel}/${name}` : name;
      out.push(child);
      if (out.length > MAX_TREE) return undefined;
      queue.push(child);
    }
  }
  return out;
}

/** Is this source of a copy or move a folder (or could it be: only known at run time)? */
async function isFolder(w: Word, inst: Instance, ctx: EvalContext, check: (base: string, written: string) => Promise<CheckedPath>): Promise<boolean> {
  if (w.dynamic || inst.cwd === null || !ctx.listDir || !ctx.realPath) return true;
  const p = await check(inst.cwd, w.value);
  if ((await ctx.listDir(p.real).catch(() => undefined)) !== undefined) return true;
  // Not a folder now: a file, or nothing (then the command fails or an earlier part creates it).
  return (await ctx.realPath(p.real).catch(() => undefined)) === undefined && inst.unstable;
}

/** What a word names, once or as a pattern of what it could name. */
async function resolveWord(w: XWord, inst: Instance, ctx: EvalContext, check: (base: string, written: string) => Promise<CheckedPath>): Promise<Array<{ raw: string } & TouchTarget>> {
  // `<(cmd)` / `>(cmd)` is a pipe (/dev/fd/N) to a command that is checked as a part of its own.
  if (w.dynamic && /^[<>]\([\s\S]*\)$/.test(w.raw)) return [];
  if (w.dynamic) return [{ raw: w.raw, pattern: dynamicSegs(w.value), why: `${w.raw} (only known when it runs${w.unknownWhy ? `: ${w.unknownWhy}` : ""})`, symbolic: "dynamic" }];
  const value = w.value;
  if (ALIAS_PATHS.test(value) || value === "/proc") return [{ raw: w.raw, pattern: [ANY], why: `${value} (another name for a path only known when it runs)`, symbolic: "alias" }];
  const out: Array<{ raw: string } & TouchTarget> = [];
  if (inst.cwd === null && !value.startsWith("/")) {
    out.push({ raw: w.raw, pattern: [ANY, ...litSegs(`/${value}`)], why: `${value} in a folder only known when it runs (after a cd Yoke cannot follow)`, symbolic: "cwd" });
    return out;
  }
  if (value === "~" || value.startsWith("~/")) {
    // A tilde bash did not expand (quoted, or inside an option value): the literal folder, and the
    // home folder for the cases bash does expand (`dd of=~/x`).
    out.push({ raw: w.raw, exact: await check(inst.cwd ?? "/", `./${value}`) });
    out.push({ raw: w.raw, exact: await check("/", value) });
  } else out.push({ raw: w.raw, exact: await check(inst.cwd ?? "/", value) });
  if (w.from && inst.unstable) {
    const base = w.from.cwd ?? "/";
    const segs = w.from.pattern.split("/");
    const firstGlob = segs.findIndex((s) => hasGlob(s));
    const fixed = unescapePattern(segs.slice(0, Math.max(firstGlob, 0)).join("/"));
    const fixedDir = fixed === "" ? (w.from.pattern.startsWith("/") ? "/" : base) : fixed.startsWith("/") ? fixed : `${base}/${fixed}`;
    out.push({
      raw: w.raw,
      pattern: globSegs(base, w.from.pattern),
      why: `${w.raw} (matches may change: an earlier command changes files)`,
      symbolic: "unstable",
      fixedDir,
      tail: segs.slice(firstGlob).join("/"),
    });
  }
  return out;
}

/** The repository contents a read-only git command prints (diff, show, log -p, grep…). */
async function gitHistory(inst: Instance, ctx: EvalContext, check: (base: string, written: string) => Promise<CheckedPath>): Promise<Touch[]> {
  const content = inst.cls.ok ? inst.cls.gitContent : undefined;
  if (!content) return [];
  // `partlyKnown`: a pathspec only known in part (magic, a run-time value, an unknown folder) is held
  // to every rule, ignore files' too; no pathspec at all (the whole history) names no path.
  const whole = (partlyKnown: boolean): Touch => ({
    kind: "read",
    raw: inst.part.text,
    inst,
    pattern: regionPattern(ctx.cwd),
    why: "files from the repository history (every file: no pathspec limits it)",
    symbolic: "history",
    ...(partlyKnown ? {} : { historyOf: null }),
  });
  if (content.any || inst.cwd === null) return [whole(true)];
  let specs = content.pathspecs;
  if (!specs.length && content.positional.length) {
    const k = await firstExisting(content.positional, inst.cwd, ctx, check);
    specs = k < 0 ? [] : content.positional.slice(k);
  }
  if (!specs.length) return [whole(false)];
  const out: Touch[] = [];
  for (const s of specs) {
    if (s.dynamic) return [whole(true)];
    const fixed =
      s.pattern && hasGlob(s.pattern)
        ? unescapePattern(
            s.pattern
              .split("/")
              .filter((seg, i, a) => a.slice(0, i + 1).every((x) => !hasGlob(x)))
              .join("/"),
          )
        : s.value;
    const p = await check(inst.cwd, fixed || ".");
    if (fixed === s.value && (await isRegularFile(p, ctx))) {
      // A pathspec naming a file of the working tree: that file's history (see docs/security.md).
      out.push({ kind: "read", raw: s.raw, inst, pattern: litSegs(p.lexical), why: `${s.raw} in the repository history`, symbolic: "history" });
      if (p.real !== p.lexical) out.push({ kind: "read", raw: s.raw, inst, pattern: litSegs(p.real), why: `${s.raw} in the repository history`, symbolic: "history" });
      continue;
    }
    // A folder named whole: ignore files count for that folder itself; a glob's fixed folder: for all below it.
    const folder = fixed === s.value ? { historyOf: p } : {};
    out.push({ kind: "read", raw: s.raw, inst, pattern: regionPattern(p.lexical), why: `${s.raw} in the repository history`, symbolic: "history", ...folder });
    if (p.real !== p.lexical) out.push({ kind: "read", raw: s.raw, inst, pattern: regionPattern(p.real), why: `${s.raw} in the repository history`, symbolic: "history", ...folder });
  }
  return out;
}

/** Does the path exist now as something other than a folder? */
async function isRegularFile(p: CheckedPath, ctx: EvalContext): Promise<boolean> {
  if (!ctx.realPath || !ctx.listDir) return false;
  if ((await ctx.realPath(p.real).catch(() => undefined)) === undefined) return false;
  return (await ctx.listDir(p.real).catch(() => undefined)) === undefined;
}

async function firstExisting(words: Word[], cwd: string, ctx: EvalContext, check: (base: string, written: string) => Promise<CheckedPath>): Promise<number> {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.dynamic) return i;
    const p = await check(cwd, w.value);
    if (ctx.realPath && (await ctx.realPath(p.lexical).catch(() => undefined)) !== undefined) return i;
  }
  return -1;
}

/** Protected paths and agent settings the command writes (statically known ones are approved by name). */
function protectedWrites(touches: Touch[], ctx: EvalContext): { reasons: string[]; writable: string[] } {
  const reasons: string[] = [];
  const writable: string[] = [];
  for (const t of touches) {
    if (t.kind !== "write" || t.door) continue;
    if ("exact" in t) {
      const p = t.exact;
      if (p.protected || p.sensitive?.kind === "config") {
        reasons.push(`${showPath(ctx, p)} (${p.protected?.why ?? p.sensitive!.why})`);
        for (const x of [p.lexical, p.real]) if (!writable.includes(x)) writable.push(x);
        continue;
      }
      if (t.region) {
        const below = protectedCouldMatch(ctx, regionPattern(p.lexical)) ?? protectedCouldMatch(ctx, regionPattern(p.real));
        if (below) {
          reasons.push(`${showPath(ctx, p)}, which holds ${below.path} (${below.why})`);
          for (const x of [p.lexical, p.real]) if (!writable.includes(x)) writable.push(x);
        }
      }
    } else if (t.symbolic === "unstable") {
      const hit = protectedCouldMatch(ctx, t.pattern);
      if (hit) reasons.push(`${t.why}, which could be ${hit.path} (${hit.why})`);
    }
  }
  return { reasons, writable };
}

interface Check {
  /** Why it is not allowed; undefined when it is. */
  why?: string;
  /** A path rule that allowed it. */
  rule?: PermissionRule;
}

/** Why a part is not a read-only command on allowed paths, or nothing when it is (`touches`: at least the part's own). */
async function readOnlyProblem(inst: Instance, touches: Touch[], ctx: EvalContext): Promise<Check> {
  const { part } = inst;
  if (part.elevated) return { why: elevation(part) };
  // bash's own echo/printf/test/pwd/true run no program: no variable of their environment changes them.
  const builtin = !part.wrapper && inst.effective.words.length > 0 && !inst.effective.words[0]!.dynamic && ENV_BLIND_BUILTINS.has(inst.effective.words[0]!.value);
  const env = builtin ? undefined : part.assignments.find((a) => !quiet(a));
  if (env) return { why: env.exported ? `it gets ${env.name}, exported earlier on the line` : `it sets ${env.name} for the command` };
  if (!inst.cls.ok) return { why: inst.cls.why };
  const hidden = [...part.hidden, ...inst.effects.hidden][0];
  if (hidden) return { why: hidden };
  if (inst.effects.execOptions.length) return { why: `${inst.effects.execOptions[0]!.option} ${inst.effects.execOptions[0]!.why}` };
  if (part.runsUnknown) return { why: `${inst.effective.words[0]?.value} runs another command` };
  if (part.extraArgs && !["echo", "printf", "true", ":"].includes(inst.effective.words[0]!.value)) return { why: `it receives file names at run time (${part.via[part.via.length - 1] ?? "xargs"})` };
  let rule: PermissionRule | undefined;
  for (const t of touches) {
    if (t.inst !== inst || t.kind !== "read") continue;
    const c = readProblem(t, ctx);
    if (c.why) return c;
    rule ??= c.rule;
  }
  return { rule };
}

/**
 * What raised the part's privileges, for the reason shown: the program that did (`sudo`, `doas`, `su -c`,
 * `runuser`…) as the part shows it, among its readings or the wrappers it was reached through. Only those
 * elevate (session 16's note: `flock /dev/null gcc -c a.c` was told "it runs with sudo").
 */
function elevation(part: CommandPart): string {
  const names = [...part.views.map((v) => v.words[0]?.value), ...part.via.map((h) => h.split(" ")[0])].filter((n): n is string => !!n).map((n) => n.slice(n.lastIndexOf("/") + 1));
  const by = names.find((n) => /^(sudo|doas|su|runuser|sg|capsh|pkexec)$/.test(n));
  return by ? `it runs with ${by}` : "it runs as another user or with more privileges";
}

/** Commands acceptEdits allows when every path they touch is an ordinary workspace file. */
const EDIT_COMMANDS = new Set(["mkdir", "touch", "cp", "mv", "sed", "tee"]);

/** Why a part is not a plain file edit inside the workspace (acceptEdits), or nothing when it is (`touches`: at least the part's own). */
function workspaceEditProblem(inst: Instance, touches: Touch[], ctx: EvalContext): string | undefined {
  const { part } = inst;
  const name = inst.effective.words[0]?.value ?? "";
  if (!EDIT_COMMANDS.has(name) || inst.effective.words[0]?.dynamic) return "not a file command";
  if (inst.innermost.words !== inst.effective.words) return "it runs another command";
  if (part.elevated || part.extraArgs || part.runsUnknown || part.wrapper) return "not a plain command";
  if (part.assignments.some((a) => !quiet(a))) return "it sets variables";
  if (part.hidden.length || inst.effects.hidden.length || inst.effects.execOptions.length) return "it runs code";
  if (inst.effective.words.some((w) => w.dynamic)) return "a word is only known when it runs";
  for (const t of touches) {
    if (t.inst !== inst) continue;
    if (!("exact" in t)) return `it touches ${t.why}`;
    const p = t.exact;
    if (!p.inside || p.sensitive || p.protected) return `it touches ${showPath(ctx, p)}`;
    if (t.kind === "read" && readProblem(t, ctx).why) return "a read";
  }
  return undefined;
}

function readProblem(t: Touch, ctx: EvalContext): Check {
  if (!("exact" in t)) {
    if (t.symbolic === "history") return {};
    if (t.symbolic === "unstable" && t.fixedDir) {
      const fixed = t.fixedDir;
      const inside = ctx.roots.some((r) => isWithin(fixed, r)) || isWithin(fixed, ctx.cwd);
      if (!inside) return { why: `${t.raw} may match files outside the workspace` };
      const m = segmentMatcher(t.tail?.split("/")[0] ?? "*");
      if (SENSITIVE_PROBES.some((probe) => m(probe.split("/")[0]!))) return { why: `${t.raw} may match sensitive files` };
      return {};
    }
    return { why: `it reads ${t.why}` };
  }
  const path = t.exact;
  if (path.inside && path.sensitive?.kind !== "secret") return {};
  const rule = matchPathRule(ctx, "allow", "Read", path);
  if (rule) return { rule };
  if (!path.inside) return { why: `it reads ${showPath(ctx, path)}, outside the workspace` };
  return { why: `it reads ${showPath(ctx, path)}, a sensitive file (${path.sensitive!.why})` };
}

/**
 * A read-only git command must use the workspace's own repository: a folder between where it runs
 * and the workspace root that is a repository of its own (a `.git` entry, or a bare repository's
 * HEAD, objects and refs) brings its own configuration, which can run programs.
 */
async function foreignRepository(inst: Instance, ctx: EvalContext): Promise<string | undefined> {
  const dirs: string[] = [];
  if (inst.cwd === null) return "it runs git in a folder only known when it runs";
  dirs.push(inst.cwd);
  for (const d of inst.cls.ok ? (inst.cls.gitDirs ?? []) : []) {
    if (d.dynamic) return `git -C ${d.raw} is only known when it runs`;
    const p = await checkCommandPath(ctx, inst.cwd, d.value);
    dirs.push(p.real);
  }
  for (const start of dirs) {
    const root = [ctx.roots[0] ?? ctx.cwd, ctx.cwd, ...ctx.roots].find((r) => isWithin(start, r));
    if (!root) return `git would run in ${start}, outside the workspace`;
    if (start === root) continue;
    if (!ctx.listDir) return `Yoke cannot check whether ${start} holds another git repository`;
    for (let d = start; d !== root && isWithin(d, root); d = dirnameOf(d)) {
      const entries = await ctx.listDir(d).catch(() => undefined);
      if (!entries) continue;
      if (entries.includes(".git") || (entries.includes("HEAD") && (entries.includes("objects") || entries.includes("refs")))) {
        return `${relativeTo(d, root) || d} is a git repository of its own, whose configuration can run programs`;
      }
    }
  }
  return undefined;
}

function writeProblem(t: Touch, ctx: EvalContext, mode: PermissionMode, allowedByRule: boolean): Check {
  if (!("exact" in t)) {
    if (allowedByRule && !t.redirect) return {};
    return { why: `writes to ${t.why}` };
  }
  const path = t.exact;
  const shown = showPath(ctx, path);
  // Files a rule-allowed program writes by its arguments (`rm x` under Bash(rm:*)) were checked
  // against deny, ask and protected paths above; only redirections and output options need more.
  if (!t.redirect) return {};
  if (mode === "plan") return { why: `writes to ${shown}` };
  if (path.sensitive?.kind === "config" || path.protected) return { why: `writes to ${shown}, which runs code or holds agent settings` };
  const rule = matchPathRule(ctx, "allow", "Write", path);
  if (rule) return { rule };
  if (!path.inside) return { why: `writes to ${shown}, outside the workspace` };
  if (path.sensitive) return { why: `writes to ${shown}, a sensitive file (${path.sensitive.why})` };
  if (mode === "acceptEdits" || allowedByRule) return {};
  return { why: `writes to ${shown} (writing files needs approval in default mode)` };
}

/** Different `git checkout X` questions put to the repository per line (checkoutDiscards). */
const CHECKOUT_PROBES = 8;

/**
 * `git checkout X` (one operand, no `--`): git takes X for a branch or commit when it names one and
 * for a path otherwise, when it runs. It gets the `git reset --hard` reading (shell/git-discard.ts;
 * deny and ask rules only) unless the repository shows, read-only, that it discards nothing: X matches
 * no file git tracks (a path reading would fail; no repository at all counts so), or X names a commit
 * (git then switches, keeping the work) and no other part of the line may change the repository first
 * (`git branch -D x; git checkout x` with a tracked file x). Not covered: a file the same line adds
 * to the index and then changes before checking it out (the line's own work, not the user's).
 * A dynamic operand or one given at run time (`xargs`, `find -exec`), a git pointed elsewhere (`-C`,
 * `--git-dir`, a `GIT_*` variable anywhere in the line, a wrapper that may change the folder), an
 * unknown folder, a failed probe or more than CHECKOUT_PROBES different ones in the line: a discard.
 */
async function checkoutDiscards(instances: Instance[], ctx: EvalContext, command: string): Promise<void> {
  const rules = [...rulesFor(ctx, "deny", "Bash"), ...rulesFor(ctx, "ask", "Bash")];
  if (!rules.length) return;
  const reset = [literalWord("git"), literalWord("reset"), literalWord("--hard")];
  // Each probe runs git three times on the host: a line of 200 `git checkout nX;` took 38 s (red18g).
  // The same question is asked once, and past CHECKOUT_PROBES different ones the rest read as discards.
  const asked = new Map<string, Promise<{ commit: boolean; tracked: boolean } | undefined>>();
  for (const inst of instances) {
    const c = inst.part.checkoutOperand;
    if (!c || inst.part.readings?.length) continue;
    const keeps = await (async () => {
      if (c.operand.dynamic || !c.plain || /GIT_/.test(command) || !ctx.gitCheckoutTarget) return false;
      // A folder only known when it runs (`cd "$D"`, `cd -`; red18g): the repository there is not the one here.
      if (inst.cwd === null) return false;
      const key = `${inst.cwd}\0${c.operand.value}`;
      let probe = asked.get(key);
      if (!probe) {
        if (asked.size >= CHECKOUT_PROBES) return false;
        probe = ctx.gitCheckoutTarget(inst.cwd, c.operand.value).catch(() => undefined);
        asked.set(key, probe);
      }
      const found = await probe;
      if (!found) return false;
      return !found.tracked || (found.commit && !inst.unstable);
    })();
    if (!keeps) (inst.part.readings ??= []).push(reset);
  }
}

/**
 * git commands that may show an object, and reads of `.git/objects`, where git holds a file a Read
 * rule covers: any name may lead to its object (git-objects.ts), so they read that file.
 */
async function gitObjectTouches(instances: Instance[], touches: Touch[], ctx: EvalContext): Promise<Touch[]> {
  const out: Touch[] = [];
  const storeReads = new Set(touches.filter((t) => t.kind === "read" && "exact" in t && (readsGitStore(ctx, t.exact.lexical) || readsGitStore(ctx, t.exact.real))).map((t) => t.inst));
  for (const inst of instances) {
    const printsContent = inst.cls.ok && !!inst.cls.gitContent;
    const views = [...inst.expanded.map((e) => e.words), inst.innermost.words];
    const shows = views.some((w) => isGit(w[0]) && !gitShowsNoObject(w, printsContent));
    if (!shows && !storeReads.has(inst)) continue;
    const held = await gitHoldsCovered(ctx, inst.cwd ?? ctx.cwd);
    if (!held) continue;
    const why =
      held === "unknown"
        ? "objects git holds (Yoke cannot tell whether git holds a file a Read rule covers, and a crafted tree, commit, index entry or note can show such a file under any name)"
        : `${showPath(ctx, { written: held.path, lexical: held.path, real: held.path, inside: true })}, which git holds as an object (a crafted tree, commit, index entry or note can show it under any name)`;
    // Ignore files count here too: git holding an ignored file means a command may print it under any name.
    out.push({ kind: "read", raw: inst.part.text, inst, pattern: held === "unknown" ? [ANY] : litSegs(held.path), why, symbolic: "history", leaf: held !== "unknown" });
  }
  return out;
}

/** `git [global options] SUB …` with SUB one that can write repository contents out. */
function gitWritesContentOut(words: readonly Word[]): boolean {
  if (!words.length || !/(^|\/)git$/.test(words[0]!.value)) return false;
  let i = 1;
  while (i < words.length && words[i]!.value.startsWith("-")) i += /^(-C|-c|--git-dir|--work-tree|--namespace)$/.test(words[i]!.value) ? 2 : 1;
  const sub = words[i];
  // `git stash`, `git stash push -m …`, `drop`, `clear`: the working tree goes into the stash or a
  // stash goes away; nothing is written anywhere else (pop/apply/branch/show still count).
  if (sub?.value === "stash" && !sub.dynamic) {
    const next = words[i + 1];
    if (!next || (!next.dynamic && (next.value.startsWith("-") || /^(push|save|drop|clear|list|create|store)$/.test(next.value)))) return false;
  }
  return !sub || sub.dynamic || GIT_DUMPS_CONTENT.has(sub.value);
}
