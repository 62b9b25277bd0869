/**
 * The workspace file system through the ACP client (`fs/read_text_file`, `fs/write_text_file`),
 * for clients that declare them: the file tools then read what the editor has (unsaved buffers
 * included) and write through the editor, which tracks the change. Everything else — stat,
 * folder listings, real paths, deletes, binary files — stays Yoke's own (the local file system),
 * and so do the checks: before a read or a write goes to the client, the local file system makes
 * sure the canonical path the permission gate checked still leads there (no symbolic link swapped
 * in on the way), exactly as Yoke's own readChecked/writeChecked do.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { splitLines } from "../../core/edit/hashline";
import { PathChangedError, type CheckedRead, type FileStat, type ReadRange, type WorkspaceFs } from "../../core/ports";

/** What the ACP client offers (its `fs` capability) and how to call it. */
export interface ClientFiles {
  /** `range`: only those lines (fs/read_text_file's `line` and `limit`). */
  read?: (path: string, range?: ReadRange) => Promise<string>;
  write?: (path: string, content: string) => Promise<void>;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** The bytes as text, or undefined when they are not UTF-8 (a binary file stays Yoke's to read). */
function asText(data: Uint8Array): string | undefined {
  try {
    return utf8.decode(data);
  } catch {
    return undefined;
  }
}

export function createClientWorkspaceFs(local: WorkspaceFs, client: ClientFiles): WorkspaceFs {
  const { read, write } = client;
  /** The parent folder exists and is itself (no link on the way), and the name is not a link or a device. */
  async function checkWritable(path: string): Promise<void> {
    const parent = dirname(path);
    // The nearest folder that exists must be itself before any missing one is made under it.
    let existing = parent;
    while (!(await local.stat(existing)) && dirname(existing) !== existing) existing = dirname(existing);
    const realExisting = await local.realPath(existing);
    if (realExisting !== existing) throw new PathChangedError(path, `the folder ${existing} now leads to ${realExisting ?? "nothing"} (a symbolic link on the way)`);
    if (existing !== parent) await mkdir(parent, { recursive: true });
    const real = await local.realPath(parent);
    if (real !== parent) throw new PathChangedError(path, `the folder ${parent} now leads to ${real ?? "nothing"} (a symbolic link on the way)`);
    const st = await local.stat(path);
    if (st && st.type !== "file") throw new PathChangedError(path, `it is now a ${st.type === "symlink" ? "symbolic link" : st.type}, not a file`);
  }
  async function writeThrough(path: string, data: Uint8Array): Promise<FileStat | undefined> {
    const text = asText(data);
    if (!write || text === undefined) return undefined;
    await checkWritable(path);
    await write(path, text);
    const st = await local.stat(path);
    if (!st || st.type !== "file") throw new Error(`${path}: the editor did not save the file to disk`);
    return st;
  }
  return {
    root: local.root,
    ...(local.folders ? { folders: local.folders } : {}),
    stat: (p) => local.stat(p),
    readDir: (p) => local.readDir(p),
    realPath: (p) => local.realPath(p),
    delete: (p) => local.delete(p),
    ...(local.watch ? { watch: local.watch.bind(local) } : {}),
    async readFile(path) {
      const data = await local.readFile(path);
      if (!read || asText(data) === undefined) return data;
      return encoder.encode(await read(path));
    },
    async readChecked(path, range): Promise<CheckedRead> {
      // Yoke's own checked read first: the path is the file the gate checked, it exists, it is text.
      const own = await local.readChecked(path);
      const ownText = asText(own.data);
      if (!read || ownText === undefined) return own;
      if (!range) return { data: encoder.encode(await read(path)), stat: own.stat };
      // Just the lines asked for, from the editor (its buffer, unsaved changes included).
      const text = await read(path, range);
      const got = splitLines(text).length;
      // An editor that ignored the range answered the whole file (more lines than asked, or the file as it is on disk from line 1): taken as the whole file.
      if (got > range.limit || (range.line > 1 && text === ownText)) return { data: encoder.encode(text), stat: own.stat };
      // Nothing there (the buffer is shorter than the file on disk?): the whole file, which says how long it is.
      if (got === 0) return { data: encoder.encode(await read(path)), stat: own.stat };
      // How many lines the file has: the editor does not say; the file on disk does, unless the editor's lines go further.
      return { data: encoder.encode(text), stat: own.stat, range: { from: range.line, total: Math.max(splitLines(ownText).length, range.line + got - 1) } };
    },
    async writeFile(path, data) {
      if (!(await writeThrough(path, data))) await local.writeFile(path, data);
    },
    async writeChecked(path, data) {
      return (await writeThrough(path, data)) ?? (await local.writeChecked(path, data));
    },
  };
}
