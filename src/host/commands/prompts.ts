// The texts the palette and editor commands send to the model (model-facing: see
// test/unit/palette/prompts.test.ts). Pure: no `vscode`, no Node; the commands gather what the
// editor shows and these functions word it. Line numbers are 1-based and inclusive.
import { formatHashline } from "../../core/edit/hashline";
import type { Diagnostic } from "../../core/verification/types";

/** Longest code excerpt put into a prompt; beyond it the model is told to read the rest. */
export const MAX_EXCERPT_CHARS = 40_000;
/** Problems listed by "Fix Problems in File"; the rest are counted. */
export const MAX_PROBLEMS = 50;
/** Lines shown above and below each problem. */
export const PROBLEM_CONTEXT_LINES = 2;

/** Where a piece of code is: its path as the model should name it and its line range. */
export interface CodeRange {
  /** Workspace-relative path (absolute when outside the workspace). */
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** The editor's language id (typescript, python…), for the code fence. */
  languageId?: string;
}

/** A selection: its range, the exact selected text, and the whole lines it touches. */
export interface SelectionExcerpt extends CodeRange {
  text: string;
  /** The full text of lines startLine..endLine. */
  lines: readonly string[];
  /** The selection covers its lines completely (no partial first or last line). */
  wholeLines: boolean;
  /** The editor has unsaved changes: the text differs from the file on disk. */
  unsaved?: boolean;
  /** Nothing was selected: the excerpt is the line the cursor is on. */
  cursorOnly?: boolean;
}

/** A fence of backticks longer than any run of backticks in `text`, so the code cannot close it. */
export function fence(text: string, languageId = ""): { open: string; close: string } {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(Math.max(3, longest + 1));
  return { open: `${ticks}${fenceLanguage(languageId)}`, close: ticks };
}

/** A language id usable after a fence (letters, digits, +, #, -, .): anything else is left out. */
function fenceLanguage(languageId: string): string {
  return /^[\w+#.-]{1,40}$/.test(languageId) && languageId !== "plaintext" ? languageId : "";
}

export function fenced(text: string, languageId?: string): string {
  const f = fence(text, languageId);
  return `${f.open}\n${text}${text.endsWith("\n") ? "" : "\n"}${f.close}`;
}

export function rangeLabel(r: Pick<CodeRange, "startLine" | "endLine">): string {
  return r.startLine === r.endLine ? `line ${r.startLine}` : `lines ${r.startLine}-${r.endLine}`;
}

/** `text` cut to `max` characters at a line end, and how many characters were left out. */
function bounded(text: string, max: number): { text: string; omitted: number } {
  if (text.length <= max) return { text, omitted: 0 };
  const cut = text.lastIndexOf("\n", max);
  const keep = cut > max / 2 ? cut : max;
  return { text: text.slice(0, keep), omitted: text.length - keep };
}

function omittedNote(omitted: number, path: string): string {
  return omitted ? `\n(${omitted} more characters of the selection are not shown here: read them from ${path} with read_file.)` : "";
}

function unsavedNote(s: { unsaved?: boolean }): string {
  return s.unsaved ? "\n(The editor has unsaved changes: this is the editor's text, which may differ from the file on disk.)" : "";
}

/** "Yoke: Explain Selection". */
export function explainSelectionPrompt(s: SelectionExcerpt): string {
  const { text, omitted } = bounded(s.text, MAX_EXCERPT_CHARS);
  return [
    `Explain the code I selected in ${s.path}, ${rangeLabel(s)}:`,
    "",
    fenced(text, s.languageId) + omittedNote(omitted, s.path) + unsavedNote(s),
    "",
    "Say what it does and why, in the context of this project: its inputs, its result and side effects, and anything surprising, fragile or likely wrong. " +
      "Read other code only where the explanation needs it. Do not change any files.",
  ].join("\n");
}

/** The hashline view (`LINE#HH|text`) of `lines`, numbered from `start`; bounded. */
function anchoredLines(lines: readonly string[], start: number, max = MAX_EXCERPT_CHARS): { view: string; shownTo: number } {
  const out: string[] = [];
  let size = 0;
  let n = start;
  for (const line of lines) {
    const row = formatHashline(n, line);
    if (size + row.length + 1 > max && out.length) break;
    out.push(row);
    size += row.length + 1;
    n++;
  }
  return { view: out.join("\n"), shownTo: n - 1 };
}

/**
 * "Yoke: Edit Selection…": the instruction, and the selected lines with their read_file anchors,
 * so the model can edit them at once with edit_file (no read first). The edit goes through the
 * permission gate and the review like any other.
 */
export function editSelectionPrompt(s: SelectionExcerpt, instruction: string): string {
  const { view, shownTo } = anchoredLines(s.lines, s.startLine);
  const partial = shownTo < s.endLine ? `\n(Lines ${shownTo + 1}-${s.endLine} are not shown here: read them with read_file before you edit them.)` : "";
  const exact = s.wholeLines ? [] : ["", "The selection itself is only part of those lines:", fenced(bounded(s.text, MAX_EXCERPT_CHARS).text, s.languageId)];
  return [
    s.cursorOnly ? `Edit the code at my cursor in ${s.path}, ${rangeLabel(s)}, as follows:` : `Edit the code I selected in ${s.path}, ${rangeLabel(s)}, as follows:`,
    "",
    instruction.trim(),
    "",
    `${s.cursorOnly ? "The cursor's line as read_file shows it" : s.startLine === s.endLine ? "The selected line as read_file shows it" : "The selected lines as read_file shows them"} (LINE#HASH|text; the anchors match ${s.path} as it is now):`,
    fenced(view) + partial,
    ...exact,
    "",
    (s.cursorOnly ? "Make the change there with edit_file" : "Change these lines with edit_file") +
      " (hashline ops with these anchors need no read_file first). Change code outside the selection only where the instruction cannot be done without it, and then as little as possible. " +
      "I review your edit as a diff before it is written. When it is done, say in one or two sentences what you changed.",
  ].join("\n");
}

/** One problem of "Fix Problems in File", as the commands gather it from vscode.languages.getDiagnostics. */
export type FileProblem = Omit<Diagnostic, "path">;

const SEVERITY_ORDER: Record<Diagnostic["severity"], number> = { error: 0, warning: 1, info: 2, hint: 3 };

/** The problems worth a task: errors, warnings and infos (hints are style suggestions), most severe first, then by line. */
export function problemsToFix(problems: readonly FileProblem[]): FileProblem[] {
  return problems
    .filter((p) => p.severity !== "hint")
    .slice()
    .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.line - b.line || (a.column ?? 0) - (b.column ?? 0));
}

/** One problem as the verification tells the model about new ones: `- path:line:col severity (source code): message`. */
export function problemLine(path: string, p: FileProblem): string {
  const who = [p.source, p.code].filter(Boolean).join(" ");
  const message = p.message.replace(/\s*\n\s*/g, " ").trim();
  return `- ${path}:${p.line}${p.column ? `:${p.column}` : ""} ${p.severity}${who ? ` (${who})` : ""}: ${message.length > 400 ? `${message.slice(0, 399)}…` : message}`;
}

function counted(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/** The line ranges around the problems, merged where they touch. */
export function problemRegions(lines: number, problems: readonly FileProblem[], context = PROBLEM_CONTEXT_LINES): Array<{ from: number; to: number }> {
  const ranges = problems
    .map((p) => ({ from: Math.max(1, p.line - context), to: Math.min(lines, p.line + context) }))
    .filter((r) => r.from <= r.to)
    .sort((a, b) => a.from - b.from);
  const out: Array<{ from: number; to: number }> = [];
  for (const r of ranges) {
    const last = out.at(-1);
    if (last && r.from <= last.to + 1) last.to = Math.max(last.to, r.to);
    else out.push({ ...r });
  }
  return out;
}

/**
 * "Yoke: Fix Problems in File": the file's problems (path, line, column, severity, source, code,
 * message) as the task, with the lines around them and their anchors so the model can fix them
 * without reading the whole file first.
 */
export function fixProblemsPrompt(file: { path: string; lines: readonly string[] }, all: readonly FileProblem[]): string {
  const problems = problemsToFix(all);
  const listed = problems.slice(0, MAX_PROBLEMS);
  const errors = problems.filter((p) => p.severity === "error").length;
  const warnings = problems.filter((p) => p.severity === "warning").length;
  const infos = problems.length - errors - warnings;
  const counts = [errors ? counted(errors, "error") : "", warnings ? counted(warnings, "warning") : "", infos ? counted(infos, "info") : ""].filter(Boolean).join(", ");
  const regions = problemRegions(file.lines.length, listed);
  const views: string[] = [];
  let budget = MAX_EXCERPT_CHARS;
  for (const r of regions) {
    if (budget <= 0) break;
    const { view } = anchoredLines(file.lines.slice(r.from - 1, r.to), r.from, budget);
    views.push(view);
    budget -= view.length + 4;
  }
  const shownAll = views.length === regions.length;
  return [
    `Fix the problems VS Code reports in ${file.path} (${counts}):`,
    ...listed.map((p) => problemLine(file.path, p)),
    ...(problems.length > listed.length ? [`- … and ${problems.length - listed.length} more`] : []),
    "",
    `The lines around them as read_file shows them (LINE#HASH|text; the anchors match ${file.path} as it is now):`,
    fenced(views.join("\n...\n")),
    ...(shownAll ? [] : ["(Some regions are not shown: read them with read_file.)"]),
    "",
    "Fix the cause of each problem with edit_file; read more of the file or other files only where a fix needs it. " +
      "Do not silence a problem (no @ts-ignore, eslint-disable, casts to any or empty catch blocks) unless there is no real fix, and then say why. " +
      "If a problem is a false report, leave it and say why. I review your edits as diffs before they are written. When done, list what you fixed in one line each.",
  ].join("\n");
}
