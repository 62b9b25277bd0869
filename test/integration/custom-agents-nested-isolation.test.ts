// Nested isolated agents: an `isolation: worktree` agent that starts another one. Full `yoke run`
// session with the scripted model over HTTP and real git: the inner agent's worktree is made from
// the outer agent's worktree (a worktree of a worktree: the same repository, its own branch), its
// change is kept for review against the outer agent's tree (the tree its parent works in), merged
// back into that tree, and discarding both leaves no worktree and no branch.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { subagentDepthOf, toolResultTexts } from "../support/scripted-run";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
beforeAll(() => ensureBuilt(), 120_000);

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const agent = (name: string, tools: string) => ["---", `name: ${name}`, `description: The ${name} agent`, `tools: ${tools}`, "isolation: worktree", "---", `You are ${name}.`, ""].join("\n");
const worktrees = (ws: string) =>
  git(ws, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice(9));
const branches = (ws: string) => git(ws, "branch", "--format=%(refname:short)").split("\n").filter(Boolean).sort();

/** A full session in which the outer isolated agent writes outer.txt and starts the inner one, which writes inner.txt. */
async function nestedSession(opts: { linkedHome?: boolean } = {}) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-nested-iso-")));
  temps.push(dir);
  const ws = join(dir, "repo");
  const home = join(dir, "home");
  // A home reached through a link (Fedora Silverblue's /home -> /var/home): worktree paths are built from it as given, git prints real paths.
  if (opts.linkedHome) {
    mkdirSync(join(dir, "home-real"));
    symlinkSync(join(dir, "home-real"), home);
  } else mkdirSync(home);
  mkdirSync(ws);
  git(ws, "init", "-q", "-b", "main");
  write(join(ws, "app.txt"), "one\n");
  write(join(ws, ".claude", "agents", "outer.md"), agent("outer", "Read, Write, Agent(inner)"));
  write(join(ws, ".claude", "agents", "inner.md"), agent("inner", "Read, Write"));
  git(ws, "add", "-A");
  git(ws, "commit", "-qm", "initial");
  const env = { HOME: home, XDG_DATA_HOME: undefined };
  const queues: Record<number, ScriptedTurn[]> = {
    0: [{ toolCalls: [{ name: "task", input: { description: "Outer work", prompt: "Do the outer work.", subagent_type: "outer" } }] }, { text: "Both changes wait for review." }],
    1: [
      { toolCalls: [{ name: "write_file", input: { path: "outer.txt", content: "from outer\n" } }] },
      { toolCalls: [{ name: "task", input: { description: "Inner work", prompt: "Do the inner work.", subagent_type: "inner" } }] },
      { text: "Outer done; the inner change waits for review." },
    ],
    2: [{ toolCalls: [{ name: "write_file", input: { path: "inner.txt", content: "from inner\n" } }] }, { text: "Inner done." }],
  };
  server = await startScriptedLlmServer({ script: async (r: RecordedRequest) => queues[subagentDepthOf(r)]?.shift() ?? { text: "(no more turns)" } });
  const r = await runCli(
    [
      "run",
      "--trust",
      "--provider",
      "openai-compatible",
      "--base-url",
      server.openaiBaseUrl,
      "--model",
      "m",
      "--permission-mode",
      "bypassPermissions",
      "--cwd",
      ws,
      "--session-dir",
      join(dir, "sessions"),
      "go",
    ],
    { env },
  );
  expect(r.code, r.stderr).toBe(0);
  expect(server.requests.map(subagentDepthOf)).toEqual([0, 1, 1, 2, 2, 1, 0]);

  // The user's tree: untouched. Three worktrees of one repository: the user's, outer's, inner's.
  expect(existsSync(join(ws, "outer.txt"))).toBe(false);
  expect(existsSync(join(ws, "inner.txt"))).toBe(false);
  const wts = worktrees(ws);
  expect(wts).toHaveLength(3);
  const list = async (cwd: string) =>
    (
      JSON.parse((await runCli(["agents", "list", "--json", "--cwd", cwd], { env })).stdout) as {
        agents: Array<{ id: string; worktree: string; branch: string; changedFiles: Array<{ path: string }> }>;
      }
    ).agents;
  // Both are listed with the user's workspace's agents (the Agents view, `yoke agents`), also from the outer agent's worktree.
  const agents = await list(ws);
  expect(agents).toHaveLength(2);
  const outer = agents.find((a) => a.changedFiles.some((f) => f.path === "outer.txt"));
  const inner = agents.find((a) => a.changedFiles.some((f) => f.path === "inner.txt"));
  expect(outer!.changedFiles.map((f) => f.path)).toEqual(["outer.txt"]);
  expect(inner!.changedFiles.map((f) => f.path)).toEqual(["inner.txt"]);
  expect((await list(outer!.worktree)).map((a) => a.id).sort()).toEqual([outer!.id, inner!.id].sort());
  expect(wts.map((p) => realpathSync(p)).sort()).toEqual([ws, outer!.worktree, inner!.worktree].map((p) => realpathSync(p)).sort());
  expect(existsSync(join(inner!.worktree, "outer.txt"))).toBe(false);
  // The outer agent's model was told where the inner change is.
  expect(toolResultTexts(server.requests[5]).join("\n")).toContain(`as background agent ${inner!.id}`);

  return { ws, env, wts, outer: outer!, inner: inner!, list };
}

describe("nested isolated agents", () => {
  it("an isolated agent starts another: a worktree of its worktree, reviewed and merged into the outer agent's tree; discarding both leaves no worktree or branch", async () => {
    const { ws, env, outer, inner, list } = await nestedSession();
    // Merge the inner change back into the tree it started from, the outer agent's (not the user's).
    const merged = await runCli(["agents", "merge", inner!.id, "--json", "--cwd", ws], { env });
    expect(merged.code, merged.stderr).toBe(0);
    expect(readFileSync(join(outer!.worktree, "inner.txt"), "utf8")).toBe("from inner\n");
    expect(existsSync(join(ws, "inner.txt"))).toBe(false);
    expect(
      (await list(ws))
        .find((a) => a.id === outer!.id)!
        .changedFiles.map((f) => f.path)
        .sort(),
    ).toEqual(["inner.txt", "outer.txt"]);

    // Discard both: no worktree, no branch left.
    for (const [id, cwd] of [
      [inner!.id, ws],
      [outer!.id, ws],
    ] as const) {
      const d = await runCli(["agents", "discard", id, "--json", "--cwd", cwd], { env });
      expect(d.code, d.stderr).toBe(0);
    }
    expect(worktrees(ws)).toEqual([ws]);
    expect(branches(ws)).toEqual(["main"]);
    expect(existsSync(outer!.worktree)).toBe(false);
    expect(existsSync(inner!.worktree)).toBe(false);
  }, 240_000);

  it("the outer agent is not discarded while an inner one waits (its worktree and change are in it), also with the home behind a link; an inner change whose tree is gone is not merged into the user's tree", async () => {
    const { ws, env, outer, inner, list } = await nestedSession({ linkedHome: true });
    const refused = await runCli(["agents", "discard", outer.id, "--cwd", ws], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`agent ${outer.id} was not discarded: agent ${inner.id} started inside its worktree, and its change is meant for its tree. Merge or discard it first`);
    // Nothing was removed: both worktrees, both branches, both listed, the inner change still there.
    expect(worktrees(ws)).toHaveLength(3);
    expect(readFileSync(join(inner.worktree, "inner.txt"), "utf8")).toBe("from inner\n");
    expect((await list(ws)).map((a) => a.id).sort()).toEqual([outer.id, inner.id].sort());

    // The outer worktree removed by hand (git itself): the inner change is refused, not merged into the user's tree instead.
    git(ws, "worktree", "remove", "--force", "--force", outer.worktree);
    const merge = await runCli(["agents", "merge", inner.id, "--cwd", ws], { env });
    expect(merge.code).not.toBe(0);
    // The worktree as git names it (the home's link resolved).
    const outerReal = join(realpathSync(join(outer.worktree, "..")), basename(outer.worktree));
    expect(merge.stderr).toContain(`agent ${inner.id} was not merged: its change is meant for the worktree it started in (${outerReal}), which no longer exists.`);
    expect(existsSync(join(ws, "inner.txt"))).toBe(false);
    expect(git(ws, "status", "--porcelain")).toBe("");

    // Discarding both still leaves nothing behind.
    for (const id of [inner.id, outer.id]) {
      const d = await runCli(["agents", "discard", id, "--cwd", ws], { env });
      expect(d.code, d.stderr).toBe(0);
    }
    git(ws, "worktree", "prune");
    expect(worktrees(ws)).toEqual([ws]);
    expect(branches(ws)).toEqual(["main"]);
    expect(await list(ws)).toEqual([]);
  }, 240_000);
});
