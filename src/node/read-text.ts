import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from "node:fs";

/**
 * The text of a regular file, at most `max` bytes (the start of a longer one); undefined when the
 * path is not a readable regular file. Opened without blocking (a FIFO planted under a configuration's
 * name must not hang the reader) and checked by its descriptor. For protectedReferences (protected-references.ts).
 */
export function nodeReadTextSync(path: string, max: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.alloc(max);
    let n = 0;
    while (n < max) {
      const got = readSync(fd, buf, n, max - n, null);
      if (got <= 0) break;
      n += got;
    }
    return buf.subarray(0, n).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
