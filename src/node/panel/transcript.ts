// Long sessions: the panel shows a window over the transcript (webview/views/message-list.ts) and
// asks for the parts it scrolls to, jumps to or searches; the host keeps the whole view model. Work
// over a whole long session runs in time slices (core/session/sliced.ts), so the extension host's
// event loop never waits on it for longer than one slice.
import { performance } from "node:perf_hooks";
import { SlicedWorkCancelled, type Slicer } from "../../core/session/sliced";
import type { HostToWebview, WebviewToHost } from "../../protocol/messages";
import type { SessionViewModel } from "./view-model";

/** Items of a snapshot: the end of the transcript, the rest is loaded as the panel scrolls. */
export const SNAPSHOT_ITEMS = 200;
/** Most matches a search sends (the panel says when there were more). */
export const MAX_MATCHES = 500;

/** A slicer for the extension host: yields with setImmediate (timers and messages run in between). */
export function hostSlicer(cancelled?: () => boolean, sliceMs?: number): Slicer {
  return {
    yield: () => new Promise<void>((resolve) => setImmediate(resolve)),
    now: () => performance.now(),
    ...(sliceMs !== undefined ? { sliceMs } : {}),
    ...(cancelled ? { cancelled } : {}),
  };
}

export function isCancelled(err: unknown): boolean {
  return err instanceof SlicedWorkCancelled;
}

type LoadItems = Extract<WebviewToHost, { type: "loadItems" }>;
type SearchTranscript = Extract<WebviewToHost, { type: "searchTranscript" }>;

/** Answers the panel's requests for parts of the shown transcript. */
export class TranscriptRequests {
  private searchGen = 0;

  constructor(
    private readonly shown: () => { vm: SessionViewModel; sessionId: string | null },
    private readonly post: (msg: HostToWebview) => void,
  ) {}

  load(msg: LoadItems): void {
    const { vm, sessionId } = this.shown();
    const { start, items } = vm.range(msg.start, msg.count);
    this.post({ type: "items", req: msg.req, sessionId, start, total: vm.size, items });
  }

  /** Searches the whole transcript in slices; a newer search supersedes one still running. */
  async search(msg: SearchTranscript): Promise<void> {
    const gen = ++this.searchGen;
    const { vm } = this.shown();
    try {
      const { matches, truncated } = await vm.search(
        msg.query,
        MAX_MATCHES,
        hostSlicer(() => gen !== this.searchGen || this.shown().vm !== vm),
      );
      this.post({ type: "searchResults", req: msg.req, query: msg.query, matches, truncated });
    } catch (err) {
      if (!isCancelled(err)) throw err;
    }
  }
}
