// How each kind of transcript item is drawn: one registry, so a mechanism's own item view (nested
// subagent runs, mention chips, per-turn controls) plugs in with one `registerItemView` or
// `registerItemDecorator` call from its own file, and the message list never switches on kinds.
// A view must be a pure function of its item: the list creates and drops nodes as it scrolls.
import type { ViewItem } from "../../src/protocol/messages";
import { el } from "../ui/dom";
import { renderCompactionDivider } from "./context-meter";
import { renderMarkdown } from "./markdown";
import { renderTodos } from "./todos";
import { renderToolCard } from "./tool-card";
import { renderTurnControl } from "./checkpoints";
import { renderSubagent } from "./subagent";

type Kind = ViewItem["kind"];
type ItemOf<K extends Kind> = Extract<ViewItem, { kind: K }>;

export interface ItemView<K extends Kind = Kind> {
  render(item: ItemOf<K>): HTMLElement;
  /** Updates `node` in place (keeping what the user opened); absent: the node is rendered again. Returns the node now shown. */
  update?(item: ItemOf<K>, node: HTMLElement): HTMLElement;
}

/** Called for every node rendered or updated (e.g. a control added to each user message). */
export type ItemDecorator = (item: ViewItem, node: HTMLElement) => void;

const views = new Map<string, ItemView>();
const decorators: ItemDecorator[] = [];

export function registerItemView<K extends Kind>(kind: K, view: ItemView<K>): void {
  views.set(kind, view as unknown as ItemView);
}

export function registerItemDecorator(decorate: ItemDecorator): void {
  decorators.push(decorate);
}

/** A new node for `item`. */
export function renderItem(item: ViewItem): HTMLElement {
  const view = views.get(item.kind);
  const node = view ? view.render(item) : el("div", { class: "notice level-info", "data-testid": "notice" }, [`(${item.kind})`]);
  return finish(item, node);
}

/** `node` brought up to date with `item` (in place when the view can), or a new node replacing it. */
export function updateItem(item: ViewItem, node: HTMLElement): HTMLElement {
  const view = views.get(item.kind);
  if (view?.update) return finish(item, view.update(item, node));
  const next = renderItem(item);
  node.replaceWith(next);
  return next;
}

function finish(item: ViewItem, node: HTMLElement): HTMLElement {
  node.dataset.id = item.id;
  node.classList.add("transcript-item");
  for (const d of decorators) d(item, node);
  return node;
}

// --- the built-in item kinds ---
registerItemView("user", {
  render: (item) =>
    el("div", { class: "message user", "data-testid": "message-user", "data-delivery": item.delivery }, [
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
    ]),
});
function assistantNode(item: ItemOf<"assistant">, body: HTMLElement): HTMLElement {
  const reasoning = item.reasoning ? el("details", { class: "reasoning" }, [el("summary", {}, ["Reasoning"]), el("pre", { class: "reasoning-text" }, [item.reasoning])]) : null;
  return el("div", { class: "message assistant", "data-testid": "message-assistant" }, [reasoning, body]);
}
registerItemView("assistant", {
  render(item) {
    const body = el("div", { class: "body markdown" });
    body.innerHTML = renderMarkdown(item.text);
    return assistantNode(item, body);
  },
});

/**
 * The node of a streamed assistant message once it is final, keeping `body`: its text already
 * drawn as the assistant view draws it (streamed-markdown.ts), so a long answer is not parsed and
 * laid out again in the frame it ends in.
 */
export function renderStreamedAssistant(item: ItemOf<"assistant">, body: HTMLElement): HTMLElement {
  return finish(item, assistantNode(item, body));
}
registerItemView("tool", { render: (item) => renderToolCard(item), update: (item, node) => renderToolCard(item, node) });
registerItemView("todos", { render: (item) => renderTodos(item.todos) });
registerItemView("notice", { render: (item) => el("div", { class: `notice level-${item.level}`, "data-testid": "notice" }, [item.text]) });
registerItemView("compaction", { render: (item) => renderCompactionDivider(item) });
// Checkpoints: the control at the end of each turn (webview/views/checkpoints.ts).
registerItemView("turn", { render: (item) => renderTurnControl(item) });
// Sub-agents: a child session, collapsible, updated in place (webview/views/subagent.ts).
registerItemView("subagent", { render: (item) => renderSubagent(item), update: (item, node) => renderSubagent(item, node) });
