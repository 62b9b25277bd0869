/**
 * Where the running VS Code's Roo Code keeps its settings (the extension host knows it). Small on
 * purpose: the extension's activation bundle imports it (src/host/settings.ts), not the mode reader.
 */
import { dirname, join } from "node:path";

/** Roo Code's extension id: its global storage folder in VS Code's user data. */
export const ROO_EXTENSION = "rooveterinaryinc.roo-cline";

/**
 * Roo's global storage folder — the sibling of Yoke's own (`ExtensionContext.globalStorageUri`), so
 * `--user-data-dir`, profiles and a remote's user data are followed — and Roo's
 * `roo-cline.customStoragePath` setting, which replaces that folder when it is set and usable.
 */
export interface RooStorage {
  /** `…/User/globalStorage/rooveterinaryinc.roo-cline` of the running VS Code. */
  globalStorage?: string;
  /** `roo-cline.customStoragePath` (empty: not set). */
  customStoragePath?: string;
}

/** Roo's own storage folder for `globalStorageUri` (Yoke's): the sibling folder of Roo's extension id. */
export function rooStorageBeside(yokeGlobalStorage: string): string {
  return join(dirname(yokeGlobalStorage), ROO_EXTENSION);
}
