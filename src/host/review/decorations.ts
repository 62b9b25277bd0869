// Inline view of pending hunks in every editor showing the file: added lines on a green
// background with a gutter bar, removed lines as a note after the hunk's first line (hover shows
// them), and a red rule where lines were only deleted.
import * as vscode from "vscode";
import type { ReviewEntry } from "./review-entry";

const MAX_HOVER_LINES = 60;

/**
 * A fenced code block no line of `code` can close. Not VS Code's `appendCodeblock`: it counts
 * backticks at the start of a line only, while markdown closes a fence indented up to three spaces
 * (or after a lone CR), so a removed line "   ```" let the lines after it render as markdown
 * (red team D, session 23). The fence is longer than any run of backticks anywhere in the text.
 */
export function codeBlock(code: string, lang: string): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `\n\n${fence}${lang.replace(/[`\s]/g, "")}\n${code}\n${fence}\n`;
}

export class ReviewDecorations implements vscode.Disposable {
  private readonly added = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("diffEditor.insertedLineBackground"),
    borderColor: new vscode.ThemeColor("editorGutter.addedBackground"),
    borderStyle: "solid",
    borderWidth: "0 0 0 3px",
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.addedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly deletion = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    borderColor: new vscode.ThemeColor("editorGutter.deletedBackground"),
    borderStyle: "solid",
    borderWidth: "2px 0 0 0",
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.deletedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly note = vscode.window.createTextEditorDecorationType({});

  /** Redraws every visible editor; `entryFor` gives the pending change of a document. */
  render(entryFor: (uri: vscode.Uri) => ReviewEntry | undefined): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const entry = entryFor(editor.document.uri);
      const added: vscode.Range[] = [];
      const deletions: vscode.Range[] = [];
      const notes: vscode.DecorationOptions[] = [];
      const last = editor.document.lineCount - 1;
      for (const k of entry?.undecided ?? []) {
        const r = entry!.ranges[k]!;
        const h = entry!.hunks[k]!;
        const first = Math.min(r.start, last);
        if (r.end > r.start) added.push(new vscode.Range(first, 0, Math.min(r.end - 1, last), 0));
        else deletions.push(new vscode.Range(first, 0, first, 0));
        if (!h.beforeLines.length) continue;
        const n = h.beforeLines.length;
        const hover = new vscode.MarkdownString(`**Yoke, hunk ${k + 1}: ${n} line${n === 1 ? "" : "s"} removed**`);
        const shown = h.beforeLines.slice(0, MAX_HOVER_LINES).map((l) => l.replace(/\r?\n$/, ""));
        hover.appendMarkdown(codeBlock(shown.join("\n") + (n > MAX_HOVER_LINES ? `\n… (${n - MAX_HOVER_LINES} more)` : ""), editor.document.languageId));
        const eol = editor.document.lineAt(first).range.end;
        notes.push({
          range: new vscode.Range(eol, eol),
          hoverMessage: hover,
          renderOptions: {
            after: {
              contentText: `  − ${n} line${n === 1 ? "" : "s"} ${r.end > r.start ? "replaced" : "removed here"} (hover)`,
              color: new vscode.ThemeColor("editorGutter.deletedBackground"),
              fontStyle: "italic",
            },
          },
        });
      }
      editor.setDecorations(this.added, added);
      editor.setDecorations(this.deletion, deletions);
      editor.setDecorations(this.note, notes);
    }
  }

  dispose(): void {
    this.added.dispose();
    this.deletion.dispose();
    this.note.dispose();
  }
}
