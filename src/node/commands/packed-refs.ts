/**
 * Replace refs written into `.git/packed-refs`. git substitutes the object a `refs/replace/<name>`
 * ref points to for `<name>` on every read, so such a ref planted in packed-refs (which git's
 * ordinary work rewrites, so it cannot be read-only) changes what the user's `git show` and
 * `git checkout` give for a trusted name. When a command ends, the replace lines that were not in
 * the file before it are taken out (the file rewritten beside itself and renamed into place), and
 * kept in the quarantine folder.
 */
import { closeSync, constants as C, fstatSync, mkdirSync, openSync, readSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const REPLACE_LINE = /^[0-9a-f]{40,64} refs\/replace\//;
const MAX_BYTES = 64 * 1024 * 1024;

/** The `refs/replace/` lines of a packed-refs file now ([] when there is none or it cannot be read as a regular file). */
export function replaceLines(path: string): string[] {
  const text = readRegular(path);
  return text === undefined ? [] : text.split("\n").filter((l) => REPLACE_LINE.test(l));
}

/**
 * Takes the replace lines that are not in `before` out of the file. Returns the lines removed and
 * where they were kept, or undefined when there were none.
 */
export function stripNewReplaceLines(path: string, before: readonly string[], keepDir: string): { removed: string[]; keptAt: string } | undefined {
  const text = readRegular(path);
  if (text === undefined) return undefined;
  const lines = text.split("\n");
  const removed: string[] = [];
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (REPLACE_LINE.test(l) && !before.includes(l)) {
      removed.push(l);
      // A peeled line (`^sha`) belongs to the ref before it.
      while (lines[i + 1]?.startsWith("^")) removed.push(lines[++i]!);
    } else kept.push(l);
  }
  if (!removed.length) return undefined;
  const keptAt = join(keepDir, ".git", "packed-refs.replace-lines");
  mkdirSync(dirname(keptAt), { recursive: true });
  writeFileSync(keptAt, removed.join("\n") + "\n");
  const tmp = `${path}.yoke-${process.pid}`;
  writeFileSync(tmp, kept.join("\n"));
  renameSync(tmp, path);
  return { removed, keptAt };
}

/** A regular file's text, opened without following a link or blocking on a FIFO; undefined when it is not one or is larger than `maxBytes`. */
export function readRegular(path: string, maxBytes = MAX_BYTES): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return undefined;
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n <= 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
