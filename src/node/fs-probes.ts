/**
 * File-system ports of the permission gate: folder listings (glob expansion, nested repositories)
 * and whether the workspace's file system ignores case.
 */
import { closeSync, lstatSync, openSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";

/** Entry names of a folder, or undefined when it is not a readable folder. */
/**
 * Does the file system holding `dir` ignore case? Looks up an existing entry under its case-swapped
 * name (same inode: case-insensitive); with no entry that has letters, creates a temporary file,
 * looks it up in upper case and removes it. When nothing can be learned, assumes it does (matching
 * more paths only asks more).
 */
export function probeCaseInsensitive(dir: string): boolean {
  try {
    const names = readdirSync(dir);
    const name = names.find((n) => n.toLowerCase() !== n.toUpperCase() && !names.includes(swapCase(n)));
    if (name) return sameFile(join(dir, name), join(dir, swapCase(name)));
    const base = `.yoke-case-probe-${process.pid}-${Date.now()}`;
    const probe = join(dir, base);
    closeSync(openSync(probe, "wx"));
    try {
      return sameFile(probe, join(dir, base.toUpperCase()));
    } finally {
      unlinkSync(probe);
    }
  } catch {
    return true;
  }
}

function swapCase(s: string): string {
  let out = "";
  for (const c of s) out += c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
  return out;
}

function sameFile(a: string, b: string): boolean {
  try {
    const x = lstatSync(a);
    const y = lstatSync(b, { throwIfNoEntry: false });
    return !!y && y.ino === x.ino && y.dev === x.dev;
  } catch {
    return false;
  }
}
