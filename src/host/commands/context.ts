// The context "Add Selection to Chat" and "Add File to Chat" attach: held by the host until the
// next message, shown in the panel as chips (protocol: PaletteMessages), removable there, and
// appended to the text of the next prompt the panel's session sends.
import * as vscode from "vscode";
import type { ContextChipView } from "../../protocol/messages";
import { contextLabel, rangeLabel, withAttachedContext, type AttachedContext } from "./prompts";

/** At most this many attachments wait at once; adding more drops the oldest. */
const MAX_ATTACHMENTS = 20;

export class PromptContext implements vscode.Disposable {
  private items: Array<{ id: string; context: AttachedContext }> = [];
  private next = 1;
  private readonly changed = new vscode.EventEmitter<ContextChipView[]>();
  /** The chips changed (added, removed, or taken by a prompt). */
  readonly onDidChange = this.changed.event;

  /** Adds an attachment; the same file or the same range again replaces the older one. */
  add(context: AttachedContext): void {
    const key = keyOf(context);
    this.items = this.items.filter((i) => keyOf(i.context) !== key);
    this.items.push({ id: `c${this.next++}`, context });
    if (this.items.length > MAX_ATTACHMENTS) this.items.splice(0, this.items.length - MAX_ATTACHMENTS);
    this.fire();
  }

  remove(id: string): void {
    const before = this.items.length;
    this.items = this.items.filter((i) => i.id !== id);
    if (this.items.length !== before) this.fire();
  }

  /** The prompt's text with the attachments, which are used up. */
  attach(text: string): string {
    if (!this.items.length) return text;
    const out = withAttachedContext(
      text,
      this.items.map((i) => i.context),
    );
    this.items = [];
    this.fire();
    return out;
  }

  chips(): ContextChipView[] {
    return this.items.map(({ id, context }) => ({
      id,
      kind: context.kind,
      label: contextLabel(context),
      detail:
        context.kind === "selection" ? `${context.excerpt.path}, ${rangeLabel(context.excerpt)}` : context.text === undefined ? `${context.path} (by name only: ${context.byNameOnly})` : context.path,
    }));
  }

  private fire(): void {
    this.changed.fire(this.chips());
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function keyOf(c: AttachedContext): string {
  return c.kind === "file" ? `file:${c.path}` : `sel:${c.excerpt.path}:${c.excerpt.startLine}:${c.excerpt.endLine}:${c.excerpt.text.length}`;
}
