// The prompt box: Enter sends, Shift+Enter adds a newline, Up in an empty box recalls the last
// prompt; Stop while the agent runs. `@` opens the mention completion (mention-list.ts): a picked
// file, folder, selection, problems, terminal output or git diff becomes a chip above the box and
// context sent with the message. While the agent works, Enter (or "Steer") delivers the message at
// the next step and Alt+Enter (or "Queue") sends it after the task; waiting messages are listed
// (queue-list.ts), editable and removable.
import type { CompletionView, ContextItemView, QueuedView } from "../../src/protocol/messages";
import { button, setDisabled } from "../ui/components";
import { clear, el, icon } from "../ui/dom";
import { MentionList, mentionAt } from "./mention-list";
import { QueueList } from "./queue-list";

const PLACEHOLDER = "Ask Yoke… (@ to mention files, Enter to send, Shift+Enter for a new line)";
const PLACEHOLDER_RUNNING = "Steer Yoke: Enter delivers at the next step, Alt+Enter queues for after the task";
/** Chips an input holds at most. */
const MAX_CHIPS = 50;

export type SendMode = "send" | "steer" | "queue";

export interface ComposerHandlers {
  /** A message with its chips: "send" when the agent is idle, "steer"/"queue" while it works. */
  send(text: string, items: ContextItemView[], mode: SendMode): void;
  stop(): void;
  complete(requestId: number, query: string, kind?: "mention" | "command"): void;
  editQueued(id: string, patch: { text?: string; mode?: "steer" | "queue" }): void;
  removeQueued(id: string): void;
  /** The chips changed: kept so that a reloaded panel shows them again. */
  saveChips?(items: readonly ContextItemView[]): void;
  /** Background agents: run the text as a background agent in a worktree, carrying none, the tracked or all uncommitted changes. */
  runInBackground?(text: string, carry: "none" | "tracked" | "all"): void;
}

export class Composer {
  readonly root: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLElement;
  private readonly stopButton: HTMLElement;
  private readonly steerButton: HTMLElement;
  private readonly queueButton: HTMLElement;
  /** Background agents: "Run in background" and what of the uncommitted work it carries. */
  private readonly backgroundButton: HTMLElement;
  private readonly carry: HTMLSelectElement;
  private readonly chipRow = el("div", { class: "chips composer-chips", "data-testid": "composer-chips", hidden: true });
  private readonly mentions: MentionList;
  private readonly queue: QueueList;
  private chips: Array<{ item: ContextItemView; label: string }> = [];
  private running = false;
  /** Another process writes the session shown: nothing is sent or stopped from here. */
  private readOnly = false;
  /** The last prompt sent, recalled with Up in an empty box. */
  private last = "";
  private requestId = 0;
  /** The `@query` being completed: where it starts. */
  private completing: { start: number; query: string; id: number; kind?: "command" } | undefined;

  constructor(
    private readonly h: ComposerHandlers,
    saved: readonly ContextItemView[] = [],
  ) {
    this.input = el("textarea", {
      class: "prompt-input",
      "data-testid": "prompt-input",
      rows: "3",
      placeholder: PLACEHOLDER,
      "aria-label": "Prompt",
      "aria-autocomplete": "list",
    });
    this.mentions = new MentionList((item) => this.pick(item));
    this.queue = new QueueList(
      (id, text) => h.editQueued(id, { text }),
      (id) => h.removeQueued(id),
      (id, mode) => h.editQueued(id, { mode }),
    );
    this.input.addEventListener("keydown", (e) => {
      if (e.isComposing) return;
      if (this.mentions.key(e)) {
        e.preventDefault();
        return;
      }
      if (e.key === "Enter" && !e.shiftKey) {
        e.preventDefault();
        this.submit(this.running ? (e.altKey ? "queue" : "steer") : "send");
      } else if (e.key === "ArrowUp" && !this.input.value && this.last) {
        e.preventDefault();
        this.input.value = this.last;
        this.autosize();
      } else if (e.key === "Backspace" && !this.input.value && this.chips.length) {
        this.chips.pop();
        this.renderChips();
      }
    });
    this.input.addEventListener("input", () => {
      this.autosize();
      this.updateCompletion();
    });
    this.input.addEventListener("click", () => this.updateCompletion());
    this.input.addEventListener("blur", () => this.mentions.close());
    this.sendButton = button({ icon: "send", title: "Send (Enter)", testid: "send", onClick: () => this.submit("send") });
    this.steerButton = button({ label: "Steer", appearance: "secondary", title: "Deliver at the next step (Enter)", testid: "steer", onClick: () => this.submit("steer") });
    this.queueButton = button({ label: "Queue", appearance: "secondary", title: "Send after the task (Alt+Enter)", testid: "queue", onClick: () => this.submit("queue") });
    this.stopButton = button({ icon: "debug-stop", title: "Stop", testid: "stop", onClick: () => h.stop() });
    this.carry = el("select", { class: "carry-select", "data-testid": "carry-select", title: "What of your uncommitted work the background agent gets", "aria-label": "Carry uncommitted changes" }, [
      el("option", { value: "none" }, ["from HEAD"]),
      el("option", { value: "tracked" }, ["+ tracked changes"]),
      el("option", { value: "all" }, ["+ all changes"]),
    ]);
    this.backgroundButton = button({ icon: "run-all", title: "Run in background: an agent in a git worktree of its own", testid: "run-background", onClick: () => this.runInBackground() });
    this.stopButton.hidden = true;
    this.steerButton.hidden = true;
    this.queueButton.hidden = true;
    const box = el("div", { class: "composer-box" }, [this.chipRow, this.input, this.mentions.root]);
    this.root = el("div", { class: "composer-area" }, [
      this.queue.root,
      el("div", { class: "composer" }, [box, el("div", { class: "composer-actions" }, [this.stopButton, this.steerButton, this.queueButton, this.carry, this.backgroundButton, this.sendButton])]),
    ]);
    for (const item of saved) this.addChip(item, labelOf(item));
  }

  setRunning(running: boolean): void {
    this.running = running;
    this.update();
  }

  setReadOnly(readOnly: boolean): void {
    this.readOnly = readOnly;
    this.update();
  }

  /** The host's answer to a completion request (only the latest one counts). */
  completions(requestId: number, items: CompletionView[]): void {
    if (!this.completing || this.completing.id !== requestId) return;
    this.mentions.show(items);
  }

  /** The waiting messages of the session shown. */
  setQueue(items: readonly QueuedView[]): void {
    this.queue.set(items);
  }

  /** The chips the next message carries. */
  chipItems(): ContextItemView[] {
    return this.chips.map((c) => c.item);
  }

  /** A chip from outside the panel ("Add Selection to Chat", "Add File to Chat"). */
  addContext(item: ContextItemView): void {
    this.addChip(item, labelOf(item));
    this.focus();
  }

  /** Puts back a prompt that could not be sent (only into an empty box: never overwrite typing). */
  restore(text: string): void {
    if (this.input.value.trim()) return;
    this.input.value = text;
    this.autosize();
  }

  focus(): void {
    this.input.focus();
  }

  private submit(mode: SendMode): void {
    const text = this.input.value.trim();
    if (!text || this.readOnly) return;
    if (mode === "send" && this.running) return;
    this.h.send(
      text,
      this.chips.map((c) => c.item),
      mode,
    );
    this.last = text;
    this.input.value = "";
    this.chips = [];
    this.renderChips();
    this.mentions.close();
    this.completing = undefined;
    this.autosize();
  }

  private runInBackground(): void {
    const text = this.input.value.trim();
    if (!text || !this.h.runInBackground) return;
    this.h.runInBackground(text, this.carry.value as "none" | "tracked" | "all");
    this.last = text;
    this.input.value = "";
    this.autosize();
  }

  private update(): void {
    const off = this.readOnly;
    this.backgroundButton.hidden = !this.h.runInBackground;
    this.carry.hidden = !this.h.runInBackground;
    this.stopButton.hidden = !this.running || off;
    this.steerButton.hidden = !this.running || off;
    this.queueButton.hidden = !this.running || off;
    this.sendButton.hidden = this.running && !off;
    setDisabled(this.sendButton, this.running || off);
    this.input.placeholder = off ? "Read-only: another process is working on this session (see above)." : this.running ? PLACEHOLDER_RUNNING : PLACEHOLDER;
  }

  private updateCompletion(): void {
    const cursor = this.input.selectionStart ?? this.input.value.length;
    const slash = slashAt(this.input.value, cursor);
    if (slash) {
      if (this.completing?.kind === "command" && this.completing.query === slash.query) return;
      this.completing = { ...slash, id: ++this.requestId, kind: "command" };
      this.h.complete(this.completing.id, slash.query, "command");
      return;
    }
    const at = mentionAt(this.input.value, cursor);
    if (!at) {
      this.completing = undefined;
      this.mentions.close();
      return;
    }
    if (this.completing && this.completing.start === at.start && this.completing.query === at.query) return;
    this.completing = { ...at, id: ++this.requestId };
    this.h.complete(this.completing.id, at.query);
  }

  /** A picked completion: the `@query` typed goes, a chip comes. */
  private pick(item: CompletionView): void {
    const at = this.completing;
    const typed = this.input.value;
    if (at) {
      const end = at.start + 1 + at.query.length;
      const rest = typed.slice(end).replace(/^ /, "");
      this.input.value = typed.slice(0, at.start) + rest;
      this.input.setSelectionRange(at.start, at.start);
    }
    this.completing = undefined;
    this.mentions.close();
    if (item.insert !== undefined && at && at.kind !== "command") {
      // An MCP resource (`@server:uri`): text in the box where the mention was typed.
      const v = this.input.value;
      this.input.value = v.slice(0, at.start) + item.insert + v.slice(at.start);
      const caret = at.start + item.insert.length;
      this.input.setSelectionRange(caret, caret);
      // `@server:` chosen: go on completing its resources.
      if (item.insert.endsWith(":")) this.updateCompletion();
    } else if (item.insert !== undefined && at) {
      // The whole name typed already: Enter (or a click) runs the command, as a plain Enter would.
      if (at.kind === "command" && typed.trim() === item.insert.trim()) {
        this.input.value = typed;
        this.submit(this.running ? "steer" : "send");
        return;
      }
      // A slash command: its name goes in the box, the arguments are typed after it; an @rule or
      // @skill: its name goes where the @query was, as text the session reads.
      const v = this.input.value;
      this.input.value = v.slice(0, at.start) + item.insert + v.slice(at.start).replace(/^\s+/, "");
      const caret = at.start + item.insert.length;
      this.input.setSelectionRange(caret, caret);
    } else if (item.item) this.addChip(item.item, item.label.replace(/^@/, ""));
    this.autosize();
  }

  private addChip(item: ContextItemView, label: string): void {
    const key = JSON.stringify(item);
    if (this.chips.some((c) => JSON.stringify(c.item) === key) || this.chips.length >= MAX_CHIPS) return;
    this.chips.push({ item, label });
    this.renderChips();
  }

  private renderChips(): void {
    this.h.saveChips?.(this.chipItems());
    clear(this.chipRow);
    this.chipRow.hidden = this.chips.length === 0;
    this.chips.forEach((c, i) => {
      const remove = el("button", { class: "chip-remove", title: `Remove ${c.label}`, "aria-label": `Remove ${c.label}`, "data-testid": "chip-remove" }, [icon("close")]);
      remove.addEventListener("click", () => {
        this.chips.splice(i, 1);
        this.renderChips();
        this.focus();
      });
      this.chipRow.append(el("span", { class: "chip", "data-testid": "composer-chip", "data-kind": c.item.kind, title: c.label }, [`@${c.label}`, remove]));
    });
  }

  private autosize(): void {
    this.input.style.height = "auto";
    this.input.style.height = `${Math.min(this.input.scrollHeight, 240)}px`;
  }
}

/**
 * `/query` being typed at the very start of the box (the cursor still in the command's name), or
 * the arguments of an MCP prompt (`/mcp__server__prompt arg…`: the server completes them).
 */
export function slashAt(value: string, cursor: number): { start: number; query: string } | undefined {
  const before = value.slice(0, cursor);
  const m = /^\/([^\s/]*)$/.exec(before) ?? /^\/(mcp__[^\s/]+\s[^\n]*)$/.exec(before);
  return m && m[1]!.length <= 1_000 ? { start: 0, query: m[1]! } : undefined;
}

function labelOf(item: ContextItemView): string {
  switch (item.kind) {
    case "file":
      return item.path;
    case "folder":
      return `${item.path.replace(/\/+$/, "")}/`;
    case "selection":
      return `${item.path.split("/").pop() ?? item.path}:${item.startLine === item.endLine ? item.startLine : `${item.startLine}-${item.endLine}`}`;
    case "problems":
      return item.path ? `problems:${item.path}` : "problems";
    case "terminal":
      return "terminal";
    case "git-diff":
      return "git-diff";
  }
}
