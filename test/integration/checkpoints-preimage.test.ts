/**
 * Pre-images (issue 19) on a real shadow repository: the file a tool is about to write is added
 * to the turn's checkpoint when the checkpoint does not hold it — ignored by git, or unknown to a
 * partial snapshot — and a file it creates is recorded as absent, so a restore puts back the one
 * and deletes the other. Before a command, a partial checkpoint is completed by a second walk.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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
function setup() {
  const dir = mkdtempSync(join(tmpdir(), "yoke-ckpt-pre-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws);
  return { ws, store: createGitCheckpointStore({ storageDir: join(dir, "storage") }) };
}

describe("checkpoint pre-images", () => {
  it("records an ignored file before a tool edits it and a created one as absent: a restore puts back the one and deletes the other", async () => {
    const { ws, store } = setup();
    git(ws, "init", "-q");
    write(ws, ".gitignore", "node_modules/\n");
    write(ws, "node_modules/dep/index.js", "original\n");
    write(ws, "src/a.ts", "a\n");
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "base");
    const snap = await store.snapshot({ root: ws, name: "ws", budgetMs: 2000 });
    expect(snap.partial).toBeUndefined();
    const dep = join(ws, "node_modules/dep/index.js");
    const created = join(ws, "node_modules/dep/new.js");
    expect(await store.preimage!(ws, snap.commit!, [dep])).toEqual({ recorded: ["node_modules/dep/index.js"], absent: [], partial: false });
    writeFileSync(dep, "edited by the agent\n");
    // A second write of the same file in the turn keeps the first pre-image.
    expect(await store.preimage!(ws, snap.commit!, [dep])).toEqual({ recorded: [], absent: [], partial: false });
    writeFileSync(dep, "edited twice\n");
    expect(await store.preimage!(ws, snap.commit!, [created])).toEqual({ recorded: [], absent: ["node_modules/dep/new.js"], partial: false });
    writeFileSync(created, "created by the agent\n");
    // A tracked file the complete checkpoint holds needs nothing.
    expect(await store.preimage!(ws, snap.commit!, [join(ws, "src/a.ts")])).toEqual({ recorded: [], absent: [], partial: false });
    writeFileSync(join(ws, "src/a.ts"), "changed\n");

    const plan = await store.plan(ws, snap.commit!);
    expect(plan.changes).toEqual(
      expect.arrayContaining([
        { path: "node_modules/dep/index.js", action: "write" },
        { path: "node_modules/dep/new.js", action: "delete" },
        { path: "src/a.ts", action: "write" },
      ]),
    );
    expect(plan.changes).toHaveLength(3);
    expect(new TextDecoder().decode(await store.readFile(ws, snap.commit!, "node_modules/dep/index.js"))).toBe("original\n");
    await store.restore(ws, snap.commit!);
    expect(readFileSync(dep, "utf8")).toBe("original\n");
    expect(existsSync(created)).toBe(false);
    expect(readFileSync(join(ws, "src/a.ts"), "utf8")).toBe("a\n");
    expect(git(ws, "status", "--porcelain")).toBe("");
  });

  it("completes a partial checkpoint before a command: files the command changes or creates are put back or deleted", async () => {
    const { ws, store } = setup();
    for (let i = 0; i < 200; i++) write(ws, `d${i % 10}/f${i}.txt`, `${i}\n`);
    const snap = await store.snapshot({ root: ws, name: "ws", budgetMs: 1 });
    expect(snap.partial).toBe(true);
    // Without the walk, a restore would leave the command's changes as they are.
    const before = await store.plan(ws, snap.commit!);
    expect(before.partial).toBe(true);
    const r = await store.complete!(ws, snap.commit!, 60_000);
    expect(r.partial).toBe(false);
    expect(r.recorded.length).toBeGreaterThan(0);
    // The command: edits a file, deletes one, creates one.
    write(ws, "d9/f199.txt", "changed by the command\n");
    rmSync(join(ws, "d0/f0.txt"));
    write(ws, "made-by-command.txt", "x\n");
    const plan = await store.plan(ws, snap.commit!);
    expect(plan.partial).toBeUndefined();
    expect(plan.changes).toEqual(
      expect.arrayContaining([
        { path: "d9/f199.txt", action: "write" },
        { path: "d0/f0.txt", action: "write" },
        { path: "made-by-command.txt", action: "delete" },
      ]),
    );
    await store.restore(ws, snap.commit!);
    expect(readFileSync(join(ws, "d9/f199.txt"), "utf8")).toBe("199\n");
    expect(readFileSync(join(ws, "d0/f0.txt"), "utf8")).toBe("0\n");
    expect(existsSync(join(ws, "made-by-command.txt"))).toBe(false);
  }, 120_000);
});
