/**
 * Turn time: how long the agent worked on one message, and where the time went — waiting for the
 * model (each request, from the "thinking" state to its answer) and running tools (their own
 * measured durations, summed: parallel calls count each). Recorded as one `turn_time` event when
 * the run ends (done, stopped, failed or cancelled); the panel and `yoke run` show its line.
 *
 * An observer only (ExtensionApi.onEvent): it never changes the course of the loop, and nothing it
 * records reaches the model (the conversation projection ignores the event).
 */
import type { EventOf, SessionEvent } from "../events";
import type { Extension } from "../extensions/types";

export const TURN_TIME_EXTENSION = "turn-time";

const ENDS = new Set(["done", "error", "cancelled"]);

export interface TurnTimeOptions {
  /** Milliseconds (default Date.now). */
  now?: () => number;
}

/** The one line the panel and the CLI show for a turn_time event. */
export function turnTimeLine(e: Pick<EventOf<"turn_time">, "ms" | "modelMs" | "toolMs" | "requests" | "tools">): string {
  const parts = [`model ${seconds(e.modelMs)} in ${e.requests} request${e.requests === 1 ? "" : "s"}`];
  if (e.tools > 0) parts.push(`tools ${seconds(e.toolMs)} in ${e.tools} call${e.tools === 1 ? "" : "s"}`);
  return `Worked ${seconds(e.ms)}: ${parts.join(", ")}.`;
}

/** 850 ms, 12.4 s, 2 min 5 s. */
export function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

export function turnTimeExtension(opts: TurnTimeOptions = {}): Extension {
  const now = opts.now ?? (() => Date.now());
  return {
    name: TURN_TIME_EXTENSION,
    setup(api) {
      let run: { start: number; request?: number; modelMs: number; toolMs: number; requests: number; tools: number } | undefined;
      return api.onEvent((e: SessionEvent) => {
        if (e.type === "status" && e.state === "thinking") {
          const t = now();
          run ??= { start: t, modelMs: 0, toolMs: 0, requests: 0, tools: 0 };
          run.request = t;
          return;
        }
        if (!run) return;
        if (e.type === "assistant_message" && run.request !== undefined) {
          run.modelMs += now() - run.request;
          run.requests++;
          run.request = undefined;
        } else if (e.type === "tool_result" && !e.interrupted) {
          run.toolMs += e.durationMs;
          run.tools++;
        } else if (e.type === "status" && ENDS.has(e.state)) {
          const end = now();
          const r = run;
          run = undefined;
          // A request that failed or was stopped still took the model's time.
          if (r.request !== undefined) r.modelMs += end - r.request;
          const event = {
            type: "turn_time" as const,
            ms: end - r.start,
            modelMs: r.modelMs,
            toolMs: r.toolMs,
            requests: r.requests,
            tools: r.tools,
            outcome: e.state as "done" | "error" | "cancelled",
          };
          // After the status event has reached every listener: the log and every view see the end first, then its time.
          queueMicrotask(() => api.record(event));
        }
      });
    },
  };
}
