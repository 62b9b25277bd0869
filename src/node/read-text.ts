import { closeSync, constants as fsConstants, fstatSync, openSync, readSync, statSync } from "node:fs";

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

/** The texts read last, by path: kept while the file's stamp is the same (at most CACHE_MAX files). */
const cache = new Map<string, { stamp: string; text: string | undefined }>();
const CACHE_MAX = 256;

/**
 * nodeReadTextSync, answered from a cache while the file's device, inode, size, modification and
 * change times are those seen before the last read (taken before reading: a change during the read
 * is seen at the next call). The same string is returned, so a caller can keep what it parsed from
 * it (protected-references.ts). For the gate, which reads the configurations before every check of a
 * change (a 1 MiB `.envrc` read and parsed each time cost 17–49 ms a check: gitcfg22).
 */
export function nodeReadTextCachedSync(path: string, max: number): string | undefined {
  let stamp: string;
  try {
    const st = statSync(path, { bigint: true });
    if (!st.isFile()) return undefined;
    stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${max}`;
  } catch {
    cache.delete(path);
    return undefined;
  }
  const hit = cache.get(path);
  if (hit && hit.stamp === stamp) return hit.text;
  const text = nodeReadTextSync(path, max);
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(path, { stamp, text });
  return text;
}
