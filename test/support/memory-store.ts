/** An in-memory SessionStore with the same line semantics as the file store. */
import type { SessionStore } from "../../src/core/ports";

export function createMemoryStore(): SessionStore & { raw: Map<string, string>; blobs: Map<string, string> } {
  const raw = new Map<string, string>();
  const blobs = new Map<string, string>();
  return {
    raw,
    blobs,
    writeBlob(id, key, data) {
      if (blobs.has(`${id}/${key}`)) throw new Error(`blob ${key} of session ${id} already exists`);
      blobs.set(`${id}/${key}`, data);
    },
    readBlob(id, key) {
      return blobs.get(`${id}/${key}`);
    },
    append(id, line) {
      raw.set(id, (raw.get(id) ?? "") + line + "\n");
    },
    sync() {},
    read(id) {
      const text = raw.get(id) ?? "";
      const lines = text.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      return lines;
    },
    list() {
      return [...raw.keys()].reverse();
    },
    exists(id) {
      return raw.has(id);
    },
  };
}
