/** A user message through prompt.submit, before the turn loop or while it runs (a steered message). */
import type { LoopContext } from "./context";

/**
 * A user message through prompt.submit: an extension may block it (recorded, nothing sent) or add
 * context, given to the model with it (with `pending`, e.g. from session.start). False when blocked.
 * `running`: delivered while the loop runs (request.prepare's `user`), so a block leaves the state alone.
 */
export async function submitPrompt(ctx: LoopContext, text: string, pending: readonly string[], opts: { running?: boolean } = {}): Promise<boolean> {
  const context = [...pending];
  for (const o of await ctx.extensions.run("prompt.submit", { text }, { signal: new AbortController().signal })) {
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
  ctx.append({ type: "user_message", text, ...(joined ? { context: joined } : {}) });
  ctx.sessionLog.sync();
  return true;
}
