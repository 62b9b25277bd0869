// The V8 code cache's key for a bundle (src/cli/compile-cache.ts): from stat, not from hashing the text,
// except for a file changed a moment ago or whose size is not the text's.
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bundleKey } from "../../../src/cli/compile-cache";

describe("bundleKey", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const bundle = (text: string, ageMs: number) => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-key-"));
    dirs.push(dir);
    const file = join(dir, "cli-run.js");
    writeFileSync(file, text);
    const t = new Date(Date.now() - ageMs);
    utimesSync(file, t, t);
    return file;
  };

  it("is the same for the same file, and another for a rebuilt file of the same length", () => {
    const file = bundle("module.exports = 1;", 60_000);
    const later = Date.now() + 60_000;
    const k1 = bundleKey(file, "module.exports = 1;", later);
    expect(bundleKey(file, "module.exports = 1;", later)).toBe(k1);
    writeFileSync(file, "module.exports = 2;");
    const t = new Date(statSync(file).mtimeMs + 5_000);
    utimesSync(file, t, t);
    expect(bundleKey(file, "module.exports = 2;", later + 10_000)).not.toBe(k1);
  });

  it("keys by the text a file changed less than two seconds ago, or one whose size is not the text's", () => {
    const fresh = bundle("module.exports = 1;", 0);
    expect(bundleKey(fresh, "module.exports = 1;")).not.toBe(bundleKey(fresh, "module.exports = 3;"));
    const old = bundle("module.exports = 1;", 60_000);
    // Not the file's size: the text Node read is not what stat describes.
    expect(bundleKey(old, "module.exports = 10;")).not.toBe(bundleKey(old, "module.exports = 11;"));
    // A file's age counts from its change time too (utimes cannot set it back).
    expect(bundleKey(old, "module.exports = 1;")).not.toBe(bundleKey(old, "module.exports = 2;"));
  });
});
