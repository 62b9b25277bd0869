/**
 * A real restore's preview is planned against the snapshot the restore takes first (its undo
 * point): one look at the folder per restore, not one for the preview and one for the snapshot
 * (issue 19: at a million files each look costs about a `git status`). And a later checkpoint whose
 * tree is known (nothing changed since the refresh) writes its commit and moves its head in
 * process, with no git process, as git would: a valid commit, and a head another process moved is
 * never overwritten. Real git, real files.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { restoreTo, snapshotFolders, type CheckpointEvent, type CheckpointStore, type RestoreOptions, type RestorePlan } from "../../src/core/checkpoints";
import type { NewEvent, SessionEvent } from "../../src/core/events";
import { createGitCheckpointStore } from "../../src/node/checkpoint-store";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@x", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@x" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8" });
const write = (root: string, rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};

describe("a real restore's preview", () => {
  it("is planned against the undo snapshot, before any file changes, and lists what the restore then does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-ckpt-preview-"));
    temps.push(dir);
    const ws = join(dir, "ws");
    mkdirSync(ws);
    git(ws, "init", "-q");
    for (const f of ["a.txt", "src/b.ts", "src/c.ts"]) write(ws, f, `${f} v1\n`);
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "base");
    const real = createGitCheckpointStore({ storageDir: join(dir, "storage") });
    // The real store, with its calls counted: each snapshot is a look at the folder, and so is a plan without `now`.
    const calls = { snapshots: 0, plansWithoutNow: 0 };
    const store: CheckpointStore = {
      ...real,
      snapshot: (req) => (calls.snapshots++, real.snapshot(req)),
      plan: (root: string, commit: string, o?: RestoreOptions) => (o?.now ? undefined : calls.plansWithoutNow++, real.plan(root, commit, o)),
    };
    const folders = [{ root: ws, name: "ws" }];
    const events: SessionEvent[] = [];
    const append = (e: NewEvent) => {
      const ev = { ...e, seq: events.length, ts: new Date().toISOString() } as SessionEvent;
      events.push(ev);
      return ev;
    };
    append({ type: "user_message", text: "edit" } as NewEvent);
    append(await snapshotFolders(store, folders, { turn: 1, reason: "turn" }));
    // The turn's changes: one file edited, one created.
    write(ws, "src/b.ts", "src/b.ts v2\n");
    write(ws, "src/new.ts", "created\n");
    calls.snapshots = 0;
    const seen: Array<{ plan: RestorePlan; problem: string | undefined; b: string; newExists: boolean }> = [];
    const r = await restoreTo(
      {
        store,
        events: () => events,
        append,
        folders,
        preview: (plan, problem) =>
          seen.push({
            plan,
            problem,
            b: readFileSync(join(ws, "src/b.ts"), "utf8"),
            newExists: (() => {
              try {
                readFileSync(join(ws, "src/new.ts"));
                return true;
              } catch {
                return false;
              }
            })(),
          }),
      },
      0,
      "files",
    );
    expect(seen).toHaveLength(1);
    const [p] = seen;
    // Told before anything changed: the files are still as the turn left them.
    expect(p!.b).toBe("src/b.ts v2\n");
    expect(p!.newExists).toBe(true);
    expect(p!.problem).toBeUndefined();
    expect(p!.plan.changes).toEqual(
      expect.arrayContaining([
        { path: "src/b.ts", action: "write" },
        { path: "src/new.ts", action: "delete" },
      ]),
    );
    expect(p!.plan.changes).toHaveLength(2);
    expect(p!.plan.diff).toContain("+src/b.ts v1");
    // One look at the folder: the undo snapshot; the preview's plan took its commit as the files now.
    expect(calls.snapshots).toBe(1);
    expect(calls.plansWithoutNow).toBe(0);
    // And the restore did what the preview said.
    expect(readFileSync(join(ws, "src/b.ts"), "utf8")).toBe("src/b.ts v1\n");
    expect(() => readFileSync(join(ws, "src/new.ts"))).toThrow();
    expect(r.lines.join("\n")).toContain("1 file(s) written back, 1 deleted");
    const undo = events.find((e): e is CheckpointEvent => e.type === "checkpoint" && e.reason === "restore");
    expect(undo?.folders[0]?.commit).toBeTruthy();
  }, 60_000);
});

describe("a real restore's git calls", () => {
  it("plan once (the restore takes the preview's plan) and give diff-tree no index to read (107 MB at a million files)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-ckpt-plan-once-"));
    temps.push(dir);
    const ws = join(dir, "ws");
    mkdirSync(ws);
    git(ws, "init", "-q");
    for (const f of ["a.txt", "src/b.ts", "src/c.ts"]) write(ws, f, `${f} v1\n`);
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "base");
    // Real git behind a wrapper that logs the index each call is given, and its arguments.
    const log = join(dir, "git-calls.log");
    const wrapper = join(dir, "git-wrapper.sh");
    writeFileSync(wrapper, `#!/bin/sh\necho "$GIT_INDEX_FILE|$*" >> '${log}'\nexec git "$@"\n`);
    chmodSync(wrapper, 0o755);
    const store = createGitCheckpointStore({ storageDir: join(dir, "storage"), git: wrapper });
    const folders = [{ root: ws, name: "ws" }];
    const events: SessionEvent[] = [];
    const append = (e: NewEvent) => {
      const ev = { ...e, seq: events.length, ts: new Date().toISOString() } as SessionEvent;
      events.push(ev);
      return ev;
    };
    append({ type: "user_message", text: "edit" } as NewEvent);
    append(await snapshotFolders(store, folders, { turn: 1, reason: "turn" }));
    write(ws, "src/b.ts", "src/b.ts v2\n");
    write(ws, "src/new.ts", "created\n");
    writeFileSync(log, "");
    const previews: RestorePlan[] = [];
    const r = await restoreTo({ store, events: () => events, append, folders, preview: (plan) => previews.push(plan) }, 0, "files");
    const calls = readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => ({ index: l.slice(0, l.indexOf("|")), args: l.slice(l.indexOf("|") + 1) }));
    const diffTrees = calls.filter((c) => / diff-tree /.test(` ${c.args} `));
    // One plan: the preview's, which the restore then carried out.
    expect(diffTrees).toHaveLength(1);
    expect(calls.filter((c) => / diff --no-renames /.test(` ${c.args} `))).toHaveLength(1);
    expect(previews).toHaveLength(1);
    expect(previews[0]!.changes).toHaveLength(2);
    // diff-tree compares two trees: it is given an index file that does not exist, never the store's.
    expect(diffTrees[0]!.index).toMatch(/yoke-no-index$/);
    expect(existsSync(diffTrees[0]!.index)).toBe(false);
    // And the restore did what the preview said.
    expect(readFileSync(join(ws, "src/b.ts"), "utf8")).toBe("src/b.ts v1\n");
    expect(existsSync(join(ws, "src/new.ts"))).toBe(false);
    expect(r.lines.join("\n")).toContain("1 file(s) written back, 1 deleted");
  }, 60_000);
});

describe("a later checkpoint whose tree is known", () => {
  it("is committed and its head moved without a git process; the commit is git's own format, and a head another process moved is chained onto, not overwritten", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-ckpt-inproc-"));
    temps.push(dir);
    const ws = join(dir, "ws");
    mkdirSync(ws);
    git(ws, "init", "-q");
    for (const f of ["a.txt", "src/b.ts"]) write(ws, f, `${f} v1\n`);
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "base");
    // Real git behind a wrapper that logs each call: what the store runs, counted.
    const log = join(dir, "git-calls.log");
    const wrapper = join(dir, "git-wrapper.sh");
    writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> '${log}'\nexec git "$@"\n`);
    chmodSync(wrapper, 0o755);
    const calls = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0);
    const storage = join(dir, "storage");
    const store = createGitCheckpointStore({ storageDir: storage, git: wrapper });
    const first = await store.snapshot({ root: ws, name: "ws", budgetMs: 2000 });
    write(ws, "a.txt", "a.txt in turn 1\n");
    expect(await store.refresh!(ws)).toMatchObject({ complete: true });
    const before = calls();
    const next = await store.snapshot({ root: ws, name: "ws", budgetMs: 2000, changed: [] });
    expect(next.error).toBeUndefined();
    expect(calls()).toBe(before);
    const shadow = store.shadowDir(ws);
    const sg = (...args: string[]) => git(ws, "--git-dir", shadow, ...args);
    // git reads it as its own: the tree, the parent, the metadata; fsck finds nothing wrong.
    expect(sg("rev-parse", "refs/heads/checkpoints").trim()).toBe(next.commit);
    expect(sg("rev-parse", `${next.commit}^`).trim()).toBe(first.commit);
    expect(sg("cat-file", "-t", next.commit!).trim()).toBe("commit");
    expect(sg("log", "-1", "--format=%an <%ae>", next.commit!).trim()).toBe("Yoke <checkpoints@yoke.invalid>");
    expect(sg("fsck", "--no-dangling", "--strict")).toBe("");
    expect(Buffer.from((await store.readFile(ws, next.commit!, "a.txt"))!).toString()).toBe("a.txt in turn 1\n");
    // Another process (a new store over the same shadow repository) moves the head.
    const other = await createGitCheckpointStore({ storageDir: storage }).snapshot({ root: ws, name: "ws", budgetMs: 2000 });
    expect(sg("rev-parse", `${other.commit}^`).trim()).toBe(next.commit);
    // This process's next checkpoint finds the head moved: it chains onto the other's commit.
    const third = await store.snapshot({ root: ws, name: "ws", budgetMs: 2000, changed: [] });
    expect(sg("rev-parse", "refs/heads/checkpoints").trim()).toBe(third.commit);
    expect(sg("rev-parse", `${third.commit}^`).trim()).toBe(other.commit);
    expect(existsSync(join(shadow, "refs", "heads", "checkpoints.lock"))).toBe(false);
    // While git holds the head's lock, the store leaves the update to git (which waits or fails; never both at once).
    writeFileSync(join(shadow, "refs", "heads", "checkpoints.lock"), "");
    const locked = await store.snapshot({ root: ws, name: "ws", budgetMs: 2000, changed: [] });
    expect(locked.error).toMatch(/lock/);
    expect(sg("rev-parse", "refs/heads/checkpoints").trim()).toBe(third.commit);
    rmSync(join(shadow, "refs", "heads", "checkpoints.lock"));
  }, 60_000);
});
