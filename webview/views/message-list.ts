// The conversation as a window over the whole transcript: at most MAX_NODES item nodes are in the
// DOM (webview memory stays bounded however long the session), the host keeps every item and sends
// the parts the user scrolls to, jumps to (the start, a search match) or that arrive. Items are
// addressed by their index in the transcript. The streamed message is one live node, drawn at most
// once an animation frame and only where it changed (streamed-markdown.ts: the blocks that can
// still change); the list is never rebuilt on a delta, and whether the view follows the end is
// kept from scroll events rather than measured before each change (no forced layout on the way).
// How each item kind is drawn lives in item-views.ts.
import { MAX_ITEMS_PER_LOAD, type HostToWebview, type ViewItem, type WebviewToHost } from "../../src/protocol/messages";
import { printable } from "../../src/protocol/printable";
import { button } from "../ui/components";
import { el, clear } from "../ui/dom";
import { renderItem, renderStreamedAssistant, updateItem } from "./item-views";
import { StreamedMarkdown } from "./streamed-markdown";

/** Most item nodes kept in the DOM; the rest of the transcript is loaded as the user scrolls. */
export const MAX_NODES = 300;
/** Items asked for at a time when scrolling past the window's edge. */
const PAGE = 100;
/** Closer than this to the bottom, the view follows what arrives. */
const STICK_PX = 48;
/** Scrolling closer than this to the window's edge loads the next part. */
const EDGE_PX = 600;
const HIGHLIGHT_MS = 2_500;

type ItemsMessage = Extract<HostToWebview, { type: "items" }>;
type Pending = { req: number; kind: "before" | "after" } | { req: number; kind: "jump"; index: number; id?: string; highlight: boolean };

interface Live {
  node: HTMLElement;
  markdown: StreamedMarkdown;
  /** The reasoning's text node, once there is reasoning. */
  reasoning: Text | undefined;
  text: string;
  reasoningText: string;
  /** How much of each is drawn. */
  drawnText: number;
  drawnReasoning: number;
  /** The animation frame that draws what arrived (one at a time). */
  frame: number | undefined;
}

export class MessageList {
  readonly root: HTMLElement;
  private readonly items: HTMLElement;
  private readonly topNote: HTMLElement;
  private readonly bottomNote: HTMLElement;
  /** Ids of the rendered items, in transcript order; the first is item `start`. */
  private ids: string[] = [];
  private readonly nodes = new Map<string, HTMLElement>();
  private start = 0;
  private total = 0;
  private sessionId: string | null = null;
  private pending: Pending | undefined;
  private reqSeq = 0;
  private live: Live | undefined;
  private scrollQueued = false;
  private edgeQueued = false;
  private highlighted: { node: HTMLElement; timer: ReturnType<typeof setTimeout> } | undefined;
  /** The item jumped to, kept in view while the items around it get their real heights, until the user scrolls. */
  private revealed: HTMLElement | undefined;
  /** Whether the user is at the bottom (the view then follows new items and streamed text); kept by scroll events. */
  private pinned = true;
  private lastScrollTop = 0;
  /** What the edge notes show now ("start|later"), so they are rebuilt only when it changes. */
  private notesShown = "";

  constructor(
    private readonly scroller: HTMLElement,
    private readonly send: (msg: WebviewToHost) => void = () => {},
  ) {
    this.topNote = el("div", { class: "omitted transcript-edge transcript-edge-top", "data-testid": "transcript-earlier", hidden: true });
    this.bottomNote = el("div", { class: "omitted transcript-edge transcript-edge-bottom", "data-testid": "transcript-later", hidden: true });
    this.items = el("div", { class: "messages", role: "log", "aria-live": "polite" });
    this.root = el("div", { class: "transcript" }, [this.topNote, this.items, this.bottomNote]);
    scroller.addEventListener("scroll", () => this.onScroll(), { passive: true });
    // The view follows the end while the user is there: whenever the transcript grows (a streamed
    // chunk, a new item, or off-screen items getting their real height as they come into view —
    // content-visibility), after the browser has laid it out, so following costs no layout of its own.
    // Likewise an item jumped to stays in view while the items around it get their real heights.
    if (typeof ResizeObserver !== "undefined") new ResizeObserver(() => this.onResize()).observe(this.items);
    // The user scrolling (wheel, touch, keys, the scrollbar) ends keeping a jumped-to item in view.
    for (const type of ["wheel", "touchstart", "keydown", "pointerdown"]) scroller.addEventListener(type, () => (this.revealed = undefined), { passive: true });
  }

  /** Replaces everything (a snapshot): the last items of the transcript, `omitted` before them. */
  reset(items: ViewItem[], omitted: number, streaming?: { text: string; reasoning: string }, sessionId: string | null = null): void {
    this.dropLive();
    this.sessionId = sessionId;
    this.pending = undefined;
    this.replaceWindow(omitted, items, omitted + items.length);
    if (streaming?.text) this.delta("text", streaming.text);
    if (streaming?.reasoning) this.delta("reasoning", streaming.reasoning);
    this.scrollToEnd(true);
  }

  /** Items rendered now (bounded by MAX_NODES). */
  get size(): number {
    return this.nodes.size;
  }

  /** Items in the whole transcript. */
  get length(): number {
    return this.total;
  }

  /** Whether the window reaches the transcript's end (new items and the streamed message are shown). */
  private get atLatest(): boolean {
    return this.start + this.ids.length >= this.total;
  }

  /** An item created or changed; `index` is its place in the transcript (absent: a new item at the end). */
  upsert(item: ViewItem, index?: number): void {
    const stick = this.atEnd();
    const existing = this.nodes.get(item.id);
    if (existing) {
      this.nodes.set(item.id, updateItem(item, existing));
      return this.scrollToEnd(stick);
    }
    const at = index ?? this.total;
    const wasLatest = this.atLatest;
    if (at < this.total) return; // an item outside the window changed: it is loaded fresh when scrolled to
    this.total = at + 1;
    // The streamed message ended while the user looked further back: it is loaded with its final text.
    if (!wasLatest && item.kind === "assistant") this.dropLive();
    if (!wasLatest || at !== this.start + this.ids.length) return this.updateNotes();
    if (item.kind === "assistant" && this.live) this.finishLive(item);
    else {
      const node = renderItem(item);
      this.nodes.set(item.id, node);
      this.items.appendChild(node);
    }
    this.ids.push(item.id);
    this.trim("top", stick);
    this.updateNotes();
    this.scrollToEnd(stick);
  }

  /** A new item put at `index`, before the end of the transcript: the items from there on move one down. */
  insert(item: ViewItem, index: number): void {
    if (this.nodes.has(item.id) || index >= this.total) return this.upsert(item, index);
    const stick = this.atEnd();
    this.total++;
    // Before the window: it moves down by one; after it: loaded when scrolled to.
    if (index < this.start) this.start++;
    else if (index <= this.start + this.ids.length) {
      const node = renderItem(item);
      const before = this.ids[index - this.start];
      this.nodes.set(item.id, node);
      this.items.insertBefore(node, before !== undefined ? (this.nodes.get(before) ?? null) : (this.live?.node ?? null));
      this.ids.splice(index - this.start, 0, item.id);
      this.trim("top", stick);
    }
    this.updateNotes();
    this.scrollToEnd(stick);
  }

  /** Appends streamed text to the live message, creating it on the first delta. */
  delta(kind: "text" | "reasoning", text: string): void {
    const live = this.live ?? this.startLive();
    if (kind === "text") live.text += text;
    else live.reasoningText += text;
    // One draw an animation frame, however many deltas arrive in it.
    live.frame ??= requestAnimationFrame(() => this.renderLive());
  }

  /** The streamed message was abandoned (error, stop, retry): remove it. */
  dropLive(): void {
    if (!this.live) return;
    if (this.live.frame !== undefined) cancelAnimationFrame(this.live.frame);
    this.live.node.remove();
    this.live = undefined;
    this.items.removeAttribute("aria-busy");
  }

  /** Shows item `index` (loading the part of the transcript around it), scrolled into view; `highlight` marks it a moment. */
  jumpTo(index: number, opts: { id?: string; highlight?: boolean } = {}): void {
    const node = opts.id ? this.nodes.get(opts.id) : this.ids[index - this.start] ? this.nodes.get(this.ids[index - this.start]!) : undefined;
    if (node) return this.reveal(node, opts.highlight ?? false);
    const from = Math.max(0, Math.min(index - Math.floor(PAGE / 2), this.total - PAGE));
    const req = ++this.reqSeq;
    this.pending = { req, kind: "jump", index, ...(opts.id ? { id: opts.id } : {}), highlight: opts.highlight ?? false };
    this.send({ type: "loadItems", req, start: from, count: Math.min(MAX_ITEMS_PER_LOAD, PAGE) });
  }

  /** Back to the end of the transcript (the newest items and the streamed message). */
  jumpToLatest(): void {
    if (this.atLatest) return this.scrollToEnd(true);
    const req = ++this.reqSeq;
    this.pending = { req, kind: "jump", index: this.total - 1, highlight: false };
    this.send({ type: "loadItems", req, start: Math.max(0, this.total - PAGE), count: PAGE });
  }

  /** The host's answer to loadItems. */
  onItems(msg: ItemsMessage): void {
    const p = this.pending;
    if (!p || p.req !== msg.req || msg.sessionId !== this.sessionId) return;
    this.pending = undefined;
    this.total = msg.total;
    const end = this.start + this.ids.length;
    if (p.kind === "jump") {
      this.replaceWindow(msg.start, msg.items, msg.total);
      if (p.index >= msg.total - 1 && this.atLatest) {
        this.scrollToEnd(true);
        return;
      }
      const node = p.id ? this.nodes.get(p.id) : this.ids[p.index - this.start] ? this.nodes.get(this.ids[p.index - this.start]!) : undefined;
      if (node) this.reveal(node, p.highlight);
      return;
    }
    if (p.kind === "before") {
      // Only what joins the window's top (an item already shown is not added twice).
      const fresh = msg.items.filter((i, k) => msg.start + k < this.start && !this.nodes.has(i.id));
      if (!fresh.length || msg.start + msg.items.length < this.start) return this.updateNotes();
      this.keepScroll(() => {
        const frag = document.createDocumentFragment();
        for (const item of fresh) {
          const node = renderItem(item);
          this.nodes.set(item.id, node);
          frag.appendChild(node);
        }
        this.items.insertBefore(frag, this.items.firstChild);
        this.ids = [...fresh.map((i) => i.id), ...this.ids];
        this.start -= fresh.length;
      });
      this.trim("bottom", false);
    } else {
      const fresh = msg.items.filter((i, k) => msg.start + k >= end && !this.nodes.has(i.id));
      if (!fresh.length || msg.start > end) return this.updateNotes();
      const frag = document.createDocumentFragment();
      for (const item of fresh) {
        const node = renderItem(item);
        this.nodes.set(item.id, node);
        frag.appendChild(node);
      }
      this.items.appendChild(frag);
      this.ids.push(...fresh.map((i) => i.id));
      this.trim("top", false);
      this.attachLive();
    }
    this.updateNotes();
    this.queueEdgeCheck();
  }

  private replaceWindow(start: number, items: ViewItem[], total: number): void {
    for (const node of this.nodes.values()) node.remove();
    this.nodes.clear();
    const kept = items.slice(-MAX_NODES);
    this.start = start + (items.length - kept.length);
    this.total = Math.max(total, this.start + kept.length);
    this.ids = kept.map((i) => i.id);
    const frag = document.createDocumentFragment();
    for (const item of kept) {
      const node = renderItem(item);
      this.nodes.set(item.id, node);
      frag.appendChild(node);
    }
    this.items.insertBefore(frag, this.live?.node.parentNode === this.items ? this.live.node : null);
    if (this.atLatest) this.attachLive();
    else this.live?.node.remove();
    this.updateNotes();
  }

  /** Drops nodes beyond MAX_NODES from one end of the window, keeping what the user looks at in place. */
  private trim(from: "top" | "bottom", stick: boolean): void {
    const over = this.ids.length - MAX_NODES;
    if (over <= 0) return;
    const drop = () => {
      const gone = from === "top" ? this.ids.splice(0, over) : this.ids.splice(this.ids.length - over, over);
      for (const id of gone) {
        this.nodes.get(id)?.remove();
        this.nodes.delete(id);
      }
      if (from === "top") this.start += over;
    };
    if (from === "top" && !stick) this.keepScroll(drop);
    else drop();
    if (!this.atLatest) this.live?.node.remove();
    this.updateNotes();
  }

  /** Runs `change` without moving what is on screen: the first visible node stays where it was. */
  private keepScroll(change: () => void): void {
    const top = this.scroller.getBoundingClientRect().top;
    let anchor: HTMLElement | undefined;
    for (const id of this.ids) {
      const node = this.nodes.get(id);
      if (node && node.getBoundingClientRect().bottom > top) {
        anchor = node;
        break;
      }
    }
    const before = anchor?.getBoundingClientRect().top ?? 0;
    change();
    if (anchor?.isConnected) this.scroller.scrollTop += anchor.getBoundingClientRect().top - before;
  }

  private updateNotes(): void {
    const end = this.start + this.ids.length;
    const later = Math.max(0, this.total - end);
    const shown = `${this.start}|${later}`;
    if (shown === this.notesShown) return;
    this.notesShown = shown;
    this.topNote.hidden = this.start === 0;
    clear(this.topNote);
    if (this.start) {
      this.topNote.append(
        el("span", {}, [`${this.start} earlier item${this.start === 1 ? "" : "s"}`]),
        button({ label: "Go to the first message", appearance: "secondary", testid: "transcript-first", onClick: () => this.jumpTo(0) }),
      );
    }
    this.bottomNote.hidden = later === 0;
    clear(this.bottomNote);
    if (later) {
      this.bottomNote.append(
        el("span", {}, [`${later} later item${later === 1 ? "" : "s"}`]),
        button({ label: "Go to the latest", appearance: "secondary", testid: "transcript-latest", onClick: () => this.jumpToLatest() }),
      );
    }
  }

  private onScroll(): void {
    const s = this.scroller;
    const top = s.scrollTop;
    // At the bottom: follow. Moved up (the user scrolled): stop following. The content growing or
    // the browser keeping what is on screen in place (scroll anchoring) changes neither.
    if (s.scrollHeight - top - s.clientHeight < STICK_PX) this.pinned = true;
    else if (top < this.lastScrollTop) this.pinned = false;
    this.lastScrollTop = top;
    this.queueEdgeCheck();
  }

  /** Near an edge of the window with more of the transcript beyond it: ask for the next part. */
  private queueEdgeCheck(): void {
    if (this.edgeQueued) return;
    this.edgeQueued = true;
    requestAnimationFrame(() => {
      this.edgeQueued = false;
      if (this.pending) return;
      const s = this.scroller;
      const end = this.start + this.ids.length;
      if (this.start > 0 && s.scrollTop < EDGE_PX) {
        const from = Math.max(0, this.start - PAGE);
        const req = ++this.reqSeq;
        this.pending = { req, kind: "before" };
        this.send({ type: "loadItems", req, start: from, count: this.start - from });
      } else if (end < this.total && s.scrollHeight - s.scrollTop - s.clientHeight < EDGE_PX) {
        const req = ++this.reqSeq;
        this.pending = { req, kind: "after" };
        this.send({ type: "loadItems", req, start: end, count: Math.min(PAGE, this.total - end) });
      }
    });
  }

  private onResize(): void {
    if (this.revealed?.isConnected) this.revealed.scrollIntoView({ block: "center" });
    else if (this.atEnd()) this.followEnd();
  }

  private reveal(node: HTMLElement, highlight: boolean): void {
    node.scrollIntoView({ block: "center" });
    this.revealed = node;
    if (!highlight) return;
    if (this.highlighted) {
      clearTimeout(this.highlighted.timer);
      this.highlighted.node.classList.remove("search-hit");
    }
    node.classList.add("search-hit");
    this.highlighted = { node, timer: setTimeout(() => node.classList.remove("search-hit"), HIGHLIGHT_MS) };
  }

  private startLive(): Live {
    const body = el("div", { class: "body markdown" });
    const node = el("div", { class: "message assistant streaming", "data-testid": "message-assistant" }, [body]);
    this.live = { node, markdown: new StreamedMarkdown(body), reasoning: undefined, text: "", reasoningText: "", drawnText: 0, drawnReasoning: 0, frame: undefined };
    this.attachLive();
    return this.live;
  }

  /** The streamed message is shown after the last item, while the window reaches the end. */
  private attachLive(): void {
    if (!this.live || !this.atLatest || this.live.node.parentNode === this.items) return;
    this.items.appendChild(this.live.node);
    // Screen readers announce the message once it is complete, not every re-render.
    this.items.setAttribute("aria-busy", "true");
  }

  /** Draws what arrived since the last frame: new reasoning appended, the markdown's changed blocks. */
  private renderLive(): void {
    const live = this.live;
    if (!live) return;
    live.frame = undefined;
    const stick = this.atEnd();
    if (live.reasoningText.length > live.drawnReasoning) {
      if (!live.reasoning) {
        live.reasoning = document.createTextNode("");
        live.node.insertBefore(el("details", { class: "reasoning", open: true }, [el("summary", {}, ["Reasoning"]), el("pre", { class: "reasoning-text" }, [live.reasoning])]), live.node.firstChild);
      }
      // Streamed reasoning is appended as text: its control, bidi and invisible characters as plain escapes (dom.ts draws marked ones where it can).
      live.reasoning.appendData(printable(live.reasoningText.slice(live.drawnReasoning)));
      live.drawnReasoning = live.reasoningText.length;
    }
    if (live.text.length > live.drawnText) {
      live.markdown.render(live.text);
      live.drawnText = live.text.length;
    }
    // Following the growth is the resize observer's (after this frame's layout); without one, a frame later.
    if (typeof ResizeObserver === "undefined") this.scrollToEnd(stick);
  }

  /** The final message arrived: the live node becomes it (no flicker, no re-layout of the list). */
  private finishLive(item: Extract<ViewItem, { kind: "assistant" }>): void {
    const live = this.live!;
    if (live.frame !== undefined) cancelAnimationFrame(live.frame);
    this.live = undefined;
    this.items.removeAttribute("aria-busy");
    const node = this.finalNode(item, live);
    if (live.node.parentNode === this.items) live.node.replaceWith(node);
    else this.items.appendChild(node);
    this.nodes.set(item.id, node);
  }

  /** The final message's node: the streamed body kept when it already shows the final text (drawing a long answer again would cost the frame it ends in). */
  private finalNode(item: Extract<ViewItem, { kind: "assistant" }>, live: Live): HTMLElement {
    if (item.text !== live.text || !live.markdown.drawsAsWhole(item.text)) return renderItem(item);
    if (live.drawnText < live.text.length) live.markdown.render(live.text);
    const body = live.node.querySelector<HTMLElement>(":scope > .body");
    return body ? renderStreamedAssistant(item, body) : renderItem(item);
  }

  /** Whether what arrives should be scrolled to: the window reaches the end and the user is at the bottom (no layout read). */
  private atEnd(): boolean {
    return this.atLatest && this.pinned;
  }

  private scrollToEnd(stick: boolean): void {
    if (!stick) return;
    // Followed from here on (also when the content is too short to scroll, so no scroll event says so).
    this.pinned = true;
    this.revealed = undefined;
    if (this.scrollQueued) return;
    this.scrollQueued = true;
    requestAnimationFrame(() => {
      this.scrollQueued = false;
      this.followEnd();
    });
  }

  private followEnd(): void {
    const s = this.scroller;
    s.scrollTop = s.scrollHeight;
    this.lastScrollTop = s.scrollTop;
  }
}
