/**
 * Work over a long list in time slices: `fn` runs for each index until a slice's budget is spent,
 * then the caller's `yield` lets its event loop run (timers, messages, the watchdog) before the next
 * slice. Harness-neutral: the host passes its own way to yield (setImmediate in Node, a message
 * channel in a browser) and its own clock.
 */
export interface Slicer {
  /** Lets the event loop run; resolves when work may go on. */
  yield(): Promise<void>;
  /** A monotonic clock in milliseconds. */
  now(): number;
  /** Budget of one slice, ms. Default 8 (a fraction of the 50 ms a stall is). */
  sliceMs?: number;
  /** Called between slices: true stops the work (a newer request superseded it); forEachSliced then rejects with SlicedWorkCancelled. */
  cancelled?(): boolean;
}

export class SlicedWorkCancelled extends Error {
  constructor() {
    super("sliced work cancelled");
    this.name = "SlicedWorkCancelled";
  }
}

export const DEFAULT_SLICE_MS = 8;
/** The clock is read every this many items (reading it costs more than a cheap item). */
const CHECK_EVERY = 16;

export async function forEachSliced(count: number, fn: (index: number) => void, slicer: Slicer): Promise<void> {
  const budget = slicer.sliceMs ?? DEFAULT_SLICE_MS;
  let sliceStart = slicer.now();
  for (let i = 0; i < count; i++) {
    fn(i);
    if ((i + 1) % CHECK_EVERY === 0 && i + 1 < count && slicer.now() - sliceStart >= budget) {
      await slicer.yield();
      if (slicer.cancelled?.()) throw new SlicedWorkCancelled();
      sliceStart = slicer.now();
    }
  }
}
