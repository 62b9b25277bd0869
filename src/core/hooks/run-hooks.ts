/**
 * Runs the hooks of one event: in-process handlers (HookBus) and command hooks from the settings
 * files, and folds what they said into one HookOutcome the loop applies.
 */
import type { PermissionDecision } from "../loop/types";
import type { Logger } from "../ports";
import type { HookGroupConfig } from "../permissions/types";
import type { HookBus, HookHandler } from "./bus";
import { applyResult, emptyOutcome, parseHookStdout } from "./interpret";
import { matcherMatches, matcherTarget } from "./matcher";
import type { HookCommandRunner, HookEventFields, HookEventName, HookOutcome, HookPayload, HookResult } from "./types";

export const DEFAULT_HOOK_TIMEOUT_S = 60;

export interface HookRunnerOptions {
  /** Hook groups from the merged settings (mergeSettings(...).hooks); a function to pick up reloads. */
  hooks: HookGroupConfig[] | (() => HookGroupConfig[] | Promise<HookGroupConfig[]>);
  runner: HookCommandRunner;
  bus?: HookBus;
  /** Workspace folder: hooks run there, and it is the payload's cwd. */
  cwd: string;
  sessionId: string;
  transcriptPath: string;
  /** Extra environment for hook commands (CLAUDE_PROJECT_DIR and YOKE_PROJECT_DIR are always set). */
  env?: Record<string, string>;
  log?: Logger;
  now?: () => number;
}

export interface HookRunner {
  runHooks(event: HookEventName, fields?: HookEventFields, signal?: AbortSignal): Promise<HookOutcome>;
}

export function createHookRunner(opts: HookRunnerOptions): HookRunner {
  const now = opts.now ?? (() => Date.now());
  const env = { CLAUDE_PROJECT_DIR: opts.cwd, YOKE_PROJECT_DIR: opts.cwd, ...opts.env };

  const runCommand = async (command: string, timeoutS: number, payload: HookPayload, signal?: AbortSignal): Promise<HookResult> => {
    const start = now();
    const r = await opts.runner.run({ command, cwd: opts.cwd, stdin: JSON.stringify(payload), timeoutMs: timeoutS * 1000, env }, signal);
    const result: HookResult = { kind: "command", name: command, exitCode: r.exitCode, durationMs: now() - start };
    if (r.error) result.error = `could not run: ${r.error}`;
    else if (r.timedOut) result.error = `timed out after ${timeoutS} s and was stopped`;
    else if (r.exitCode === 0) {
      const out = parseHookStdout(r.stdout);
      if (out.error) result.error = out.error;
      result.response = out.response;
      result.plainOutput = out.plain;
    } else if (r.exitCode === 2) result.blockMessage = r.stderr;
    else result.error = `failed with exit status ${r.exitCode ?? "?"}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ""}`;
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

  return {
    async runHooks(event, fields = {}, signal) {
      const outcome = emptyOutcome(event);
      const payload: HookPayload = { ...fields, session_id: opts.sessionId, transcript_path: opts.transcriptPath, cwd: opts.cwd, hook_event_name: event };
      const target = matcherTarget(event, fields);
      const groups = typeof opts.hooks === "function" ? await opts.hooks() : opts.hooks;
      const seen = new Set<string>();
      const commands: Array<{ command: string; timeout: number }> = [];
      for (const g of groups) {
        if (g.event !== event || !matcherMatches(g.matcher, target)) continue;
        for (const h of g.hooks) {
          if (seen.has(h.command)) continue;
          seen.add(h.command);
          commands.push({ command: h.command, timeout: h.timeout ?? DEFAULT_HOOK_TIMEOUT_S });
        }
      }
      const handlers = opts.bus?.handlersFor(event, target) ?? [];
      // Steps in order: handlers with priority > 0, the command hooks (in parallel), handlers with priority <= 0.
      type Step = { handler: HookHandler } | { commands: typeof commands };
      const steps: Step[] = [
        ...handlers.filter((h) => (h.priority ?? 0) > 0).map((handler) => ({ handler })),
        ...(commands.length ? [{ commands }] : []),
        ...handlers.filter((h) => (h.priority ?? 0) <= 0).map((handler) => ({ handler })),
      ];
      let stopped = false;
      for (const step of steps) {
        if (stopped || signal?.aborted) break;
        const current: HookPayload = outcome.updatedInput ? { ...payload, tool_input: outcome.updatedInput } : payload;
        if ("handler" in step) applyResult(outcome, await runHandler(step.handler, current, () => (stopped = true), signal));
        else {
          const results = await Promise.all(step.commands.map((c) => runCommand(c.command, c.timeout, current, signal)));
          for (const r of results) applyResult(outcome, r);
        }
      }
      for (const e of outcome.errors) opts.log?.warn(`[hooks] ${event}: ${e}`);
      return outcome;
    },
  };
}

/**
 * Combines the permission gate's decision with PreToolUse hooks: a hook's deny always wins; a
 * hook's ask turns an allow into ask; a hook's allow skips a question the mode would ask, but not
 * a deny rule nor an explicit ask rule.
 */
export function combineWithHooks(gate: PermissionDecision, hooks: HookOutcome): PermissionDecision {
  const reason = hooks.decisionReason ?? hooks.message ?? "a PreToolUse hook decided";
  if (hooks.decision === "deny" || (hooks.blocked && hooks.event === "PreToolUse")) return { decision: "deny", by: "hook", rule: null, reason: hooks.message ?? reason };
  if (gate.decision === "deny") return gate;
  if (hooks.decision === "ask" && gate.decision === "allow") return { decision: "ask", by: "hook", rule: null, reason };
  if (hooks.decision === "allow" && gate.decision === "ask" && gate.by !== "rule") return { decision: "allow", by: "hook", rule: null, reason };
  return gate;
}
