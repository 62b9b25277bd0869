/**
 * Roo Code's `fileRegex` (a mode's edit group limited to files whose path matches it). The pattern
 * comes from a repository file, and JavaScript's engine backtracks — `(a+)+$` against thirty
 * letters, or `a.*a.*a.*b` against a 1,024-character path, runs for minutes (measured: 288 s). It is
 * run instead by the glob matcher's automaton (src/core/glob/bounded-regex.ts), in time linear in
 * the path for any pattern it accepts; `new RegExp` still checks the syntax, so a pattern Roo
 * would reject is rejected here with JavaScript's own message. Refused (the mode then edits no
 * file, the safe side, and the listing says why): back-references and the few constructs the
 * automaton does not read (octal escapes, `\k` beside named groups), and patterns past
 * MAX_PATTERN characters.
 */
import { boundedRegExp, type BoundedRegExp } from "../glob";

/** The longest pattern read. */
export const MAX_PATTERN = 1000;

export type FileRegex = {
  source: string;
  /** What the mode's edit group says about it (`description`), when it does. */
  description?: string;
} & ({ regex: BoundedRegExp } | { problem: string });

/** A mode's fileRegex, ready to test paths in bounded time (or why it is refused). */
export function boundedFileRegex(source: string, description?: string): FileRegex {
  const base = { source, ...(description ? { description } : {}) };
  if (source.length > MAX_PATTERN) return { ...base, problem: `longer than ${MAX_PATTERN} characters` };
  try {
    new RegExp(source);
  } catch (err) {
    return { ...base, problem: `not a valid regular expression (${err instanceof Error ? err.message : String(err)})` };
  }
  const regex = boundedRegExp(source);
  if (!regex) return { ...base, problem: "it uses a back-reference (\\1, \\k<name>) or another construct Yoke cannot test in bounded time" };
  return { ...base, regex };
}

/** Whether a workspace-relative path may be edited under these limits (any one matching), or why not. */
export function editAllowed(limits: readonly FileRegex[], path: string): { ok: true } | { ok: false; why: string } {
  for (const l of limits) if ("regex" in l && l.regex.test(path)) return { ok: true };
  if (limits.every((l) => "problem" in l))
    return { ok: false, why: `its fileRegex was refused (${limits.map((l) => ("problem" in l ? `${l.source}: ${l.problem}` : "")).join("; ")}), so it may edit no file` };
  return { ok: false, why: `${path} does not match ${limits.map(fileRegexLabel).join(" or ")}` };
}

/** `/re/ (description)`, as the model and the user read a limit. */
export function fileRegexLabel(l: FileRegex): string {
  return `/${l.source}/${l.description ? ` (${l.description})` : ""}`;
}
