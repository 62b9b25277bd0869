/**
 * Which problems are new after an edit, and how the model is told. A problem is identified by
 * what it says (severity, source, code, message), not by its line: an edit above it moves it,
 * and a moved problem is not new. Counted as a multiset, so a second copy of an old problem is new.
 */
import { relativePath, isInside } from "../paths";
import type { Diagnostic } from "./types";

/** Problems beyond these are counted, not listed. */
export const MAX_LISTED = 20;
const MAX_MESSAGE_CHARS = 400;

function key(d: Diagnostic): string {
  return [d.path, d.severity, d.source ?? "", d.code ?? "", d.message.trim()].join("\u0000");
}

/** Errors and warnings in `after` that `before` did not have (infos and hints are never reported). */
export function newProblems(before: readonly Diagnostic[], after: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Map<string, number>();
  for (const d of before) seen.set(key(d), (seen.get(key(d)) ?? 0) + 1);
  const out: Diagnostic[] = [];
  for (const d of after) {
    if (d.severity !== "error" && d.severity !== "warning") continue;
    const k = key(d);
    const n = seen.get(k) ?? 0;
    if (n > 0) seen.set(k, n - 1);
    else out.push(d);
  }
  return out.sort((a, b) => (a.path === b.path ? a.line - b.line || (a.column ?? 0) - (b.column ?? 0) : a.path < b.path ? -1 : 1));
}

export function displayPath(root: string, abs: string): string {
  return isInside(root, abs) ? relativePath(root, abs) : abs;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ").trim();
  return flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS - 1)}…` : flat;
}

export function formatProblem(root: string, d: Diagnostic): string {
  const where = `${displayPath(root, d.path)}:${d.line}${d.column ? `:${d.column}` : ""}`;
  const who = [d.source, d.code].filter(Boolean).join(" ");
  return `- ${where} ${d.severity}${who ? ` (${who})` : ""}: ${oneLine(d.message)}`;
}

/** What the model is told about the new problems in the files it changed. */
export function newProblemsText(root: string, source: string, problems: readonly Diagnostic[]): string {
  const errors = problems.filter((p) => p.severity === "error").length;
  const warnings = problems.length - errors;
  const counts = [errors ? `${errors} error${errors === 1 ? "" : "s"}` : "", warnings ? `${warnings} warning${warnings === 1 ? "" : "s"}` : ""].filter(Boolean).join(" and ");
  const listed = problems.slice(0, MAX_LISTED).map((p) => formatProblem(root, p));
  const more = problems.length > MAX_LISTED ? [`- … and ${problems.length - MAX_LISTED} more`] : [];
  return [
    `Your last edits introduced ${counts} in the files you changed (reported by the ${source}; problems that were there before your edits are left out):`,
    ...listed,
    ...more,
    "Fix them before you finish, or say why they are expected.",
  ].join("\n");
}
