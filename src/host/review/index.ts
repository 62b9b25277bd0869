// The change review feature: registers the reviewer, its views and commands, and returns what the
// session (ToolContext.reviewer) and the panel (pending-changes list) need.
import { activity } from "../../node/watchdog";
import * as vscode from "vscode";
import { uriPathToFsPath } from "../workspace-fs";
import { ReviewCodeLens, SHOW_PROPOSAL_COMMAND } from "./code-lens";
import { registerReviewCommands } from "./commands";
import { ReviewDecorations } from "./decorations";
import { ORIGINAL_SCHEME, OriginalContentProvider } from "./original-content";
import { PROPOSAL_SCHEME, ProposalFileSystem } from "./proposal-fs";
import type { ReviewListItem } from "./review-entry";
import { VscodeChangeReviewer } from "./vscode-reviewer";

export type { ReviewListItem } from "./review-entry";
export { STOPPED_MESSAGE, VscodeChangeReviewer } from "./vscode-reviewer";

/** What the rest of the extension uses. */
export interface ReviewFeature {
  /** Pass as ToolContext.reviewer (AgentSessionOptions.toolContext.reviewer). */
  reviewer: VscodeChangeReviewer;
  /** Pending and auto-applied changes with +/- counts, for the panel. */
  list(): ReviewListItem[];
  onDidChange(listener: () => void): vscode.Disposable;
  accept(editId: string): Promise<void>;
  /** Rejects the whole change; `message` goes to the model. */
  reject(editId: string, message?: string): Promise<void>;
  /** Undoes an auto-applied change; resolves to why it cannot, or undefined. */
  revert(editId: string): Promise<string | undefined>;
  openDiff(editId: string): Promise<void>;
}

/** The URI of an absolute workspace path, in the scheme of the folder holding it (remote-safe). */
export function workspaceUri(path: string): vscode.Uri {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const folder =
    folders.find((f) => {
      const root = uriPathToFsPath(f.uri.path);
      return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
    }) ?? folders[0];
  const uriPath = path.startsWith("/") ? path : `/${path}`;
  return folder ? folder.uri.with({ path: uriPath }) : vscode.Uri.file(path);
}

export function registerReview(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): ReviewFeature {
  const originals = new OriginalContentProvider();
  const proposals = new ProposalFileSystem();
  const reviewer = new VscodeChangeReviewer({ toUri: workspaceUri, log, originals, proposals });
  const decorations = new ReviewDecorations();
  const lenses = new ReviewCodeLens(
    (uri) => reviewer.pendingFor(uri),
    (uri) => reviewer.pendingForFile(uri),
  );
  const redraw = () => {
    decorations.render((uri) => reviewer.pendingFor(uri));
    lenses.refresh();
  };
  context.subscriptions.push(
    reviewer,
    proposals,
    vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, proposals, { isCaseSensitive: true }),
    decorations,
    lenses,
    vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, originals),
    vscode.languages.registerCodeLensProvider({ scheme: "*" }, lenses),
    reviewer.onDidChangeEntries(() => activity("review:redraw", redraw)),
    vscode.window.onDidChangeVisibleTextEditors(() => activity("review:redraw", redraw)),
    ...registerReviewCommands(reviewer),
    vscode.commands.registerCommand(SHOW_PROPOSAL_COMMAND, (editId?: unknown) => (typeof editId === "string" ? reviewer.show(editId) : undefined)),
  );
  return {
    reviewer,
    list: () => reviewer.list(),
    onDidChange: (listener) => reviewer.onDidChangeEntries(listener),
    accept: (editId) => activity("review:accept", () => reviewer.decide(editId, "all", "accepted")),
    reject: (editId, message) => activity("review:reject", () => reviewer.decide(editId, "all", "rejected", message)),
    revert: (editId) => reviewer.revert(editId),
    openDiff: (editId) => reviewer.openDiff(editId),
  };
}
