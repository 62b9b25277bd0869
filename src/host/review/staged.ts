// The staged placement, when `files.autoSave` is on for the file (auto save would write whatever
// the editor holds): the proposal is kept in a yoke-proposal: document of its own, and the file is
// written only when the review ends, over whatever the user changed in it meanwhile (where that
// does not touch the change).
import * as vscode from "vscode";
import type { ProposedChange, ReviewOutcome } from "../../core/review";
import { applyHunks, computeHunks, normalizeEol, proposalRanges, rebaseHunks, type Hunk } from "../../core/review-hunks";
import { ToolError } from "../../core/tools/types";
import { docRange } from "./document-ranges";
import { exists } from "./own-writes";
import { adopt, type PlacementContext } from "./placement";
import { findProposal } from "./reattach";
import { ReviewEntry } from "./review-entry";

/**
 * The proposal goes into a yoke-proposal: document of its own and the file keeps its text (with
 * any unsaved edits of the user) until the review ends.
 */
export async function startStaged(c: PlacementContext, change: ProposedChange, uri: vscode.Uri, real: vscode.TextDocument | undefined, signal: AbortSignal): Promise<ReviewOutcome> {
  const { opts, own } = c;
  const base = real?.getText() ?? "";
  let hunks: Hunk[];
  let proposal: string;
  if (change.before === null) {
    if (base !== "" || (!real && (await exists(uri)))) throw new ToolError(`${change.relPath} now exists (it was created after you checked). Read it, then edit it.`);
    hunks = computeHunks(null, change.after);
    proposal = change.after;
  } else {
    hunks = c.placeHunks(change, real!);
    proposal =
      normalizeEol(base) === normalizeEol(change.before)
        ? change.after
        : applyHunks(
            base,
            hunks,
            hunks.map(() => "accepted"),
          );
  }
  if (!hunks.length) return { status: "accepted", finalContent: base, hunkDecisions: [] };
  const docUri = opts.proposals.uriFor(change.editId, uri);
  opts.proposals.set(docUri, proposal);
  const doc = await vscode.workspace.openTextDocument(docUri);
  // After a reload VS Code may have restored the proposal's editor, possibly with the user's unsaved typing.
  const placed = change.resumed ? findProposal(base, proposal, hunks, doc.getText(), doc.isDirty) : null;
  if (!placed && normalizeEol(doc.getText()) !== normalizeEol(proposal)) {
    const edit = new vscode.WorkspaceEdit();
    edit.replace(docUri, docRange(doc), proposal);
    await own.apply(edit);
    await own.save(doc);
  }
  opts.originals.set(change.editId, base);
  opts.log.info(`review ${change.editId}: ${change.relPath}, ${hunks.length} hunk(s), waiting for the user (kept out of the file: auto save is on)`);
  return c.waitForUser(signal, doc, (settle) => {
    const entry = new ReviewEntry(change, uri, "ask", hunks, placed?.ranges ?? proposalRanges(hunks), settle, docUri);
    entry.base = base;
    entry.createdFile = change.before === null && real !== undefined;
    if (placed) adopt(entry, placed);
    return entry;
  });
}

/**
 * Staged: the proposal document holds the decided text. It is written into the file, over
 * whatever the user changed in the file meanwhile (where that does not touch the change).
 */
export async function writeStaged(c: PlacementContext, entry: ReviewEntry, doc: vscode.TextDocument, allRejected: boolean): Promise<{ finalContent: string | null; error?: string }> {
  const { own } = c;
  const rel = entry.change.relPath;
  const decided = doc.getText();
  const base = entry.base ?? "";
  let real = await openIfExists(entry.uri);
  if (allRejected) {
    if (entry.createdFile && real && real.getText() === "") await own.removeCreated(real);
    else if (real && normalizeEol(decided) !== normalizeEol(base)) {
      // The user typed in the proposal outside its hunks: their text goes to the file's editor (not saved by Yoke).
      const carried = carryOnto(base, decided, real.getText());
      if (carried !== null) await own.replaceText(real, carried);
    }
    return { finalContent: await own.diskText(entry.uri) };
  }
  const current = real?.getText();
  const target = current === undefined ? (entry.change.before === null ? decided : null) : carryOnto(base, decided, current);
  if (target === null) {
    return {
      finalContent: await own.diskText(entry.uri),
      error: `${rel} was changed outside the review${current === undefined ? " (it was deleted)" : ", in the lines the change touches,"} while the change waited for the user, so the change was not written. Read the file again and redo the change if it is still needed.`,
    };
  }
  if (!real) {
    real = await own.createEmpty(entry.change, entry.uri).catch((err: unknown) => {
      if (err instanceof ToolError) return undefined;
      throw err;
    });
    if (!real) return { finalContent: await own.diskText(entry.uri), error: `${rel} could not be created (it exists now, or VS Code refused), so the change was not written.` };
  }
  await own.replaceText(real, target);
  const saved = await own.save(real);
  if (!saved) c.opts.log.warn(`review ${entry.editId}: ${rel} could not be saved; reporting the content on disk`);
  return { finalContent: saved ? real.getText() : await own.diskText(entry.uri) };
}

/** Closes a staged proposal's editors (and diff editors) and forgets it; shows the file where the proposal was, if it was written. */
export async function closeProposal(c: PlacementContext, entry: ReviewEntry, showFile: boolean): Promise<void> {
  const key = entry.docUri.toString();
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
  if (doc?.isDirty) await c.own.save(doc); // no "save changes?" prompt on close
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => tabShows(t, key));
  const shownIn = tabs.find((t) => t.isActive && t.input instanceof vscode.TabInputText)?.group;
  const focused = vscode.window.activeTextEditor?.document.uri.toString() === key;
  if (tabs.length) await Promise.resolve(vscode.window.tabGroups.close(tabs, true)).catch(() => false);
  c.opts.proposals.drop(entry.docUri);
  if (showFile && shownIn) {
    await vscode.workspace.openTextDocument(entry.uri).then(
      (file) => vscode.window.showTextDocument(file, { viewColumn: shownIn.viewColumn, preview: true, preserveFocus: !focused }),
      () => undefined,
    );
  }
}

/**
 * The changes from `base` to `decided` applied to `current` (the file, which the user may have
 * changed meanwhile); null when those changes of the user's touch lines the decision changes.
 */
function carryOnto(base: string, decided: string, current: string): string | null {
  if (normalizeEol(current) === normalizeEol(base)) return decided;
  const delta = computeHunks(base, decided);
  const moved = rebaseHunks(base, current, delta);
  return moved
    ? applyHunks(
        current,
        moved,
        moved.map(() => "accepted"),
      )
    : null;
}

function tabShows(tab: vscode.Tab, key: string): boolean {
  const input = tab.input;
  if (input instanceof vscode.TabInputText) return input.uri.toString() === key;
  if (input instanceof vscode.TabInputTextDiff) return input.modified.toString() === key;
  return false;
}

async function openIfExists(uri: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  if (!(await exists(uri))) return undefined;
  return vscode.workspace.openTextDocument(uri);
}
