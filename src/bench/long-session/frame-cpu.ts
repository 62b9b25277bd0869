/**
 * Main-thread CPU time per frame from a Chromium trace (categories FRAME_TRACE_CATEGORIES): the
 * renderer's main thread is cut into frames at each BeginMainThreadFrame, and each frame's CPU is
 * the thread time (tdur) of the tasks that started in it. Thread time, unlike the wall-clock
 * frame interval, leaves out the time the thread waited for a core, so on a shared, loaded machine
 * it says what a frame costs the panel itself.
 */

export const FRAME_TRACE_CATEGORIES = ["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline.frame"];

interface TraceEvent {
  pid: number;
  tid: number;
  ts: number;
  ph: string;
  name: string;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

export interface FrameCpu {
  /** Frames seen on the renderer's main thread. */
  frames: number;
  /** Main-thread CPU per frame, ms. */
  meanMs: number;
  p95Ms: number;
  maxMs: number;
  /** Frames whose main-thread CPU was over 16.7 ms / over 50 ms. */
  over16Ms: number;
  over50Ms: number;
  /** The longest single task's CPU, ms. */
  longestTaskMs: number;
  /** Where the CPU went: inclusive thread time per frame (ms) of the main thread's busiest kinds of work (nested ones counted in their parents too). */
  perFrameMsBy: Record<string, number>;
}

/** The main thread's top-level task, by the names Chromium versions give it. */
const TASKS = new Set(["RunTask", "ThreadControllerImpl::RunTask"]);

const round = (x: number) => Math.round(x * 100) / 100;

/** Per-frame CPU of the busiest renderer main thread in `trace` (Chromium's JSON trace), or null when it has no frames. */
export function frameCpu(trace: unknown): FrameCpu | null {
  const events = (Array.isArray(trace) ? trace : ((trace as { traceEvents?: unknown[] })?.traceEvents ?? [])) as TraceEvent[];
  const mains = new Set(events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`));
  const tasks = new Map<string, TraceEvent[]>();
  const begins = new Map<string, number[]>();
  const work = new Map<string, Map<string, number>>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (!mains.has(key)) continue;
    if (e.ph === "X" && !TASKS.has(e.name) && e.tdur) {
      const w = work.get(key) ?? work.set(key, new Map()).get(key)!;
      w.set(e.name, (w.get(e.name) ?? 0) + e.tdur / 1000);
    }
    if (TASKS.has(e.name) && e.ph === "X") (tasks.get(key) ?? tasks.set(key, []).get(key)!).push(e);
    else if (e.name === "BeginMainThreadFrame") (begins.get(key) ?? begins.set(key, []).get(key)!).push(e.ts);
  }
  const busy = (k: string) => (tasks.get(k) ?? []).reduce((s, e) => s + (e.tdur ?? e.dur ?? 0), 0);
  const key = [...mains].filter((k) => (begins.get(k)?.length ?? 0) > 1).sort((a, b) => busy(b) - busy(a))[0];
  if (!key) return null;
  const marks = [...begins.get(key)!].sort((a, b) => a - b);
  const perFrame = new Array<number>(marks.length - 1).fill(0);
  let longest = 0;
  for (const t of tasks.get(key) ?? []) {
    const cpu = (t.tdur ?? t.dur ?? 0) / 1000;
    longest = Math.max(longest, cpu);
    if (t.ts < marks[0]! || t.ts >= marks[marks.length - 1]!) continue;
    // The frame the task started in: the last mark at or before it.
    let lo = 0;
    let hi = marks.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (marks[mid]! <= t.ts) lo = mid;
      else hi = mid;
    }
    perFrame[lo]! += cpu;
  }
  const sorted = [...perFrame].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return {
    frames: perFrame.length,
    meanMs: round(perFrame.reduce((s, x) => s + x, 0) / Math.max(1, perFrame.length)),
    p95Ms: round(q(0.95)),
    maxMs: round(sorted.at(-1) ?? 0),
    over16Ms: perFrame.filter((x) => x > 16.7).length,
    over50Ms: perFrame.filter((x) => x > 50).length,
    longestTaskMs: round(longest),
    perFrameMsBy: Object.fromEntries(
      [...(work.get(key) ?? new Map<string, number>())]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([name, ms]) => [name, round(ms / Math.max(1, perFrame.length))]),
    ),
  };
}
