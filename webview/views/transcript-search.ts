// Search over the whole transcript (long sessions): the host searches every item, the list jumps to
// a match and marks it; Enter / ↓ goes to the next (older) match, Shift+Enter / ↑ to the newer one.
import type { HostToWebview, TranscriptMatchView, WebviewToHost } from "../../src/protocol/messages";
import { button } from "../ui/components";
import { el, setText } from "../ui/dom";

type Results = Extract<HostToWebview, { type: "searchResults" }>;

export class TranscriptSearch {
  readonly root: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly count: HTMLElement;
  private readonly snippet: HTMLElement;
  private matches: TranscriptMatchView[] = [];
  private current = -1;
  private query = "";
  private req = 0;

  constructor(
    private readonly send: (msg: WebviewToHost) => void,
    private readonly jump: (match: TranscriptMatchView) => void,
  ) {
    this.input = el("input", { type: "search", class: "transcript-search-input", placeholder: "Search this session", "aria-label": "Search this session", "data-testid": "transcript-search" });
    this.count = el("span", { class: "transcript-search-count", "data-testid": "transcript-search-count", role: "status" });
    this.snippet = el("div", { class: "transcript-search-snippet", "data-testid": "transcript-search-snippet", hidden: true });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        this.submit(e.shiftKey ? -1 : 1);
      } else if (e.key === "Escape") this.clear();
    });
    this.root = el("div", { class: "transcript-search", "data-testid": "transcript-search-bar", hidden: true }, [
      el("div", { class: "transcript-search-row" }, [
        this.input,
        this.count,
        button({ icon: "arrow-up", title: "Newer match", testid: "transcript-search-newer", onClick: () => this.step(-1) }),
        button({ icon: "arrow-down", title: "Older match", testid: "transcript-search-older", onClick: () => this.step(1) }),
      ]),
      this.snippet,
    ]);
  }

  /** Shown while the session has a transcript. */
  setAvailable(on: boolean): void {
    this.root.hidden = !on;
    if (!on) this.clear();
  }

  onResults(msg: Results): void {
    if (msg.req !== this.req) return;
    this.matches = msg.matches;
    // The newest match first: searches usually look for something said lately.
    this.current = this.matches.length ? this.matches.length - 1 : -1;
    this.show(msg.truncated);
  }

  private submit(dir: 1 | -1): void {
    const q = this.input.value.trim();
    if (!q) return this.clear();
    if (q === this.query && this.matches.length) return this.step(dir);
    this.query = q;
    this.req++;
    this.count.textContent = "Searching…";
    this.send({ type: "searchTranscript", req: this.req, query: q });
  }

  /** dir 1: the next older match, -1: the next newer one. */
  private step(dir: 1 | -1): void {
    if (!this.matches.length) return;
    const n = this.matches.length;
    this.current = (this.current - dir + n) % n;
    this.show(false);
  }

  private show(truncated: boolean): void {
    const m = this.matches[this.current];
    this.count.textContent = m ? `${this.matches.length - this.current} of ${this.matches.length}${truncated ? "+" : ""}` : "No matches";
    this.snippet.hidden = !m;
    setText(this.snippet, m?.snippet ?? "");
    if (m) this.jump(m);
  }

  private clear(): void {
    this.req++;
    this.query = "";
    this.matches = [];
    this.current = -1;
    this.count.textContent = "";
    this.snippet.hidden = true;
  }
}
