/**
 * Runs the hooks of one event: in-process handlers (HookBus) and command hooks from the settings
 * files, and folds what they said into one HookOutcome the loop applies.
 */
import type { PermissionDecision, PermissionMode } from "../loop/types";
import type { Logger } from "../ports";
import type { HookGroupConfig, SettingsSourceInfo } from "../permissions/types";
import type { HookBus, HookHandler } from "./bus";
import { absolutePaths, needsFileText, resolveHookInput } from "./claude-shapes";
import { EVENT_TRAITS } from "./events";
import { cursorInput, cursorMatcherAccepts, fromCursorResponse } from "./cursor";
import { kiroOutcome } from "./kiro";
import { applyResult, boundHookText, emptyOutcome, MAX_HOOK_CONTEXT_CHARS, parseHookStdout } from "./interpret";
import { defaultIfMatcher, matcherMatches, matcherTarget, type HookIfMatcher } from "./matcher";
import { originOf } from "../settings/origin";
import type { AsyncHookOutput, HookCommandRunner, HookEventFields, HookEventName, HookOutcome, HookPayload, HookResult } from "./types";

/** Claude Code's default for command hooks. */
export const DEFAULT_HOOK_TIMEOUT_S = 600;

export interface HookRunnerOptions {
  /** Hook groups from the merged settings (mergeSettings(...).hooks); a function to pick up reloads. */
  hooks: HookGroupConfig[] | (() => HookGroupConfig[] | Promise<HookGroupConfig[]>);
  runner: HookCommandRunner;
  bus?: HookBus;
  /** Workspace folder: hooks run there, and it is the payload's cwd and CLAUDE_PROJECT_DIR. */
  cwd: string;
  sessionId: string;
  /** The Claude-format transcript the payload's transcript_path names. */
  transcriptPath: string;
  /** Brings that transcript up to date; called before command hooks run. */
  transcript?: { sync(): void | Promise<void> };
  /** Reads a file's text (absolute path): the old text of hashline edits for the Edit input. */
  readText?: (absPath: string) => Promise<string | undefined>;
  /** Decides `if` conditions (permission-rule syntax); default: defaultIfMatcher. */
  ifMatcher?: HookIfMatcher;
  /** Extra environment for hook commands (CLAUDE_PROJECT_DIR and YOKE_PROJECT_DIR are always set). */
  env?: Record<string, string>;
  log?: Logger;
  now?: () => number;
  /** A background hook finished with something for the model (e.g. to wake an idle session). */
  onAsyncOutput?: (out: AsyncHookOutput) => void;
  /**
   * Run command hooks confined (the user's `sandbox.hooks`, default "on"). "off" runs them on the
   * host, except a hook whose entry says `"sandbox": true`. A hook's own `"sandbox": false` counts
   * only from the user's own settings (hookSandbox below).
   */
  sandbox?: "on" | "off";
}

export interface HookRunner {
  runHooks(event: HookEventName, fields?: HookEventFields, signal?: AbortSignal): Promise<HookOutcome>;
  /** What background hooks produced since the last call: give it to the model with the next request. */
  takeAsyncOutput?(): AsyncHookOutput;
  /** Stops background hooks that are still running (at session end) and waits for them. */
  close?(): Promise<void>;
}

type Entry = HookGroupConfig["hooks"][number];
interface Planned {
  entry: Entry;
  /** What makes two entries the same hook (run once for all the groups that list it). */
  key: string;
  sources: SettingsSourceInfo[];
  checkedIn: boolean;
  /** The sources whose entry for this hook says `"sandbox": false`. */
  sandboxOff: SettingsSourceInfo[];
  /** Some source's entry says `"sandbox": true`. */
  sandboxOn: boolean;
}

/**
 * May this source run a hook outside the sandbox? Only the user's own settings (~/.yoke,
 * ~/.claude, the VS Code user scope), an administrator's managed settings and a `--settings` file
 * the user named: never a file the repository wrote (committed or local), nor a plugin.
 */
export function mayUnconfineHook(source: SettingsSourceInfo): boolean {
  if (source.hookEnv || source.checkedIn === true) return false;
  const origin = originOf(source);
  return origin === "user" || origin === "managed" || origin === "cli";
}

/**
 * Where one hook runs: confined unless the user's setting is "off" or the user's own settings
 * gave the hook `"sandbox": false`; `"sandbox": true` from any source confines it (a project may tighten).
 */
export function hookSandbox(p: Pick<Planned, "sandboxOff" | "sandboxOn">, setting: "on" | "off" = "on"): { sandbox: boolean; unconfinedBy?: string; ignored?: SettingsSourceInfo[] } {
  const ignored = p.sandboxOff.filter((s) => !mayUnconfineHook(s));
  const honoured = p.sandboxOff.find((s) => mayUnconfineHook(s));
  const extra = ignored.length ? { ignored } : {};
  if (p.sandboxOn) return { sandbox: true, ...extra };
  if (honoured) return { sandbox: false, unconfinedBy: `"sandbox": false in ${honoured.label}`, ...extra };
  if (setting === "off") return { sandbox: false, unconfinedBy: `"sandbox": {"hooks": "off"} in your user settings`, ...extra };
  return { sandbox: true, ...extra };
}

const TOOL_EVENTS = new Set<HookEventName>(["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"]);

export function createHookRunner(opts: HookRunnerOptions): Required<HookRunner> {
  const now = opts.now ?? (() => Date.now());
  const env = { CLAUDE_PROJECT_DIR: opts.cwd, YOKE_PROJECT_DIR: opts.cwd, ...opts.env };
  const ifMatcher = opts.ifMatcher ?? defaultIfMatcher;
  const background = new Set<Promise<void>>();
  const stopBackground = new AbortController();
  let pending: AsyncHookOutput = { additionalContext: [], userMessages: [], rewake: [] };
  /**
   * Tool inputs as hooks saw them, by tool call: PostToolUse gets the input PreToolUse got (an
   * edit's old text is read before the edit, not after it).
   */
  const resolved = new Map<string, Record<string, unknown>>();
  const resolveInput = async (fields: HookEventFields): Promise<Record<string, unknown> | undefined> => {
    if (!fields.tool_input) return undefined;
    const key = typeof fields.tool_use_id === "string" ? `${fields.tool_use_id}\n${JSON.stringify(fields.tool_input)}` : undefined;
    const known = key ? resolved.get(key) : undefined;
    if (known) return known;
    const r = await resolveHookInput(fields.tool_input, opts.cwd, opts.readText);
    if (key) {
      resolved.set(key, r);
      if (resolved.size > 64) resolved.delete(resolved.keys().next().value!);
    }
    return r;
  };

  const expand = (s: string) => s.replace(/\$\{(\w+)\}|\$(\w+)/g, (m, a: string | undefined, b: string | undefined) => env[(a ?? b)! as keyof typeof env] ?? m);

  // Cursor's beforeReadFile hook gets the file's content (at most 1 MB), as Cursor gives it.
  const cursorExtra = async (event: string, payload: HookPayload): Promise<{ content?: string }> => {
    if (event !== "beforeReadFile" || !opts.readText) return {};
    const path = payload.tool_input?.file_path ?? payload.tool_input?.path;
    if (typeof path !== "string") return {};
    const text = await opts.readText(path).catch(() => undefined);
    return text === undefined ? {} : { content: text.slice(0, 1_000_000) };
  };

  const runCommand = async (p: Planned, payload: HookPayload, signal?: AbortSignal): Promise<HookResult> => {
    const { entry } = p;
    const isAsync = entry.async === true || entry.asyncRewake === true;
    const timeoutS = entry.timeout ?? DEFAULT_HOOK_TIMEOUT_S;
    const name = entry.args ? [entry.command, ...entry.args].join(" ") : entry.command;
    const start = now();
    const where = hookSandbox(p, opts.sandbox);
    const r = await opts.runner.run(
      {
        command: entry.args ? expand(entry.command) : entry.command,
        ...(entry.args ? { args: entry.args.map(expand) } : {}),
        ...(entry.shell ? { shell: entry.shell } : {}),
        cwd: opts.cwd,
        stdin: JSON.stringify(entry.cursor ? cursorInput(entry.cursor.event, payload, await cursorExtra(entry.cursor.event, payload)) : payload),
        ...(isAsync ? {} : { timeoutMs: timeoutS * 1000 }),
        // A plugin's hooks also get CLAUDE_PLUGIN_ROOT (their source's hookEnv), as in Claude Code.
        env: p.sources[0]?.hookEnv ? { ...env, ...p.sources[0].hookEnv } : env,
        sandbox: where.sandbox,
        fromUser: p.sources.some(mayUnconfineHook),
        ...(where.unconfinedBy ? { unconfinedBy: where.unconfinedBy } : {}),
        ...(p.sources[0] ? { sourceLabel: p.sources[0].label } : {}),
      },
      signal,
    );
    const result: HookResult = { kind: "command", name, source: p.sources[0], checkedIn: p.checkedIn, exitCode: r.exitCode, durationMs: now() - start };
    if (entry.onFailure === "block") result.blockOnFailure = true;
    if (r.cannotStart !== undefined || r.error !== undefined) {
      result.cannotStart = r.cannotStart ?? r.error;
      return result;
    }
    // A confined hook that failed says where it ran and how to run it on the host (hook-sandbox.ts).
    const confinement = r.confinement ? ` (${r.confinement.replace(/^yoke: /, "")})` : "";
    if (r.timedOut) {
      result.error = `timed out after ${timeoutS} s and was stopped${confinement}`;
      return result;
    }
    const parsed = parseHookStdout(r.stdout);
    // A Cursor hook answers in Cursor's shape (hooks/cursor.ts).
    const out = entry.cursor && parsed.response ? { ...parsed, response: fromCursorResponse(entry.cursor.event, parsed.response, entry.cursor, payload.tool_name) } : parsed;
    if (entry.kiro && r.exitCode !== null) {
      // A Kiro hook: exit statuses and output as Kiro reads them (hooks/kiro.ts).
      Object.assign(result, kiroOutcome(entry.kiro, r.exitCode, r.stdout, r.stderr));
    } else if (r.exitCode === 0) {
      result.response = out.response;
      result.plainOutput = out.plain;
    } else if (r.exitCode === 2) {
      result.blockMessage = r.stderr;
      result.response = out.response;
    } else if (out.response) {
      // JSON on stdout decides on any exit status.
      result.response = out.response;
    } else if (r.exitCode === null) {
      result.error = signal?.aborted ? "was stopped" : `was killed by a signal${confinement}`;
    } else {
      const first = r.stderr.trim().split("\n")[0]?.trim();
      result.error = `failed with exit status ${r.exitCode}${first ? `: ${first}` : ""}${confinement}`;
    }
    return result;
  };

  const runHandler = async (h: HookHandler, payload: HookPayload, stop: () => void, signal?: AbortSignal): Promise<HookResult> => {
    const start = now();
    try {
      const response = (await h.handle(payload, { stopPropagation: stop, signal })) ?? undefined;
      return { kind: "handler", name: h.name, durationMs: now() - start, response };
    } catch (err) {
      return { kind: "handler", name: h.name, durationMs: now() - start, error: `threw: ${err instanceof Error ? err.message : String(err)}` };
    }
  };

  /** Starts a background hook; what it says is kept for the next request. */
  const startAsync = (event: HookEventName, p: Planned, payload: HookPayload) => {
    const task = runCommand(p, payload, stopBackground.signal).then(
      (r) => {
        const got: AsyncHookOutput = { additionalContext: [], userMessages: [], rewake: [] };
        if (p.entry.asyncRewake && r.blockMessage !== undefined) got.rewake.push(boundHookText(r.blockMessage.trim() || `hook "${r.name}" asks you to look again (exit status 2)`));
        const res = r.response;
        const context = res?.hookSpecificOutput?.additionalContext ?? res?.additionalContext;
        if (typeof context === "string" && context.trim()) got.additionalContext.push(boundHookText(context, MAX_HOOK_CONTEXT_CHARS));
        if (typeof res?.systemMessage === "string" && res.systemMessage.trim()) got.userMessages.push(boundHookText(res.systemMessage));
        const failure = r.cannotStart ?? r.error;
        if (failure && !stopBackground.signal.aborted) got.userMessages.push(boundHookText(`${event} background hook "${r.name}": ${failure}`));
        if (got.additionalContext.length + got.userMessages.length + got.rewake.length === 0) return;
        pending = {
          additionalContext: [...pending.additionalContext, ...got.additionalContext],
          userMessages: [...pending.userMessages, ...got.userMessages],
          rewake: [...pending.rewake, ...got.rewake],
        };
        opts.onAsyncOutput?.(got);
      },
      (err) => opts.log?.warn(`[hooks] background ${event} hook failed: ${err instanceof Error ? err.message : String(err)}`),
    );
    background.add(task);
    void task.finally(() => background.delete(task));
  };

  // Hooks with `once: true` that have run in this session (Claude Code: run once, then removed).
  const ranOnce = new Set<string>();

  return {
    async runHooks(event, fields = {}, signal) {
      const outcome = emptyOutcome(event);
      const target = matcherTarget(event, fields);
      const groups = typeof opts.hooks === "function" ? await opts.hooks() : opts.hooks;
      const tool = TOOL_EVENTS.has(event) && typeof fields.tool_name === "string" ? fields.tool_name : undefined;
      const rawInput = fields.tool_input ?? {};

      const planned = new Map<string, Planned>();
      const unsupported: Array<{ type: string; source: SettingsSourceInfo }> = [];
      for (const g of groups) {
        if (g.event !== event || !matcherMatches(g.matcher, target)) continue;
        for (const u of g.unsupported ?? []) unsupported.push({ type: u.type, source: g.source });
        for (const entry of g.hooks) {
          // A Cursor entry's own matcher (Cursor's semantics: tool type, command text or subagent type).
          if (entry.cursor && !cursorMatcherAccepts(entry.cursor, fields)) continue;
          const key = JSON.stringify([entry.command, entry.args ?? null, entry.shell ?? "bash", entry.if ?? null, !!entry.async, !!entry.asyncRewake, entry.cursor ?? null]);
          const seen = planned.get(key);
          const off = entry.sandbox === false ? [g.source] : [];
          if (seen) {
            seen.sources.push(g.source);
            seen.checkedIn &&= g.source.checkedIn === true;
            seen.sandboxOff.push(...off);
            seen.sandboxOn ||= entry.sandbox === true;
          } else planned.set(key, { entry, key, sources: [g.source], checkedIn: g.source.checkedIn === true, sandboxOff: off, sandboxOn: entry.sandbox === true });
        }
      }
      const commands: Planned[] = [];
      for (const p of planned.values()) {
        if (p.entry.if && tool !== undefined) {
          let run = true;
          try {
            run = await ifMatcher(p.entry.if, tool, rawInput);
          } catch (err) {
            (outcome.notes ??= []).push(`hook "${p.entry.command}": its "if" ${JSON.stringify(p.entry.if)} could not be decided (${err instanceof Error ? err.message : String(err)}); it runs`);
          }
          if (!run) continue;
        }
        // A `once` hook is claimed after the last await (checked and taken in one step): tool calls
        // whose hooks run side by side do not all run it.
        if (p.entry.once) {
          const onceKey = `${event}\0${p.key}`;
          if (ranOnce.has(onceKey)) continue;
          ranOnce.add(onceKey);
        }
        commands.push(p);
        for (const src of hookSandbox(p, opts.sandbox).ignored ?? []) {
          (outcome.notes ??= []).push(
            `hook "${p.entry.command}": its "sandbox": false in ${src.label} is ignored, so it runs in the sandbox: only your own settings (~/.yoke/settings.json, ~/.claude/settings.json) can run a hook outside it`,
          );
        }
      }
      const handlers = opts.bus?.handlersFor(event, target) ?? [];
      if (commands.length === 0 && handlers.length === 0 && unsupported.length === 0) {
        // Later tool events of this call need the file as it is now.
        if (event === "PreToolUse" && fields.tool_input && needsFileText(fields.tool_input) && groups.some((g) => TOOL_EVENTS.has(g.event as HookEventName))) await resolveInput(fields);
        return outcome;
      }

      const toolInput = await resolveInput(fields);
      if (toolInput) outcome.toolInput = toolInput;
      const payload = dropUndefined({
        ...fields,
        ...(toolInput ? { tool_input: toolInput } : {}),
        ...(fields.tool_response !== undefined ? { tool_response: absolutePaths(fields.tool_response, opts.cwd) } : {}),
        session_id: opts.sessionId,
        transcript_path: opts.transcriptPath,
        cwd: opts.cwd,
        hook_event_name: event,
      }) as HookPayload;

      if ((event === "PreToolUse" || event === "PermissionRequest") && unsupported.length) {
        for (const u of unsupported) {
          applyResult(outcome, {
            kind: "command",
            name: `${u.type} hook`,
            source: u.source,
            durationMs: 0,
            response: {
              hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: `a ${event} hook of type "${u.type}" in ${u.source.label} cannot run in Yoke, so this call needs approval` },
            },
          });
        }
      }

      if (commands.length) {
        try {
          await opts.transcript?.sync();
        } catch (err) {
          (outcome.notes ??= []).push(`the transcript could not be brought up to date: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      const sync = commands.filter((p) => !(p.entry.async || p.entry.asyncRewake));
      for (const p of commands) if (p.entry.async || p.entry.asyncRewake) startAsync(event, p, payload);

      // Steps in order: handlers with priority > 0, the command hooks (in parallel), handlers with priority <= 0.
      type Step = { handler: HookHandler } | { commands: Planned[] };
      const steps: Step[] = [
        ...handlers.filter((h) => (h.priority ?? 0) > 0).map((handler) => ({ handler })),
        ...(sync.length ? [{ commands: sync }] : []),
        ...handlers.filter((h) => (h.priority ?? 0) <= 0).map((handler) => ({ handler })),
      ];
      let stopped = false;
      for (const step of steps) {
        if (stopped || signal?.aborted) break;
        const current: HookPayload = outcome.updatedInput ? { ...payload, tool_input: outcome.updatedInput } : payload;
        if ("handler" in step) applyResult(outcome, await runHandler(step.handler, current, () => (stopped = true), signal));
        else {
          const results = await Promise.all(step.commands.map((c) => runCommand(c, current, signal)));
          for (const r of results) applyResult(outcome, r);
        }
      }
      for (const e of outcome.errors) opts.log?.warn(`[hooks] ${event}: ${e}`);
      for (const n of outcome.notes ?? []) opts.log?.info(`[hooks] ${event}: ${n}`);
      return outcome;
    },

    takeAsyncOutput() {
      const out = pending;
      pending = { additionalContext: [], userMessages: [], rewake: [] };
      return out;
    },

    async close() {
      stopBackground.abort(new DOMException("the session ended", "AbortError"));
      await Promise.allSettled([...background]);
    },
  };
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/**
 * Combines the permission gate's decision with PreToolUse hooks:
 * - a hook's deny always wins (the model gets its reason);
 * - a deny from the gate (rule, plan mode, Restricted Mode) always stands;
 * - a hook's ask turns an allow into ask;
 * - a hook's allow is exactly as strong as bypassPermissions mode, never stronger: it skips a
 *   question only when `asBypass` (the gate's answer for the same call in bypassPermissions mode)
 *   is allow. So it never skips an ask rule, a protected settings file, or a command Yoke cannot
 *   analyse while a deny rule could apply. Without `asBypass` a hook's allow skips nothing.
 *   (A hook in a settings file shared with the repository cannot answer allow at all; see
 *   interpret.ts.)
 */
export function combineWithHooks(gate: PermissionDecision, hooks: HookOutcome | undefined, asBypass?: PermissionDecision): PermissionDecision {
  if (!hooks) return gate;
  const reason = hooks.decisionReason ?? hooks.message ?? "a PreToolUse hook decided";
  if (hooks.decision === "deny" || (hooks.blocked && hooks.event === "PreToolUse")) return { decision: "deny", by: "hook", rule: null, reason: hooks.message ?? reason };
  if (gate.decision === "deny") return gate;
  if (hooks.decision === "ask" && gate.decision === "allow") return { decision: "ask", by: "hook", rule: null, reason };
  if (hooks.decision === "allow" && gate.decision === "ask") {
    if (asBypass?.decision === "allow") return { decision: "allow", by: "hook", rule: null, reason };
    if (asBypass) return { ...gate, reason: `${gate.reason} A hook allowed it, but a hook's allow cannot skip this question: ${asBypass.reason}` };
  }
  return gate;
}

/**
 * The gate's decision for a call, combined with its PreToolUse outcome (see combineWithHooks):
 * asks the gate again in bypassPermissions mode only when a hook's allow meets a question.
 */
export async function decideWithHooks(check: (mode: PermissionMode) => Promise<PermissionDecision>, mode: PermissionMode, hooks: HookOutcome | undefined): Promise<PermissionDecision> {
  const gate = await check(mode);
  const needsBypass = hooks?.decision === "allow" && !hooks.blocked && gate.decision === "ask";
  return combineWithHooks(gate, hooks, needsBypass ? await check("bypassPermissions") : undefined);
}

/**
 * A PermissionRequest outcome as the answer to the question the gate would ask, or undefined
 * when no hook answered (ask the user). An allow from a shared settings file is never an answer.
 */
export function permissionRequestAnswer(hooks: HookOutcome | undefined): { decision: "allow" | "deny"; message?: string; interrupt?: boolean } | undefined {
  if (!hooks || hooks.event !== "PermissionRequest") return undefined;
  if (hooks.decision === "deny" || hooks.blocked) return { decision: "deny", message: hooks.message ?? hooks.decisionReason, ...(hooks.stop ? { interrupt: true } : {}) };
  if (hooks.decision === "allow") return { decision: "allow" };
  return undefined;
}

/** Is exit 2 blocking for this event (for callers that render outcomes)? */
export function eventBlocks(event: HookEventName): boolean {
  return EVENT_TRAITS[event].blocks === true;
}
