/** Where a workspace's checkpoints live (next to its sessions, on the machine the folders are on), and the extension over them. */
import { join } from "node:path";
import { checkpointsExtension } from "../core/checkpoints/extension";
import type { Extension } from "../core/extensions/types";
import { createGitCheckpointStore } from "./checkpoint-store";

export function checkpointStorageDir(sessionDir: string): string {
  return join(sessionDir, "checkpoints");
}

const stores = new Map<string, ReturnType<typeof createGitCheckpointStore>>();

/**
 * One store per storage folder in a process: the extension's background refresh, the panel's
 * restores and the snapshots share its per-folder queue (one git writer of a private index at a
 * time) and what it knows about that index.
 */
export function nodeCheckpointStore(sessionDir: string) {
  const dir = checkpointStorageDir(sessionDir);
  let store = stores.get(dir);
  if (!store) stores.set(dir, (store = createGitCheckpointStore({ storageDir: dir })));
  return store;
}

/**
 * The checkpoints extension of a Node host (CLI and extension host alike). `YOKE_CHECKPOINT_BUDGET_MS`
 * overrides the snapshot budget (docs/checkpoints.md; the tests use a tiny one).
 */
export function nodeCheckpointsExtension(sessionDir: string, budgetMs?: number): Extension {
  const fromEnv = Number(process.env.YOKE_CHECKPOINT_BUDGET_MS);
  return checkpointsExtension({ store: nodeCheckpointStore(sessionDir), budgetMs: budgetMs ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : undefined) });
}
