/**
 * The session's model, switchable for one turn (a custom command's `model`): requests go to the
 * override while it is set, else to the session's own provider. The system prompt and the tools
 * stay the same, so the conversation's prefix does not change. When the provider does not know the
 * override (not found, or a request it refuses before any output), the session's own model answers
 * for the rest of the turn, and the log says so (a `fallback` event).
 */
import { ProviderError, type Provider, type ProviderEvent } from "../providers/types";

export interface SwitchableProvider {
  provider: Provider;
  /** undefined: back to the session's own model. `whose`: what the override is, in the log's fallback reason (default: the switch's own). */
  use(override: Provider | undefined, whose?: string): void;
}

const UNKNOWN_MODEL = new Set(["not_found", "bad_request"]);

/** `whose`: what the override is, in the log's fallback reason ("the command's model", "the model chosen in the editor"). */
export function switchableProvider(base: Provider, whose = "the command's model"): SwitchableProvider {
  let current: Provider | undefined;
  let currentWhose = whose;
  const now = () => current ?? base;
  async function* stream(req: Parameters<Provider["stream"]>[0]): AsyncIterable<ProviderEvent> {
    const o = current;
    const label = currentWhose;
    if (!o) {
      yield* base.stream(req);
      return;
    }
    let yielded = false;
    try {
      for await (const ev of o.stream(req)) {
        yielded = true;
        yield ev;
      }
    } catch (err) {
      if (yielded || !(err instanceof ProviderError) || !UNKNOWN_MODEL.has(err.kind) || req.signal?.aborted) throw err;
      if (current === o) current = undefined;
      yield {
        type: "log",
        event: { type: "fallback", from: `${o.id}:${o.model}`, to: `${base.id}:${base.model}`, reason: `${label} ${o.model} failed (${err.message}); the session's model answers` },
      };
      yield* base.stream(req);
    }
  }
  const provider: Provider = {
    get id() {
      return now().id;
    },
    get model() {
      return now().model;
    },
    get ownRetries() {
      return now().ownRetries;
    },
    stream,
  };
  return {
    provider,
    use: (p, w) => {
      current = p;
      currentWhose = w ?? whose;
    },
  };
}
