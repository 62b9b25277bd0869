/**
 * The files the permission gate reads from a workspace folder, and the watch that reloads the gate
 * when one changes, so a change counts from the next call (as Cursor, Cline and Roo Code apply an
 * edited ignore file at once). The panel watches them with VS Code's file watcher
 * (src/host/gate-watch.ts, over GATE_FILE_PATTERNS); every other host (`yoke run`, `yoke acp`, a
 * bench) through the WorkspaceFs `watch` port, here: each folder and its `.claude`, `.yoke` and
 * `.cursor` folders are watched (not their trees), and a change of a file the gate reads reloads it.
 */
import type { Disposable } from "../ports";
import { AGENT_IGNORE_FORMATS } from "./ignore-files";

/** The ignore files read from each workspace folder (those that restrict, and those only listed). */
export const GATE_IGNORE_FILES: readonly string[] = AGENT_IGNORE_FORMATS.map((f) => f.name);

/** The folders of a workspace folder holding files the gate reads, and which of their files. */
const GATE_FOLDERS: Readonly<Record<string, RegExp>> = {
  ".claude": /^settings.*\.json$/,
  ".yoke": /^settings.*\.json$/,
  ".cursor": /^hooks\.json$/,
};

/** The same files as VS Code glob patterns, relative to a workspace folder (the panel's watcher). */
export const GATE_FILE_PATTERNS: readonly string[] = ["{.yoke,.claude}/settings*.json", ".cursor/hooks.json", `{${GATE_IGNORE_FILES.join(",")}}`];

/** Watches one folder (not its tree): `onChange` gets the absolute path of what changed in it. */
export type WatchFolder = (dir: string, onChange: (path: string) => void) => Disposable | undefined;

const baseOf = (p: string) => p.replace(/\/+$/, "").replace(/^.*\//, "");

/**
 * Watches the gate's files in each workspace folder through `watch`; each change reloads the gate
 * (changes while a reload runs are read by one more reload after it).
 */
export function watchGateFolders(folders: readonly string[], gate: { reload(): Promise<void> }, watch: WatchFolder, done: { reloaded?(): void; failed?(message: string): void } = {}): Disposable {
  let running = false;
  let again = false;
  let disposed = false;
  const reload = () => {
    if (disposed) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    gate
      .reload()
      .then(
        () => done.reloaded?.(),
        (err: unknown) => done.failed?.(`reloading the permission settings failed: ${err instanceof Error ? err.message : String(err)}`),
      )
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          reload();
        }
      });
  };
  const subs: Disposable[] = [];
  const inner = new Map<string, Disposable>();
  const armFolder = (dir: string, files: RegExp) => {
    inner.get(dir)?.dispose();
    const w = watch(dir, (p) => {
      if (files.test(baseOf(p)) || baseOf(p) === baseOf(dir)) reload();
    });
    if (w) inner.set(dir, w);
    else inner.delete(dir);
  };
  for (const root of folders) {
    const r = root.replace(/\/+$/, "") || "/";
    const join = (name: string) => `${r === "/" ? "" : r}/${name}`;
    for (const [name, files] of Object.entries(GATE_FOLDERS)) armFolder(join(name), files);
    const w = watch(r, (p) => {
      const name = baseOf(p);
      // An event that names no file (the folder itself) may be any of them.
      if (GATE_IGNORE_FILES.includes(name) || p.replace(/\/+$/, "") === r) reload();
      else if (name in GATE_FOLDERS) {
        // The folder made, replaced or removed: watch it anew, and read its files again.
        armFolder(join(name), GATE_FOLDERS[name]!);
        reload();
      }
    });
    if (w) subs.push(w);
  }
  return {
    dispose() {
      disposed = true;
      for (const s of subs) s.dispose();
      for (const s of inner.values()) s.dispose();
      inner.clear();
    },
  };
}
