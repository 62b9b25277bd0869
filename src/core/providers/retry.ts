/**
 * Retries of failed model requests. A request is retried only while nothing of it has reached
 * the caller, so streamed output is never duplicated. A `log` event (a note for the session's
 * log, such as the effort refusal's) is not output: it does not stop a retry.
 */
import type { NewEvent } from "../events";
import { type ChatRequest, type Provider, type ProviderEvent, ProviderError } from "./types";

/** Options of withRetries. */
export interface RetryOptions {
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** First backoff delay; doubled on each retry (default 1000). */
  baseDelayMs?: number;
  /** Cap of the computed backoff (default 30000). */
  maxDelayMs?: number;
  /** A server's retry-after longer than this is not waited for: the error is thrown (default 60000). */
  maxRetryAfterMs?: number;
  /** Called before each wait, e.g. to show "retrying in 4 s". */
  onRetry?: (info: { attempt: number; delayMs: number; error: ProviderError }) => void;
  /** Injectable for tests; must reject promptly when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable for tests: a number in [0, 1). */
  random?: () => number;
}

/** The log's `error` event for a retry ("… — retrying in 4 s (attempt 2)"). */
export function retryNotice(error: ProviderError, attempt: number, delayMs: number): NewEvent {
  return { type: "error", message: `${error.message} — retrying in ${Math.round(delayMs / 1000)} s (attempt ${attempt})`, code: error.kind, retryable: true };
}

const aborted = () => new ProviderError("aborted", "the request was cancelled");

/** A sleep that rejects with an "aborted" ProviderError as soon as the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The delay before retry number `attempt` (1-based), or undefined when the error must not be retried. */
export function retryDelay(error: ProviderError, attempt: number, opts: RetryOptions = {}): number | undefined {
  const { baseDelayMs = 1000, maxDelayMs = 30_000, maxRetryAfterMs = 60_000, random = Math.random } = opts;
  if (!error.retryable) return undefined;
  if (error.retryAfterMs !== undefined) return error.retryAfterMs > maxRetryAfterMs ? undefined : error.retryAfterMs;
  const exp = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exp * (0.5 + random() * 0.5));
}

/** Wraps a provider so retryable failures before the first event are retried with backoff. */
export function withRetries(provider: Provider, opts: RetryOptions = {}): Provider {
  const { maxRetries = 4, sleep = abortableSleep } = opts;
  return {
    id: provider.id,
    model: provider.model,
    async *stream(req: ChatRequest): AsyncIterable<ProviderEvent> {
      for (let attempt = 1; ; attempt++) {
        let yielded = false;
        try {
          for await (const event of provider.stream(req)) {
            if (event.type !== "log") yielded = true;
            yield event;
          }
          return;
        } catch (err) {
          if (!(err instanceof ProviderError) || yielded || attempt > maxRetries) throw err;
          if (req.signal?.aborted) throw aborted();
          const delayMs = retryDelay(err, attempt, opts);
          if (delayMs === undefined) throw err;
          opts.onRetry?.({ attempt, delayMs, error: err });
          await sleep(delayMs, req.signal);
          if (req.signal?.aborted) throw aborted();
        }
      }
    },
  };
}
