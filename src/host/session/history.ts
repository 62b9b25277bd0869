// The history list: the store's sessions, newest first, each summarised from its log; a summary is
// kept while its log's size and time stay the same, and a long log is summarised in slices.
import type * as vscode from "vscode";
import { summarizeSession, type SessionSummary } from "../../core/session/projection";
import { parseLog, parseLogSliced } from "../../core/session/session-log";
import { describeHolder } from "../../node/session-store";
import type { SessionItemView, ViewState } from "../../protocol/messages";
import { nestUnderParents } from "../panel/history-order";
import { hostSlicer } from "../../node/panel/transcript";
import type { PanelState } from "./state";
import type { SessionStores } from "./store";

/** Logs larger than this are summarised for the history list in slices, off the host's hot path. */
const SYNC_SUMMARY_BYTES = 256 * 1024;
const MAX_HISTORY = 30;

export class HistoryList {
  /** Summaries of listed logs, valid while the log's size and time are the same. */
  private readonly summaries = new Map<string, { mtimeMs: number; size: number; summary: SessionSummary }>();
  private readonly summarizing = new Set<string>();
  private last = "";

  constructor(
    private readonly state: PanelState,
    private readonly stores: () => SessionStores,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The store changed folder: nothing read from the old one holds. */
  clear(): void {
    this.summaries.clear();
  }

  /** Sessions of this workspace, newest first, for the history list and the quick pick. */
  list(fresh = false): SessionItemView[] {
    const { view, writer } = this.stores();
    const { shownId } = this.state;
    const out: SessionItemView[] = [];
    if (fresh) this.summaries.clear();
    for (const entry of view.entries().slice(0, MAX_HISTORY)) {
      const { id } = entry;
      try {
        // A log is parsed again only when it changed (this window, another one, or the CLI wrote it).
        let cached = this.summaries.get(id);
        if (!cached || cached.mtimeMs !== entry.mtimeMs || cached.size !== entry.size) {
          if (entry.size > SYNC_SUMMARY_BYTES) {
            // A long log is summarised in slices; the list is posted again once it is done.
            this.summarizeLater(entry);
            if (!cached) {
              out.push({ id, title: "Loading…", status: "idle", updatedAt: new Date(entry.mtimeMs).toISOString(), modelLabel: "", active: id === shownId });
              continue;
            }
          } else {
            cached = { mtimeMs: entry.mtimeMs, size: entry.size, summary: summarizeSession(parseLog(view.read(id)).events, id) };
            this.summaries.set(id, cached);
          }
        }
        const s = cached.summary;
        const holder = writer.holder(id);
        const status: ViewState = id === shownId && this.state.running ? this.state.vm.state : s.status;
        out.push({
          id,
          title: s.parentId ? `↳ sub-agent: ${s.title}` : s.forkedFrom ? `${s.title} (fork)` : s.title,
          status,
          updatedAt: s.updatedAt,
          modelLabel: s.label ?? s.model,
          active: id === shownId,
          ...(holder ? { inUse: describeHolder(holder) } : {}),
          ...(s.parentId ? { parentId: s.parentId } : {}),
        });
      } catch (err) {
        this.log.warn(`session ${id}: cannot be listed: ${(err as Error).message}`);
      }
    }
    for (const id of this.summaries.keys()) if (!out.some((s) => s.id === id)) this.summaries.delete(id);
    return nestUnderParents(out);
  }

  /** Posts the list to the panel when it changed (`force`: also when it did not). */
  post(force = false): void {
    const sessions = this.list();
    const json = JSON.stringify(sessions);
    if (!force && json === this.last) return;
    this.last = json;
    this.state.post({ type: "history", sessions });
  }

  /** Summarises a long log for the history list in slices, then posts the list again. */
  private summarizeLater(entry: { id: string; mtimeMs: number; size: number }): void {
    if (this.summarizing.has(entry.id)) return;
    this.summarizing.add(entry.id);
    const { view } = this.stores();
    void parseLogSliced(view.read(entry.id), hostSlicer())
      .then((parsed) => {
        this.summaries.set(entry.id, { mtimeMs: entry.mtimeMs, size: entry.size, summary: summarizeSession(parsed.events, entry.id) });
        this.post(true);
      })
      .catch((err: unknown) => this.log.warn(`session ${entry.id}: cannot be listed: ${(err as Error)?.message ?? String(err)}`))
      .finally(() => this.summarizing.delete(entry.id));
  }
}
