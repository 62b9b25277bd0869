/**
 * What an applied edit is reported as: +/- line counts, a compact unified diff (capped), and the
 * fresh hashline view of the changed region, so the model's next edit needs no re-read.
 */
import { createPatch, structuredPatch } from "diff";
import { formatHashline, formatHashlineView } from "./hashline";
import { docLines, type TextDoc } from "./text-doc";

/** Longest line shown (as read_file); longer ones are cut with a note. */
const MAX_LINE_CHARS = 2000;

function cut(line: string): string {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length - MAX_LINE_CHARS} more characters]`;
}

export interface EditSummary {
  added: number;
  removed: number;
  /** Compact diff (1 line of context), capped at `maxDiffLines`. */
  compactDiff: string;
  /** Full unified diff (3 lines of context) for the review UI. */
  fullDiff: string;
  /** Hashline view of the changed regions of the new file, capped at `maxViewLines`. */
  view: string;
  /**
   * The compact diff with the new file's lines as hashline rows (what edit_file answers): removed
   * lines `-text`, added lines `+N#HH|text`, unchanged context ` N#HH|text`, hunks separated by a
   * bare `@@` (the rows carry their line numbers). Each line once, and every line now in the file
   * with its fresh anchor. Capped at `maxDiffLines` rows.
   */
  anchoredDiff: string;
}

export function summarizeEdit(path: string, before: TextDoc, after: TextDoc, maxDiffLines = 60, maxViewLines = 60): EditSummary {
  const patch = structuredPatch(path, path, before.text, after.text, "", "", { context: 1 });
  let added = 0;
  let removed = 0;
  const out: string[] = [];
  let truncated = 0;
  for (const h of patch.hunks) {
    const block = [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines.filter((l) => !l.startsWith("\\"))];
    for (const l of h.lines) {
      if (l.startsWith("+")) added++;
      else if (l.startsWith("-")) removed++;
    }
    for (const l of block) {
      if (out.length < maxDiffLines) out.push(cut(l));
      else truncated++;
    }
  }
  if (truncated) out.push(`... (${truncated} more diff lines not shown)`);

  const lines = docLines(after.text);
  const anchored: string[] = [];
  let notShown = 0;
  for (const h of patch.hunks) {
    // A bare `@@` between hunks: every line now in the file carries its number, so the header's ranges would say it twice.
    const block = ["@@"];
    let n = h.newStart;
    for (const l of h.lines) {
      if (l.startsWith("\\")) continue;
      if (l.startsWith("-")) block.push(cut(l));
      else {
        block.push(l[0] + cut(formatHashline(n, lines[n - 1] ?? l.slice(1))));
        n++;
      }
    }
    for (const l of block) {
      if (anchored.length < maxDiffLines) anchored.push(l);
      else notShown++;
    }
  }
  if (notShown) anchored.push(`... (${notShown} more diff lines not shown; read_file shows the current lines)`);

  const ranges: Array<[number, number]> = [];
  for (const h of patch.hunks) {
    const from = Math.max(1, h.newStart);
    const to = Math.min(lines.length, h.newStart + Math.max(h.newLines, 1) - 1);
    const last = ranges[ranges.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  }
  const view: string[] = [];
  let shown = 0;
  let hidden = 0;
  for (const [from, to] of ranges) {
    if (to < from) continue;
    const room = maxViewLines - shown;
    if (room <= 0) {
      hidden += to - from + 1;
      continue;
    }
    if (view.length) view.push("    ...");
    const end = Math.min(to, from + room - 1);
    view.push(formatHashlineView(lines, from, end).split("\n").map(cut).join("\n"));
    shown += end - from + 1;
    hidden += to - end;
  }
  if (hidden) view.push(`    ... (${hidden} more changed lines; read_file shows them)`);
  return {
    added,
    removed,
    compactDiff: out.join("\n"),
    anchoredDiff: anchored.join("\n"),
    fullDiff: createPatch(path, before.text, after.text, "", ""),
    view: view.join("\n"),
  };
}
