// The palette and editor commands (issue 13), category "Yoke": New Task, Explain Selection, Edit
// Selection…, Fix Problems in File, Add Selection/File to Chat, Stop, Switch Model, Switch
// Permission Mode, Open Session…, Show Log; and the status-bar item. Registered by one call in
// extension.ts. The commands send through the panel's session, so what they ask is shown in the
// transcript, goes through the permission gate, and edits come back as reviewable diffs.
import * as vscode from "vscode";
import { hashlineReady } from "../../core/edit/hashline";
import type { ContextItemView } from "../../protocol/messages";
import { createVscodeDiagnostics } from "../diagnostics";
import { uriPathToFsPath } from "../workspace-fs";
import type { ReviewFeature } from "../review";
import type { SessionController } from "../session-controller";
import type { ApiKeys } from "../settings";
import { YokeStatusBar } from "../status-bar";
import { documentLines, fileProblems, modelPath, readyForEdit, selectionExcerpt } from "./editor";
import { openSessionPick, permissionModePick, switchModelPick } from "./pickers";
import { editSelectionPrompt, explainSelectionPrompt, fixProblemsPrompt, problemsToFix, rangeLabel } from "./prompts";
import { notify } from "../shown";

/** Longest text a selection chip carries (the protocol's bound): a longer selection, or unsaved editor text, is not attached as shown. */
const MAX_UNSAVED_CHARS = 200_000;

export interface PaletteDeps {
  log: vscode.LogOutputChannel;
  keys: ApiKeys;
  review: ReviewFeature;
  /** Reveals the chat panel. */
  reveal(): Promise<void>;
  /** The controller, created (and the session bundle loaded) on first use. */
  controller(): SessionController;
  /** The controller if it exists already (Stop does not load anything). */
  existing(): SessionController | undefined;
}

export interface Palette {
  /** Called once when the controller is created: the status bar follows it. */
  attach(controller: SessionController): void;
}

export function registerPalette(context: vscode.ExtensionContext, deps: PaletteDeps): Palette {
  const statusBar = new YokeStatusBar(deps.review);
  const cmd = (id: string, run: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, run);
  const c = new PaletteCommands(deps);
  context.subscriptions.push(
    statusBar,
    cmd("yoke.newTask", (args?: { prompt?: unknown }) => c.newTask(typeof args?.prompt === "string" ? args.prompt : undefined)),
    cmd("yoke.explainSelection", () => c.explainSelection()),
    cmd("yoke.editSelection", (args?: { instruction?: unknown }) => c.editSelection(typeof args?.instruction === "string" ? args.instruction : undefined)),
    cmd("yoke.fixProblems", (uri?: unknown) => c.fixProblems(uri instanceof vscode.Uri ? uri : undefined)),
    cmd("yoke.addSelectionToChat", () => c.addSelection()),
    cmd("yoke.addFileToChat", (uri?: unknown, uris?: unknown) => c.addFiles(fileUris(uri, uris))),
    cmd("yoke.stop", () => deps.existing()?.stop()),
    cmd("yoke.switchModel", () => switchModelPick(deps.keys, deps.log)),
    cmd("yoke.setPermissionMode", () => permissionModePick(deps.controller())),
    cmd("yoke.openSession", () => openSessionPick(deps.controller(), deps.reveal)),
    cmd("yoke.showLog", () => deps.log.show()),
  );
  return {
    attach(controller) {
      statusBar.attach(controller);
    },
  };
}

function shownInTab(uri: vscode.Uri): boolean {
  const key = uri.toString();
  return (vscode.window.tabGroups?.all ?? []).some((g) => g.tabs.some((t) => (t.input as { uri?: vscode.Uri } | undefined)?.uri?.toString() === key));
}

/** The explorer passes the clicked file and all selected ones; a keybinding or the palette passes nothing. */
function fileUris(uri: unknown, uris: unknown): vscode.Uri[] | undefined {
  if (Array.isArray(uris) && uris.every((u) => u instanceof vscode.Uri) && uris.length) return uris as vscode.Uri[];
  return uri instanceof vscode.Uri ? [uri] : undefined;
}

class PaletteCommands {
  constructor(private readonly deps: PaletteDeps) {}

  /** A fresh session in the panel with the keyboard in its prompt box (or `prompt` sent at once). */
  async newTask(prompt?: string): Promise<void> {
    const controller = this.deps.controller();
    if (controller.isRunning) {
      const stop = "Stop It and Start a New Task";
      const pick = await notify("warning", "Yoke is working on a task. Stop it and start a new one?", { modal: true }, stop);
      if (pick !== stop) return;
    }
    await this.deps.reveal();
    controller.newSession();
    if (prompt?.trim()) void controller.send(prompt.trim());
    else this.focusComposer(controller);
  }

  async explainSelection(): Promise<void> {
    const editor = this.editor("Explain Selection");
    if (!editor) return;
    const excerpt = selectionExcerpt(editor);
    if (!excerpt) return this.selectFirst("Explain Selection");
    await this.send(explainSelectionPrompt(excerpt));
  }

  async editSelection(instruction?: string): Promise<void> {
    const editor = this.editor("Edit Selection");
    if (!editor) return;
    if (!this.idle()) return;
    const first = selectionExcerpt(editor, { cursorLine: true })!;
    const where = `${first.path}, ${first.cursorOnly ? `at the cursor (${rangeLabel(first)})` : rangeLabel(first)}`;
    const text =
      instruction?.trim() ||
      (
        await vscode.window.showInputBox({
          title: "Yoke: Edit Selection",
          prompt: `What should change in ${where}? You review the edit as a diff before it is written.`,
          placeHolder: "e.g. handle an empty list and add a doc comment",
          ignoreFocusOut: true,
          validateInput: (v) => (v.trim() ? undefined : "Say what to change, or press Escape to cancel."),
        })
      )?.trim();
    if (!text) return;
    if (!(await readyForEdit(editor.document, "Edit Selection"))) return;
    // Taken again after a save: the anchors must match the file on disk.
    const excerpt = selectionExcerpt(editor, { cursorLine: true })!;
    await hashlineReady();
    await this.send(editSelectionPrompt(excerpt, text));
  }

  async fixProblems(uri?: vscode.Uri): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target) {
      void notify("info", "Yoke: open the file whose problems should be fixed first.");
      return;
    }
    if (!this.idle()) return;
    const doc = await vscode.workspace.openTextDocument(target);
    if (!(await readyForEdit(doc, "Fix Problems in File"))) return;
    // Language servers check the files open in tabs: one picked in the Explorer is shown (without
    // the focus) and its first report waited for, as the verification does.
    if (!shownInTab(doc.uri)) {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Yoke: waiting for the problems of ${modelPath(doc.uri)}` }, () =>
        createVscodeDiagnostics(this.deps.log)
          .current([uriPathToFsPath(doc.uri.path)], AbortSignal.timeout(60_000))
          .catch(() => undefined),
      );
    }
    const problems = problemsToFix(fileProblems(doc.uri));
    if (!problems.length) {
      void notify("info", `Yoke: VS Code reports no errors, warnings or infos in ${modelPath(doc.uri)}.`);
      return;
    }
    await hashlineReady();
    await this.send(fixProblemsPrompt({ path: modelPath(doc.uri), lines: documentLines(doc) }, problems));
  }

  /** The selection becomes a chip of the prompt box, as `@selection` makes it. */
  async addSelection(): Promise<void> {
    const editor = this.editor("Add Selection to Chat");
    if (!editor) return;
    const controller = this.deps.controller();
    const item = controller.composer.selection();
    if (!item) return this.selectFirst("Add Selection to Chat");
    if (item.kind === "selection" && item.text.length > MAX_UNSAVED_CHARS) {
      void notify("info", `Yoke: the selection has ${item.text.length} characters, more than a chip carries (${MAX_UNSAVED_CHARS}); save the file and run Add File to Chat instead.`);
      return;
    }
    await this.addChips(controller, [item]);
  }

  /**
   * Each file (or folder) becomes a chip of the prompt box, as an @-mention of it does: read when
   * the message is sent, through the workspace and its permission rules. A file with unsaved
   * changes is attached as the editor shows it (all its lines, as a selection of them).
   */
  async addFiles(uris?: vscode.Uri[]): Promise<void> {
    const targets = uris ?? (vscode.window.activeTextEditor ? [vscode.window.activeTextEditor.document.uri] : []);
    if (!targets.length) {
      void notify("info", "Yoke: open a file (or pick one in the Explorer) to add it to the chat.");
      return;
    }
    const items: ContextItemView[] = [];
    for (const uri of targets) {
      const path = modelPath(uri);
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (open?.isUntitled) {
        void notify("info", `Yoke: save ${path} first, or select its text and run Add Selection to Chat.`);
        continue;
      }
      if (open?.isDirty && open.getText().length <= MAX_UNSAVED_CHARS) {
        items.push({ kind: "selection", path, startLine: 1, endLine: Math.max(1, open.lineCount), text: open.getText() });
        continue;
      }
      try {
        const folder = (await vscode.workspace.fs.stat(uri)).type & vscode.FileType.Directory;
        items.push(folder ? { kind: "folder", path } : { kind: "file", path });
      } catch (err) {
        void notify("error", `Yoke: cannot add ${path}: ${(err as Error).message}`);
      }
    }
    if (items.length) await this.addChips(this.deps.controller(), items);
  }

  private editor(what: string): vscode.TextEditor | undefined {
    const editor = vscode.window.activeTextEditor;
    if (!editor) void notify("info", `Yoke: ${what} works on the code selected in an editor; open one first.`);
    return editor;
  }

  private selectFirst(what: string): void {
    void notify("info", `Yoke: select some code first, then run ${what}.`);
  }

  /** Not while a task runs (one run at a time): says so, with a way to stop it. */
  private idle(): boolean {
    const controller = this.deps.existing();
    if (!controller?.isRunning) return true;
    const stop = "Stop";
    void notify("warning", "Yoke is still working on a task. Wait for it, or stop it first.", stop).then((pick) => {
      if (pick === stop) controller.stop();
    });
    return false;
  }

  /** Sends `text` as the next message of the panel's session, shown in the panel. Returns once it is sent (not when the run ends). */
  private async send(text: string): Promise<void> {
    if (!this.idle()) return;
    const controller = this.deps.controller();
    await this.deps.reveal();
    void controller.send(text);
  }

  /** Shows the panel, then the chips in its prompt box (which takes the keyboard focus). */
  private async addChips(controller: SessionController, items: readonly ContextItemView[]): Promise<void> {
    await this.deps.reveal();
    for (const item of items) controller.composer.addContext(item);
  }

  private focusComposer(controller: SessionController): void {
    controller.postView({ type: "composer.focus" });
  }
}
