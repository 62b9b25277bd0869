// The event-loop watchdog of the extension host (issue 12, "Host health"): a 10 ms unref'ed timer
// notices when the loop was blocked (the gap between two ticks over the threshold, 50 ms) and
// logs the stall with what ran: the activity labels the host's handlers set around their work
// (webview messages, session events, reviews). Labels cost an array push per handler call.
// No VS Code API here (the CLI runs it for a bench session too); the host wires it in host-watchdog.ts.
import { mkdirSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

export const DEFAULT_THRESHOLD_MS = 50;
export const DEFAULT_INTERVAL_MS = 10;
const RECENT = 20;
const MAX_LABELS = 8;
/** The report file is written at most this often while stalls happen. */
const WRITE_EVERY_MS = 1_000;

export interface Stall {
  /** Gap between two ticks, ms: the stall lasted at most this long and at least this minus the interval. */
  ms: number;
  /** ISO time the stall ended. */
  at: string;
  /** Activities that started since the tick before (what most likely blocked). */
  ran: string[];
  /** Activities in progress during the stall (an async handler: its later part may be what blocked). */
  active: string[];
}

export interface WatchdogReport {
  pid: number;
  process: string;
  startedAt: string;
  updatedAt: string;
  thresholdMs: number;
  intervalMs: number;
  /** Stalls over the threshold. */
  stalls: number;
  longest: Stall | null;
  /** The last stalls, newest last. */
  recent: Stall[];
}

export interface WatchdogOptions {
  thresholdMs?: number;
  intervalMs?: number;
  /** Called for every stall (the host logs it). */
  onStall?: (stall: Stall) => void;
  /** Folder the report (watchdog-<pid>.json) is written to, when set. */
  reportDir?: string;
  /** Names the process in the report ("extension host", "cli"). */
  process?: string;
}

export class EventLoopWatchdog {
  readonly thresholdMs: number;
  readonly intervalMs: number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private last = 0;
  /** Labels entered since the last tick. */
  private entered: string[] = [];
  /** Labels of activities in progress (async ones until they settle), with a count. */
  private readonly inProgress = new Map<string, number>();
  /** Labels of activities that ended since the last tick (an async one may have blocked just before). */
  private ended: string[] = [];
  private stallCount = 0;
  private longest: Stall | null = null;
  private readonly recent: Stall[] = [];
  private readonly startedAt = new Date().toISOString();
  private lastWrite = 0;
  private writeQueued: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly opts: WatchdogOptions = {}) {
    this.thresholdMs = opts.thresholdMs ?? DEFAULT_THRESHOLD_MS;
    this.intervalMs = opts.intervalMs ?? DEFAULT_INTERVAL_MS;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(): this {
    if (this.timer) return this;
    this.last = performance.now();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref?.();
    // A report from the start: "no stall" is then told apart from "no watchdog".
    this.queueWrite();
    return this;
  }

  /** Stops the timer and writes the report a last time. */
  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    clearTimeout(this.writeQueued);
    this.writeReportSync();
  }

  /**
   * Runs `fn` labelled: a stall while it runs (or, for a promise, until it settles) names it.
   * Exceptions and results pass through unchanged.
   */
  run<T>(label: string, fn: () => T): T {
    if (this.entered.length < MAX_LABELS && this.entered[this.entered.length - 1] !== label) this.entered.push(label);
    this.inProgress.set(label, (this.inProgress.get(label) ?? 0) + 1);
    let result: T;
    try {
      result = fn();
    } catch (err) {
      this.leave(label);
      throw err;
    }
    if (result instanceof Promise) {
      result.then(
        () => this.leave(label),
        () => this.leave(label),
      );
    } else this.leave(label);
    return result;
  }

  report(): WatchdogReport {
    return {
      pid: process.pid,
      process: this.opts.process ?? "node",
      startedAt: this.startedAt,
      updatedAt: new Date().toISOString(),
      thresholdMs: this.thresholdMs,
      intervalMs: this.intervalMs,
      stalls: this.stallCount,
      longest: this.longest,
      recent: [...this.recent],
    };
  }

  /** The report file of this process, when a folder was given. */
  get reportPath(): string | undefined {
    return this.opts.reportDir ? join(this.opts.reportDir, `watchdog-${process.pid}.json`) : undefined;
  }

  private leave(label: string): void {
    if (this.ended.length < MAX_LABELS && this.ended[this.ended.length - 1] !== label) this.ended.push(label);
    const n = (this.inProgress.get(label) ?? 1) - 1;
    if (n <= 0) this.inProgress.delete(label);
    else this.inProgress.set(label, n);
  }

  private tick(): void {
    const now = performance.now();
    const gap = now - this.last;
    this.last = now;
    if (gap > this.thresholdMs) {
      const active = [...new Set([...this.ended, ...this.inProgress.keys()])].filter((l) => !this.entered.includes(l));
      const stall: Stall = { ms: Math.round(gap), at: new Date().toISOString(), ran: this.entered, active };
      this.stallCount++;
      if (!this.longest || stall.ms > this.longest.ms) this.longest = stall;
      this.recent.push(stall);
      if (this.recent.length > RECENT) this.recent.shift();
      try {
        this.opts.onStall?.(stall);
      } catch {
        // A failing logger must not stop the watchdog.
      }
      this.queueWrite();
    }
    if (this.entered.length) this.entered = [];
    if (this.ended.length) this.ended = [];
  }

  private queueWrite(): void {
    if (!this.opts.reportDir || this.writeQueued) return;
    const wait = Math.max(0, this.lastWrite + WRITE_EVERY_MS - Date.now());
    this.writeQueued = setTimeout(() => {
      this.writeQueued = undefined;
      this.lastWrite = Date.now();
      const path = this.reportPath!;
      mkdirSync(this.opts.reportDir!, { recursive: true });
      writeFile(path, JSON.stringify(this.report(), null, 2)).catch(() => undefined);
    }, wait);
    this.writeQueued.unref?.();
  }

  private writeReportSync(): void {
    const path = this.reportPath;
    if (!path) return;
    try {
      mkdirSync(this.opts.reportDir!, { recursive: true });
      writeFileSync(path, JSON.stringify(this.report(), null, 2));
    } catch {
      // The report is a convenience; the log has every stall.
    }
  }
}

const GLOBAL = Symbol.for("yoke.watchdog");

/** The process's watchdog (shared by the extension's two bundles), if one was started. */
export function processWatchdog(): EventLoopWatchdog | undefined {
  return (globalThis as { [GLOBAL]?: EventLoopWatchdog })[GLOBAL];
}

export function startProcessWatchdog(opts: WatchdogOptions): EventLoopWatchdog {
  const existing = processWatchdog();
  if (existing) return existing;
  const w = new EventLoopWatchdog(opts).start();
  (globalThis as { [GLOBAL]?: EventLoopWatchdog })[GLOBAL] = w;
  return w;
}

export function stopProcessWatchdog(): void {
  processWatchdog()?.stop();
  delete (globalThis as { [GLOBAL]?: EventLoopWatchdog })[GLOBAL];
}

/** Runs `fn` labelled for the process's watchdog; without one, just runs it. */
export function activity<T>(label: string, fn: () => T): T {
  const w = processWatchdog();
  return w ? w.run(label, fn) : fn();
}
