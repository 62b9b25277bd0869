// Compaction: the context meter (fill of the model's window, what a compaction would leave) and
// the divider a compaction leaves in the transcript.
import type { ContextMeterView, ViewItem } from "../../src/protocol/messages";
import { el } from "../ui/dom";

const k = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));

export class ContextMeter {
  readonly root: HTMLElement;
  private readonly bar: HTMLElement;
  private readonly label: HTMLElement;
  private readonly button: HTMLButtonElement;

  constructor(onCompact: () => void) {
    this.bar = el("div", { class: "context-meter-fill" });
    this.label = el("span", { class: "context-meter-label", "data-testid": "context-meter-label" });
    this.button = el("button", { class: "link", "data-testid": "context-compact", title: "Compact the context now (Yoke: Compact Context)" }, ["Compact"]);
    this.button.addEventListener("click", onCompact);
    this.root = el("div", { class: "context-meter", "data-testid": "context-meter", hidden: true }, [el("div", { class: "context-meter-track" }, [this.bar]), this.label, this.button]);
  }

  set(meter: ContextMeterView | undefined): void {
    this.root.hidden = !meter;
    if (!meter) return;
    const pct = Math.min(100, Math.round((meter.tokens / meter.window) * 100));
    this.bar.style.width = `${pct}%`;
    this.root.classList.toggle("near", meter.tokens >= meter.threshold * meter.window * 0.9);
    const after = meter.afterCompaction !== undefined ? ` · compacting would leave ~${k(meter.afterCompaction)}` : "";
    this.label.textContent = `Context ${k(meter.tokens)} / ${k(meter.window)}${meter.windowKnown ? "" : " (assumed)"} (${pct} %) · auto-compacts at ${Math.round(meter.threshold * 100)} %${after}`;
    this.root.title = this.label.textContent;
    this.button.hidden = meter.afterCompaction === undefined;
  }
}

export function renderCompactionDivider(item: Extract<ViewItem, { kind: "compaction" }>): HTMLElement {
  const how = item.trigger === "manual" ? "Compacted on request" : item.trigger === "overflow" ? "Compacted: the model said the context was too long" : "Compacted automatically";
  return el("div", { class: "compaction-divider", "data-testid": "compaction-divider", "data-id": item.id }, [
    el("div", { class: "compaction-title" }, [`${how}: ${k(item.tokensBefore)} → ${k(item.tokensAfter)} tokens`]),
    el("div", { class: "compaction-kept" }, [`Kept: ${item.kept.join(", ")}. The full history stays in the session log.`]),
  ]);
}
