// Maps core session events to the view types of the protocol. Pure: no vscode, so it is unit-tested.
// The conversation, tool cards, usage and state are drawn here; every other event is a notice with
// the text its mechanism gives (core/describe-event.ts), the same the CLI prints.
import { describeEvent } from "../../core/describe-event";
import type { SessionEvent } from "../../core/events";
import { addUsage, costLine, hitShare } from "../../core/cost";
import { eventsInForce } from "../../core/session/rewind";
import { forEachSliced, type Slicer } from "../../core/session/sliced";
import type { ChipView, PermissionView, TranscriptMatchView, UsageView, ViewItem, ViewState } from "../../protocol/messages";
import { subagentItem } from "../../node/panel/subagent-item";
import { costDetail, emptyCost, type PanelCost } from "../../node/panel/view-cost";
import { bound, cardSummary, describeDecision, emptyUsage, findIn, formatInput, OUTPUT_LIMIT, rewindText } from "../../node/panel/view-text";

export { bound, cardSummary, describeDecision, emptyUsage, formatInput, rewindText } from "../../node/panel/view-text";

type ToolItem = Extract<ViewItem, { kind: "tool" }>;

/**
 * The panel's state of one session, built by applying the session's events in order.
 * `apply` returns the items it created or changed so the host can send them incrementally.
 */
export class SessionViewModel {
  private readonly order: string[] = [];
  private readonly byId = new Map<string, ViewItem>();
  /** Position of each item in `order`. */
  private readonly indexById = new Map<string, number>();
  /** Tool cards not yet settled (pending, asking, running): a turn's end settles only these. */
  private readonly openTools = new Set<string>();
  private usageView: UsageView = emptyUsage();
  /** What the session cost (every request, rewound ones too) and each turn in force, by its user message's seq. */
  private readonly totals: PanelCost = emptyCost();
  private readonly turnCosts = new Map<number, PanelCost>();
  private stateView: ViewState = "idle";
  private pendingView: PermissionView | null = null;
  private modelName = "";
  private labelText: string | undefined;
  private modeName = "default";
  private sandboxView: { name: string; warning?: string } | undefined;
  /** Composer: what the next user message carries (from the mentions and queue events before it). */
  private composerNext: { chips?: ChipView[]; delivery?: "steered" | "queued" } = {};
  /** seq of the last log event applied (-1: none). */
  private seenSeq = -1;
  /** A user message is in force and its turn has not ended (false between turns, while a message is being expanded). */
  private turnOpen = false;
  /**
   * Where the items of the message being expanded begin (a forked command's task card, the command's
   * notes: recorded before its user_message, which carries the answer): the person's message is put
   * there, so the transcript reads in the order things happened.
   */
  private expandingAt: number | undefined;
  /** Items put before the end (the person's message above its expansion): the host sends them as insertions. */
  private readonly insertedIds = new Set<string>();

  /** Checkpoints: turns so far (user messages in force) and the seq of the last one's message. */
  private turnCount = 0;
  private lastUserSeq = -1;
  private readonly rewinds = new Map<number, Extract<SessionEvent, { type: "rewind" }>>();

  /**
   * The transcript is the conversation in force (a conversation restore's rewound turns are left
   * out, core/session/rewind.ts); the usage counts every request, rewound ones included (they were paid).
   */
  constructor(events: readonly SessionEvent[] = []) {
    const inForce = new Set(eventsInForce(events));
    for (const e of events) {
      if (inForce.has(e)) this.apply(e);
      else if (e.type === "usage") this.applyPaid(e);
    }
  }

  /** The same as `new SessionViewModel(events)`, applied in time slices (a long session never blocks the host). */
  static async build(events: readonly SessionEvent[], slicer: Slicer): Promise<SessionViewModel> {
    const vm = new SessionViewModel();
    const inForce = new Set(eventsInForce(events));
    await forEachSliced(
      events.length,
      (i) => {
        const e = events[i]!;
        if (inForce.has(e)) vm.apply(e);
        else if (e.type === "usage") vm.applyPaid(e);
      },
      slicer,
    );
    return vm;
  }

  /** Number of items. */
  get size(): number {
    return this.order.length;
  }

  /** Position of an item in the transcript (for the panel's window over it), -1 when unknown. */
  indexOf(id: string): number {
    return this.indexById.get(id) ?? -1;
  }

  /** Items `start` to `start + count` (clamped to the transcript). */
  range(start: number, count: number): { start: number; items: ViewItem[] } {
    const from = Math.max(0, Math.min(start, this.order.length));
    return { start: from, items: this.order.slice(from, from + Math.max(0, count)).map((id) => this.byId.get(id)!) };
  }

  /**
   * Items whose text contains `query` (case-insensitive), oldest first, at most `limit`. Every
   * string of an item counts (message text, a tool's summary and output, a notice), so item kinds
   * added later are searchable without a change here. In slices when a slicer is given.
   */
  async search(query: string, limit: number, slicer?: Slicer): Promise<{ matches: TranscriptMatchView[]; truncated: boolean }> {
    const needle = query.toLowerCase();
    const matches: TranscriptMatchView[] = [];
    let truncated = false;
    if (!needle.trim()) return { matches, truncated };
    const visit = (i: number) => {
      if (truncated) return;
      const item = this.byId.get(this.order[i]!)!;
      const hit = findIn(item, needle);
      if (hit === undefined) return;
      if (matches.length >= limit) truncated = true;
      else matches.push({ index: i, id: item.id, kind: item.kind, snippet: hit });
    };
    if (slicer) await forEachSliced(this.order.length, visit, slicer);
    else for (let i = 0; i < this.order.length; i++) visit(i);
    return { matches, truncated };
  }

  get state(): ViewState {
    return this.stateView;
  }
  get usage(): UsageView {
    return this.usageView;
  }
  get pending(): PermissionView | null {
    return this.pendingView;
  }
  get mode(): string {
    return this.modeName;
  }
  /** The sandbox the session's commands run in (from session_start), if it has one. */
  get sandbox(): { name: string; warning?: string } | undefined {
    return this.sandboxView;
  }
  /** The label shown for the model: the session's label (e.g. "demo model") or the model name. */
  get modelLabel(): string {
    return this.labelText ?? this.modelName;
  }

  /** All items, or the last `max` of them with the number left out. */
  items(max = Infinity): { items: ViewItem[]; omitted: number } {
    const start = Math.max(0, this.order.length - max);
    return { items: this.order.slice(start).map((id) => this.byId.get(id)!), omitted: start };
  }

  /** A notice from the host itself (not from the log), e.g. the rule "Always allow" wrote. */
  notice(id: string, level: "info" | "warning" | "error", text: string): ViewItem {
    return this.put({ kind: "notice", id, level, text });
  }

  /** Marks the state of a log that ended mid-turn (the process died). */
  markInterrupted(): void {
    if (this.stateView === "thinking" || this.stateView === "waiting_tool" || this.stateView === "waiting_user") {
      this.stateView = "interrupted";
      this.pendingView = null;
    }
  }

  /** seq of the last log event applied; -1 before any. */
  get lastSeq(): number {
    return this.seenSeq;
  }

  /** Applies the events after the last one applied (a resumed session's log continues the one shown). */
  catchUp(events: readonly SessionEvent[]): ViewItem[] {
    const out: ViewItem[] = [];
    let i = events.length;
    while (i > 0 && events[i - 1]!.seq > this.seenSeq) i--;
    for (; i < events.length; i++) out.push(...this.apply(events[i]!));
    return out;
  }

  /** Whether `id` was put before the end of the transcript (asked once per item, by the host sending it). */
  takeInserted(id: string): boolean {
    return this.insertedIds.delete(id);
  }

  apply(e: SessionEvent): ViewItem[] {
    this.seenSeq = Math.max(this.seenSeq, e.seq);
    // Between turns, what the expansion of a typed message records (prompt.expand's notes, a call it makes itself) starts its items.
    if (!this.turnOpen && this.expandingAt === undefined && ((e.type === "extension" && e.point === "prompt.expand") || (e.type === "tool_call" && !this.byId.has(e.callId))))
      this.expandingAt = this.order.length;
    switch (e.type) {
      case "session_start":
        this.modelName = e.model;
        this.labelText = e.label;
        this.modeName = e.permissionMode;
        this.sandboxView = e.sandbox ? { name: e.sandbox, ...(e.sandboxWarning ? { warning: e.sandboxWarning } : {}) } : undefined;
        return [];
      case "user_message": {
        // The previous turn ended: its checkpoint control goes under its answer (if not there yet).
        const out = this.turnControl();
        this.turnCount++;
        this.lastUserSeq = e.seq;
        // Composer: the chips and the delivery recorded just before the user's message.
        const { chips, delivery } = e.from === undefined || e.from === "user" ? this.composerNext : {};
        this.composerNext = {};
        const user: ViewItem = { kind: "user", id: `u${e.seq}`, text: e.typed ?? e.text, ...(chips?.length ? { chips } : {}), ...(delivery ? { delivery } : {}) };
        // The person's message goes above what its expansion recorded (a forked command's card), where it was typed.
        // Only a message an extension expanded (`typed`): anything else recorded between turns stays above it.
        const at = this.turnOpen || e.typed === undefined ? undefined : this.expandingAt;
        this.turnOpen = true;
        this.expandingAt = undefined;
        return [...out, at === undefined ? this.put(user) : this.putAt(user, at)];
      }
      // --- composer: attachments and how a message typed while the agent worked was delivered ---
      case "mentions":
        this.composerNext.chips = e.items.map((i) => ({ kind: i.kind, label: i.label, ...(i.error ? { error: i.error } : {}), ...(i.truncated ? { truncated: true } : {}) }));
        return [];
      case "queue":
        if (e.action === "steered" || e.action === "sent") this.composerNext = { delivery: e.action === "steered" ? "steered" : "queued" };
        return [];
      case "assistant_message": {
        const out: ViewItem[] = [];
        if (e.text.trim() || e.reasoning?.trim()) {
          out.push(this.put({ kind: "assistant", id: `a${e.seq}`, text: e.text, reasoning: e.reasoning || undefined }));
        }
        for (const call of e.toolCalls) {
          out.push(this.put(this.toolItem(call.id, call.name, call.input, "pending", call.summary)));
        }
        return out;
      }
      case "permission_request":
        this.pendingView = {
          callId: e.callId,
          tool: e.tool,
          permission: e.permission,
          summary: cardSummary(e.summary, e.input) || e.tool,
          detail: formatInput(e.input),
          reason: e.reason,
        };
        return this.updateTool(e.callId, e.tool, e.input, { status: "asking" });
      case "permission_decision": {
        if (this.pendingView?.callId === e.callId) this.pendingView = null;
        const decision = describeDecision(e);
        if (e.decision === "allow") return this.updateTool(e.callId, undefined, undefined, { status: "pending", decision });
        const note = e.message ?? (e.by === "restricted" ? "Not allowed in Restricted Mode." : `Denied (${e.by}${e.rule ? `: ${e.rule}` : ""}).`);
        return this.updateTool(e.callId, undefined, undefined, { status: "denied", note, decision });
      }
      case "tool_call":
        return this.updateTool(e.callId, e.name, e.input, { status: "running" });
      case "tool_result":
        this.currentTurnCost()?.addTool(e.name, e.output.length);
        return this.updateTool(e.callId, e.name, undefined, {
          status: e.interrupted ? "interrupted" : e.isError ? (this.toolStatus(e.callId) === "denied" ? "denied" : "error") : "done",
          durationMs: e.durationMs,
          output: bound(e.output, OUTPUT_LIMIT),
          ...(e.card?.badges?.length ? { badges: e.card.badges } : {}),
        });
      case "mode_change":
        this.modeName = e.mode;
        return this.describe(e);
      case "error":
        this.composerNext = {};
        return [this.put({ kind: "notice", id: `n${e.seq}`, level: "error", text: e.message })];
      case "usage": {
        this.applyPaid(e);
        const turn = this.currentTurnCost();
        if (turn) addUsage(turn, e);
        return this.refreshTurnControl();
      }
      case "cache_break": {
        this.totals.cacheBreaks++;
        this.refreshUsage();
        const turn = this.currentTurnCost();
        if (turn) turn.cacheBreaks++;
        return [...this.refreshTurnControl(), ...this.describe(e)];
      }
      case "status":
        this.stateView = e.state;
        if (e.state !== "waiting_user") this.pendingView = null;
        if (e.state === "cancelled" || e.state === "error" || e.state === "done" || e.state === "idle") {
          this.turnOpen = false;
          this.expandingAt = undefined;
          return [...this.settleTools(), ...this.turnControl()];
        }
        return [];
      // Checkpoints (issue 12): what a restore did. A conversation restore also rebuilds the view (the host does).
      case "rewind":
        this.rewinds.set(e.seq, e);
        return [this.put({ kind: "notice", id: `n${e.seq}`, level: "info", text: rewindText(e, e.undoes === undefined ? undefined : this.rewinds.get(e.undoes)) })];
      case "todos":
        return [this.put({ kind: "todos", id: `t${e.seq}`, todos: e.todos })];
      case "compaction": {
        const kept = [
          e.summary ? `a summary of events ${0}–${e.firstKeptSeq - 1}` : "",
          e.keptUserSeqs.length ? `${e.keptUserSeqs.length} of your messages verbatim` : "",
          e.persistedSeqs.length ? `${e.persistedSeqs.length} rule/memory context(s) verbatim` : "",
          e.todosSeq !== undefined ? "the todo list" : "",
          `the turns from event ${e.firstKeptSeq} on`,
          e.stubs.length ? `${e.stubs.length} large result(s) as recall stubs` : "",
        ].filter(Boolean);
        return [this.put({ kind: "compaction", id: `c${e.seq}`, trigger: e.trigger, tokensBefore: e.tokensBefore, tokensAfter: e.tokensAfter, kept })];
      }
      // Sub-agents (src/core/subagents): the child's progress, nested under its task call.
      case "subagent":
        if (e.phase === "finished" && e.costUsd !== undefined) {
          this.totals.costUsd = (this.totals.costUsd ?? 0) + e.costUsd;
          const turn = this.currentTurnCost();
          if (turn) turn.costUsd = (turn.costUsd ?? 0) + e.costUsd;
          this.refreshUsage();
        }
        return [this.put(subagentItem(this.byId.get(`sub:${e.callId}`), e))];
      default:
        // Every other event: what its mechanism says about it (core/describe-event.ts lists them all).
        return this.describe(e);
    }
  }

  /** The event as its mechanism describes it, as a notice. */
  private describe(e: SessionEvent): ViewItem[] {
    const note = describeEvent(e);
    return note ? [this.put({ kind: "notice", id: `n${e.seq}`, level: note.level, text: note.text })] : [];
  }

  /** The checkpoint control of the turn in progress, once (its id is stable: the turn's user message). */
  private turnControl(): ViewItem[] {
    if (this.turnCount === 0 || this.byId.has(`k${this.lastUserSeq}`)) return [];
    return [this.put(this.turnItem())];
  }

  private turnItem(): ViewItem {
    const cost = this.turnCosts.get(this.lastUserSeq);
    return {
      kind: "turn",
      id: `k${this.lastUserSeq}`,
      turn: this.turnCount,
      userSeq: this.lastUserSeq,
      ...(cost?.requests ? { cost: { line: costLine(cost), detail: costDetail(cost), cacheHitShare: hitShare(cost), ...(cost.costUsd === undefined ? {} : { costUsd: cost.costUsd }) } } : {}),
    };
  }

  /** A request that finished after the turn's control was drawn updates the control's cost line. */
  private refreshTurnControl(): ViewItem[] {
    if (this.turnCount === 0 || !this.byId.has(`k${this.lastUserSeq}`)) return [];
    return [this.put(this.turnItem())];
  }

  private currentTurnCost(): PanelCost | undefined {
    if (this.lastUserSeq < 0) return undefined;
    let c = this.turnCosts.get(this.lastUserSeq);
    if (!c) this.turnCosts.set(this.lastUserSeq, (c = emptyCost()));
    return c;
  }

  /** A request counts in the session's spend, also one a conversation restore took out (it was paid). */
  applyPaid(e: Extract<SessionEvent, { type: "usage" }>): void {
    this.seenSeq = Math.max(this.seenSeq, e.seq);
    addUsage(this.totals, e);
    this.refreshUsage();
  }

  private refreshUsage(): void {
    const t = this.totals;
    this.usageView = {
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      cacheReadTokens: t.cacheReadTokens,
      ...(t.costUsd === undefined ? {} : { costUsd: t.costUsd }),
      ...(t.requests || t.costUsd !== undefined ? { detail: costLine(t) } : {}),
    };
  }

  private toolItem(callId: string, name: string, input: unknown, status: ToolItem["status"], summary?: string): ToolItem {
    return { kind: "tool", id: callId, name, summary: cardSummary(summary, input), status, input: formatInput(input) };
  }

  private toolStatus(callId: string): ToolItem["status"] | undefined {
    const item = this.byId.get(callId);
    return item?.kind === "tool" ? item.status : undefined;
  }

  private updateTool(callId: string, name: string | undefined, input: unknown, patch: Partial<ToolItem>): ViewItem[] {
    const existing = this.byId.get(callId);
    const base = existing?.kind === "tool" ? existing : this.toolItem(callId, name ?? "tool", input, "pending");
    return [this.put({ ...base, ...patch })];
  }

  /** Tool cards still pending or running when the turn ended did not finish. */
  private settleTools(): ViewItem[] {
    const out: ViewItem[] = [];
    for (const id of [...this.openTools]) {
      const item = this.byId.get(id)!;
      if (item.kind === "tool" && isOpen(item.status)) out.push(this.put({ ...item, status: "interrupted" }));
    }
    return out;
  }

  /** A new item at position `at` (before the end): the items from there on move one down. */
  private putAt(item: ViewItem, at: number): ViewItem {
    if (this.byId.has(item.id) || at >= this.order.length) return this.put(item);
    this.order.splice(at, 0, item.id);
    for (let i = at; i < this.order.length; i++) this.indexById.set(this.order[i]!, i);
    this.insertedIds.add(item.id);
    this.byId.set(item.id, item);
    return item;
  }

  private put(item: ViewItem): ViewItem {
    if (!this.byId.has(item.id)) {
      this.indexById.set(item.id, this.order.length);
      this.order.push(item.id);
    }
    this.byId.set(item.id, item);
    if (item.kind === "tool" && isOpen(item.status)) this.openTools.add(item.id);
    else this.openTools.delete(item.id);
    return item;
  }
}

function isOpen(status: ToolItem["status"]): boolean {
  return status === "pending" || status === "running" || status === "asking";
}
