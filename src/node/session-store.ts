/** SessionStore over `<dir>/<id>.jsonl` files: synchronous appends on a kept-open descriptor. */
import * as fs from "node:fs";
import * as nodePath from "node:path";
import type { SessionStore } from "../core/ports";

const MAX_OPEN = 32;
const VALID_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

function checkId(id: string): void {
  if (!VALID_ID.test(id) || id.length > 200) {
    throw new Error(`Invalid session id ${JSON.stringify(id)}: use letters, digits, ".", "_" and "-" only.`);
  }
}

/** A log whose last line was torn (no newline) gets one, so the next append starts a fresh line. */
function endTornLine(fd: number): void {
  const size = fs.fstatSync(fd).size;
  if (size === 0) return;
  const last = Buffer.alloc(1);
  fs.readSync(fd, last, 0, 1, size - 1);
  if (last[0] !== 0x0a) fs.writeSync(fd, "\n");
}

export function createFileSessionStore(dir: string): SessionStore {
  const fds = new Map<string, number>();
  const file = (id: string) => nodePath.join(dir, `${id}.jsonl`);

  function fdFor(id: string): number {
    let fd = fds.get(id);
    if (fd !== undefined) return fd;
    fs.mkdirSync(dir, { recursive: true });
    if (fds.size >= MAX_OPEN) {
      const [oldId, oldFd] = fds.entries().next().value as [string, number];
      fds.delete(oldId);
      fs.closeSync(oldFd);
    }
    fd = fs.openSync(file(id), "a+");
    endTornLine(fd);
    fds.set(id, fd);
    return fd;
  }

  return {
    append(id, line) {
      checkId(id);
      if (line.includes("\n")) throw new Error("SessionStore.append: a log line must not contain a newline.");
      const data = Buffer.from(line + "\n", "utf8");
      const fd = fdFor(id);
      let off = 0;
      while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
    },
    sync(id) {
      checkId(id);
      const fd = fds.get(id);
      if (fd !== undefined) fs.fsyncSync(fd);
    },
    read(id) {
      checkId(id);
      let text: string;
      try {
        text = fs.readFileSync(file(id), "utf8");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw e;
      }
      if (text === "") return [];
      const lines = text.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      return lines;
    },
    list() {
      let names: string[];
      try {
        names = fs.readdirSync(dir);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw e;
      }
      return names
        .filter((n) => n.endsWith(".jsonl") && VALID_ID.test(n.slice(0, -6)))
        .map((n) => {
          const st = fs.statSync(nodePath.join(dir, n), { throwIfNoEntry: false });
          return { id: n.slice(0, -6), mtime: st?.mtimeMs ?? 0 };
        })
        .sort((a, b) => b.mtime - a.mtime || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
        .map((s) => s.id);
    },
    exists(id) {
      if (!VALID_ID.test(id)) return false;
      return fs.existsSync(file(id));
    },
  };
}
