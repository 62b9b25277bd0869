/**
 * The model fallback chain: a Provider over the configured model and its fallbacks
 * (`--fallback-model`, setting `fallbackModels`). Each model has a circuit breaker (per
 * provider+model: open after 3 consecutive overloaded/5xx/network failures, one probe after the
 * cooldown). A request goes to the first model whose circuit admits it, with retries; when that
 * model stays overloaded or failing after its retries, or its circuit opens, the same request goes
 * to the next model. Every switch is a `fallback` event (and breaker changes `breaker` events), so
 * the transcript and the log say which model answered; usage is recorded against `model`, which is
 * the model that answered last.
 */
import { CircuitSet, formatWait } from "../breakers/circuit";
import type { NewEvent } from "../events";
import { abortableSleep, retryDelay, retryNotice, type RetryOptions } from "../providers/retry";
import { type ChatRequest, type Provider, type ProviderEvent, ProviderError, type ProviderId } from "../providers/types";

export const DEFAULT_PROVIDER_THRESHOLD = 3;
export const DEFAULT_PROVIDER_COOLDOWN_MS = 60_000;

const CHAIN_PROVIDERS: readonly ProviderId[] = ["anthropic", "openai", "openai-compatible", "vscode-lm"];

/** One entry of `fallbackModels` / `--fallback-model`: `model` (same provider) or `provider:model`. */
export interface FallbackSpec {
  provider?: ProviderId;
  model: string;
}

/**
 * Parses `provider:model` or `model`. Model names may contain ":" (Ollama's `llama3:8b`), so only a
 * known provider id before the first ":" is read as the provider.
 */
export function parseFallbackSpec(text: string): FallbackSpec {
  const t = text.trim();
  if (!t) throw new Error("a fallback model must not be empty: use `model` or `provider:model`");
  const i = t.indexOf(":");
  if (i > 0 && CHAIN_PROVIDERS.includes(t.slice(0, i) as ProviderId)) {
    const model = t.slice(i + 1).trim();
    if (!model) throw new Error(`fallback model "${t}" names no model after "${t.slice(0, i)}:"`);
    return { provider: t.slice(0, i) as ProviderId, model };
  }
  return { model: t };
}

/** The `fallbackModels` setting: a list of strings; anything else is a clear error. */
export function parseFallbackModels(value: unknown, where = "fallbackModels"): FallbackSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${where} must be a list of "model" or "provider:model" strings`);
  return value.map((v, i) => {
    if (typeof v !== "string") throw new Error(`${where}[${i}] must be a string ("model" or "provider:model")`);
    return parseFallbackSpec(v);
  });
}

export interface FallbackChainOptions extends Pick<RetryOptions, "maxRetries" | "baseDelayMs" | "maxDelayMs" | "maxRetryAfterMs" | "random"> {
  /** Consecutive failures that open a model's circuit (default 3). */
  threshold?: number;
  /** How long an open model circuit is skipped (default 60 s). */
  cooldownMs?: number;
  now?: () => number;
  sleep?: RetryOptions["sleep"];
}

/** Failures that say the server is unwell (they count towards its circuit). */
const UNWELL = new Set(["overloaded", "server", "network"]);
/** Failures after which the next model is tried (a rate limit too: another model may have room). */
const FALL_BACK = new Set(["overloaded", "server", "network", "rate_limit"]);

const keyOf = (p: Provider) => `${p.id}:${p.model}`;

export function fallbackChain(models: readonly Provider[], opts: FallbackChainOptions = {}): Provider {
  if (models.length === 0) throw new Error("a fallback chain needs at least one model");
  const circuits = new CircuitSet({ threshold: opts.threshold ?? DEFAULT_PROVIDER_THRESHOLD, cooldownMs: opts.cooldownMs ?? DEFAULT_PROVIDER_COOLDOWN_MS, now: opts.now });
  const { maxRetries = 4, sleep = abortableSleep } = opts;
  const cooldownMs = opts.cooldownMs ?? DEFAULT_PROVIDER_COOLDOWN_MS;
  let current = 0;
  const breakerEvent = (p: Provider, state: "open" | "half_open" | "closed", failures: number, detail: string): ProviderEvent => ({
    type: "log",
    event: { type: "breaker", scope: "provider", key: keyOf(p), state, failures, message: detail } satisfies NewEvent,
  });

  async function* stream(req: ChatRequest): AsyncIterable<ProviderEvent> {
    const reasons: string[] = [];
    let lastError: ProviderError | undefined;
    for (let i = 0; i < models.length; i++) {
      const p = models[i]!;
      const circuit = circuits.get(keyOf(p));
      const { admission, transition } = circuit.admit();
      if (transition) yield breakerEvent(p, "half_open", transition.failures, `Circuit half-open for model ${keyOf(p)}: one request is sent as a probe.`);
      if (!admission.allowed) {
        reasons.push(`${keyOf(p)}: circuit open after ${admission.failures} consecutive failures, skipped for ${formatWait(admission.retryInMs)}`);
        lastError = new ProviderError(
          "overloaded",
          `model ${keyOf(p)} is not asked: its circuit breaker is open after ${admission.failures} consecutive failures${admission.lastError ? ` (last: ${admission.lastError})` : ""}; it is tried again in ${formatWait(admission.retryInMs)}`,
        );
        continue;
      }
      for (let attempt = 1; ; attempt++) {
        let yielded = false;
        try {
          for await (const ev of p.stream(req)) {
            // A note for the log (the effort refusal's) is not output: a 429/5xx after it is still retried or falls back.
            if (!yielded && ev.type !== "log") {
              yielded = true;
              if (i !== current) {
                const from = models[current]!;
                const reason = reasons.length ? reasons.join("; ") : `${keyOf(p)} answers again`;
                current = i;
                yield { type: "log", event: { type: "fallback", from: keyOf(from), to: keyOf(p), reason } };
              }
            }
            yield ev;
          }
          const closed = circuit.success();
          if (closed) yield breakerEvent(p, "closed", 0, `Circuit closed for model ${keyOf(p)}: it answered again.`);
          return;
        } catch (err) {
          if (!(err instanceof ProviderError) || err.kind === "aborted" || req.signal?.aborted) {
            circuit.neutral();
            throw err;
          }
          const opened = UNWELL.has(err.kind) ? circuit.failure(err.message) : (circuit.neutral(), undefined);
          if (opened)
            yield breakerEvent(
              p,
              "open",
              opened.failures,
              `Circuit open for model ${keyOf(p)} after ${opened.failures} consecutive failures (${err.message}); it is skipped for ${formatWait(cooldownMs)}.`,
            );
          // Output already reached the user, or the request itself is wrong: no retry, no other model.
          if (yielded || !FALL_BACK.has(err.kind)) throw err;
          lastError = err;
          const delayMs = opened || circuit.current === "open" ? undefined : attempt > maxRetries ? undefined : retryDelay(err, attempt, opts);
          if (delayMs === undefined) {
            reasons.push(`${keyOf(p)} failed${opened ? " and its circuit opened" : ` after ${attempt} attempt(s)`}: ${err.message}`);
            break;
          }
          yield { type: "log", event: retryNotice(err, attempt, delayMs) };
          await sleep(delayMs, req.signal);
        }
      }
    }
    if (models.length === 1) throw lastError!;
    throw new ProviderError(lastError?.kind ?? "server", `every model of the fallback chain failed: ${reasons.join("; ")}`, lastError?.status);
  }

  return {
    get id() {
      return models[current]!.id;
    },
    get model() {
      return models[current]!.model;
    },
    ownRetries: true,
    stream,
  };
}
