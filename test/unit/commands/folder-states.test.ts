/**
 * The folder cache of the new-repository walk (folder-states.ts, session 23: sweep23): a folder is
 * read again only when its stat changed (or it changed too close to its last read); every change
 * that can hide a repository — a new folder, a rename, a folder swapped for another, a chmod, one
 * changed within the clock's grain of the last read — is seen. And the walk has no folder-count
 * bound left (R45-05): repositories planted past 600 folders each in two trees are both found.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FolderStates } from "../../../src/node/commands/folder-states";
import { repositoryMarkers, scanNewRepositories } from "../../../src/node/commands/new-repositories";

let base: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-fs-")));
});
afterEach(() => {
  execFileSync("chmod", ["-R", "u+rwx", base]);
  rmSync(base, { recursive: true, force: true });
});

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Every folder below `root` through `s` (the walk's own order does not matter here). */
function walkAll(s: FolderStates, root: string): string[] {
  s.begin();
  const out: string[] = [];
  const stack = [root];
  while (stack.length) {
    const d = stack.pop()!;
    const e = s.entries(d);
    if (!e) continue;
    out.push(d.slice(root.length) || "/");
    for (const n of e.dirs) stack.push(join(d, n));
  }
  s.end();
  return out.sort();
}

function tree(root: string, n: number): void {
  for (let i = 0; i < n; i++) mkdirSync(join(root, `p${i % 10}`, `d${i}`), { recursive: true });
}

describe("folder cache", () => {
  // racyNs 30 ms instead of 2 s: the tree is made, then left alone past it, so the second walk may trust it.
  it("reads a folder again only when its stat changed; lstats the others", () => {
    const root = join(base, "t");
    tree(root, 200);
    pause(60);
    const s = new FolderStates(30_000_000n);
    const all = walkAll(s, root);
    expect(all).toHaveLength(211);
    expect(s.reads).toBe(211);
    expect(walkAll(s, root)).toEqual(all);
    expect(s.reads).toBe(0);
    // A new folder deep down: its parent's ctime moved; the parent and the new folder are read, nothing else.
    mkdirSync(join(root, "p3/d13/new"));
    expect(walkAll(s, root)).toContain("/p3/d13/new");
    expect(s.reads).toBe(2);
  });

  it("sees a rename into a folder, a folder swapped for another, a chmod, and a change within the clock's grain of the read", () => {
    const root = join(base, "t");
    tree(root, 50);
    pause(60);
    const s = new FolderStates(30_000_000n);
    walkAll(s, root);
    // a folder made elsewhere and renamed in: the target folder changes
    mkdirSync(join(base, "outside/x"), { recursive: true });
    renameSync(join(base, "outside"), join(root, "p1/d1/in"));
    expect(walkAll(s, root)).toContain("/p1/d1/in/x");
    // p2 swapped for a folder with other content (same path, another inode)
    pause(60);
    walkAll(s, root);
    mkdirSync(join(base, "other/hidden"), { recursive: true });
    renameSync(join(root, "p2"), join(base, "old-p2"));
    renameSync(join(base, "other"), join(root, "p2"));
    expect(walkAll(s, root)).toContain("/p2/hidden");
    // made unreadable after it was read: no stale answer from the cache
    pause(60);
    walkAll(s, root);
    chmodSync(join(root, "p4"), 0o000);
    s.begin();
    const hidden = s.entries(join(root, "p4"));
    if (process.getuid?.() === 0)
      expect(s.reads).toBe(1); // root reads it anyway: read again, not taken from the cache
    else expect(hidden).toBeUndefined();
    s.end();
    chmodSync(join(root, "p4"), 0o755);
    pause(60);
    walkAll(s, root);
    // changed within racyNs of its read (a change in the same clock tick as the read would keep the ctime): read again next time, though unchanged since
    walkAll(s, root);
    expect(s.reads).toBe(0);
    mkdirSync(join(root, "p5/late"));
    walkAll(s, root);
    expect(s.reads).toBe(2);
    // With a grain of an hour every folder here changed "too close" to its read: each is read at every walk, none from the cache.
    const coarse = new FolderStates(3_600_000_000_000n);
    const n = walkAll(coarse, root).length;
    expect(coarse.reads).toBe(n);
    walkAll(coarse, root);
    expect(coarse.reads).toBe(n);
  });
});

describe("the new-repository walk has no folder-count bound (R45-05)", () => {
  it("finds repositories planted past 600 folders each in two trees, on the first walk and from the cache", () => {
    const ws = join(base, "ws");
    mkdirSync(ws);
    for (const t of ["A", "B"]) for (let i = 0; i < 600; i++) mkdirSync(join(ws, t, `d${i % 5}`, `x${i}`), { recursive: true });
    const known = repositoryMarkers(ws);
    expect(known.size).toBe(0);
    const since = Date.now() - 50;
    for (const t of ["A", "B"]) {
      execFileSync("git", ["init", "-q", join(ws, t, "d4/x599/deep/r")]);
      execFileSync("git", ["config", "-f", join(ws, t, "d4/x599/deep/r/.git/config"), "core.fsmonitor", "touch /tmp/never"]);
    }
    const found = scanNewRepositories(ws, since, known).findings.map((f) => f.path.slice(ws.length + 1));
    expect(found.sort()).toEqual(["A/d4/x599/deep/r/.git", "B/d4/x599/deep/r/.git"]);
    expect(scanNewRepositories(ws, since, known).findings).toHaveLength(2);
  });
});
