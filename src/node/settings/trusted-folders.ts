/**
 * The folders the user trusts for the command line (the CLI's counterpart of VS Code's workspace
 * trust): `~/.yoke/trusted-folders.json`, per user, written atomically (a temporary file renamed
 * into place, mode 0600). Trusting a folder trusts its subfolders, as VS Code does. Paths are kept
 * resolved (symbolic links followed), so a link cannot borrow another folder's trust.
 */
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { parseJsonc } from "../../core/settings/jsonc";

export interface TrustedFolder {
  path: string;
  /** When it was trusted (ISO time). */
  at: string;
}

export function trustedFoldersFile(home = homedir()): string {
  return join(home, ".yoke", "trusted-folders.json");
}

/** The folder as stored: absolute, links resolved when it exists. */
export function canonicalFolder(dir: string): string {
  const abs = resolve(dir);
  try {
    return realpathSync.native(abs);
  } catch {
    return abs;
  }
}

export class TrustedFolders {
  constructor(readonly file: string = trustedFoldersFile()) {}

  /** The stored folders; a file that cannot be read trusts nothing (and says why). */
  read(): { folders: TrustedFolder[]; problem?: string } {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === "ENOENT" || code === "ENOTDIR" ? { folders: [] } : { folders: [], problem: `${this.file} cannot be read (${code ?? String(err)}); no folder is trusted` };
    }
    if (text.trim() === "") return { folders: [] };
    const parsed = parseJsonc(text);
    if (!parsed.ok) return { folders: [], problem: `${this.file}:${parsed.line}:${parsed.column}: ${parsed.message}; no folder is trusted until it is fixed` };
    const list = (parsed.value as { folders?: unknown } | null)?.folders;
    if (!Array.isArray(list)) return { folders: [], problem: `${this.file}: "folders" must be an array; no folder is trusted until it is fixed` };
    const folders = list.flatMap((f): TrustedFolder[] =>
      f && typeof f === "object" && typeof (f as TrustedFolder).path === "string" && (f as TrustedFolder).path.startsWith("/")
        ? [{ path: (f as TrustedFolder).path, at: typeof (f as TrustedFolder).at === "string" ? (f as TrustedFolder).at : "" }]
        : [],
    );
    return { folders };
  }

  /** The trusted folder that covers `dir` (itself or a parent), or undefined. */
  covering(dir: string): TrustedFolder | undefined {
    const want = canonicalFolder(dir);
    return this.read().folders.find((f) => want === f.path || want.startsWith(f.path === sep ? sep : f.path + sep));
  }

  isTrusted(dir: string): boolean {
    return this.covering(dir) !== undefined;
  }

  /** Trusts `dir` (and its subfolders); returns the stored path. */
  trust(dir: string): string {
    const path = canonicalFolder(dir);
    const { folders, problem } = this.read();
    if (problem) throw new Error(problem);
    if (!folders.some((f) => f.path === path)) this.write([...folders, { path, at: new Date().toISOString() }]);
    return path;
  }

  /** Stops trusting `dir` (exactly that entry); returns whether it was trusted. */
  revoke(dir: string): boolean {
    const path = canonicalFolder(dir);
    const abs = resolve(dir);
    const { folders, problem } = this.read();
    if (problem) throw new Error(problem);
    const kept = folders.filter((f) => f.path !== path && f.path !== abs);
    if (kept.length === folders.length) return false;
    this.write(kept);
    return true;
  }

  private write(folders: TrustedFolder[]): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, JSON.stringify({ folders }, null, 2) + "\n", { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
