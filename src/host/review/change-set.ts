// A change of several files (a patch) under review as one (core/review.ts: ProposedChangeSet):
// every file is placed like a single change (inline or staged, with its hunks and CodeLens), but
// nothing is written until every file of the change is decided; then the files are written in
// order, all or nothing — if a write fails, the files already written are put back. A delete is
// shown as one hunk removing every line; a move as the source's document with the move's hunks,
// written to the destination (and the source removed) when any of it is accepted.
import * as vscode from "vscode";
import type { ReviewOutcome } from "../../core/review";
import { applyHunks, computeHunks } from "../../core/review-hunks";
import { statusOf } from "../../core/review-set";
import { userEditsDiff } from "../../core/review-outcome";
import { ToolError } from "../../core/tools/types";
import { writeInline } from "./inline";
import { exists } from "./own-writes";
import type { PlacementContext } from "./placement";
import type { ReviewEntry } from "./review-entry";
import { writeStaged } from "./staged";

export interface SetWriteResult {
  /** Per entry (in the order given), what its file holds now; absent when `error`. */
  written: Array<{ finalContent: string | null }>;
  /** A write failed: the files already written were put back. Model-facing. */
  error?: string;
}

/** Writes every decided file of the change in order; on the first failure puts back what was written. */
export async function writeSet(c: PlacementContext, entries: readonly ReviewEntry[]): Promise<SetWriteResult> {
  const undo: Array<{ uri: vscode.Uri; text: string | null }> = [];
  const written: SetWriteResult["written"] = [];
  for (const e of entries) {
    try {
      written.push(await writeFile(c, e, undo));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      c.opts.log.warn(`review ${e.editId}: writing the change failed (${why}); putting back ${undo.length} file(s)`);
      for (const u of undo.reverse()) await putBack(c, u);
      return { written: [], error: `writing ${e.file?.relPath ?? e.change.relPath} failed (${why}), so the files of the change already written were put back as they were.` };
    }
  }
  return { written };
}

async function writeFile(c: PlacementContext, e: ReviewEntry, undo: Array<{ uri: vscode.Uri; text: string | null }>): Promise<{ finalContent: string | null }> {
  const { own } = c;
  const file = e.file!;
  const allRejected = e.decided.every((d) => d === "rejected");
  const doc = e.hunks.length ? await vscode.workspace.openTextDocument(e.docUri) : undefined;
  if (allRejected || file.op === "update" || file.op === "add") {
    if (!doc) {
      // A file with nothing to show: an empty new file (created when accepted), or a rejected rename or delete.
      if (file.op !== "add" || allRejected) return { finalContent: await own.diskText(e.uri) };
      undo.push({ uri: e.uri, text: null });
      const created = await own.createEmpty(e.change, e.uri);
      if (!(await own.save(created))) throw new ToolError(`${file.relPath} could not be saved`);
      return { finalContent: "" };
    }
    if (!allRejected) undo.push({ uri: e.uri, text: await own.diskText(e.uri) });
    const w = e.staged ? await writeStaged(c, e, doc, allRejected) : { finalContent: await writeInline(c, e, doc, allRejected) };
    if ("error" in w && w.error) throw new ToolError(w.error);
    return { finalContent: w.finalContent };
  }
  // A delete, or a move, with something accepted. The source goes; a move's decided text goes to the destination.
  const decided = doc ? doc.getText() : e.change.after;
  const sourceText = await own.diskText(e.uri);
  if (doc && !e.staged) {
    // The document shows the proposal (unsaved): it goes back to the file's text before the file is removed.
    await own.replaceText(doc, e.change.before ?? "");
    if (!(await own.save(doc))) throw new ToolError(`${e.change.relPath} could not be saved`);
  }
  let finalContent: string | null = null;
  if (file.op === "move") {
    const dest = c.opts.toUri(file.path);
    if (await exists(dest)) throw new ToolError(`${file.relPath} exists now (it was created after the patch was checked)`);
    undo.push({ uri: dest, text: null });
    const created = await own.createEmpty(file, dest);
    await own.replaceText(created, decided);
    if (!(await own.save(created))) throw new ToolError(`${file.relPath} could not be saved`);
    finalContent = created.getText();
  }
  undo.push({ uri: e.uri, text: sourceText });
  const del = new vscode.WorkspaceEdit();
  del.deleteFile(e.uri, { ignoreIfNotExists: false });
  if (!(await own.apply(del))) throw new ToolError(`VS Code could not delete ${e.change.relPath}`);
  return { finalContent };
}

/** Puts a file back as it was before the change's writes (text null: it did not exist). */
async function putBack(c: PlacementContext, u: { uri: vscode.Uri; text: string | null }): Promise<void> {
  try {
    if (u.text === null) {
      if (await exists(u.uri)) await vscode.workspace.fs.delete(u.uri, { useTrash: false });
      return;
    }
    await vscode.workspace.fs.writeFile(u.uri, new TextEncoder().encode(u.text));
  } catch (err) {
    c.opts.log.error(`could not put back ${u.uri.toString()}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The outcome of one file of the change, for the model (core/review-set.ts describes it). */
export function fileOutcome(e: ReviewEntry, finalContent: string | null, message: string | undefined): ReviewOutcome {
  const decisions = e.decided;
  const status = statusOf(decisions);
  const op = e.file?.op;
  const showsText = op !== "delete" && finalContent !== null && status !== "rejected";
  const expected = applyHunks(e.change.before, computeHunks(e.change.before, e.change.after), e.hunks.length ? decisions : []);
  const userEdited = showsText && userEditsDiff(expected, finalContent, e.change.relPath) !== null;
  return {
    status,
    finalContent,
    hunkDecisions: e.hunks.length ? decisions : [],
    hunks: { accepted: decisions.filter((d) => d === "accepted").length, rejected: decisions.filter((d) => d === "rejected").length },
    ...(userEdited ? { userEdited } : {}),
    ...(message ? { message } : {}),
  };
}
