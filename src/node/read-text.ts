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
    // In pieces up to `max`: most configurations are small, the bound is large (REFERENCE_LIMITS).
    const chunks: Buffer[] = [];
    let n = 0;
    while (n < max) {
      const buf = Buffer.alloc(Math.min(64 * 1024, max - n));
      const got = readSync(fd, buf, 0, buf.length, null);
      if (got <= 0) break;
      chunks.push(got === buf.length ? buf : buf.subarray(0, got));
      n += got;
    }
    return Buffer.concat(chunks, n).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
