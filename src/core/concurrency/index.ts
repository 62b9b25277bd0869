/**
 * Per-tool concurrency gates: at most `limit` runs of the gated tools at once across every session
 * that shares the gate (the extension host runs several sessions; each session runs its calls one
 * after another). A call beyond the limit waits in FIFO order and says so with a `tool_queued`
 * event (the transcript shows it queued), and runs when a slot frees. Cancelling a queued call
 * takes it out of the queue. The wait is inside the tool's run, after the permission decision,
 * so no slot is held while the user is asked.
 *
 * A background command holds its slot only while it starts: servers and watchers run for the whole
 * session, and counting them would leave later commands queued forever.
 */
import type { ToolDefinition } from "../tools/types";

export const DEFAULT_COMMAND_LIMIT = 4;

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (err: unknown) => void;
}

export class ConcurrencyGate {
  private running = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    readonly name: string,
    readonly limit: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`gate "${name}": the limit must be a positive integer (got ${limit})`);
  }

  get active(): number {
    return this.running;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /**
   * A slot: resolves with its release function at once when one is free, else when one frees.
   * `onQueued` is told the 1-based queue position when the caller has to wait.
   */
  acquire(signal?: AbortSignal, onQueued?: (position: number) => void): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (release) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        },
        reject,
      };
      const onAbort = () => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
      onQueued?.(this.queue.length);
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.queue.shift();
      if (next) next.resolve(this.releaser());
      else this.running--;
    };
  }
}

export interface GateRule {
  gate: ConcurrencyGate;
  /** Which tools pass this gate (by their capabilities or group, never by a name list in the loop). */
  applies(tool: ToolDefinition): boolean;
}

/** The default gates: commands (tools that run processes), at most 4 at once. */
export function defaultGates(limits: { commands?: number } = {}): GateRule[] {
  const commands = new ConcurrencyGate("commands", limits.commands ?? DEFAULT_COMMAND_LIMIT);
  return [{ gate: commands, applies: (t) => t.capabilities.runs === true }];
}

/** The tools with their gates applied: the same definitions, whose run waits for a slot first. */
export function withConcurrencyGates(tools: readonly ToolDefinition[], rules: readonly GateRule[]): ToolDefinition[] {
  return tools.map((tool) => {
    const gates = rules.filter((r) => r.applies(tool)).map((r) => r.gate);
    if (gates.length === 0) return tool;
    const run: ToolDefinition["run"] = async (args, ctx) => {
      const releases: Array<() => void> = [];
      try {
        for (const gate of gates) {
          releases.push(await gate.acquire(ctx.signal, (position) => ctx.record({ type: "tool_queued", callId: ctx.callId, name: tool.name, gate: gate.name, position, limit: gate.limit })));
        }
        return await tool.run(args, ctx);
      } finally {
        for (const release of releases.reverse()) release();
      }
    };
    return { ...tool, run };
  });
}
