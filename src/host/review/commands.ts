// Review commands (palette, keybindings, CodeLens, editor title) and the context keys their
// `when` clauses use: yoke.review.hasPending, yoke.review.editorHasPending.
import * as vscode from "vscode";
import type { ReviewEntry } from "./review-entry";
import type { VscodeChangeReviewer } from "./vscode-reviewer";
import { notify } from "../shown";

/** The change a command applies to: an editId, a file URI (editor title), or the active editor's. */
function target(reviewer: VscodeChangeReviewer, arg: unknown): ReviewEntry | undefined {
  if (typeof arg === "string") return reviewer.get(arg);
  if (arg instanceof vscode.Uri) return reviewer.pendingFor(arg) ?? reviewer.pendingForFile(arg);
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    const entry = reviewer.pendingFor(editor.document.uri);
    if (entry) return entry;
  }
  const pending = reviewer.pending();
  return pending.length === 1 ? pending[0] : undefined;
}

function noChange(): void {
  void notify("info", "Yoke: no change is waiting for review here.");
}

/** Hunk given by the CodeLens arguments, or the one at the cursor. */
function hunkCommand(reviewer: VscodeChangeReviewer, decision: "accepted" | "rejected") {
  return async (editId?: unknown, hunk?: unknown) => {
    const entry = target(reviewer, editId);
    if (!entry) return noChange();
    let k = typeof hunk === "number" ? hunk : undefined;
    if (k === undefined) {
      const editor = vscode.window.activeTextEditor;
      const line = editor && editor.document.uri.toString() === entry.uri.toString() ? editor.selection.active.line : 0;
      k = entry.hunkAt(line);
    }
    if (k === undefined) return noChange();
    await reviewer.decide(entry.editId, [k], decision);
  };
}

function fileCommand(reviewer: VscodeChangeReviewer, decision: "accepted" | "rejected") {
  return async (arg?: unknown) => {
    // A change of several files (its id, from the CodeLens "Accept Change" / "Reject Change"): all of it.
    if (typeof arg === "string" && reviewer.isSet(arg)) return reviewer.decide(arg, "all", decision);
    const entry = target(reviewer, arg);
    if (!entry) return noChange();
    await reviewer.decide(entry.editId, "all", decision);
  };
}

export function registerReviewCommands(reviewer: VscodeChangeReviewer): vscode.Disposable[] {
  const last = new Map<string, boolean>();
  const set = (key: string, value: boolean) => {
    if (last.get(key) === value) return;
    last.set(key, value);
    void vscode.commands.executeCommand("setContext", key, value);
  };
  const updateContext = () => {
    const editor = vscode.window.activeTextEditor;
    set("yoke.review.hasPending", reviewer.pending().length > 0);
    set("yoke.review.editorHasPending", Boolean(editor && reviewer.pendingFor(editor.document.uri)));
  };
  return [
    reviewer.onDidChangeEntries(updateContext),
    vscode.window.onDidChangeActiveTextEditor(updateContext),
    // Clicking into an editor that was already active changes no active editor, only the selection.
    vscode.window.onDidChangeTextEditorSelection(updateContext),
    vscode.commands.registerCommand("yoke.acceptHunk", hunkCommand(reviewer, "accepted")),
    vscode.commands.registerCommand("yoke.rejectHunk", hunkCommand(reviewer, "rejected")),
    vscode.commands.registerCommand("yoke.acceptFile", fileCommand(reviewer, "accepted")),
    vscode.commands.registerCommand("yoke.rejectFile", fileCommand(reviewer, "rejected")),
    vscode.commands.registerCommand("yoke.rejectFileWithNote", async (arg?: unknown) => {
      const entry = target(reviewer, arg);
      if (!entry) return noChange();
      const note = await vscode.window.showInputBox({
        title: `Yoke: reject the change to ${entry.change.relPath}`,
        prompt: "What should the agent know? (sent with the rejection)",
        ignoreFocusOut: true,
      });
      if (note === undefined) return;
      await reviewer.decide(entry.editId, "all", "rejected", note.trim() || undefined);
    }),
    vscode.commands.registerCommand("yoke.acceptAll", () => Promise.all(reviewer.pending().map((e) => reviewer.decide(e.editId, "all", "accepted")))),
    vscode.commands.registerCommand("yoke.rejectAll", () => Promise.all(reviewer.pending().map((e) => reviewer.decide(e.editId, "all", "rejected")))),
    vscode.commands.registerCommand("yoke.openReviewDiff", async (arg?: unknown) => {
      const last = reviewer.list().at(-1);
      const entry = target(reviewer, arg) ?? (arg === undefined && last ? reviewer.get(last.editId) : undefined);
      if (!entry) return noChange();
      // Beside the file's editor, so its inline CodeLens stays in view.
      await reviewer.openDiff(entry.editId, { preview: true, preserveFocus: false, viewColumn: vscode.ViewColumn.Beside });
    }),
    vscode.commands.registerCommand("yoke.revertChange", async (editId?: unknown) => {
      if (typeof editId !== "string") return;
      const problem = await reviewer.revert(editId);
      if (problem) void notify("warning", `Yoke: ${problem}`);
    }),
  ];
}
