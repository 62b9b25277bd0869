/**
 * Later checkpoints cost what changed (issue 19): when a turn ends the store brings its private
 * index up to the folder in the background (`refresh`), and the next turn's snapshot, told what
 * the agent changed since (`changed`), looks at those files only. Real git, real files, a real
 * session loop with the real write_file tool and the real checkpoints extension.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointsExtension, type CheckpointEvent, type CheckpointStore, type SnapshotRequest } from "../../src/core/checkpoints";
import { AgentSession } from "../../src/core/loop/agent-session";
import { silentLogger } from "../../src/core/ports";
import { writeFileTool } from "../../src/core/tools/write-file";
import { createGitCheckpointStore } from "../../src/node/checkpoint-store";
import { createFakeProvider, textTurn, toolTurn } from "../support/fake-provider";
import { createMemoryStore } from "../support/memory-store";
import { createTempWorkspace } from "../support/workspace";

const temps: string[] = [];
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
  for (const c of cleanups.splice(0)) c();
});
const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@x", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@x" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8" });
const write = (root: string, rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};
const text = async (store: CheckpointStore, root: string, commit: string, rel: string) => {
  const b = await store.readFile(root, commit, rel);
  return b === undefined ? undefined : Buffer.from(b).toString();
};

function repo() {
  const dir = mkdtempSync(join(tmpdir(), "yoke-ckpt-inc-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws);
  git(ws, "init", "-q");
  for (const f of ["a.txt", "b.txt", "c.txt", "src/d.ts"]) write(ws, f, `${f} v1\n`);
  git(ws, "add", "-A");
  git(ws, "commit", "-qm", "base");
  return { dir, ws, storage: join(dir, "storage") };
}

describe("later checkpoints from a refreshed index", () => {
  it("holds the files as the turn left them plus the files the agent changed since, looking only at those", async () => {
    const { ws, storage } = repo();
    const store = createGitCheckpointStore({ storageDir: storage });
    const first = await store.snapshot({ root: ws, name: "ws", budgetMs: 2000 });
    expect(first.partial).toBeUndefined();
    // During the turn: the agent (or anyone) changes a.txt and adds new.txt; then the turn ends.
    write(ws, "a.txt", "a.txt during turn 1\n");
    write(ws, "new.txt", "created in turn 1\n");
    expect(await store.refresh!(ws)).toMatchObject({ complete: true });
    // After the turn ended: someone edits c.txt; the agent's next turn writes b.txt.
    write(ws, "c.txt", "c.txt after the turn\n");
    const second = await store.snapshot({ root: ws, name: "ws", budgetMs: 2000, changed: [] });
    write(ws, "b.txt", "b.txt by the agent in turn 2\n");
    write(ws, "src/deep/er/made.ts", "made in turn 2\n");
    write(ws, "ignored.log", "ignored\n");
    write(ws, ".gitignore", "*.log\n");
    rmSync(join(ws, "src/d.ts"));
    const told = ["b.txt", "src/gone.ts", "src/deep/er/made.ts", "ignored.log", "src/d.ts", ".gitignore"].map((p) => join(ws, p));
    const index = join(store.shadowDir(ws), "yoke-index");
    const indexBefore = statSync(index).mtimeMs;
    const third = await store.snapshot({ root: ws, name: "ws", budgetMs: 2000, changed: told });
    // Written onto the refreshed tree: the index (100 MB at a million files) is not read or written.
    expect(statSync(index).mtimeMs).toBe(indexBefore);
    for (const s of [second, third]) expect(s).toMatchObject({ commit: expect.stringMatching(/^[0-9a-f]{40}$/) as unknown as string, skipped: [] });
    expect(second.partial).toBeUndefined();
    // The second checkpoint is the folder as turn 1 left it: a.txt and new.txt, c.txt not yet.
    expect(await text(store, ws, second.commit!, "a.txt")).toBe("a.txt during turn 1\n");
    expect(await text(store, ws, second.commit!, "new.txt")).toBe("created in turn 1\n");
    expect(await text(store, ws, second.commit!, "c.txt")).toBe("c.txt v1\n");
    expect(await text(store, ws, second.commit!, "b.txt")).toBe("b.txt v1\n");
    // The third adds what it was told changed (b.txt), nothing else.
    expect(await text(store, ws, third.commit!, "b.txt")).toBe("b.txt by the agent in turn 2\n");
    expect(await text(store, ws, third.commit!, "c.txt")).toBe("c.txt v1\n");
    expect(await text(store, ws, third.commit!, "src/d.ts")).toBeUndefined();
    expect(await text(store, ws, third.commit!, "src/deep/er/made.ts")).toBe("made in turn 2\n");
    expect(await text(store, ws, third.commit!, "ignored.log")).toBeUndefined();
    expect(await text(store, ws, third.commit!, "a.txt")).toBe("a.txt during turn 1\n");
    // The same tree git would write for those files (a look at the whole folder with c.txt put back).
    write(ws, "c.txt", "c.txt v1\n");
    const looked = await createGitCheckpointStore({ storageDir: join(storage, "..", "other-storage") }).snapshot({ root: ws, name: "ws", budgetMs: 2000 });
    const treeOf = (st: string, c: string) => git(ws, "--git-dir", st, "rev-parse", `${c}^{tree}`).trim();
    expect(treeOf(store.shadowDir(ws), third.commit!)).toBe(treeOf(createGitCheckpointStore({ storageDir: join(storage, "..", "other-storage") }).shadowDir(ws), looked.commit!));
    write(ws, "c.txt", "c.txt after the turn\n");
    // A whole look (the undo point of a restore) holds c.txt as it is now.
    const whole = await store.snapshot({ root: ws, name: "ws", budgetMs: 2000 });
    expect(await text(store, ws, whole.commit!, "c.txt")).toBe("c.txt after the turn\n");
    // A restore to the second checkpoint puts a.txt/b.txt/c.txt back as turn 1 left them.
    const undo = await store.snapshot({ root: ws, name: "ws", budgetMs: 2000 });
    await store.restore(ws, second.commit!, { now: undo.commit! });
    expect(readFileSync(join(ws, "b.txt"), "utf8")).toBe("b.txt v1\n");
    expect(readFileSync(join(ws, "c.txt"), "utf8")).toBe("c.txt v1\n");
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("a.txt during turn 1\n");
  }, 120_000);

  it("looks at the whole folder when it holds no up-to-date index: a new process, after a refresh was stopped, after another process restored", async () => {
    const { ws, storage } = repo();
    const first = createGitCheckpointStore({ storageDir: storage });
    const s1 = await first.snapshot({ root: ws, name: "ws", budgetMs: 2000 });
    write(ws, "a.txt", "a.txt edited\n");
    // Another process (a new store over the same shadow repository) knows nothing of that index.
    const other = createGitCheckpointStore({ storageDir: storage });
    const s2 = await other.snapshot({ root: ws, name: "ws", budgetMs: 2000, changed: [] });
    expect(await text(other, ws, s2.commit!, "a.txt")).toBe("a.txt edited\n");
    // A refresh stopped half-way leaves nothing to reuse.
    write(ws, "b.txt", "b.txt edited\n");
    const stop = new AbortController();
    stop.abort();
    expect(await first.refresh!(ws, { signal: stop.signal })).toMatchObject({ complete: false });
    const s3 = await first.snapshot({ root: ws, name: "ws", budgetMs: 2000, changed: [] });
    expect(await text(first, ws, s3.commit!, "b.txt")).toBe("b.txt edited\n");
    // The first process refreshes; another one restores the files to the first checkpoint: the
    // first process's next snapshot looks again and holds the restored files.
    expect(await first.refresh!(ws)).toMatchObject({ complete: true });
    const undo = await other.snapshot({ root: ws, name: "ws", budgetMs: 2000 });
    await other.restore(ws, s1.commit!, { now: undo.commit! });
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("a.txt v1\n");
    const s4 = await first.snapshot({ root: ws, name: "ws", budgetMs: 2000, changed: [] });
    expect(await text(first, ws, s4.commit!, "a.txt")).toBe("a.txt v1\n");
    expect(await text(first, ws, s4.commit!, "b.txt")).toBe("b.txt v1\n");
  }, 120_000);
});

describe("the checkpoints extension in a session", () => {
  it("refreshes when a turn ends and tells the next turn's snapshot what changed; a restore to turn 1 undoes turn 2's write and the later edit", async () => {
    const ws = createTempWorkspace({ "a.txt": "a v1\n", "b.txt": "b v1\n", "c.txt": "c v1\n" });
    cleanups.push(() => ws.cleanup());
    git(ws.root, "init", "-q");
    git(ws.root, "add", "-A");
    git(ws.root, "commit", "-qm", "base");
    const dir = mkdtempSync(join(tmpdir(), "yoke-ckpt-inc-"));
    temps.push(dir);
    const real = createGitCheckpointStore({ storageDir: join(dir, "storage") });
    const requests: SnapshotRequest[] = [];
    const refreshes: Array<Promise<unknown>> = [];
    const store: CheckpointStore = {
      ...real,
      snapshot: (req) => (requests.push(req), real.snapshot(req)),
      refresh: (root, o) => {
        const p = real.refresh!(root, o);
        refreshes.push(p);
        return p;
      },
    };
    const provider = createFakeProvider([
      toolTurn({ id: "w1", name: "write_file", input: { path: "made-1.txt", content: "made by turn 1\n" } }),
      textTurn("turn 1 done"),
      toolTurn({ id: "w2", name: "write_file", input: { path: "made-2.txt", content: "made by turn 2\n" } }),
      textTurn("turn 2 done"),
    ]);
    const session = await AgentSession.create({
      store: createMemoryStore(),
      provider,
      tools: [writeFileTool],
      services: { fs: ws.fs, search: ws.search, log: silentLogger },
      approver: { ask: async () => ({ decision: "allow" }) },
      permissionMode: "bypassPermissions",
      extensions: [checkpointsExtension({ store })],
      retry: { maxRetries: 0 },
    });
    await session.send("turn one");
    expect(refreshes).toHaveLength(1);
    expect(await Promise.all(refreshes)).toEqual([expect.objectContaining({ complete: true })]);
    // Edited by the user after turn 1 ended: not part of the files after turn 1.
    writeFileSync(join(ws.root, "c.txt"), "c by the user after turn 1\n");
    await session.send("turn two");
    expect(requests.map((r) => r.changed)).toEqual([undefined, []]);
    const checkpoints = session.events().filter((e): e is CheckpointEvent => e.type === "checkpoint");
    expect(checkpoints).toHaveLength(2);
    const after1 = checkpoints[1]!.folders[0]!;
    expect(after1.partial).toBeUndefined();
    expect(await text(real, ws.root, after1.commit!, "made-1.txt")).toBe("made by turn 1\n");
    expect(await text(real, ws.root, after1.commit!, "made-2.txt")).toBeUndefined();
    expect(await text(real, ws.root, after1.commit!, "c.txt")).toBe("c v1\n");
    expect(readFileSync(join(ws.root, "made-2.txt"), "utf8")).toBe("made by turn 2\n");
    const undo = await real.snapshot({ root: ws.root, name: "ws", budgetMs: 2000 });
    const plan = await real.plan(ws.root, after1.commit!, { now: undo.commit! });
    expect(plan.changes).toEqual([
      { path: "c.txt", action: "write" },
      { path: "made-2.txt", action: "delete" },
    ]);
    await real.restore(ws.root, after1.commit!, { now: undo.commit! });
    expect(existsSync(join(ws.root, "made-2.txt"))).toBe(false);
    expect(readFileSync(join(ws.root, "made-1.txt"), "utf8")).toBe("made by turn 1\n");
    expect(readFileSync(join(ws.root, "c.txt"), "utf8")).toBe("c v1\n");
    await session.end();
  }, 120_000);
});
