/**
 * The goal spec every policy model gets for a task: the change to make, stated the way a task
 * description would (which text to replace, where to insert, what to rename, which command to
 * run). It never says where a line is: each policy finds that out through its tools.
 */

/** Where a change goes: a file, or text to search the workspace for when the file is unknown. */
export interface Place {
  file?: string;
  /** A regular expression (ripgrep syntax) whose first matching file is the one to change. */
  find?: string;
  /** Search for `from` / `after` starting at the first line containing this text. */
  near?: string;
}

export type Step =
  /** Run a command and read what it prints (tests, a linter, a script). */
  | { kind: "run"; command: string }
  /** Replace the first line containing `from` (after `near`) through the first line containing `to` with `lines` (none: delete). */
  | (Place & { kind: "replace"; from: string; to?: string; lines: string[] })
  /** Insert `lines` after the first line containing `after` (after `near`). */
  | (Place & { kind: "insert"; after: string; lines: string[] })
  /** Rename a word (an identifier) everywhere it occurs as a whole word, under `path` (default: the workspace). */
  | { kind: "rename"; word: string; to: string; path?: string }
  | { kind: "create"; file: string; content: string }
  /** Run `command`; fix each line its output names (`pattern` captures the file and the line number) with `rewrite`. */
  | { kind: "fix"; command: string; pattern: string; rewrite: (line: string) => string };

export interface Goal {
  /** The prompt the session gets (the same for every policy). */
  prompt: string;
  steps: Step[];
}

export const isEdit = (s: Step): s is Extract<Step, { kind: "replace" | "insert" }> => s.kind === "replace" || s.kind === "insert";

/** The text a step's location is searched by first. */
export const primaryText = (s: Extract<Step, { kind: "replace" | "insert" }>) => s.near ?? (s.kind === "replace" ? s.from : s.after);

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Locates a step's lines in a file's text (0-based, inclusive), as a model does once it sees the
 * lines: the first line containing `near`, then `from`/`after` at or after it, then `to`.
 */
export function locate(lines: string[], s: Extract<Step, { kind: "replace" | "insert" }>): { start: number; end: number } | undefined {
  let at = 0;
  if (s.near !== undefined) {
    at = lines.findIndex((l) => l.includes(s.near!));
    if (at < 0) return undefined;
  }
  const first = s.kind === "replace" ? s.from : s.after;
  const start = lines.findIndex((l, i) => i >= at && l.includes(first));
  if (start < 0) return undefined;
  if (s.kind === "insert" || s.to === undefined) return { start, end: start };
  const end = lines.findIndex((l, i) => i >= start && l.includes(s.to!));
  return end < 0 ? undefined : { start, end };
}
