/**
 * The git-backed checkpoint store with real git on real folders: the user's repository state is
 * never touched, .gitignore honoured, nested repositories, submodules and large files skipped and
 * listed, the time budget's fallback, and a planted fsmonitor that must not run.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, unlinkSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGitCheckpointStore } from "../../src/node/checkpoint-store";

const temps: string[] = [];
// Removing a 10,000-file workspace and its shadow repositories takes a while on a loaded machine.
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
}, 120_000);

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@x", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@x" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "protocol.file.allow=always", ...args], { cwd, env: gitEnv, encoding: "utf8" });

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "yoke-ckpt-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws);
  const store = createGitCheckpointStore({ storageDir: join(dir, "storage") });
  return { dir, ws, store };
}

function write(root: string, rel: string, text: string) {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/** Everything of the user's repository a checkpoint must not change, as git itself reports it. */
function repoState(ws: string) {
  return {
    // --no-optional-locks: the check itself must not refresh the index it compares.
    status: git(ws, "--no-optional-locks", "status", "--porcelain=v1", "--untracked-files=all"),
    stash: git(ws, "stash", "list"),
    head: git(ws, "rev-parse", "HEAD"),
    index: git(ws, "ls-files", "--stage"),
    refs: git(ws, "for-each-ref"),
    indexBytes: readFileSync(join(ws, ".git", "index")).toString("hex"),
  };
}

describe("git checkpoint store", () => {
  it("snapshots and restores a folder without touching the user's index, stash, HEAD or refs", async () => {
    const { ws, store } = setup();
    git(ws, "init", "-q");
    write(ws, "a.txt", "a1\n");
    write(ws, "b.txt", "b1\n");
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "first");
    write(ws, "a.txt", "a2 staged\n");
    git(ws, "add", "a.txt");
    write(ws, "c.txt", "stashed\n");
    git(ws, "stash", "push", "-u", "-q", "-m", "mine");
    write(ws, "a.txt", "a3 staged\n");
    git(ws, "add", "a.txt");
    write(ws, "b.txt", "b2 unstaged\n");
    const before = repoState(ws);

    const snap = await store.snapshot({ root: ws, name: "ws", budgetMs: 10_000 });
    expect(snap.error).toBeUndefined();
    expect(snap.partial).toBeUndefined();
    expect(repoState(ws)).toEqual(before);

    write(ws, "a.txt", "agent\n");
    write(ws, "new/d.txt", "created by the agent\n");
    unlinkSync(join(ws, "b.txt"));
    const plan = await store.plan(ws, snap.commit!);
    expect(plan.changes.sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: "a.txt", action: "write" },
      { path: "b.txt", action: "write" },
      { path: "new/d.txt", action: "delete" },
    ]);
    expect(plan.diff).toContain("-agent");
    expect(plan.diff).toContain("+a3 staged");
    const r = await store.restore(ws, snap.commit!);
    expect(r).toMatchObject({ written: 2, deleted: 1 });
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("a3 staged\n");
    expect(readFileSync(join(ws, "b.txt"), "utf8")).toBe("b2 unstaged\n");
    expect(existsSync(join(ws, "new"))).toBe(false);
    expect(repoState(ws)).toEqual(before);
    expect(git(ws, "stash", "list")).toContain("mine");
  });

  it("honours .gitignore and the repository's info/exclude, and skips large files, nested repositories and submodules", async () => {
    const { dir, ws, store } = setup();
    git(ws, "init", "-q");
    write(ws, ".gitignore", "build/\n*.log\n");
    write(ws, "build/out.js", "generated\n");
    write(ws, "debug.log", "noise\n");
    writeFileSync(join(ws, ".git", "info", "exclude"), "private.txt\n");
    write(ws, "private.txt", "mine\n");
    write(ws, "src/main.ts", "main\n");
    writeFileSync(join(ws, "big.bin"), Buffer.alloc(11 * 1024 * 1024, 1));
    // A nested repository, and a real submodule (a .git file pointing into the parent's modules).
    const nested = join(ws, "vendor", "lib");
    mkdirSync(nested, { recursive: true });
    git(nested, "init", "-q");
    write(nested, "lib.c", "int x;\n");
    const upstream = join(dir, "upstream");
    mkdirSync(upstream);
    git(upstream, "init", "-q");
    write(upstream, "u.txt", "u\n");
    git(upstream, "add", "-A");
    git(upstream, "commit", "-qm", "u");
    git(ws, "submodule", "add", "-q", upstream, "deps/up");
    git(ws, "commit", "-qm", "with a submodule");
    const before = repoState(ws);

    const snap = await store.snapshot({ root: ws, name: "ws", budgetMs: 10_000 });
    expect(snap.error).toBeUndefined();
    const byPath = Object.fromEntries(snap.skipped.map((s) => [s.path, s.reason]));
    expect(byPath).toEqual({ "big.bin": "large-file", "vendor/lib": "nested-repository", "deps/up": "nested-repository" });
    const shadow = store.shadowDir(ws);
    const files = execFileSync("git", ["--git-dir", shadow, "ls-tree", "-r", "--name-only", snap.commit!], { encoding: "utf8", env: gitEnv }).trim().split("\n");
    expect(files.sort()).toEqual([".gitignore", ".gitmodules", "src/main.ts"]);
    // No gitlink (mode 160000) was ever added.
    expect(execFileSync("git", ["--git-dir", shadow, "ls-tree", "-r", snap.commit!], { encoding: "utf8", env: gitEnv })).not.toContain("160000");
    expect(repoState(ws)).toEqual(before);

    // A restore leaves what was skipped alone: the nested repository and the large file survive.
    write(ws, "src/main.ts", "changed\n");
    await store.restore(ws, snap.commit!);
    expect(readFileSync(join(ws, "src/main.ts"), "utf8")).toBe("main\n");
    expect(existsSync(join(ws, "big.bin"))).toBe(true);
    expect(readFileSync(join(nested, "lib.c"), "utf8")).toBe("int x;\n");
    expect(existsSync(join(ws, "deps/up/u.txt"))).toBe(true);
    expect(existsSync(join(ws, "build/out.js"))).toBe(true);
    expect(repoState(ws)).toEqual(before);
  });

  it("does not run a planted core.fsmonitor, hook or filter of the workspace's .git/config and .gitattributes", async () => {
    const { dir, ws, store } = setup();
    git(ws, "init", "-q");
    const marker = join(dir, "pwned");
    const script = join(dir, "evil.sh");
    writeFileSync(script, `#!/bin/sh\ntouch ${marker}\ncat\n`);
    chmodSync(script, 0o755);
    writeFileSync(
      join(ws, ".git", "config"),
      `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = ${script}\n\thooksPath = ${dir}\n[filter "x"]\n\tclean = ${script}\n\tsmudge = ${script}\n\tprocess = ${script}\n[diff "x"]\n\ttextconv = ${script}\n`,
    );
    for (const h of ["pre-commit", "post-checkout", "post-commit", "reference-transaction", "post-index-change"]) {
      writeFileSync(join(dir, h), `#!/bin/sh\ntouch ${marker}\n`);
      chmodSync(join(dir, h), 0o755);
    }
    write(ws, ".gitattributes", "* filter=x diff=x\n");
    write(ws, "a.txt", "one\n");
    const snap = await store.snapshot({ root: ws, name: "ws", budgetMs: 10_000 });
    expect(snap.error).toBeUndefined();
    write(ws, "a.txt", "two\n");
    const plan = await store.plan(ws, snap.commit!);
    expect(plan.diff).toContain("+one");
    await store.restore(ws, snap.commit!);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("one\n");
    expect(existsSync(marker)).toBe(false);
    // The planted git-dir config itself is not our config either: a folder without git but with
    // a file named like git's config is just a file.
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toContain("fsmonitor");
  });

  it("covers a folder without git, and incremental snapshots chain", async () => {
    const { ws, store } = setup();
    write(ws, "x.txt", "1\n");
    const s1 = await store.snapshot({ root: ws, name: "ws", budgetMs: 10_000 });
    write(ws, "x.txt", "2\n");
    const s2 = await store.snapshot({ root: ws, name: "ws", budgetMs: 10_000 });
    expect(s1.commit).not.toBe(s2.commit);
    expect(existsSync(join(ws, ".git"))).toBe(false);
    await store.restore(ws, s1.commit!);
    expect(readFileSync(join(ws, "x.txt"), "utf8")).toBe("1\n");
    await store.restore(ws, s2.commit!);
    expect(readFileSync(join(ws, "x.txt"), "utf8")).toBe("2\n");
  });

  it("falls back to what changed since the last snapshot when the budget runs out (10,000 files), and a restore to it deletes nothing it cannot know", async () => {
    const { ws, store } = setup();
    for (let d = 0; d < 100; d++) for (let f = 0; f < 100; f++) write(ws, `d${d}/f${f}.txt`, `${d}/${f}\n`);
    // A first snapshot out of budget at once: partial, not failed, the agent's file in it.
    const fresh = createGitCheckpointStore({ storageDir: join(ws, "..", "fresh-storage") });
    const first = await fresh.snapshot({ root: ws, name: "ws", budgetMs: 1, hints: [join(ws, "d0/f0.txt")] });
    expect(first.error).toBeUndefined();
    expect(first.partial).toBe(true);
    expect(first.fallback).toMatch(/ran out of its 1 ms budget/);
    expect(execFileSync("git", ["--git-dir", fresh.shadowDir(ws), "ls-tree", "-r", "--name-only", first.commit!], { encoding: "utf8", env: gitEnv })).toContain("d0/f0.txt");
    const full = await store.snapshot({ root: ws, name: "ws", budgetMs: 120_000 });
    expect(full.error).toBeUndefined();
    expect(full.partial).toBeUndefined();
    write(ws, "d1/f1.txt", "changed\n");
    write(ws, "agent-new.txt", "the agent wrote this\n");
    write(ws, "unknown-new.txt", "a command wrote this\n");
    const tiny = await store.snapshot({ root: ws, name: "ws", budgetMs: 1, hints: [join(ws, "agent-new.txt")] });
    expect(tiny.error).toBeUndefined();
    expect(tiny.partial).toBe(true);
    expect(tiny.fallback).toContain("budget");
    const shadow = store.shadowDir(ws);
    const show = (path: string) => execFileSync("git", ["--git-dir", shadow, "show", `${tiny.commit}:${path}`], { encoding: "utf8", env: gitEnv });
    expect(show("d1/f1.txt")).toBe("changed\n");
    expect(show("agent-new.txt")).toBe("the agent wrote this\n");
    write(ws, "d1/f1.txt", "later\n");
    write(ws, "even-later.txt", "x\n");
    const plan = await store.plan(ws, tiny.commit!);
    expect(plan.changes.find((c) => c.path === "d1/f1.txt")?.action).toBe("write");
    expect(plan.changes.some((c) => c.action === "delete")).toBe(false);
    expect(plan.kept).toContain("even-later.txt");
  }, 300_000);
});
