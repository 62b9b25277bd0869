// What the permission gate reads from a workspace folder, watched: a change reloads the gate, so it
// counts from the next call (as Cursor, Cline and Roo Code apply an edited ignore file at once).
// Kept apart from host-services.ts so it can be tested without VS Code (the watcher factory is passed in).
import type { YokePermissionGate } from "../core/permissions/gate";
import { GATE_FILE_PATTERNS } from "../core/permissions/gate-files";

/**
 * Relative to each workspace folder: the settings files, Cursor's hooks file, and other agents'
 * ignore files (core/permissions/gate-files.ts, the list the CLI's watch uses too). `.cursorignore`
 * files above the folder (Cursor's hierarchical ignore) lie outside it: they count from the next session.
 */
export { GATE_FILE_PATTERNS };

export interface GateFileWatcher {
  onDidChange(fn: () => void): { dispose(): void };
  onDidCreate(fn: () => void): { dispose(): void };
  onDidDelete(fn: () => void): { dispose(): void };
  dispose(): void;
}

/** Watches GATE_FILE_PATTERNS in each folder (`create(folder, pattern)`); each event reloads the gate. */
export function watchGateFiles(
  folders: readonly unknown[],
  gate: Pick<YokePermissionGate, "reload">,
  create: (folder: unknown, pattern: string) => GateFileWatcher,
  done: { reloaded(): void; failed(message: string): void },
): { dispose(): void } {
  const reload = () => {
    gate.reload().then(
      () => done.reloaded(),
      (err: unknown) => done.failed(`reloading the permission settings failed: ${(err as Error)?.message ?? String(err)}`),
    );
  };
  const parts = folders.flatMap((folder) =>
    GATE_FILE_PATTERNS.map((pattern) => {
      const w = create(folder, pattern);
      const subs = [w.onDidChange(reload), w.onDidCreate(reload), w.onDidDelete(reload)];
      return { dispose: () => (subs.forEach((s) => s.dispose()), w.dispose()) };
    }),
  );
  return { dispose: () => parts.forEach((p) => p.dispose()) };
}
