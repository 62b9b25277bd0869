// A sub-agent (the task tool's child session) nested under its task call: a collapsible block whose
// header says what it is doing and how it ended, whose body lists the child's steps (tool and
// one-line summary, never their output). Updated in place, so an open block stays open.
import type { ViewItem } from "../../src/protocol/messages";
import { el, icon, clear } from "../ui/dom";

type SubagentItem = Extract<ViewItem, { kind: "subagent" }>;

const STATUS_ICON: Record<SubagentItem["status"], string> = { running: "loading", completed: "check", failed: "error", cancelled: "circle-slash" };

const items = new WeakMap<HTMLElement, SubagentItem>();

function renderBody(node: HTMLDetailsElement, item: SubagentItem): void {
  const body = node.querySelector(".subagent-body")!;
  clear(body);
  if (item.omittedSteps) body.appendChild(el("div", { class: "subagent-omitted" }, [`${item.omittedSteps} earlier step${item.omittedSteps === 1 ? "" : "s"} (in session ${item.childId})`]));
  for (const s of item.steps) {
    body.appendChild(
      el("div", { class: `subagent-step${s.isError ? " failed" : ""}`, "data-testid": "subagent-step" }, [
        icon(s.isError ? "error" : "check"),
        el("span", { class: "tool-name" }, [s.tool]),
        el("span", { class: "tool-summary", title: s.summary }, [s.summary]),
      ]),
    );
  }
  if (item.steps.length === 0) body.appendChild(el("div", { class: "subagent-omitted" }, [item.status === "running" ? "Working…" : "No tool calls."]));
  if (item.filesChanged?.length) body.appendChild(el("div", { class: "subagent-files" }, [`Changed: ${item.filesChanged.join(", ")}`]));
  if (item.error) body.appendChild(el("div", { class: "subagent-error" }, [item.error]));
  body.appendChild(el("div", { class: "subagent-session" }, [`Session ${item.childId}`]));
}

/** Creates the block, or updates `existing` in place (keeping it open if it was). */
export function renderSubagent(item: SubagentItem, existing?: HTMLElement): HTMLElement {
  const node = (existing ?? el("details", { class: "subagent", "data-testid": "subagent" })) as HTMLDetailsElement;
  node.dataset.id = item.id;
  node.dataset.callId = item.callId;
  node.dataset.status = item.status;
  node.className = `subagent status-${item.status}`;
  const calls = item.toolCalls ?? item.steps.length + item.omittedSteps;
  const summary = el("summary", { class: "subagent-header" }, [
    icon(STATUS_ICON[item.status], item.status === "running" ? "codicon-modifier-spin" : ""),
    el("span", { class: "subagent-label" }, ["Sub-agent"]),
    el("span", { class: "tool-summary", title: item.description }, [item.description]),
    el("span", { class: "tool-status", "data-testid": "subagent-status" }, [item.status]),
    el("span", { class: "tool-badge" }, [`${calls} step${calls === 1 ? "" : "s"}`]),
    item.costUsd !== undefined ? el("span", { class: "tool-badge" }, [`$${item.costUsd.toFixed(4)}`]) : null,
  ]);
  if (!existing) {
    node.appendChild(summary);
    node.appendChild(el("div", { class: "subagent-body", "data-testid": "subagent-body" }));
    node.addEventListener("toggle", () => {
      const current = items.get(node);
      if (node.open && current) renderBody(node, current);
      else clear(node.querySelector(".subagent-body")!);
    });
  } else {
    node.replaceChild(summary, node.querySelector("summary")!);
  }
  items.set(node, item);
  if (node.open) renderBody(node, item);
  return node;
}
