/**
 * Watches a folder on this machine's disk (fs.watch, not recursive): the session store, where
 * another window or the CLI adds and writes logs. The folder is made first. A watch that fails
 * (at once or later) is reported through `onError` and leaves nothing running: the caller then
 * refreshes another way (e.g. when the window gets the focus).
 */
import * as fs from "node:fs";

export interface FolderWatch {
  close(): void;
}

export function watchFolder(dir: string, onChange: () => void, onError: (message: string) => void): FolderWatch {
  try {
    fs.mkdirSync(dir, { recursive: true });
    const w = fs.watch(dir, { persistent: false }, () => onChange());
    w.on("error", (err) => onError(`watching ${dir} failed: ${err.message}`));
    return w;
  } catch (err) {
    onError(`cannot watch ${dir}: ${(err as Error).message}`);
    return { close() {} };
  }
}
