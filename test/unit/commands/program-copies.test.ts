/**
 * Copies of a denied program's file in the system's program folders (red team round 7: Debian's
 * `/usr/lib/git-core/git` is a second git, not a link). Real files in a temporary tree standing for
 * the program folders; the index is kept in a temporary cache folder.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { copiesOf, indexKey, programIndex, resetProgramIndex, walkExecutables, warmProgramIndex } from "../../../src/node/commands/sandbox/program-copies";
import { programFiles } from "../../../src/node/commands/sandbox/plan";

const base = mkdtempSync(join(tmpdir(), "yoke-copies-"));
const cache = join(base, "cache");
const oldCache = process.env.XDG_CACHE_HOME;
process.env.XDG_CACHE_HOME = cache;
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
  if (oldCache === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = oldCache;
});
beforeEach(() => resetProgramIndex());

function tree(name: string): { bin: string; lib: string; prog: string } {
  const root = join(base, name);
  const bin = join(root, "bin");
  const lib = join(root, "lib");
  mkdirSync(join(lib, "tool-core", "deep"), { recursive: true });
  mkdirSync(bin, { recursive: true });
  const prog = join(bin, "tool");
  writeFileSync(prog, "#!/bin/sh\necho the tool\n" + "x".repeat(4000));
  chmodSync(prog, 0o755);
  return { bin, lib, prog };
}

describe("copiesOf", () => {
  it("finds an executable copy with the same bytes, and nothing else of the same size", () => {
    const { lib, prog } = tree("a");
    const copy = join(lib, "tool-core", "deep", "tool");
    copyFileSync(prog, copy);
    chmodSync(copy, 0o755);
    // Same size, other bytes.
    const other = join(lib, "tool-core", "other");
    writeFileSync(other, readFileSync(prog, "utf8").replace("the tool", "THE TOOL"));
    chmodSync(other, 0o755);
    // Same bytes, not executable: not a program a command starts by its path.
    const plain = join(lib, "plain");
    copyFileSync(prog, plain);
    chmodSync(plain, 0o644);
    // A symbolic link to the copy: the copy itself is what is found.
    symlinkSync(copy, join(lib, "link"));
    expect(copiesOf(prog, [lib])).toEqual([copy]);
  });

  it("checks a candidate as it is now, not as it was indexed", () => {
    const { lib, prog } = tree("b");
    const copy = join(lib, "tool2");
    copyFileSync(prog, copy);
    chmodSync(copy, 0o755);
    expect(copiesOf(prog, [lib])).toEqual([copy]);
    writeFileSync(copy, readFileSync(prog, "utf8").replace("echo", "ECHO"));
    expect(copiesOf(prog, [lib])).toEqual([]);
  });

  it("keeps the index in the user's cache folder, mode 0600, and reads it back", () => {
    const { lib, prog } = tree("c");
    const copy = join(lib, "again");
    copyFileSync(prog, copy);
    chmodSync(copy, 0o755);
    programIndex([lib]);
    const file = join(cache, "yoke", "program-copies.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8")).entries.map((e: { path: string }) => e.path)).toContain(copy);
    resetProgramIndex();
    expect(copiesOf(prog, [lib])).toEqual([copy]);
  });

  it("a cache file others can write is not trusted (an index planted empty would hide every copy)", () => {
    const { lib, prog } = tree("d");
    const copy = join(lib, "planted");
    copyFileSync(prog, copy);
    chmodSync(copy, 0o755);
    const file = join(cache, "yoke", "program-copies.json");
    mkdirSync(join(cache, "yoke"), { recursive: true });
    writeFileSync(file, JSON.stringify({ key: indexKey([lib]), made: Date.now(), entries: [], complete: true }));
    chmodSync(file, 0o666);
    resetProgramIndex();
    expect(copiesOf(prog, [lib])).toEqual([copy]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The same planted file, the user's own and private, would be read: the key is what protects it from going stale.
    writeFileSync(file, JSON.stringify({ key: indexKey([lib]), made: Date.now(), entries: [], complete: true }), { mode: 0o600 });
    chmodSync(file, 0o600);
    resetProgramIndex();
    expect(copiesOf(prog, [lib])).toEqual([]);
  });

  it("walks each folder once and stops at its bound", () => {
    const { lib } = tree("e");
    for (let i = 0; i < 30; i++) writeFileSync(join(lib, `f${i}`), "x");
    expect(walkExecutables([lib, lib]).complete).toBe(true);
    expect(walkExecutables([lib], 10).complete).toBe(false);
  });
});

describe("programFiles on this machine", () => {
  it.runIf(process.platform === "linux")("a program's copy in the system's library folders is one of its files (Debian: /usr/lib/git-core/git)", () => {
    try {
      statSync("/usr/lib/git-core/git");
      statSync("/usr/bin/git");
    } catch {
      return expect(programFiles("true").length).toBeGreaterThan(0);
    }
    const files = programFiles("git");
    expect(files).toContain("/usr/bin/git");
    if (statSync("/usr/lib/git-core/git").ino !== statSync("/usr/bin/git").ino && readFileSync("/usr/lib/git-core/git").equals(readFileSync("/usr/bin/git")))
      expect(files).toContain("/usr/lib/git-core/git");
    // Never the shells commands run in.
    expect(programFiles("bash")).toEqual([]);
  });
});

describe("warmProgramIndex", () => {
  it("makes the same index off the event loop, and the synchronous lookup uses it", async () => {
    const { lib, prog } = tree("w");
    mkdirSync(join(lib, "x", "y"), { recursive: true });
    const copy = join(lib, "x", "y", "tool");
    copyFileSync(prog, copy);
    chmodSync(copy, 0o755);
    await warmProgramIndex([lib]);
    const sync = walkExecutables([lib])
      .entries.map((e) => e.path)
      .sort();
    expect([...programIndex([lib]).bySize.values()].flat().sort()).toEqual(sync);
    expect(copiesOf(prog, [lib])).toEqual([copy]);
  });
});
