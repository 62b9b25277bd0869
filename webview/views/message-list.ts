// The conversation: items keyed by id, updated in place; the streamed message is one live node
// whose markdown is re-rendered at most every RENDER_INTERVAL_MS. The list is never rebuilt on a delta.
import type { ViewItem } from "../../src/protocol/messages";
import { el, clear } from "../ui/dom";
import { renderMarkdown } from "./markdown";
import { renderTodos } from "./todos";
import { renderCompactionDivider } from "./context-meter";
import { renderToolCard } from "./tool-card";
import { renderTurnControl } from "./checkpoints";
import { renderSubagent } from "./subagent";

const RENDER_INTERVAL_MS = 50;
/** Most item nodes kept in the DOM; older ones are dropped (the host keeps the full log). */
const MAX_NODES = 500;

interface Live {
  node: HTMLElement;
  body: HTMLElement;
  reasoning: HTMLElement | undefined;
  text: string;
  reasoningText: string;
  lastRender: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class MessageList {
  readonly root: HTMLElement;
  private readonly nodes = new Map<string, HTMLElement>();
  private readonly note: HTMLElement;
  private hidden = 0;
  private live: Live | undefined;
  private scrollQueued = false;

  constructor(private readonly scroller: HTMLElement) {
    this.note = el("div", { class: "omitted", hidden: true });
    this.root = el("div", { class: "messages", role: "log", "aria-live": "polite" }, [this.note]);
  }

  /** Replaces everything (a snapshot). */
  reset(items: ViewItem[], omitted: number, streaming?: { text: string; reasoning: string }): void {
    this.dropLive();
    for (const node of this.nodes.values()) node.remove();
    this.nodes.clear();
    this.hidden = omitted;
    const frag = document.createDocumentFragment();
    for (const item of items.slice(-MAX_NODES)) {
      const node = this.render(item);
      this.nodes.set(item.id, node);
      frag.appendChild(node);
    }
    this.hidden += Math.max(0, items.length - MAX_NODES);
    this.root.appendChild(frag);
    if (streaming?.text) this.delta("text", streaming.text);
    if (streaming?.reasoning) this.delta("reasoning", streaming.reasoning);
    this.updateNote();
    this.scrollToEnd(true);
  }

  get size(): number {
    return this.nodes.size;
  }

  upsert(item: ViewItem): void {
    const stick = this.atEnd();
    const existing = this.nodes.get(item.id);
    if (existing) {
      if (item.kind === "tool") renderToolCard(item, existing);
      else if (item.kind === "subagent") renderSubagent(item, existing);
      else existing.replaceWith(this.remember(item, this.render(item)));
    } else if (item.kind === "assistant" && this.live) {
      this.finishLive(item);
    } else {
      const node = this.remember(item, this.render(item));
      // A sub-agent goes right under its task call's card.
      const after = item.kind === "subagent" ? this.nodes.get(item.callId) : undefined;
      if (after?.isConnected) after.after(node);
      else if (this.live) this.root.insertBefore(node, this.live.node);
      else this.root.appendChild(node);
      this.trim();
    }
    this.scrollToEnd(stick);
  }

  /** Appends streamed text to the live message, creating it on the first delta. */
  delta(kind: "text" | "reasoning", text: string): void {
    const live = this.live ?? this.startLive();
    if (kind === "text") live.text += text;
    else live.reasoningText += text;
    if (live.timer) return;
    const wait = Math.max(0, RENDER_INTERVAL_MS - (performance.now() - live.lastRender));
    live.timer = setTimeout(() => this.renderLive(), wait);
  }

  /** The streamed message was abandoned (error, stop, retry): remove it. */
  dropLive(): void {
    if (!this.live) return;
    if (this.live.timer) clearTimeout(this.live.timer);
    this.live.node.remove();
    this.live = undefined;
    this.root.removeAttribute("aria-busy");
  }

  private startLive(): Live {
    const body = el("div", { class: "body markdown" });
    const node = el("div", { class: "message assistant streaming", "data-testid": "message-assistant" }, [body]);
    this.root.appendChild(node);
    // Screen readers announce the message once it is complete, not every re-render.
    this.root.setAttribute("aria-busy", "true");
    this.live = { node, body, reasoning: undefined, text: "", reasoningText: "", lastRender: 0, timer: undefined };
    return this.live;
  }

  private renderLive(): void {
    const live = this.live;
    if (!live) return;
    const stick = this.atEnd();
    live.timer = undefined;
    live.lastRender = performance.now();
    if (live.reasoningText) {
      if (!live.reasoning) {
        live.reasoning = el("pre", { class: "reasoning-text" });
        live.node.insertBefore(el("details", { class: "reasoning", open: true }, [el("summary", {}, ["Reasoning"]), live.reasoning]), live.body);
      }
      live.reasoning.textContent = live.reasoningText;
    }
    live.body.innerHTML = renderMarkdown(live.text);
    this.scrollToEnd(stick);
  }

  /** The final message arrived: the live node becomes it (no flicker, no re-layout of the list). */
  private finishLive(item: Extract<ViewItem, { kind: "assistant" }>): void {
    const live = this.live!;
    if (live.timer) clearTimeout(live.timer);
    this.live = undefined;
    this.root.removeAttribute("aria-busy");
    const node = this.render(item);
    live.node.replaceWith(node);
    this.remember(item, node);
  }

  private remember(item: ViewItem, node: HTMLElement): HTMLElement {
    this.nodes.set(item.id, node);
    return node;
  }

  private render(item: ViewItem): HTMLElement {
    switch (item.kind) {
      case "user":
        return el("div", { class: "message user", "data-testid": "message-user", "data-id": item.id, "data-delivery": item.delivery }, [
          // Composer: how it was delivered (typed while the agent worked) and what was attached.
          item.delivery ? el("div", { class: "delivery", "data-testid": "message-delivery" }, [item.delivery === "steered" ? "steered while the agent worked" : "queued, sent after the task"]) : null,
          el("div", { class: "body" }, [item.text]),
          item.chips?.length
            ? el(
                "div",
                { class: "chips" },
                item.chips.map((c) =>
                  el(
                    "span",
                    { class: `chip${c.error ? " chip-error" : ""}`, "data-testid": "message-chip", "data-kind": c.kind, title: c.error ?? (c.truncated ? "only a bounded part was sent" : c.label) },
                    [`@${c.label}${c.error ? " (not attached)" : ""}`],
                  ),
                ),
              )
            : null,
        ]);
      case "assistant": {
        const body = el("div", { class: "body markdown" });
        body.innerHTML = renderMarkdown(item.text);
        const reasoning = item.reasoning ? el("details", { class: "reasoning" }, [el("summary", {}, ["Reasoning"]), el("pre", { class: "reasoning-text" }, [item.reasoning])]) : null;
        return el("div", { class: "message assistant", "data-testid": "message-assistant", "data-id": item.id }, [reasoning, body]);
      }
      case "tool":
        return renderToolCard(item);
      case "todos":
        return renderTodos(item.todos);
      case "notice":
        return el("div", { class: `notice level-${item.level}`, "data-testid": "notice", "data-id": item.id }, [item.text]);
      case "compaction":
        return renderCompactionDivider(item);
      case "turn":
        return renderTurnControl(item);
      case "subagent":
        return renderSubagent(item);
    }
  }

  private trim(): void {
    while (this.nodes.size > MAX_NODES) {
      const [id, node] = this.nodes.entries().next().value as [string, HTMLElement];
      node.remove();
      this.nodes.delete(id);
      this.hidden++;
    }
    this.updateNote();
  }

  private updateNote(): void {
    this.note.hidden = this.hidden === 0;
    clear(this.note);
    if (this.hidden) this.note.appendChild(document.createTextNode(`${this.hidden} earlier item${this.hidden === 1 ? "" : "s"} not shown`));
  }

  private atEnd(): boolean {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 48;
  }

  private scrollToEnd(stick: boolean): void {
    if (!stick || this.scrollQueued) return;
    this.scrollQueued = true;
    requestAnimationFrame(() => {
      this.scrollQueued = false;
      this.scroller.scrollTop = this.scroller.scrollHeight;
    });
  }
}
