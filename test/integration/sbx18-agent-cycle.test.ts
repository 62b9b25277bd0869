/**
 * Issue 18, session 16 (sbx18) item 6: forged background-agent records whose parent chain loops.
 * An agent's parent is the agent whose worktree its `workspace` is (nested isolated agents). Two
 * records naming each other's worktree (A in B's, B in A's), and one naming its own worktree, are
 * written by hand — as a repository's code or a broken tool could — next to real git worktrees.
 * `yoke agents list`, `merge` and `discard` (the built CLI, real git) must answer in bounded time,
 * and discard must clean every one of them up without --force (before: each of A and B refused
 * because the other "started inside its worktree", so neither could ever be discarded).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { runCli, ensureBuilt } from "../support/cli";
import { agentsDir, workspaceWorktreesDir } from "../../src/node/background/paths";
import { committedWorkspace } from "../support/sandbox-matrix";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });
const temps: string[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

it("a loop in the agents' parent chain: list, merge and discard answer; discard removes every one without --force", async () => {
  const base = mkdtempSync(join(tmpdir(), "yoke-sbx18-cycle-"));
  temps.push(base);
  const home = join(base, "home");
  mkdirSync(home);
  const me = { label: "root" as const, uid: process.getuid!(), gid: process.getgid!(), home, name: "me" };
  const ws = committedWorkspace(join(base, "ws"), { "a.txt": "a\n" }, me);
  const head = execFileSync("git", ["-C", ws, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  const trees = workspaceWorktreesDir(ws, home);
  mkdirSync(trees, { recursive: true });
  const ids = ["aaaa0001", "bbbb0002", "cccc0003"];
  const wt = (id: string) => join(trees, id);
  for (const id of ids) execFileSync("git", ["-C", ws, "worktree", "add", "-q", "-b", `yoke/${id}`, wt(id)]);
  writeFileSync(join(wt(ids[0]!), "a.txt"), "changed by A\n");
  const parent: Record<string, string> = { aaaa0001: wt("bbbb0002"), bbbb0002: wt("aaaa0001"), cccc0003: wt("cccc0003") };
  const dir = agentsDir(ws, home);
  mkdirSync(dir, { recursive: true });
  const now = new Date().toISOString();
  for (const id of ids)
    writeFileSync(
      join(dir, `${id}.json`),
      JSON.stringify({
        id,
        task: `forged ${id}`,
        workspace: parent[id],
        worktree: wt(id),
        branch: `yoke/${id}`,
        baseCommit: head,
        carried: "none",
        sessionDir: join(base, "s"),
        runArgs: [],
        trusted: false,
        phase: "ended",
        exitCode: 0,
        createdAt: now,
        updatedAt: now,
      }),
    );
  const env = { HOME: home, XDG_DATA_HOME: "" };
  const cli = (args: string[]) => runCli(args, { cwd: ws, env });
  const list = await cli(["agents", "list", "--json"]);
  expect(list.signal, "list hung").toBeNull();
  expect(list.code, list.stderr).toBe(0);
  for (const id of ids) expect(list.stdout).toContain(id);
  // merge A: answers (no recursion) and refuses.
  const merge = await cli(["agents", "merge", "aaaa0001"]);
  expect(merge.signal, "merge hung").toBeNull();
  // Refused with what is wrong (a loop), nothing written anywhere.
  expect(merge.code, merge.stderr).toBe(1);
  expect(merge.stderr).toMatch(/a loop no real agent makes/);
  expect(execFileSync("git", ["-C", wt("bbbb0002"), "status", "--porcelain"], { encoding: "utf8" })).toBe("");
  // discard each: none is refused because of the loop.
  for (const id of ids) {
    const d = await cli(["agents", "discard", id]);
    expect(d.signal, `discard ${id} hung`).toBeNull();
    expect(d.code, `discard ${id}: ${d.stderr}`).toBe(0);
    expect(existsSync(wt(id))).toBe(false);
  }
  const after = await cli(["agents", "list", "--json"]);
  for (const id of ids) expect(after.stdout).not.toContain(id);
  // The user's own tree is untouched by all of it.
  expect(execFileSync("git", ["-C", ws, "status", "--porcelain"], { encoding: "utf8" })).toBe("");
});
