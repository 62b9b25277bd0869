// Main-thread CPU per frame from a Chromium trace (src/bench/long-session/frame-cpu.ts): frames
// cut at BeginMainThreadFrame on the busiest renderer main thread, each frame's CPU the thread
// time of the tasks that started in it, whatever the wall-clock duration.
import { describe, expect, it } from "vitest";
import { frameCpu } from "../../../src/bench/long-session/frame-cpu";

const meta = (pid: number, tid: number, name: string) => ({ pid, tid, ts: 0, ph: "M", name: "thread_name", args: { name } });
const task = (pid: number, tid: number, ts: number, tdurMs: number, durMs = tdurMs) => ({ pid, tid, ts, ph: "X", name: "ThreadControllerImpl::RunTask", dur: durMs * 1000, tdur: tdurMs * 1000 });
const frame = (pid: number, tid: number, ts: number) => ({ pid, tid, ts, ph: "I", name: "BeginMainThreadFrame" });

describe("frameCpu", () => {
  it("sums the thread time of each frame's tasks, not their wall time", () => {
    const ms = 1000;
    const trace = {
      traceEvents: [
        meta(1, 1, "CrRendererMain"),
        meta(2, 2, "CrBrowserMain"),
        frame(1, 1, 0),
        task(1, 1, 1 * ms, 2, 30), // waited for a core: 30 ms wall, 2 ms CPU
        task(1, 1, 5 * ms, 3),
        { pid: 1, tid: 1, ts: 5 * ms, ph: "X", name: "Layout", dur: 1000, tdur: 1000 },
        frame(1, 1, 16 * ms),
        task(1, 1, 17 * ms, 60),
        frame(1, 1, 80 * ms),
        frame(1, 1, 96 * ms),
        task(2, 2, 20 * ms, 500), // another process's thread: not the panel's
      ],
    };
    const r = frameCpu(trace)!;
    expect(r.frames).toBe(3);
    expect(r.maxMs).toBe(60);
    expect(r.over50Ms).toBe(1);
    expect(r.over16Ms).toBe(1);
    expect(r.meanMs).toBeCloseTo((5 + 60 + 0) / 3, 2);
    expect(r.longestTaskMs).toBe(60);
    expect(r.perFrameMsBy.Layout).toBeCloseTo(1 / 3, 2);
  });

  it("says null when the trace has no frames of a renderer", () => {
    expect(frameCpu({ traceEvents: [meta(1, 1, "CrRendererMain"), task(1, 1, 0, 5)] })).toBeNull();
    expect(frameCpu([])).toBeNull();
  });
});
