/**
 * Compaction for one agent session: builds the compactor over the session's log, tools and
 * extension registry, so the session itself only holds it and asks it to compact.
 */
import type { LoopContext } from "../loop/context";
import type { Provider } from "../providers/types";
import type { SessionStore } from "../ports";
import { createCompaction, type Compaction, type CompactionDeps } from "./compactor";
import { summaryText } from "./render";
import { tokensOfText } from "./tokens";

export interface SessionCompactionOptions {
  settings?: CompactionDeps["settings"];
  contextWindow?: number;
  summaryProvider?: Provider;
}

/** The session's compactor; `ctx` is read lazily (it is built after the compactor is made). */
export function sessionCompaction(ctx: () => LoopContext, parts: { store: SessionStore; model: string; system: string }, opts: SessionCompactionOptions): Compaction {
  let fixed: number | undefined;
  return createCompaction({
    sessionId: () => ctx().id,
    events: () => ctx().sessionLog.events,
    append: (e) => ctx().append(e),
    store: parts.store,
    model: parts.model,
    // The tool list is fixed once the extensions are set up; measured on first use.
    fixedTokens: () => (fixed ??= tokensOfText(parts.system.length + JSON.stringify(ctx().registry.specs()).length)),
    ask: async (trigger, signal) => {
      const instructions: string[] = [];
      for (const o of await ctx().extensions.run("compaction", { trigger }, { signal })) {
        if (o.result?.veto !== undefined) {
          ctx().append({ type: "extension", name: o.extension, point: "compaction", outcome: "blocked", detail: o.result.veto });
          return { veto: { by: o.extension, reason: o.result.veto }, instructions };
        }
        instructions.push(...(o.result?.instructions ?? []).filter((t) => t.trim()));
      }
      return { instructions };
    },
    after: async (trigger, event, signal) => {
      for (const o of await ctx().extensions.run("compaction.after", { trigger, summary: summaryText(event) }, { signal })) {
        for (const text of o.result?.context ?? []) if (text.trim()) ctx().append({ type: "context", source: o.extension, text });
      }
    },
    describeTool: (name) => {
      const d = ctx().registry.get(name);
      return d ? { reads: d.capabilities.reads, writes: d.capabilities.writes, pathArgs: d.pathArgs } : undefined;
    },
    settings: opts.settings,
    contextWindow: opts.contextWindow,
    summaryProvider: opts.summaryProvider,
    log: ctx().log,
  });
}
