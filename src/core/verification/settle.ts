/**
 * Waiting for language servers to settle after a change, instead of a fixed delay: done once no
 * new report came for `quietMs` after the last one; when none comes at all, after `firstMs` (the
 * server had nothing new to say); never longer than `maxMs`.
 */
import type { Disposable } from "../ports";

export interface SettleOptions {
  quietMs: number;
  firstMs: number;
  maxMs: number;
  signal?: AbortSignal;
}

/** Defaults for VS Code's language servers: a TypeScript check of a changed file reports within ~1 s. */
export const DEFAULT_SETTLE: Omit<SettleOptions, "signal"> = { quietMs: 400, firstMs: 1_500, maxMs: 8_000 };

export type SettleOutcome = "quiet" | "no-report" | "max" | "aborted";

/** `subscribe` registers a listener called on each report about the files of interest. */
export function waitForQuiet(subscribe: (onReport: () => void) => Disposable, opts: SettleOptions): Promise<{ outcome: SettleOutcome; reports: number; waitedMs: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    let reports = 0;
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const done = (outcome: SettleOutcome) => {
      clearTimeout(quiet);
      clearTimeout(first);
      clearTimeout(max);
      sub.dispose();
      opts.signal?.removeEventListener("abort", onAbort);
      resolve({ outcome, reports, waitedMs: Date.now() - started });
    };
    const onAbort = () => done("aborted");
    const first = setTimeout(() => reports === 0 && done("no-report"), opts.firstMs);
    const max = setTimeout(() => done("max"), opts.maxMs);
    const sub = subscribe(() => {
      reports++;
      clearTimeout(quiet);
      quiet = setTimeout(() => done("quiet"), opts.quietMs);
    });
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
