/** An in-memory SessionStore with the same line semantics as the file store. */
import type { SessionStore } from "../../src/core/ports";

export function createMemoryStore(): SessionStore & { raw: Map<string, string> } {
  const raw = new Map<string, string>();
  return {
    raw,
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
