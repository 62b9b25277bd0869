/**
 * Human output of `yoke run`: the answer streamed to stdout, tool activity as short lines. Every
 * other event is a line with the text its mechanism gives (core/describe-event.ts), the same the
 * panel shows as a notice.
 */
import { costLine, type SessionCost } from "../core/cost";
import { describeEvent, type EventNote } from "../core/describe-event";
import type { SessionEvent } from "../core/events";
import type { StreamDelta } from "../core/loop/types";
import type { Provider } from "../core/providers/types";
import type { SessionSummary } from "../core/session/projection";
import { printable } from "./printable";

/** A described event's mark when its mechanism gives none. */
const LEVEL_MARK: Record<EventNote["level"], string> = { info: "·", warning: "⚠", error: "!" };

export interface ConsoleRenderer {
  header(id: string, provider: Provider, label?: string): void;
  event(e: SessionEvent): void;
  delta(d: StreamDelta): void;
  /** The run's outcome and what the whole session cost (tokens, cache, price, requests). */
  footer(s: SessionSummary, cost: SessionCost): void;
}

export function createConsoleRenderer(out: NodeJS.WritableStream, err: NodeJS.WritableStream): ConsoleRenderer {
  let midLine = false;
  /** The tools' own summaries of the calls of the last assistant message. */
  const summaries = new Map<string, string>();
  const line = (text: string) => {
    if (midLine) out.write("\n");
    midLine = false;
    out.write(printable(text) + "\n");
  };
  return {
    header(id, provider, label) {
      err.write(`yoke: session ${id} · ${label ?? `${provider.id}/${provider.model}`}\n`);
    },
    delta(d) {
      if (d.type !== "text") return;
      out.write(printable(d.text));
      midLine = !d.text.endsWith("\n");
    },
    event(e) {
      switch (e.type) {
        case "tool_call":
          line(`⏺ ${e.name} ${summaries.get(e.callId) ?? brief(e.input)}`);
          break;
        case "tool_result": {
          const first = e.output.split("\n").find((l) => l.trim()) ?? "";
          line(`  ⎿ ${e.isError ? "error: " : ""}${first.length > 120 ? first.slice(0, 119) + "…" : first} (${e.durationMs} ms)`);
          break;
        }
        case "permission_decision":
          if (e.decision === "deny") line(`  ✗ ${e.callId}: denied by ${e.by}${e.message ? ` — ${e.message}` : ""}`);
          break;
        case "error":
          line(`! ${e.message}`);
          break;
        case "subagent":
          line(subagentLine(e));
          break;
        case "status":
          // Why the loop stopped when an extension stopped it (a hook, a check that still fails).
          if (e.state === "done" && e.detail) line(`■ ${e.detail}`);
          break;
        case "assistant_message":
          if (midLine) line("");
          summaries.clear();
          for (const c of e.toolCalls) if (c.summary) summaries.set(c.id, c.summary);
          break;
        default: {
          const note = describeEvent(e);
          if (!note || note.routine) break;
          const mark = note.mark ?? LEVEL_MARK[note.level];
          const text = mark ? `${mark} ${note.text}` : note.text;
          if (!note.aside) line(text);
          else {
            if (midLine) line("");
            err.write(`yoke: ${printable(text)}\n`);
          }
        }
      }
    },
    footer(s, cost) {
      if (midLine) line("");
      err.write(`yoke: ${s.status} · ${costLine(cost.total)} · session ${s.id}\n`);
    },
  };
}

/** A sub-agent's progress, indented under its task call (two spaces a level). */
export function subagentLine(e: Extract<SessionEvent, { type: "subagent" }>): string {
  const pad = "  ".repeat(e.depth);
  if (e.phase === "started") return `${pad}↳ sub-agent "${e.description ?? ""}" started (session ${e.childId})`;
  if (e.phase === "step") return `${pad}  ${e.isError ? "✗" : "·"} ${e.tool ?? ""}${e.summary ? ` ${e.summary}` : ""}`;
  const cost = e.costUsd !== undefined ? `, $${e.costUsd.toFixed(4)}` : "";
  const changed = e.filesChanged?.length ? `, changed ${e.filesChanged.join(", ")}` : "";
  return `${pad}↳ sub-agent "${e.description ?? ""}" ${e.status ?? "finished"}${e.error ? `: ${e.error}` : ""} (${e.toolCalls ?? 0} tool call${e.toolCalls === 1 ? "" : "s"}${changed}${cost})`;
}

/** An unknown tool's arguments, cut to a line. */
function brief(input: unknown): string {
  const t = JSON.stringify(input) ?? "";
  return t.length > 80 ? t.slice(0, 79) + "…" : t;
}
