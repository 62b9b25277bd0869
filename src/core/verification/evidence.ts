/** The evidence of a check as one line (the CLI's transcript, the panel's notice under the answer). */
import type { EventOf } from "../events";
import { formatDuration } from "../commands/output";

/** What ran, its result, where its output is. */
export function verificationLine(e: EventOf<"verification">): string {
  const took = formatDuration(e.durationMs);
  const out = e.outputRef ? ` · output ${e.outputRef}${e.logPath ? ` (${e.logPath})` : ""}` : "";
  if (e.kind === "check") {
    const what = `check \`${e.command ?? "?"}\``;
    if (e.status === "error") return `! ${what} did not run: ${e.message ?? "unknown reason"}`;
    const exit = e.exitCode === undefined ? "" : e.exitCode === null ? "no exit code, " : `exit ${e.exitCode}, `;
    const max = e.maxReflections ?? 0;
    const attempt = e.status === "failed" && e.attempt ? (e.attempt <= max ? ` · sent back to the model (${e.attempt} of ${max})` : " · the user decides") : "";
    return `${e.status === "passed" ? "✓" : "✗"} ${what} ${e.status} (${exit}${took})${attempt}${out}`;
  }
  const files = (e.files ?? []).join(", ");
  if (e.status === "error") return `! diagnostics of ${files}: ${e.message ?? "unknown"}`;
  if (e.status === "passed") return `✓ no new problems in ${files} (${e.source}, ${took})`;
  return `✗ ${e.problems} new problem${e.problems === 1 ? "" : "s"} in ${files} (${e.source}, ${took}): sent to the model`;
}
