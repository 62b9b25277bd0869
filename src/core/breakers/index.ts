/**
 * Circuit breakers for tools: one circuit per tool and one per tool group (`ToolDefinition.group`,
 * e.g. `mcp:<server>`: the tools of one server fail together). A circuit opens after `threshold`
 * consecutive failures — an error result or a timeout of a call that ran; a permission denial or
 * a rejected review never runs the tool, so it never counts — and then answers at once with a clear
 * message instead of letting the model wait for more timeouts. After the cooldown one probe goes
 * through: its success closes the circuit, its failure opens it again.
 *
 * The circuits live in the extension object, so every session created with it shares them (a dead
 * server is dead for all of them). Provider circuits are in the fallback chain (src/core/fallback).
 */
import type { Extension } from "../extensions/types";
import type { ToolDefinition } from "../tools/types";
import { CircuitSet, formatWait, type Circuit, type Transition } from "./circuit";

export { Circuit, CircuitSet, formatWait } from "./circuit";
export type { Admission, CircuitOptions, CircuitState, Transition } from "./circuit";

export const DEFAULT_TOOL_THRESHOLD = 5;
export const DEFAULT_TOOL_COOLDOWN_MS = 30_000;

export interface ToolBreakerOptions {
  /** Consecutive failures that open a circuit (default 5). */
  threshold?: number;
  /** How long an open circuit refuses calls (default 30 s). */
  cooldownMs?: number;
  now?: () => number;
}

interface Keyed {
  scope: "tool" | "group";
  key: string;
  circuit: Circuit;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** The message of an open circuit, to the model and in the panel. */
export function openCircuitMessage(tool: string, scope: "tool" | "group", key: string, failures: number, retryInMs: number, lastError?: string): string {
  const what = scope === "tool" ? `its circuit breaker is open` : `the circuit breaker of its group "${key}" is open`;
  const last = lastError ? ` (last error: ${firstLine(lastError)})` : "";
  return (
    `${tool} was not run: ${what} after ${failures} consecutive failures${last}. ` +
    `Yoke refuses these calls for ${formatWait(retryInMs)} more instead of letting them fail again. ` +
    `Do not retry it now: use another approach, or tell the user what is failing.`
  );
}

export function toolBreakersExtension(opts: ToolBreakerOptions = {}): Extension {
  const circuits = new CircuitSet({ threshold: opts.threshold ?? DEFAULT_TOOL_THRESHOLD, cooldownMs: opts.cooldownMs ?? DEFAULT_TOOL_COOLDOWN_MS, now: opts.now });
  const of = (tool: ToolDefinition): Keyed[] => [
    { scope: "tool", key: tool.name, circuit: circuits.get(`tool:${tool.name}`) },
    ...(tool.group ? [{ scope: "group" as const, key: tool.group, circuit: circuits.get(`group:${tool.group}`) }] : []),
  ];
  return {
    name: "breakers",
    setup(api) {
      const changed = (k: Keyed, t: Transition | undefined, retryInMs = 0) => {
        if (!t) return;
        const label = k.scope === "tool" ? `tool ${k.key}` : `tool group ${k.key}`;
        const message =
          t.to === "open"
            ? `Circuit open for ${label} after ${t.failures} consecutive failure(s)${t.lastError ? ` (last: ${firstLine(t.lastError)})` : ""}; calls are refused for ${formatWait(retryInMs)}.`
            : t.to === "half_open"
              ? `Circuit half-open for ${label}: one call is let through as a probe.`
              : `Circuit closed for ${label}: the probe succeeded.`;
        api.record({ type: "breaker", scope: k.scope, key: k.key, state: t.to, failures: t.failures, message });
      };
      const cooldown = opts.cooldownMs ?? DEFAULT_TOOL_COOLDOWN_MS;
      // Low priority: policies (the permission gate) decide first; an open circuit answers instead of running.
      api.on(
        "tool.before",
        ({ tool }) => {
          for (const k of of(tool)) {
            const { admission, transition } = k.circuit.admit();
            changed(k, transition);
            if (!admission.allowed) return { respond: openCircuitMessage(tool.name, k.scope, k.key, admission.failures, admission.retryInMs, admission.lastError) };
          }
          return undefined;
        },
        { priority: -100 },
      );
      api.on("tool.after", ({ tool, output }) => {
        for (const k of of(tool)) {
          if (output.isError && (tool.failed?.(output) ?? true)) changed(k, k.circuit.failure(output.text), cooldown);
          else changed(k, k.circuit.success());
        }
      });
    },
  };
}
