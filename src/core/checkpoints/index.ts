/** Checkpoints, restore and fork (issue 12): one entry point. */
export { checkpointsExtension, workspaceFolders, type CheckpointsExtensionOptions } from "./extension";
export {
  lastRestore,
  previewRestore,
  restoreForFork,
  restoreTarget,
  restoreTo,
  snapshotFolders,
  undoRestore,
  type RestoreContext,
  type RestoreResult,
  type RestoreTarget,
  type RestoreWhat,
} from "./restore";
export { checkpointAfterTurn, checkpointsOf, turnsOf, type TurnInfo } from "./turns";
export * from "./types";
export { planStats, type FileStat } from "./preview";
export { checkpointNotice } from "./notice";
