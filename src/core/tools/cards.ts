/** Summaries and card badges several tools share (their own descriptions of themselves). */
import { field, type FileChange, type ToolCard } from "./types";

/** `pattern in path` for grep and glob. */
export function searchSummary(input: Record<string, unknown>): string {
  const pattern = field(input, "pattern") ?? "";
  const path = field(input, "path");
  return path ? `${pattern} in ${path}` : pattern;
}

/** `+3 −1` from the unified diff an edit recorded in its meta. */
export function diffCard(meta: unknown): ToolCard | undefined {
  const diff = (meta as { diff?: unknown } | undefined)?.diff;
  if (typeof diff !== "string") return undefined;
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) added++;
    else if (line.startsWith("-") && !line.startsWith("---")) removed++;
  }
  return { badges: [`+${added} −${removed}`] };
}

/** The file change an edit's result describes in its meta ({path, before, after}); none when the text did not change. */
export function metaChanges(output: { meta?: unknown }): FileChange[] {
  const m = output.meta as { path?: unknown; before?: unknown; after?: unknown } | undefined;
  if (!m || typeof m.path !== "string" || typeof m.after !== "string") return [];
  const before = typeof m.before === "string" ? m.before : undefined;
  return before === m.after ? [] : [{ path: m.path, ...(before !== undefined ? { before } : {}), after: m.after }];
}

/** Exit status, timeout, background id and sandbox of a command. */
export function commandCard(meta: unknown): ToolCard | undefined {
  if (!meta || typeof meta !== "object") return undefined;
  const m = meta as { id?: string; running?: boolean; exitCode?: number | null; signal?: string | null; timedOut?: boolean; cancelled?: boolean; background?: boolean; sandbox?: string };
  const badges: string[] = [];
  if (m.background && m.running) badges.push(`background ${m.id ?? ""}`.trim());
  else if (m.timedOut) badges.push("timed out");
  else if (m.cancelled) badges.push("stopped");
  else if (typeof m.exitCode === "number") badges.push(`exit ${m.exitCode}`);
  else if (m.signal) badges.push(m.signal);
  if (m.sandbox) badges.push(m.sandbox);
  return badges.length ? { badges } : undefined;
}
