/**
 * The decision about one tool call: the answers extensions gave at tool.before (the permission
 * gate, hooks, policies) folded into one, then — when it asks — the review (for a change a
 * reviewer can show), a permission.request extension, or the user. Every decision is logged.
 */
import type { CommandConfinement } from "../commands/types";
import type { ToolCallRecord } from "../events";
import type { ExtensionDecision } from "../extensions/types";
import type { ReviewMode } from "../review";
import { isReadOnly, type ToolDefinition } from "../tools/types";
import { raceAbort, seconds, type LoopContext } from "./context";
import type { Approver, PermissionAnswer } from "./types";

export type CallDecision = { decision: "allow"; review?: ReviewMode; confine?: CommandConfinement } | { decision: "deny"; message: string };

/**
 * deny > ask > allow, where an explicit allow (a hook's) lifts an ask that is only the mode's
 * default. A rule's ask, a hook's ask and a protected write's ask are never lifted.
 */
export function foldDecisions(answers: readonly ExtensionDecision[]): ExtensionDecision | undefined {
  const deny = answers.find((d) => d.decision === "deny");
  if (deny) return deny;
  const hardAsk = answers.find((d) => d.decision === "ask" && !d.overridable);
  const explicitAllow = answers.find((d) => d.decision === "allow" && d.by !== "mode" && d.by !== "rule");
  if (hardAsk && explicitAllow) {
    const who = explicitAllow.by === "hook" ? "A hook" : "An extension";
    return { ...hardAsk, reason: `${hardAsk.reason} ${who} allowed it, but its allow cannot skip this question${hardAsk.notLiftable ? `: ${hardAsk.notLiftable}` : "."}` };
  }
  if (hardAsk) return hardAsk;
  const allow = answers.find((d) => d.decision === "allow");
  if (allow) {
    // The confinement the gate asked for stays, whoever allowed.
    const readOnly = answers.some((d) => d.confine?.readOnly);
    return readOnly && !allow.confine?.readOnly ? { ...allow, confine: { ...allow.confine, readOnly } } : allow;
  }
  return answers.find((d) => d.decision === "ask");
}

function by(d: ExtensionDecision): "rule" | "mode" | "hook" | "restricted" | "extension" {
  return d.by;
}

export async function decideCall(ctx: LoopContext, def: ToolDefinition, call: ToolCallRecord, args: unknown, answers: readonly ExtensionDecision[], signal: AbortSignal): Promise<CallDecision> {
  const input = def.hookInput(args);
  const d: ExtensionDecision = foldDecisions(answers) ?? { decision: "ask", by: "mode", reason: `No permission policy answered for ${def.name}, so it needs approval.` };
  const rule = d.rule ? { rule: d.rule } : {};
  if (d.decision === "allow") {
    ctx.append({ type: "permission_decision", callId: call.id, decision: "allow", by: by(d), ...rule });
    return { decision: "allow", ...(d.confine ? { confine: d.confine } : {}) };
  }
  if (d.decision === "deny") {
    ctx.append({ type: "permission_decision", callId: call.id, decision: "deny", by: by(d), ...rule, message: d.reason });
    return { decision: "deny", message: `Permission denied for ${def.name}: ${d.reason}` };
  }
  for (const out of await ctx.extensions.run("permission.request", { call, tool: def, args, reason: d.reason }, { signal })) {
    const answer = out.result;
    if (!answer?.decision) continue;
    ctx.append({ type: "permission_decision", callId: call.id, decision: answer.decision, by: answer.by ?? "extension", ...(answer.message ? { message: answer.message } : {}) });
    if (answer.decision === "allow") return { decision: "allow", ...(d.confine ? { confine: d.confine } : {}) };
    return { decision: "deny", message: `Permission denied for ${def.name}: ${answer.message ?? `${out.extension} refused it`}` };
  }
  if (def.reviewable && ctx.services.reviewer) {
    // The diff review is the question: the user accepts or rejects the change itself.
    ctx.append({ type: "permission_decision", callId: call.id, decision: "allow", by: by(d), ...rule, message: "sent to review" });
    return { decision: "allow", review: "ask" };
  }
  const summary = ctx.registry.summarize(def.name, ctx.registry.displayArgs(def.name, args, ctx.services.fs));
  ctx.append({ type: "permission_request", callId: call.id, tool: def.name, permission: def.permission, input, reason: d.reason, summary });
  ctx.setState("waiting_user", def.name);
  ctx.sessionLog.sync();
  const question = { callId: call.id, tool: def.name, permission: def.permission, input, reason: d.reason, summary, readOnly: isReadOnly(def.capabilities) };
  const answer = await askUser(ctx.approver, question, signal, ctx.limits.waitingUserMs);
  ctx.append({ type: "permission_decision", callId: call.id, decision: answer.decision, by: "user", ...(answer.message ? { message: answer.message } : {}) });
  if (answer.decision === "allow") return { decision: "allow", ...(d.confine ? { confine: d.confine } : {}) };
  return {
    decision: "deny",
    message: `The user denied ${def.name}${answer.message ? `: "${answer.message}"` : "."} Do not retry the same call; ask the user or take another approach.`,
  };
}

async function askUser(approver: Approver, q: Parameters<Approver["ask"]>[0], signal: AbortSignal, waitMs: number | undefined): Promise<PermissionAnswer> {
  if (!waitMs) return raceAbort(approver.ask(q, signal), signal);
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new DOMException("no answer", "TimeoutError")), waitMs);
  try {
    return await raceAbort(approver.ask(q, controller.signal), controller.signal);
  } catch (err) {
    if (signal.aborted) throw err;
    return { decision: "deny", message: `no answer within ${seconds(waitMs)} s` };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}
