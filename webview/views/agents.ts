// Background agents (issue 24): every agent of the workspace with its task, state, spend, changed
// files and last message; per agent its read-only transcript, a note back, Stop, the review of its
// change per file and hunk (accept/reject), Merge back and Discard. The host owns the state
// (src/host/agents): this view renders it and keeps only the hunk decisions being made.
import type { AgentFileDiffView, AgentItemView, AgentOutcomeView, WebviewToHost } from "../../src/protocol/messages";
import { button, setDisabled } from "../ui/components";
import { append, clear, el, setShownAttr, setText } from "../ui/dom";

type Send = (msg: WebviewToHost) => void;

/** The parts of an agent's summary that change while it runs, updated in place (a post every second per running agent). */
interface SummaryParts {
  state: HTMLElement;
  task: HTMLElement;
  spend: HTMLElement;
  files: HTMLElement;
  branch: HTMLElement;
  last: HTMLElement;
  asking: HTMLElement;
  buttons: HTMLElement;
  /** The key the buttons were drawn for (they depend on the state only). */
  buttonsFor: string;
}

interface Entry {
  root: HTMLElement;
  summary: HTMLElement;
  parts?: SummaryParts;
  outcome: HTMLElement;
  transcript: HTMLElement;
  review: HTMLElement;
  note: HTMLTextAreaElement;
  item: AgentItemView;
  /** Hunk decisions of the review shown: per path, per hunk index, accepted or not. */
  decisions?: Map<string, Map<number, boolean>>;
  files?: AgentFileDiffView[];
}

const ACTIVE = new Set(["queued", "running"]);

export class AgentsPanel {
  readonly root = el("details", { class: "agents", "data-testid": "agents-view", hidden: true, open: true });
  private readonly title = el("summary", { class: "agents-title" }, ["Background agents"]);
  private readonly list = el("div", { class: "agents-list" });
  /** A start that failed (no agent to show it under). */
  private readonly startProblem = el("div", { class: "agent-outcome error", "data-testid": "agent-start-problem", role: "alert", hidden: true });
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly send: Send) {
    this.root.append(this.title, this.startProblem, this.list);
  }

  set(agents: readonly AgentItemView[]): void {
    const seen = new Set<string>();
    for (const a of agents) {
      seen.add(a.id);
      let e = this.entries.get(a.id);
      if (!e) {
        e = this.create(a);
        this.entries.set(a.id, e);
      }
      e.item = a;
      this.renderSummary(e);
    }
    // Order as the host lists them, moving only the entries out of place (a move is a layout).
    let at: ChildNode | null = this.list.firstChild;
    for (const a of agents) {
      const root = this.entries.get(a.id)!.root;
      if (root === at) at = at.nextSibling;
      else this.list.insertBefore(root, at);
    }
    for (const [id, e] of this.entries) {
      if (seen.has(id)) continue;
      e.root.remove();
      this.entries.delete(id);
    }
    const running = agents.filter((a) => ACTIVE.has(a.state)).length;
    this.title.textContent = `Background agents (${agents.length}${running ? `, ${running} running` : ""})`;
    this.root.hidden = agents.length === 0 && this.startProblem.hidden;
  }

  showTranscript(id: string, lines: ReadonlyArray<{ kind: string; text: string }>): void {
    const e = this.entries.get(id);
    if (!e) return;
    clear(e.transcript);
    e.transcript.hidden = false;
    e.transcript.append(
      el("div", { class: "agent-subtitle" }, ["Transcript (read-only)"]),
      ...lines.map((l) => el("div", { class: `agent-line agent-line-${l.kind}`, "data-testid": "agent-transcript-line", "data-kind": l.kind }, [l.kind === "tool" ? `▸ ${l.text}` : l.text])),
    );
  }

  showReview(id: string, files: readonly AgentFileDiffView[]): void {
    const e = this.entries.get(id);
    if (!e) return;
    e.files = [...files];
    e.decisions = new Map(files.map((f) => [f.path, new Map((f.binary ? [1] : f.hunks.map((h) => h.index)).map((i) => [i, true]))]));
    this.renderReview(e);
  }

  showOutcome(o: AgentOutcomeView): void {
    const e = o.id ? this.entries.get(o.id) : undefined;
    const target = e ? e.outcome : this.startProblem;
    clear(target);
    target.hidden = false;
    target.className = `agent-outcome ${o.ok ? "ok" : "error"}`;
    target.setAttribute("data-ok", String(o.ok));
    target.setAttribute("data-action", o.action);
    target.append(el("div", { "data-testid": "agent-outcome-text" }, [o.text]));
    for (const c of o.conflicts) target.append(el("div", { class: "agent-conflict", "data-testid": "agent-conflict", "data-path": c.path }, [`${c.path}: ${c.detail}`]));
    if (!e) this.root.hidden = false;
    if (e && o.ok && o.action === "merge" && e.review) e.review.hidden = true;
  }

  private create(a: AgentItemView): Entry {
    const note = el("textarea", {
      class: "agent-note-input",
      "data-testid": "agent-note-input",
      rows: "1",
      placeholder: "A note back: the agent continues with it",
      "aria-label": "Note to the agent",
    });
    const e: Entry = {
      root: el("div", { class: "agent", "data-testid": "agent", "data-agent-id": a.id }),
      summary: el("div", { class: "agent-summary" }),
      outcome: el("div", { class: "agent-outcome", "data-testid": "agent-outcome", role: "status", hidden: true }),
      transcript: el("div", { class: "agent-transcript", "data-testid": "agent-transcript", hidden: true }),
      review: el("div", { class: "agent-review", "data-testid": "agent-review", hidden: true }),
      note,
      item: a,
    };
    const sendNote = button({
      label: "Send note",
      appearance: "secondary",
      testid: "agent-note-send",
      onClick: () => {
        const text = note.value.trim();
        if (!text) return;
        this.send({ type: "agents.note", id: e.item.id, text });
        note.value = "";
      },
    });
    e.root.append(e.summary, el("div", { class: "agent-note" }, [note, sendNote]), e.outcome, e.transcript, e.review);
    return e;
  }

  /** Draws an agent's summary once, then updates only the text that changed. */
  private renderSummary(e: Entry): void {
    const a = e.item;
    if (e.root.getAttribute("data-state") !== a.state) e.root.setAttribute("data-state", a.state);
    const p = (e.parts ??= this.summaryParts(e));
    const files = a.changedFiles.length;
    setText(p.state, a.resumable ? "interrupted (resumable)" : a.merged ? `${a.state}, merged` : a.state);
    if (p.state.className !== `agent-state state-${a.state}`) p.state.className = `agent-state state-${a.state}`;
    setText(p.task, a.task);
    setAttr(p.task, "title", a.task);
    setText(p.spend, a.spend || "no spend yet");
    setText(p.files, `${files} file${files === 1 ? "" : "s"} changed`);
    setAttr(p.files, "title", a.changedFiles.map((f) => `${f.status} ${f.path}`).join("\n"));
    setText(p.branch, a.branch);
    setText(p.last, a.lastMessage ?? "");
    if (p.last.hidden !== !a.lastMessage) p.last.hidden = !a.lastMessage;
    setText(p.asking, a.asking ? `Waiting for your answer (in the card below): ${a.asking}` : "");
    if (p.asking.hidden !== !a.asking) p.asking.hidden = !a.asking;
    const active = ACTIVE.has(a.state);
    if (p.buttonsFor !== String(active)) {
      p.buttonsFor = String(active);
      clear(p.buttons);
      append(p.buttons, this.summaryButtons(e, active));
    }
  }

  private summaryParts(e: Entry): SummaryParts {
    const p: SummaryParts = {
      state: el("span", { class: "agent-state", "data-testid": "agent-state" }),
      task: el("span", { class: "agent-task", "data-testid": "agent-task" }),
      spend: el("span", { "data-testid": "agent-spend" }),
      files: el("span", { "data-testid": "agent-files" }),
      branch: el("span", { class: "agent-branch" }),
      last: el("div", { class: "agent-last", "data-testid": "agent-last", hidden: true }),
      asking: el("div", { class: "agent-asking", "data-testid": "agent-asking", hidden: true }),
      buttons: el("div", { class: "agent-buttons" }),
      buttonsFor: "",
    };
    append(e.summary, [el("div", { class: "agent-head" }, [p.state, p.task]), el("div", { class: "agent-meta" }, [p.spend, " · ", p.files, " · ", p.branch]), p.asking, p.last, p.buttons]);
    return p;
  }

  private summaryButtons(e: Entry, active: boolean): Array<HTMLElement | null> {
    const id = e.item.id;
    return [
      button({ label: "Transcript", appearance: "secondary", testid: "agent-open-transcript", onClick: () => this.send({ type: "agents.open", id, what: "transcript" }) }),
      active ? button({ label: "Stop", appearance: "secondary", testid: "agent-stop", onClick: () => this.send({ type: "agents.stop", id }) }) : null,
      active ? null : button({ label: "Review", appearance: "secondary", testid: "agent-open-review", onClick: () => this.send({ type: "agents.open", id, what: "review" }) }),
      active
        ? null
        : button({
            label: "Review in editor",
            appearance: "secondary",
            title: "Open its change in your files, with Accept / Reject per hunk in the editor; what you accept is merged into your tree",
            testid: "agent-review-editor",
            onClick: () => this.send({ type: "agents.reviewInEditor", id }),
          }),
      button({ label: "Discard", appearance: "secondary", testid: "agent-discard", onClick: () => this.send({ type: "agents.discard", id }) }),
    ];
  }

  private renderReview(e: Entry): void {
    const files = e.files ?? [];
    const decisions = e.decisions!;
    clear(e.review);
    e.review.hidden = false;
    e.review.append(el("div", { class: "agent-subtitle" }, [files.length ? "Its change against its base: accept or reject each hunk, then merge back" : "It changed nothing."]));
    for (const f of files) {
      const d = decisions.get(f.path)!;
      const set = (accepted: boolean) => () => {
        for (const k of d.keys()) d.set(k, accepted);
        this.renderReview(e);
      };
      const fileBox = el("div", { class: "agent-file", "data-testid": "agent-review-file", "data-path": f.path }, [
        el("div", { class: "agent-file-head" }, [
          el("span", { class: "agent-file-path" }, [`${f.status} ${f.path}${f.binary ? " (binary)" : ""}`]),
          button({ icon: "check-all", title: "Accept the whole file", testid: "agent-accept-file", onClick: set(true) }),
          button({ icon: "close-all", title: "Reject the whole file", testid: "agent-reject-file", onClick: set(false) }),
        ]),
      ]);
      for (const h of f.hunks) {
        const accepted = d.get(h.index) ?? false;
        const toggle = (v: boolean) => () => {
          d.set(h.index, v);
          this.renderReview(e);
        };
        fileBox.append(
          el(
            "div",
            {
              class: `agent-hunk ${accepted ? "accepted" : "rejected"}`,
              "data-testid": "agent-hunk",
              "data-path": f.path,
              "data-index": String(h.index),
              "data-decision": accepted ? "accepted" : "rejected",
            },
            [
              el("div", { class: "agent-hunk-head" }, [
                `hunk ${h.index} · line ${h.beforeStart + 1}`,
                button({ icon: "check", title: "Accept this hunk", testid: "agent-accept-hunk", onClick: toggle(true) }),
                button({ icon: "discard", title: "Reject this hunk", testid: "agent-reject-hunk", onClick: toggle(false) }),
              ]),
              el("pre", { class: "agent-hunk-lines" }, [...h.before.map((l) => el("div", { class: "removed" }, [`- ${l}`])), ...h.after.map((l) => el("div", { class: "added" }, [`+ ${l}`]))]),
            ],
          ),
        );
      }
      e.review.append(fileBox);
    }
    const merge = button({
      label: "Merge back",
      testid: "agent-merge",
      onClick: () => {
        const chosen: Array<{ path: string; hunks: "all" | number[] }> = [];
        for (const f of files) {
          const d = decisions.get(f.path)!;
          const yes = [...d.entries()].filter(([, v]) => v).map(([k]) => k);
          // A file with no hunk to decide (a mode change, an empty file) goes whole; a rejected one stays out.
          if (d.size === 0 || ((f.binary || yes.length === d.size) && yes.length > 0)) chosen.push({ path: f.path, hunks: "all" });
          else if (yes.length) chosen.push({ path: f.path, hunks: yes });
        }
        this.send({ type: "agents.merge", id: e.item.id, files: chosen });
      },
    });
    setDisabled(merge, files.length === 0);
    // The other way back: the agent's whole branch, merged with git (a commit on the person's branch).
    const mergeBranch = button({
      label: "Merge branch",
      appearance: "secondary",
      title: "git merge of the agent's whole branch into your current branch (hunk choices do not apply); refused when your tree has uncommitted changes in its files or the branches conflict",
      testid: "agent-merge-branch",
      onClick: () => this.send({ type: "agents.merge", id: e.item.id, files: [], strategy: "merge" }),
    });
    setDisabled(mergeBranch, files.length === 0);
    e.review.append(
      el("div", { class: "agent-review-actions" }, [
        merge,
        mergeBranch,
        el("span", { class: "agent-review-hint" }, ["Merge back: the accepted hunks into your files, uncommitted. Merge branch: git merge of all of it."]),
      ]),
    );
  }
}

// Text and tooltips are written only when they differ (dom.ts setText, setShownAttr): an unchanged post costs no style or layout work.
const setAttr = setShownAttr;
