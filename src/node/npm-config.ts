/**
 * Where the permission gate reads npm's configuration (core/permissions/npm-config.ts): small text files,
 * the host's environment, and npm's global configuration files for the Node.js Yoke runs on.
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { dirname } from "node:path";
import type { NpmConfigPort } from "../core/permissions/context";

/** A .npmrc larger than this is not read (the command asks where a deny rule exists). */
const MAX_NPMRC_BYTES = 256 * 1024;

/** The text of a small file: undefined when there is none, null when it cannot be read (or is too large, or is no file). */
export async function readSmallText(path: string): Promise<string | null | undefined> {
  // `--userconfig /dev/null` (no user configuration) is an empty file to npm.
  if (path === "/dev/null") return "";
  let handle;
  try {
    // Non-blocking: a FIFO named .npmrc (an earlier command's mkfifo) would otherwise hang the check; it is
    // then no regular file (null) below.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? undefined : null;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.size > MAX_NPMRC_BYTES) return null;
    const buf = Buffer.alloc(MAX_NPMRC_BYTES + 1);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return bytesRead > MAX_NPMRC_BYTES ? null : buf.subarray(0, bytesRead).toString("utf8");
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** npm's global configuration for this Node.js (`PREFIX/etc/npmrc`, npm's own `npmrc`), and the usual prefixes. */
function globalFiles(): string[] {
  const prefix = dirname(dirname(process.execPath));
  const prefixes = [...new Set([prefix, "/usr", "/usr/local", "/"])];
  return [...new Set(prefixes.flatMap((p) => [`${p === "/" ? "" : p}/etc/npmrc`, `${p === "/" ? "" : p}/lib/node_modules/npm/npmrc`]))];
}

export function nodeNpmConfig(env: NodeJS.ProcessEnv = process.env): NpmConfigPort {
  return { readText: readSmallText, env, globalFiles: globalFiles() };
}
