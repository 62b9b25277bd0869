/** A user message through prompt.submit, before the turn loop or while it runs (a steered message). */
import type { ImagePart } from "../events";
import type { LoopContext } from "./context";

/**
 * A user message through prompt.submit: an extension may block it (recorded, nothing sent) or add
 * context, given to the model with it (with `pending`, e.g. from session.start). False when blocked.
 * `running`: delivered while the loop runs (request.prepare's `user`), so a block leaves the state alone.
 */
export async function submitPrompt(ctx: LoopContext, typedText: string, pending: readonly string[], opts: { running?: boolean; signal?: AbortSignal } = {}): Promise<boolean> {
  const context = [...pending];
  const expanded = await expandPrompt(ctx, typedText, opts);
  if (expanded === undefined) return false;
  const { text, images } = expanded;
  for (const o of await ctx.extensions.run("prompt.submit", { text, typed: typedText }, { signal: new AbortController().signal })) {
    if (o.result?.block !== undefined) {
      ctx.append({ type: "extension", name: o.extension, point: "prompt.submit", outcome: "blocked", detail: o.result.block });
      ctx.append({ type: "error", message: `Your message was not sent: ${o.result.block}`, code: "hook_blocked" });
      // Mid-run (a steered message): the run goes on without it.
      if (!opts.running) ctx.setState("idle", "prompt blocked");
      ctx.sessionLog.sync();
      return false;
    }
    context.push(...(o.result?.context ?? []));
  }
  const joined = context.filter((c) => c.trim()).join("\n\n");
  ctx.append({ type: "user_message", text, ...(joined ? { context: joined } : {}), ...(text !== typedText ? { typed: typedText } : {}), ...(images?.length ? { images } : {}) });
  ctx.sessionLog.sync();
  return true;
}

/**
 * prompt.expand: the first handler that answers expands the message (a custom slash command), handles
 * it without a model turn, or blocks it. The text to send, or undefined when nothing is sent.
 */
async function expandPrompt(ctx: LoopContext, text: string, opts: { running?: boolean; signal?: AbortSignal }): Promise<{ text: string; images?: ImagePart[] } | undefined> {
  if (!ctx.extensions.has("prompt.expand")) return { text };
  const signal = opts.signal ?? new AbortController().signal;
  let outcomes;
  try {
    outcomes = await ctx.extensions.run("prompt.expand", { text }, { signal });
  } catch (err) {
    if (!signal.aborted) throw err;
    // Stopped while a handler worked (a forked command's sub-agent): nothing is sent.
    ctx.append({ type: "extension", name: "prompt", point: "prompt.expand", outcome: "blocked", detail: "stopped by the user while the message was being expanded" });
    ctx.append({ type: "error", message: "Your message was not sent: you stopped it while it was being expanded.", code: "command_refused" });
    if (!opts.running) ctx.setState("idle", "prompt stopped");
    ctx.sessionLog.sync();
    return undefined;
  }
  for (const o of outcomes) {
    const r = o.result;
    if (!r) continue;
    const stop = (detail: string, outcome: "handled" | "blocked") => {
      ctx.append({ type: "extension", name: o.extension, point: "prompt.expand", outcome, detail });
      if (outcome === "blocked") ctx.append({ type: "error", message: `Your message was not sent: ${detail}`, code: "command_refused" });
      // Handled (a setting changed): the message is done; blocked: nothing happened.
      if (!opts.running) ctx.setState(outcome === "handled" ? "done" : "idle", outcome === "handled" ? detail : "prompt blocked");
      ctx.sessionLog.sync();
      return undefined;
    };
    if (r.block !== undefined) return stop(r.block, "blocked");
    if (r.handled !== undefined) return stop(r.handled, "handled");
    if (r.text !== undefined && r.text !== text) {
      ctx.append({ type: "extension", name: o.extension, point: "prompt.expand", outcome: "expanded", detail: text.length > 200 ? `${text.slice(0, 200)}…` : text });
      return { text: r.text, ...(r.images?.length ? { images: r.images } : {}) };
    }
  }
  return { text };
}
