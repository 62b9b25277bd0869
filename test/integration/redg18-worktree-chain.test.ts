/**
 * Red team G (session 18): which workspace's local settings govern a folder inside agents' worktrees.
 *
 * An agent started inside another agent's worktree is recorded with that worktree as its workspace;
 * `agentWorkspaceOf` follows the records to the person's workspace (the only one with their untracked
 * `.claude/settings.local.json`), never further than the records say, and gives none on a loop. The
 * folder gate of `yoke permissions check` / `yoke sandbox exec` in a worktree reads the same files
 * as the agent's own sessions. Real git worktrees, real records in the test's home.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { AgentRegistry, agentWorkspaceOf } from "../../src/node/background/registry";
import { workspaceWorktreesDir } from "../../src/node/background/paths";
import { checkPermission } from "../../src/node/permission-check";
import type { AgentRecord } from "../../src/core/background/agents";

const temps: string[] = [];
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "pipe" }).toString();

function record(id: string, workspace: string, worktree: string): AgentRecord {
  const now = new Date().toISOString();
  return {
    id,
    task: "t",
    workspace,
    worktree,
    branch: `yoke/t-${id}`,
    baseCommit: "0",
    carried: "none",
    sessionDir: "/nonexistent",
    runArgs: [],
    trusted: true,
    phase: "ended",
    createdAt: now,
    updatedAt: now,
  };
}

/** WS (a repository with secret.txt), W1 an agent worktree of WS, W2 an agent worktree made from W1 (recorded with W1 as its workspace). */
function chain(local: boolean) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "redg18-")));
  temps.push(base);
  const home = join(base, "home");
  mkdirSync(home);
  const ws = join(base, "ws");
  mkdirSync(ws);
  git(ws, "init", "-q");
  writeFileSync(join(ws, "secret.txt"), "s\n");
  git(ws, "add", ".");
  git(ws, "commit", "-qm", "c");
  if (local) {
    mkdirSync(join(ws, ".claude"));
    writeFileSync(join(ws, ".claude/settings.local.json"), JSON.stringify({ permissions: { deny: ["Read(./secret.txt)"] } }));
  }
  const w1 = join(workspaceWorktreesDir(ws, home), "a-11111111");
  mkdirSync(workspaceWorktreesDir(ws, home), { recursive: true });
  git(ws, "worktree", "add", "-q", "-b", "yoke/a", w1);
  new AgentRegistry(ws, home).write(record("11111111", ws, w1));
  const w2 = join(workspaceWorktreesDir(w1, home), "b-22222222");
  mkdirSync(workspaceWorktreesDir(w1, home), { recursive: true });
  git(w1, "worktree", "add", "-q", "-b", "yoke/b", w2);
  new AgentRegistry(w1, home).write(record("22222222", w1, w2));
  mkdirSync(join(w2, "sub"));
  return { home, ws, w1, w2 };
}

const readSecret = (cwd: string, home: string) => checkPermission({ tool: "Read", input: { file_path: "secret.txt" }, cwd, home, managedDir: null, mode: "bypassPermissions" });

describe("agents' worktrees inside agents' worktrees", () => {
  it("the person's workspace is found through the chain of records, from the worktree and a folder inside it", () => {
    const c = chain(true);
    expect(agentWorkspaceOf(c.w1, c.home)).toBe(c.ws);
    expect(agentWorkspaceOf(c.w2, c.home)).toBe(c.ws);
    expect(agentWorkspaceOf(join(c.w2, "sub"), c.home)).toBe(c.ws);
    expect(agentWorkspaceOf(c.ws, c.home)).toBeUndefined();
  });

  it("a loop of records, or a record missing on the way, gives no workspace", () => {
    const c = chain(true);
    // W1's record rewritten to name W2 as its workspace: W2 → W1 → W2 …
    new AgentRegistry(c.ws, c.home).write(record("11111111", c.w2, c.w1));
    expect(agentWorkspaceOf(c.w2, c.home)).toBeUndefined();
    new AgentRegistry(c.ws, c.home).remove("11111111");
    expect(agentWorkspaceOf(c.w2, c.home)).toBeUndefined();
  });

  it("a record naming the person's workspace (userWorkspace) needs no chain: the parent's record may be gone (discarded)", () => {
    const c = chain(true);
    new AgentRegistry(c.w1, c.home).write({ ...record("22222222", c.w1, c.w2), userWorkspace: c.ws });
    new AgentRegistry(c.ws, c.home).remove("11111111");
    expect(agentWorkspaceOf(c.w2, c.home)).toBe(c.ws);
    expect(agentWorkspaceOf(join(c.w2, "sub"), c.home)).toBe(c.ws);
  });

  it("a userWorkspace that is itself an agent's worktree is not taken: the records are followed instead", () => {
    const c = chain(true);
    new AgentRegistry(c.w1, c.home).write({ ...record("22222222", c.w1, c.w2), userWorkspace: c.w1 });
    expect(agentWorkspaceOf(c.w2, c.home)).toBe(c.ws);
    new AgentRegistry(c.ws, c.home).remove("11111111");
    expect(agentWorkspaceOf(c.w2, c.home)).toBeUndefined();
  });

  it("yoke permissions check in the nested worktree applies the person's local deny rule", async () => {
    const c = chain(true);
    const r = await readSecret(c.w2, c.home);
    expect(r.decision.decision).toBe("deny");
    expect(r.decision.rule).toBe("Read(./secret.txt)");
  });

  it("control: without the local file the read is allowed there", async () => {
    const c = chain(false);
    const r = await readSecret(c.w2, c.home);
    expect(r.decision.decision).toBe("allow");
  });
});
