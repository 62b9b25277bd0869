// What both placements of a proposal (inline.ts: in the file's own document; staged.ts: in a
// yoke-proposal: document of its own) use from the reviewer.
import type * as vscode from "vscode";
import type { ProposedChange, ReviewOutcome } from "../../core/review";
import type { Hunk } from "../../core/review-hunks";
import type { OriginalContentProvider } from "./original-content";
import type { OwnWrites } from "./own-writes";
import type { ProposalFileSystem } from "./proposal-fs";
import type { Placement } from "./reattach";
import type { ReviewEntry } from "./review-entry";

export interface ReviewerOptions {
  /** The URI of a workspace file given its absolute path (the workspace folder's scheme: remote-safe). */
  toUri(path: string): vscode.Uri;
  log: vscode.LogOutputChannel;
  originals: OriginalContentProvider;
  /** Where staged proposals live (registered for the yoke-proposal scheme). */
  proposals: ProposalFileSystem;
}

export interface PlacementContext {
  opts: ReviewerOptions;
  own: OwnWrites;
  /** The change's hunks in the document's coordinates (refuses when the user's edits touch them). */
  placeHunks(change: ProposedChange, doc: vscode.TextDocument): Hunk[];
  /** Lists the review, shows it, and resolves when every hunk is decided. */
  waitForUser(signal: AbortSignal, doc: vscode.TextDocument, make: (settle: (o: ReviewOutcome) => void) => ReviewEntry): Promise<ReviewOutcome>;
  /** Lists an entry (an auto-applied change stays listed for Revert). */
  remember(entry: ReviewEntry): void;
  /** The list, a decision or a hunk position changed. */
  changed(): void;
}

/** Takes over what a restored document shows: hunks already rejected, hunks the user typed in. */
export function adopt(entry: ReviewEntry, placed: Placement): void {
  placed.decisions.forEach((d, k) => (entry.decisions[k] = d));
  for (const k of placed.touched) entry.touched.add(k);
}
