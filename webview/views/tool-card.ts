// A tool call as a collapsible card: header (name, argument summary, status, duration), body
// (arguments and result) built only when opened, so long sessions keep a small DOM.
import type { ViewItem } from "../../src/protocol/messages";
import { formatDuration } from "../format";
import { el, icon, clear, codeEl } from "../ui/dom";

type ToolItem = Extract<ViewItem, { kind: "tool" }>;

const STATUS_ICON: Record<ToolItem["status"], string> = {
  pending: "circle-outline",
  asking: "question",
  running: "loading",
  done: "check",
  error: "error",
  denied: "circle-slash",
  interrupted: "debug-pause",
};

const cards = new WeakMap<HTMLElement, ToolItem>();

function renderBody(card: HTMLDetailsElement, item: ToolItem): void {
  const body = card.querySelector(".tool-body")!;
  clear(body);
  body.appendChild(el("div", { class: "tool-label" }, ["Arguments"]));
  body.appendChild(codeEl("pre", { class: "tool-input" }, item.input));
  if (item.note) body.appendChild(el("div", { class: "tool-note" }, [item.note]));
  if (item.output !== undefined) {
    body.appendChild(el("div", { class: "tool-label" }, [item.status === "error" ? "Error" : "Result"]));
    body.appendChild(el("pre", { class: "tool-output", "data-testid": "tool-output" }, [item.output]));
  }
}

/** Creates a card, or updates `existing` in place (keeping it open if it was). */
export function renderToolCard(item: ToolItem, existing?: HTMLElement): HTMLElement {
  const card = (existing ?? el("details", { class: "tool-card", "data-testid": "tool-card" })) as HTMLDetailsElement;
  card.dataset.toolName = item.name;
  card.dataset.status = item.status;
  card.dataset.id = item.id;
  card.className = `tool-card status-${item.status}`;
  const summary = el("summary", { class: "tool-header" }, [
    icon(STATUS_ICON[item.status], item.status === "running" ? "codicon-modifier-spin" : ""),
    el("span", { class: "tool-name" }, [item.name]),
    codeEl("span", { class: "tool-summary", title: item.summary }, item.summary),
    el("span", { class: "tool-status", "data-testid": "tool-status" }, [item.status]),
    ...(item.badges ?? []).map((b) => el("span", { class: "tool-badge", "data-testid": "tool-badge" }, [b])),
    item.decision ? el("span", { class: "tool-decision", "data-testid": "tool-decision", title: item.decision }, [item.decision]) : null,
    item.durationMs !== undefined ? el("span", { class: "tool-duration" }, [formatDuration(item.durationMs)]) : null,
  ]);
  if (!existing) {
    card.appendChild(summary);
    card.appendChild(el("div", { class: "tool-body" }));
    card.addEventListener("toggle", () => {
      const current = cards.get(card);
      if (card.open && current) renderBody(card, current);
      else clear(card.querySelector(".tool-body")!);
    });
  } else {
    card.replaceChild(summary, card.querySelector("summary")!);
  }
  cards.set(card, item);
  if (card.open) renderBody(card, item);
  return card;
}
