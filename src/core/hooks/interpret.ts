/** Turns hook results into one outcome, following Claude Code's exit-code and JSON conventions. */
import { EVENT_TRAITS, type HookEventName } from "./events";
import type { HookOutcome, HookResponse, HookResult } from "./types";

const RANK = { allow: 1, ask: 2, deny: 3 } as const;

/** A block or deny message, a user message: at most this many characters reach the model or the user. */
export const MAX_HOOK_MESSAGE_CHARS = 4_000;
/** additionalContext and plain-stdout context, per hook (Claude Code caps it at 10,000 too). */
export const MAX_HOOK_CONTEXT_CHARS = 10_000;

/**
 * Keeps the head and the tail of a long hook text and says how much was left out, so a hook
 * that prints a megabyte cannot flood the model's context on every call.
 */
export function boundHookText(text: string, max = MAX_HOOK_MESSAGE_CHARS): string {
  if (text.length <= max) return text;
  const tail = Math.floor(max * 0.25);
  const head = max - tail;
  const dropped = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${dropped.toLocaleString("en-US")} characters of hook output left out …]\n${text.slice(text.length - tail)}`;
}

/**
 * Reads a command's stdout: a JSON object when the text starts with `{` and ends with `}` and
 * parses as one; anything else (also text that only looks like JSON) is plain text.
 */
export function parseHookStdout(stdout: string): { response?: HookResponse; plain?: string } {
  const text = stdout.trim();
  if (text === "") return {};
  if (text.startsWith("{") && text.endsWith("}")) {
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === "object" && value !== null && !Array.isArray(value)) return { response: value as HookResponse };
    } catch {
      /* plain text that happens to start with "{" */
    }
  }
  return { plain: text };
}

export function emptyOutcome(event: HookEventName): HookOutcome {
  return { event, blocked: false, additionalContext: [], userMessages: [], errors: [], notes: [], results: [] };
}

function labelOf(r: HookResult): string {
  return r.kind === "command" ? `hook "${r.name}"${r.source ? ` (${r.source.label})` : ""}` : `hook handler ${r.name}`;
}

const gateEvent = (e: HookEventName) => e === "PreToolUse" || e === "PermissionRequest";

/** Folds one hook's result into the outcome (in run order). */
export function applyResult(outcome: HookOutcome, r: HookResult): void {
  const event = outcome.event;
  const traits = EVENT_TRAITS[event];
  outcome.results.push(r);
  const label = labelOf(r);

  if (r.cannotStart !== undefined || (r.error !== undefined && r.blockOnFailure)) {
    const why = r.cannotStart ?? r.error!;
    if (traits.failClosed) {
      const msg = boundHookText(
        `The ${event} ${label} could not run (${why}), so this was blocked: a guard hook that cannot run blocks rather than letting the action through. ` +
          `The user must fix or remove the hook in their settings.`,
      );
      if (gateEvent(event)) raise(outcome, "deny", msg);
      block(outcome, msg);
      outcome.errors.push(boundHookText(`${label}: could not run (${why}); the ${event} action was blocked`));
      return;
    }
  }
  if (r.cannotStart !== undefined) {
    report(outcome, `${label}: could not run: ${r.cannotStart}`);
    return;
  }
  if (r.error !== undefined) report(outcome, `${label}: ${r.error}`);

  const res = r.response;
  const specific = res?.hookSpecificOutput ?? {};
  if (r.blockMessage !== undefined) {
    // Exit 2 blocks whatever the JSON says; a JSON reason is the message when there is one.
    const jsonReason = str(specific.permissionDecisionReason) ?? str(specific.decision?.message) ?? str(res?.reason);
    const msg = boundHookText((jsonReason ?? r.blockMessage).trim() || `${label} blocked this (exit status 2)`);
    if (traits.blocks) {
      if (gateEvent(event)) raise(outcome, "deny", msg);
      block(outcome, msg);
    } else outcome.userMessages.push(boundHookText(`${label}: ${msg}`));
    return;
  }

  if (r.plainOutput) {
    if (traits.plainContext) outcome.additionalContext.push(boundHookText(r.plainOutput, MAX_HOOK_CONTEXT_CHARS));
    else (outcome.notes ??= []).push(`${label} printed: ${boundHookText(r.plainOutput, 500)}`);
  }
  if (!res) return;
  if (str(res.systemMessage)) outcome.userMessages.push(boundHookText(res.systemMessage!));
  if (res.continue === false) outcome.stop ??= { reason: boundHookText(str(res.stopReason) ?? `${label} stopped the session`) };
  const context = str(specific.additionalContext) ?? str(res.additionalContext);
  if (context) outcome.additionalContext.push(boundHookText(context, MAX_HOOK_CONTEXT_CHARS));

  if (event === "PreToolUse") {
    const reason = str(specific.permissionDecisionReason) ?? str(res.reason);
    let decision = specific.permissionDecision ?? (res.decision === "approve" ? "allow" : res.decision === "block" ? "deny" : undefined);
    if (decision === "defer") decision = "ask";
    if (decision !== undefined && !(decision in RANK)) {
      outcome.errors.push(`${label}: permissionDecision ${JSON.stringify(decision)} is not allow, ask, deny or defer; the call asks for approval`);
      raise(outcome, "ask", `${label} gave an answer Yoke does not understand (${JSON.stringify(decision)}), so it asks.`);
      decision = undefined;
    }
    const updated = obj(specific.updatedInput) ?? obj(res.updatedInput);
    if (decision === "allow" && r.checkedIn) {
      (outcome.notes ??= []).push(`${label}: its "allow" is ignored: it comes from a settings file shared with the repository, which may restrict but not loosen`);
    } else if (decision) {
      raise(outcome, decision as keyof typeof RANK, boundHookText(reason ?? `${label} decided ${decision}`));
      if (decision === "deny") block(outcome, boundHookText(reason ?? `${label} denied this tool call`));
    }
    if (updated) outcome.updatedInput = updated;
    return;
  }
  if (event === "PermissionRequest") {
    const d = specific.decision;
    if (!d || typeof d !== "object") return;
    if (d.behavior === "deny") {
      const msg = boundHookText(str(d.message) ?? `${label} denied this tool call`);
      raise(outcome, "deny", msg);
      block(outcome, msg);
      if (d.interrupt === true) outcome.stop ??= { reason: msg };
    } else if (d.behavior === "allow") {
      if (r.checkedIn) (outcome.notes ??= []).push(`${label}: its "allow" is ignored: it comes from a settings file shared with the repository`);
      else {
        raise(outcome, "allow", `${label} allowed it`);
        const updated = obj(d.updatedInput);
        if (updated) outcome.updatedInput = updated;
      }
    } else if (d.behavior !== undefined) {
      outcome.errors.push(`${label}: decision.behavior ${JSON.stringify(d.behavior)} is not allow or deny; ignored`);
    }
    return;
  }
  if (res.decision === "block" && traits.blocks) block(outcome, boundHookText(str(res.reason) ?? `${label} blocked this`));
  if (event === "PostToolUse" || event === "PostToolUseFailure") {
    const replaced = specific.updatedToolOutput ?? specific.updatedMCPToolOutput;
    if (replaced !== undefined && replaced !== null) {
      outcome.updatedToolOutput = boundHookText(typeof replaced === "string" ? replaced : JSON.stringify(replaced), MAX_HOOK_CONTEXT_CHARS);
    }
  }
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A non-blocking failure: for the user (the loop shows `errors`), never for the model. */
function report(outcome: HookOutcome, message: string): void {
  outcome.errors.push(boundHookText(message));
}

function block(outcome: HookOutcome, message: string): void {
  outcome.blocked = true;
  outcome.message = outcome.message ? boundHookText(`${outcome.message}\n${message}`, 2 * MAX_HOOK_MESSAGE_CHARS) : message;
}

function raise(outcome: HookOutcome, decision: "allow" | "ask" | "deny", reason: string): void {
  if (!outcome.decision || RANK[decision] > RANK[outcome.decision]) {
    outcome.decision = decision;
    outcome.decisionReason = reason;
  }
}
