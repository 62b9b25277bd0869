/** Turns hook results into one outcome, following Claude Code's exit-code and JSON conventions. */
import type { HookEventName, HookOutcome, HookResponse, HookResult } from "./types";

const RANK = { allow: 1, ask: 2, deny: 3 } as const;

/** Reads a command's stdout (exit 0): a JSON object, or plain text. */
export function parseHookStdout(stdout: string): { response?: HookResponse; plain?: string; error?: string } {
  const text = stdout.trim();
  if (text === "") return {};
  if (!text.startsWith("{")) return { plain: text };
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: "stdout is JSON but not an object" };
    return { response: value as HookResponse };
  } catch (err) {
    return { error: `stdout looks like JSON but does not parse (${err instanceof Error ? err.message : String(err)})` };
  }
}

export function emptyOutcome(event: HookEventName): HookOutcome {
  return { event, blocked: false, additionalContext: [], userMessages: [], errors: [], results: [] };
}

/** Folds one hook's result into the outcome (in run order). */
export function applyResult(outcome: HookOutcome, r: HookResult): void {
  const event = outcome.event;
  outcome.results.push(r);
  const label = r.kind === "command" ? `hook "${r.name}"` : `hook handler ${r.name}`;
  if (r.error) {
    outcome.errors.push(`${label}: ${r.error}`);
    outcome.userMessages.push(`${label}: ${r.error}`);
  }
  if (r.blockMessage !== undefined) {
    const msg = r.blockMessage.trim() || `${label} blocked this (exit status 2)`;
    if (event === "PreToolUse") raise(outcome, "deny", msg);
    if (blocks(event)) block(outcome, msg);
    else outcome.userMessages.push(`${label}: ${msg}`);
  }
  if (r.plainOutput && (event === "UserPromptSubmit" || event === "SessionStart")) outcome.additionalContext.push(r.plainOutput);
  const res = r.response;
  if (!res) return;
  if (res.systemMessage) outcome.userMessages.push(res.systemMessage);
  if (res.continue === false) outcome.stop ??= { reason: res.stopReason ?? `${label} stopped the session` };
  const specific = res.hookSpecificOutput ?? {};
  const context = specific.additionalContext ?? res.additionalContext;
  if (typeof context === "string" && context) outcome.additionalContext.push(context);
  if (event === "PreToolUse") {
    const reason = specific.permissionDecisionReason ?? res.reason;
    const decision = specific.permissionDecision ?? (res.decision === "approve" ? "allow" : res.decision === "block" ? "deny" : undefined);
    if (decision && decision in RANK) raise(outcome, decision, reason ?? `${label} decided ${decision}`);
    if (decision === "deny") block(outcome, reason ?? `${label} denied this tool call`);
    const updated = specific.updatedInput ?? res.updatedInput;
    if (updated && typeof updated === "object" && !Array.isArray(updated)) outcome.updatedInput = updated;
  } else if (res.decision === "block" && blocks(event)) {
    block(outcome, res.reason ?? `${label} blocked this`);
  }
}

/** Events whose action a hook can block. */
function blocks(event: HookEventName): boolean {
  return event === "PreToolUse" || event === "PostToolUse" || event === "UserPromptSubmit" || event === "Stop" || event === "SubagentStop";
}

function block(outcome: HookOutcome, message: string): void {
  outcome.blocked = true;
  outcome.message = outcome.message ? `${outcome.message}\n${message}` : message;
}

function raise(outcome: HookOutcome, decision: "allow" | "ask" | "deny", reason: string): void {
  if (!outcome.decision || RANK[decision] > RANK[outcome.decision]) {
    outcome.decision = decision;
    outcome.decisionReason = reason;
  }
}
