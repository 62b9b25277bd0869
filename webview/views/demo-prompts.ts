// Demo model: the empty panel suggests one prompt per feature (src/demo/demo-tour.ts), each a
// button that sends it; the whole block says that answers come from the scripted demo model.
// DemoPromptsBar offers the same prompts above the prompt box once a session has turns and the
// agent is idle: the compaction and the checkpoint restore need an earlier turn to work on.
import type { DemoView } from "../../src/protocol/messages";
import { button } from "../ui/components";
import { el, clear } from "../ui/dom";

export class DemoPrompts {
  readonly root = el("section", { class: "demo-prompts", "data-testid": "demo-prompts", hidden: true });

  constructor(private readonly send: (text: string) => void) {}

  /** Shown while the demo model is in use and the session is empty. */
  show(demo: DemoView | undefined, empty: boolean): void {
    clear(this.root);
    this.root.hidden = !demo || !empty || demo.prompts.length === 0;
    if (!demo || this.root.hidden) return;
    this.root.append(
      el("h2", {}, ["Try Yoke with the demo model"]),
      el("p", { class: "hint" }, [
        "Answers come from Yoke's ",
        el("strong", {}, [demo.label]),
        ": a scripted stand-in for an LLM that needs no key and understands nothing. Each prompt shows one feature for real in this workspace.",
      ]),
      el(
        "div",
        { class: "demo-prompt-list" },
        demo.prompts.map((p) =>
          el("div", { class: "demo-prompt" }, [
            button({ label: p.label, appearance: "secondary", testid: "demo-prompt", title: p.text, onClick: () => this.send(p.text) }),
            el("span", { class: "demo-prompt-text" }, [p.text]),
          ]),
        ),
      ),
    );
  }
}

export class DemoPromptsBar {
  readonly root = el("section", { class: "demo-prompts-bar", "data-testid": "demo-prompts-next", hidden: true });

  constructor(private readonly send: (text: string) => void) {}

  /** Shown while the demo model is in use, the session has turns and the agent is idle. */
  show(demo: DemoView | undefined, visible: boolean): void {
    const hidden = !demo || !visible || demo.prompts.length === 0;
    if (hidden === this.root.hidden && (hidden || this.root.childElementCount > 0)) return;
    clear(this.root);
    this.root.hidden = hidden;
    if (!demo || hidden) return;
    this.root.append(
      el("span", { class: "demo-prompts-bar-label", title: `Answers come from Yoke's ${demo.label}, a scripted stand-in for an LLM.` }, [`Next with the ${demo.label}:`]),
      ...demo.prompts.map((p) => button({ label: p.label, appearance: "secondary", testid: "demo-prompt", title: p.text, onClick: () => this.send(p.text) })),
    );
  }
}
