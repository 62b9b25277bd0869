/**
 * The composer of one session (issue 13): the context a message carries (@-mentions, resolved
 * when the message is delivered) and the messages typed while the agent works — "steer" ones
 * delivered at the next step (request.prepare's `user`: before the next model request, through
 * prompt.submit like any message), "queue" ones sent by the host after the task ends. The queue
 * is kept in the log (`queue` events), so a resumed session shows and keeps it.
 */
import type { EventOf } from "../events";
import type { ContextMessage, Extension, ExtensionApi } from "../extensions/types";
import type { Disposable } from "../ports";
import type { Diagnostic } from "../verification/types";
import { uniqueItems, type ContextItem } from "./mentions";
import { attachmentsText, resolveMentions } from "./resolve";

export type DeliveryMode = "steer" | "queue";

export interface QueuedMessage {
  id: string;
  text: string;
  items: ContextItem[];
  mode: DeliveryMode;
}

export interface ComposerOptions {
  /** The problems of one file (absolute path) or of the whole workspace (the host's diagnostics). */
  problems?: (path: string | undefined, signal: AbortSignal) => Promise<Diagnostic[]>;
  /** Called with the composer of each session once it is set up (the host keeps it by session id). */
  onReady?: (composer: SessionComposer) => void;
}

/** The `source` of the context events that carry the attachments. */
export const MENTIONS_SOURCE = "mentions";

/** Longest queued message. */
export const MAX_QUEUED_TEXT = 100_000;
/** Messages waiting at most. */
export const MAX_QUEUED = 20;

/** The queue as the log left it: added, edited, minus removed, steered and sent. */
export function queueFromEvents(events: ReadonlyArray<{ type: string }>): QueuedMessage[] {
  const out: QueuedMessage[] = [];
  for (const e of events) {
    if (e.type !== "queue") continue;
    const q = e as EventOf<"queue">;
    const i = out.findIndex((m) => m.id === q.id);
    if (q.action === "added" && i < 0) out.push({ id: q.id, text: q.text ?? "", items: q.items ?? [], mode: q.mode ?? "queue" });
    else if (q.action === "edited" && i >= 0) out[i] = { ...out[i]!, ...(q.text !== undefined ? { text: q.text } : {}), ...(q.mode ? { mode: q.mode } : {}), ...(q.items ? { items: q.items } : {}) };
    else if ((q.action === "removed" || q.action === "steered" || q.action === "sent") && i >= 0) out.splice(i, 1);
  }
  return out;
}

export class SessionComposer {
  private queue: QueuedMessage[];
  /** Items of messages about to pass prompt.submit, in order (a send, or a steered message). */
  private readonly staged: Array<{ text: string; items: ContextItem[] }> = [];
  /** The attachments of the message just sent, appended before the next request. */
  private pendingAppend: ContextMessage[] = [];
  private readonly listeners = new Set<(queue: readonly QueuedMessage[]) => void>();
  private next = 1;

  constructor(
    private readonly api: ExtensionApi,
    private readonly opts: ComposerOptions,
  ) {
    this.queue = queueFromEvents(api.session.events());
    for (const e of api.session.events()) if (e.type === "queue") this.next = Math.max(this.next, Number(/^q(\d+)$/.exec(e.id)?.[1] ?? 0) + 1);
  }

  get sessionId(): string {
    return this.api.session.id;
  }

  list(): readonly QueuedMessage[] {
    return this.queue;
  }

  onChange(listener: (queue: readonly QueuedMessage[]) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Adds a message typed while the agent works. */
  add(text: string, items: readonly ContextItem[], mode: DeliveryMode): QueuedMessage {
    const clean = checkText(text);
    if (this.queue.length >= MAX_QUEUED) throw new Error(`at most ${MAX_QUEUED} messages can wait; remove one or wait for the agent`);
    const m: QueuedMessage = { id: `q${this.next++}`, text: clean, items: uniqueItems(items), mode };
    this.queue.push(m);
    this.api.record({ type: "queue", action: "added", id: m.id, mode, text: m.text, ...(m.items.length ? { items: m.items } : {}) });
    this.changed();
    return m;
  }

  /** Changes a waiting message's text or how it is delivered; false when it is no longer waiting (already delivered). */
  edit(id: string, patch: { text?: string; mode?: DeliveryMode }): boolean {
    const i = this.queue.findIndex((m) => m.id === id);
    if (i < 0) return false;
    const cur = this.queue[i]!;
    const text = patch.text === undefined ? undefined : checkText(patch.text);
    const mode = patch.mode && patch.mode !== cur.mode ? patch.mode : undefined;
    if ((text === undefined || text === cur.text) && !mode) return true;
    this.queue[i] = { ...cur, ...(text !== undefined ? { text } : {}), ...(mode ? { mode } : {}) };
    this.api.record({ type: "queue", action: "edited", id, ...(text !== undefined && text !== cur.text ? { text } : {}), ...(mode ? { mode } : {}) });
    this.changed();
    return true;
  }

  /** Takes a waiting message out; it is never sent. False when it is no longer waiting. */
  remove(id: string): boolean {
    const i = this.queue.findIndex((m) => m.id === id);
    if (i < 0) return false;
    this.queue.splice(i, 1);
    this.api.record({ type: "queue", action: "removed", id });
    this.changed();
    return true;
  }

  /**
   * After the task ended: the next message to send — a steered one that found no next step
   * first, then the queue in order. Recorded as sent; the host sends it (with send(), so it is a
   * task of its own), staging its items first.
   */
  takeNext(): QueuedMessage | undefined {
    const steer = this.queue.findIndex((m) => m.mode === "steer");
    const m = this.queue.splice(steer >= 0 ? steer : 0, 1)[0];
    if (!m) return undefined;
    this.api.record({ type: "queue", action: "sent", id: m.id });
    this.changed();
    return m;
  }

  /** The run stopped (the user's Stop, an error): steered messages wait as queued ones, sent only when the user goes on. */
  holdSteered(): void {
    for (const m of this.queue) if (m.mode === "steer") this.edit(m.id, { mode: "queue" });
  }

  /** The items of a message about to be sent: resolved and given to the model with it. */
  stage(text: string, items: readonly ContextItem[]): void {
    if (items.length) this.staged.push({ text, items: uniqueItems(items) });
  }

  /** Drops staged items of a message that was not sent after all. */
  unstage(text: string): void {
    const i = this.staged.findIndex((s) => s.text === text);
    if (i >= 0) this.staged.splice(i, 1);
  }

  /**
   * request.prepare: the attachments of the message just sent (as a `mentions` context after it),
   * and the steered messages, delivered now, each with its attachments read now.
   */
  async prepare(signal: AbortSignal): Promise<{ append?: ContextMessage[]; user?: Array<{ text: string; context?: ContextMessage[] }> }> {
    const append = this.pendingAppend.splice(0);
    const user: Array<{ text: string; context?: ContextMessage[] }> = [];
    for (const m of this.queue.filter((q) => q.mode === "steer")) {
      this.queue.splice(this.queue.indexOf(m), 1);
      this.api.record({ type: "queue", action: "steered", id: m.id });
      const text = await this.attachments(m.items, signal);
      user.push({ text: m.text, ...(text ? { context: [{ source: MENTIONS_SOURCE, text }] } : {}) });
    }
    if (user.length) this.changed();
    return { ...(append.length ? { append } : {}), ...(user.length ? { user } : {}) };
  }

  /** prompt.submit of a message sent with send(): its staged items, read now (the state when it is delivered), given to the model after it. */
  async submitted(text: string, signal: AbortSignal): Promise<void> {
    // What an earlier message that was blocked left is not this one's.
    this.pendingAppend = [];
    const i = this.staged.findIndex((s) => s.text === text);
    if (i < 0) return;
    const { items } = this.staged.splice(i, 1)[0]!;
    const out = await this.attachments(items, signal);
    this.pendingAppend = out ? [{ source: MENTIONS_SOURCE, text: out }] : [];
  }

  /** Reads the items and records what each became (the chips of the message). */
  private async attachments(items: readonly ContextItem[], signal: AbortSignal): Promise<string> {
    if (items.length === 0) return "";
    const resolved = await resolveMentions(items, { services: this.api.session.services, sessionId: this.api.session.id, problems: this.opts.problems }, signal);
    this.api.record({
      type: "mentions",
      items: resolved.map((r) => ({ kind: r.item.kind, label: r.label, chars: r.text.length, ...(r.error ? { error: r.error } : {}), ...(r.truncated ? { truncated: true } : {}) })),
    });
    return attachmentsText(resolved);
  }

  dispose(): void {
    this.listeners.clear();
    this.staged.length = 0;
    this.pendingAppend = [];
  }

  private changed(): void {
    for (const l of this.listeners) {
      try {
        l(this.queue);
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}

function checkText(text: string): string {
  const t = text.trim();
  if (!t) throw new Error("a message cannot be empty");
  if (t.length > MAX_QUEUED_TEXT) throw new Error(`a message can have at most ${MAX_QUEUED_TEXT} characters`);
  return t;
}

/** The composer as an extension of each session (the host gets each session's composer through `onReady`). */
export function composerExtension(opts: ComposerOptions = {}): Extension {
  return {
    name: "composer",
    setup(api) {
      const composer = new SessionComposer(api, opts);
      api.on("prompt.submit", async ({ text }, { signal }) => {
        await composer.submitted(text, signal);
      });
      api.on("request.prepare", (_input, { signal }) => composer.prepare(signal));
      opts.onReady?.(composer);
      return { dispose: () => composer.dispose() };
    },
  };
}
