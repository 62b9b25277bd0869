/** Where a workspace's checkpoints live (next to its sessions, on the machine the folders are on), and the extension over them. */
import { join } from "node:path";
import { checkpointsExtension } from "../core/checkpoints/extension";
import type { Extension } from "../core/extensions/types";
import { createGitCheckpointStore } from "./checkpoint-store";

export function checkpointStorageDir(sessionDir: string): string {
  return join(sessionDir, "checkpoints");
}

export function nodeCheckpointStore(sessionDir: string) {
  return createGitCheckpointStore({ storageDir: checkpointStorageDir(sessionDir) });
}

/**
 * The checkpoints extension of a Node host (CLI and extension host alike). `YOKE_CHECKPOINT_BUDGET_MS`
 * overrides the snapshot budget (docs/checkpoints.md; the tests use a tiny one).
 */
export function nodeCheckpointsExtension(sessionDir: string, budgetMs?: number): Extension {
  const fromEnv = Number(process.env.YOKE_CHECKPOINT_BUDGET_MS);
  return checkpointsExtension({ store: nodeCheckpointStore(sessionDir), budgetMs: budgetMs ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : undefined) });
}
