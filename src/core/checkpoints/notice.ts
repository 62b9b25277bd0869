/**
 * What the user is told when a checkpoint cannot hold every file: the CLI prints it and the panel
 * shows it as a notice the moment the `checkpoint` event is recorded, before the call it precedes
 * runs. A complete checkpoint says nothing.
 */
import type { CheckpointEvent } from "./types";

export function checkpointNotice(e: Pick<CheckpointEvent, "turn" | "reason" | "folders">): string | undefined {
  const parts: string[] = [];
  for (const f of e.folders) {
    if (f.error) parts.push(`${f.name}: the snapshot failed (${f.error}); a restore cannot put this folder's files back as they were before turn ${e.turn}`);
    else if (f.partial)
      parts.push(
        `${f.name}: the snapshot is partial after ${(f.durationMs / 1000).toFixed(1)} s (${f.fallback ?? "its time budget ran out"}). ` +
          "Every file a tool writes is still recorded before the write; other files the snapshot does not know are left as they are by a restore",
      );
  }
  if (!parts.length) return undefined;
  const what = e.reason === "turn" ? `Checkpoint before turn ${e.turn}'s changes` : e.reason === "restore" ? "Snapshot before the restore" : "Snapshot before the fork";
  return `${what} is incomplete — ${parts.join("; ")}.`;
}
