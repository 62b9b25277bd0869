/**
 * Background agents in worktrees (issue 24), end to end through the built CLI: real git, real
 * processes, a scripted model over real HTTP. Each test has its own HOME, so the worktrees
 * (~/.yoke/worktrees), records (~/.yoke/agents) and session store (~/.yoke/sessions) are its own.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { parseLog } from "../../src/core/session/session-log";
import { ensureBuilt, runCli, type CliResult } from "../support/cli";

let server: ScriptedServer | undefined;
const temps: string[] = [];
const started: number[] = [];

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  // Nothing a test started may outlive it, even when it failed.
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const GIT_ID = ["-c", "user.name=Test", "-c", "user.email=test@example.com"];
const git = (cwd: string, ...args: string[]) => execFileSync("git", [...GIT_ID, ...args], { cwd, encoding: "utf8" });

interface Env {
  root: string;
  home: string;
  ws: string;
}

function setup(files: Record<string, string> = {}): Env {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agents-")));
  temps.push(root);
  const home = join(root, "home");
  const ws = join(root, "repo");
  mkdirSync(home);
  mkdirSync(ws);
  git(ws, "init", "-q", "-b", "main");
  const all = { "guide.md": "# Demo\n\nA demo project.\n", "shared.txt": "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", ...files };
  for (const [p, c] of Object.entries(all)) {
    mkdirSync(join(ws, p, ".."), { recursive: true });
    writeFileSync(join(ws, p), c);
  }
  git(ws, "add", "-A");
  git(ws, "commit", "-qm", "initial");
  return { root, home, ws };
}

/** The text of every message of a request (to tell the agents' requests apart). */
const convo = (req: RecordedRequest) => JSON.stringify((req.body as { messages?: unknown }).messages ?? []);
const toolResults = (req: RecordedRequest) => ((req.body as { messages?: Array<{ role: string }> }).messages ?? []).filter((m) => m.role === "tool").length;

function cli(env: Env, args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { cwd: env.ws, env: { HOME: env.home, XDG_DATA_HOME: undefined, ...extra } });
}

function runArgs(env: Env, ...more: string[]): string[] {
  return ["--trust", "--provider", "openai-compatible", "--base-url", server!.openaiBaseUrl, "--model", "m", "--permission-mode", "bypassPermissions", "--cwd", env.ws, ...more];
}

interface AgentView {
  id: string;
  task: string;
  state: string;
  resumable: boolean;
  branch: string;
  worktree: string;
  sessionId: string | null;
  changedFiles: Array<{ path: string; status: string }>;
  lastMessage: string | null;
  usage: { inputTokens: number; outputTokens: number } | null;
  pid: number | null;
  setup: { outcome: string; detail: string } | null;
}

async function agents(env: Env): Promise<AgentView[]> {
  const r = await cli(env, ["agents", "list", "--json", "--cwd", env.ws]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { agents: AgentView[] }).agents;
}

async function startBackground(env: Env, prompt: string, ...more: string[]): Promise<string> {
  const r = await cli(env, ["run", "--background", ...runArgs(env, ...more), prompt]);
  expect(r.code, r.stderr).toBe(0);
  const id = r.stdout.trim();
  expect(id).toMatch(/^[a-f0-9]{8}$/);
  return id;
}

async function waitFor(env: Env, ok: (a: AgentView[]) => boolean, what: string, timeoutMs = 60_000): Promise<AgentView[]> {
  const end = Date.now() + timeoutMs;
  let last: AgentView[] = [];
  while (Date.now() < end) {
    last = await agents(env);
    for (const a of last) if (a.pid) started.push(a.pid);
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last, null, 2)}`);
}

/** Live (non-zombie) processes whose environment carries the agent's marker. */
function markedProcesses(id: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      if (readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(`YOKE_AGENT=${id}`)) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

/** Live processes whose command line contains `needle`. */
function processesWith(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(needle)) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

function sessionLog(env: Env, id: string) {
  const root = join(env.home, ".yoke", "sessions");
  for (const dir of readdirSync(root)) {
    const f = join(root, dir, `${id}.jsonl`);
    if (existsSync(f)) return { dir: join(root, dir), ...parseLog(readFileSync(f, "utf8").split("\n").filter(Boolean)) };
  }
  throw new Error(`no log of session ${id}`);
}

describe("background agents in worktrees", () => {
  it("runs three agents in parallel in three worktrees; one is merged, one discarded, one refused against a conflicting edit", async () => {
    const env = setup();
    // Each task writes its file after a pause, so the three must overlap to finish in time.
    server = await startScriptedLlmServer({
      script: (req): ScriptedTurn => {
        const text = convo(req);
        const done = toolResults(req) > 0;
        const step = toolResults(req);
        if (text.includes("TASK-A")) {
          if (step === 0) return { delayMs: 1500, toolCalls: [{ name: "read_file", input: { path: "guide.md" } }] };
          return step === 1
            ? { toolCalls: [{ name: "write_file", input: { path: "guide.md", content: "# Demo\n\nA demo project.\n\n## Usage\n\nRun it.\n" } }] }
            : { text: "Added the usage section to guide.md." };
        }
        if (text.includes("TASK-B")) return done ? { text: "Created notes.txt." } : { delayMs: 1500, toolCalls: [{ name: "write_file", input: { path: "notes.txt", content: "scratch\n" } }] };
        if (text.includes("TASK-C")) {
          if (step === 0) return { delayMs: 1500, toolCalls: [{ name: "read_file", input: { path: "shared.txt" } }] };
          return step === 1
            ? { toolCalls: [{ name: "write_file", input: { path: "shared.txt", content: "one\ntwo\nTHREE (agent)\nfour\nfive\nsix\nseven\neight\nnine\nten\n" } }] }
            : { text: "Changed line three." };
        }
        return { text: "?" };
      },
    });
    const t0 = Date.now();
    const ids = await Promise.all(["TASK-A: document usage", "TASK-B: take notes", "TASK-C: shout line three"].map((p) => startBackground(env, p)));
    const [a, b, c] = ids as [string, string, string];
    const list = await waitFor(env, (l) => l.length === 3 && l.every((x) => x.state === "finished"), "three finished agents");
    const elapsed = Date.now() - t0;

    // Three worktrees on three branches, outside the repository, known to git.
    const worktrees = git(env.ws, "worktree", "list", "--porcelain");
    for (const v of list) {
      expect(worktrees).toContain(`worktree ${v.worktree}`);
      expect(v.worktree.startsWith(join(env.home, ".local", "share", "yoke", "worktrees"))).toBe(true);
      expect(v.branch).toMatch(new RegExp(`^yoke/task-[abc]-.*-${v.id}$`));
    }
    // In parallel: the sessions' model turns overlap in time.
    const spans = list.map((v) => {
      const log = sessionLog(env, v.sessionId!);
      return { start: Date.parse(log.events[0]!.ts), end: Date.parse(log.events.at(-1)!.ts) };
    });
    for (const s of spans) for (const o of spans) expect(s.start).toBeLessThan(o.end);
    expect(elapsed).toBeGreaterThan(1500);
    // The sessions are in the original workspace's store: `yoke sessions` there lists them.
    const sessions = await cli(env, ["sessions", "--json", "--cwd", env.ws]);
    const listed = (JSON.parse(sessions.stdout) as { sessions: Array<{ id: string }> }).sessions.map((s) => s.id);
    for (const v of list) expect(listed).toContain(v.sessionId);

    const byId = new Map(list.map((v) => [v.id, v]));
    expect(byId.get(a)!.changedFiles).toEqual([{ status: "M", path: "guide.md" }]);
    expect(byId.get(a)!.lastMessage).toBe("Added the usage section to guide.md.");
    expect(byId.get(b)!.changedFiles).toEqual([{ status: "A", path: "notes.txt" }]);
    // The user's tree is untouched while the agents work.
    expect(readFileSync(join(env.ws, "guide.md"), "utf8")).toBe("# Demo\n\nA demo project.\n");
    expect(existsSync(join(env.ws, "notes.txt"))).toBe(false);

    // Human list: task, state, changed files, last message.
    const human = await cli(env, ["agents", "--cwd", env.ws]);
    expect(human.stdout).toContain(`${a}  finished`);
    expect(human.stdout).toContain("changed: M guide.md");
    expect(human.stdout).toContain("last: Added the usage section to guide.md.");

    // A: its diff, then merged into the user's tree.
    const diff = await cli(env, ["agents", "diff", a, "--cwd", env.ws]);
    expect(diff.stdout).toContain("M guide.md\n@@ guide.md:1 -4,0 +4,4 @@\n+\n+## Usage\n");
    expect(diff.stdout).toContain("+## Usage\n");
    const merged = await cli(env, ["agents", "merge", a, "--cwd", env.ws]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain(`merged agent ${a} (apply): guide.md`);
    expect(readFileSync(join(env.ws, "guide.md"), "utf8")).toBe("# Demo\n\nA demo project.\n\n## Usage\n\nRun it.\n");

    // B: discarded — worktree, branch and folder gone.
    const bView = byId.get(b)!;
    const discarded = await cli(env, ["agents", "discard", b, "--cwd", env.ws]);
    expect(discarded.code, discarded.stderr).toBe(0);
    expect(git(env.ws, "worktree", "list", "--porcelain")).not.toContain(bView.worktree);
    expect(git(env.ws, "branch", "--list", bView.branch).trim()).toBe("");
    expect(existsSync(bView.worktree)).toBe(false);
    expect((await agents(env)).map((v) => v.id)).not.toContain(b);

    // C: the user changed the same line meanwhile (uncommitted): refused, explained, nothing written.
    const mine = "one\ntwo\nthree (mine)\nfour\nfive\nsix\nseven\neight\nnine\nten\n";
    writeFileSync(join(env.ws, "shared.txt"), mine);
    const refused = await cli(env, ["agents", "merge", c, "--cwd", env.ws]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("not merged: you changed the same lines as the agent in 1 file(s); nothing was written");
    expect(refused.stderr).toContain("shared.txt: your line 3 and the agent's line 3 both change the original line 3");
    expect(readFileSync(join(env.ws, "shared.txt"), "utf8")).toBe(mine);
    // --strategy merge refuses too (the file has uncommitted changes), and changes nothing.
    const refused2 = await cli(env, ["agents", "merge", c, "--strategy", "merge", "--cwd", env.ws]);
    expect(refused2.code).toBe(1);
    expect(refused2.stderr).toContain("shared.txt: has uncommitted changes in your tree, which git merge would overwrite");
    expect(readFileSync(join(env.ws, "shared.txt"), "utf8")).toBe(mine);
    expect(git(env.ws, "log", "--format=%s").trim().split("\n")).toEqual(["initial"]);

    // Cleanup leaves nothing: every agent discarded, no worktree, no yoke/ branch, no folder, no process.
    for (const id of [a, c]) expect((await cli(env, ["agents", "discard", id, "--cwd", env.ws])).code).toBe(0);
    expect(git(env.ws, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect(git(env.ws, "branch", "--list", "yoke/*").trim()).toBe("");
    expect(readdirSync(join(env.home, ".local", "share", "yoke", "worktrees", readdirSync(join(env.home, ".local", "share", "yoke", "worktrees"))[0]!))).toEqual([]);
    for (const id of ids) expect(markedProcesses(id)).toEqual([]);
  }, 120_000);

  it("merges chosen hunks only, three-way, keeping the user's uncommitted edits elsewhere in the file; --strategy merge merges the branch", async () => {
    const env = setup();
    server = await startScriptedLlmServer({
      script: (req): ScriptedTurn => {
        const text = convo(req);
        const done = toolResults(req) > 0;
        if (text.includes("TWO-HUNKS")) {
          const step = toolResults(req);
          if (step === 0) return { toolCalls: [{ name: "read_file", input: { path: "shared.txt" } }] };
          return step === 1 ? { toolCalls: [{ name: "write_file", input: { path: "shared.txt", content: "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nTEN\n" } }] } : { text: "ok" };
        }
        return done ? { text: "ok" } : { toolCalls: [{ name: "write_file", input: { path: "src/new.ts", content: "export const x = 1;\n" } }] };
      },
    });
    const id = await startBackground(env, "TWO-HUNKS");
    const other = await startBackground(env, "NEW-FILE");
    await waitFor(env, (l) => l.length === 2 && l.every((x) => x.state === "finished"), "two finished agents");
    // The user edits line 5 (uncommitted) meanwhile.
    writeFileSync(join(env.ws, "shared.txt"), "one\ntwo\nthree\nfour\nfive (mine)\nsix\nseven\neight\nnine\nten\n");
    const diff = await cli(env, ["agents", "diff", id, "--json", "--cwd", env.ws]);
    const files = (JSON.parse(diff.stdout) as { files: Array<{ path: string; hunks: unknown[] }> }).files;
    expect(files).toHaveLength(1);
    expect(files[0]!.hunks).toHaveLength(2);
    const r = await cli(env, ["agents", "merge", id, "--hunks", "shared.txt:2", "--cwd", env.ws]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(env.ws, "shared.txt"), "utf8")).toBe("one\ntwo\nthree\nfour\nfive (mine)\nsix\nseven\neight\nnine\nTEN\n");
    // A hunk that does not exist is bad input, and nothing is written.
    const bad = await cli(env, ["agents", "merge", id, "--hunks", "shared.txt:7", "--cwd", env.ws]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("shared.txt has 2 hunk(s); there is no hunk 7");

    const m = await cli(env, ["agents", "merge", other, "--strategy", "merge", "--cwd", env.ws]);
    expect(m.code, m.stderr).toBe(0);
    expect(readFileSync(join(env.ws, "src/new.ts"), "utf8")).toBe("export const x = 1;\n");
    // git merge (a fast-forward here: the user's branch had not moved) brings the agent's commit.
    expect(git(env.ws, "log", "-1", "--format=%s").trim()).toBe(`yoke agent ${other}: NEW-FILE`);
    // The user's uncommitted edit survived the merge.
    expect(readFileSync(join(env.ws, "shared.txt"), "utf8")).toContain("five (mine)");
  }, 120_000);

  it("stop kills the agent's whole process tree: no process is left", async () => {
    const env = setup();
    const tag = `yoke-agent-stop-${Math.random().toString(36).slice(2, 8)}`;
    server = await startScriptedLlmServer({
      script: (req): ScriptedTurn => (toolResults(req) > 0 ? { text: "done" } : { toolCalls: [{ name: "run_command", input: { command: `bash -c 'sleep 600; true' ${tag}` } }] }),
    });
    const id = await startBackground(env, "run a long command");
    await waitFor(env, () => processesWith(tag).length > 0, "the command to run");
    const [view] = await agents(env);
    expect(view!.state).toBe("running");
    expect(markedProcesses(id).length).toBeGreaterThan(0);
    const r = await cli(env, ["agents", "stop", id, "--cwd", env.ws]);
    expect(r.code, r.stderr).toBe(0);
    expect(processesWith(tag)).toEqual([]);
    expect(markedProcesses(id)).toEqual([]);
    const [after] = await agents(env);
    expect(after!.state).toBe("stopped");
    expect(after!.pid).toBeNull();
  }, 120_000);

  it("an agent killed with kill -9 is listed as interrupted and resumes in its worktree", async () => {
    const env = setup();
    let hang = true;
    server = await startScriptedLlmServer({
      script: (req): ScriptedTurn => {
        if (hang) return { hang: true };
        return toolResults(req) > 0 ? { text: "Finished after the crash." } : { toolCalls: [{ name: "write_file", input: { path: "after.txt", content: "resumed\n" } }] };
      },
    });
    const id = await startBackground(env, "a task that gets killed");
    const [running] = await waitFor(env, (l) => l[0]?.state === "running" && !!l[0].sessionId && server!.requests.length > 0, "the model request");
    process.kill(running!.pid!, "SIGKILL");
    const [dead] = await waitFor(env, (l) => l[0]?.state === "interrupted", "interrupted");
    expect(dead!.resumable).toBe(true);
    const human = await cli(env, ["agents", "--cwd", env.ws]);
    expect(human.stdout).toContain(`${id}  interrupted (resumable)`);
    expect(human.stdout).toContain(`continue it: yoke agents resume ${id}`);
    expect(markedProcesses(id)).toEqual([]);

    // `yoke resume` in its worktree continues the same session, kept in the workspace's store.
    hang = false;
    const r = await runCli(
      ["resume", dead!.sessionId!, "--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--permission-mode", "bypassPermissions", "--json"],
      {
        cwd: dead!.worktree,
        env: { HOME: env.home, XDG_DATA_HOME: undefined },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sessionId: dead!.sessionId, status: "done", text: "Finished after the crash." });
    expect(readFileSync(join(dead!.worktree, "after.txt"), "utf8")).toBe("resumed\n");
    expect(existsSync(join(env.ws, "after.txt"))).toBe(false);
    const log = sessionLog(env, dead!.sessionId!);
    expect(log.dir).toBe(join(env.home, ".yoke", "sessions", readdirSync(join(env.home, ".yoke", "agents"))[0]!));
  }, 120_000);

  it("refuses a folder that is not a git repository, creating nothing", async () => {
    const env = setup();
    const plain = join(env.root, "plain");
    mkdirSync(plain);
    server = await startScriptedLlmServer({ script: [{ text: "never" }] });
    for (const flag of ["--background", "--worktree"]) {
      const r = await runCli(["run", flag, "--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", plain, "do it"], {
        cwd: plain,
        env: { HOME: env.home, XDG_DATA_HOME: undefined },
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${plain} is not in a git repository: a background agent works in a git worktree on its own branch`);
    }
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(env.home, ".local", "share", "yoke", "worktrees"))).toBe(false);
    expect(existsSync(join(env.home, ".yoke", "agents"))).toBe(false);
  }, 60_000);
  it("--worktree runs in the foreground with the user's uncommitted work (--carry all), the configured ignored files and setup; checkpoints restore inside the worktree", async () => {
    const env = setup({
      ".gitignore": ".env\nnode_modules/\nsetup.out\n",
      ".yoke/settings.json": JSON.stringify({ worktrees: { copy: [".env", "../outside"], link: ["node_modules"], setup: "echo setup-ran > setup.out" } }),
    });
    writeFileSync(join(env.ws, ".env"), "TOKEN=local\n");
    mkdirSync(join(env.ws, "node_modules", "dep"), { recursive: true });
    writeFileSync(join(env.ws, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
    // Uncommitted work: a changed tracked file (staged), and an untracked one.
    writeFileSync(join(env.ws, "guide.md"), "# Demo (draft)\n\nA demo project.\n");
    git(env.ws, "add", "guide.md");
    writeFileSync(join(env.ws, "draft.txt"), "draft\n");
    server = await startScriptedLlmServer({
      script: (req): ScriptedTurn => {
        const step = toolResults(req);
        if (step === 0) return { toolCalls: [{ name: "read_file", input: { path: "draft.txt" } }] };
        if (step === 1) return { toolCalls: [{ name: "write_file", input: { path: "made.txt", content: "made by the agent\n" } }] };
        return { text: "Read the draft and made a file." };
      },
    });
    const r = await cli(env, ["run", "--worktree", "--carry", "all", ...runArgs(env), "--json", "look at the draft"]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { sessionId: string; status: string; text: string; sessionDir: string };
    expect(doc).toMatchObject({ status: "done", text: "Read the draft and made a file." });
    // The model read the carried untracked file in the worktree.
    expect(JSON.stringify(server.requests[1]!.body)).toContain("|draft");
    const [view] = await agents(env);
    expect(view!.state).toBe("finished");
    const wt = view!.worktree;
    expect(readFileSync(join(wt, "guide.md"), "utf8")).toBe("# Demo (draft)\n\nA demo project.\n");
    expect(readFileSync(join(wt, ".env"), "utf8")).toBe("TOKEN=local\n");
    expect(realpathSync(join(wt, "node_modules"))).toBe(join(env.ws, "node_modules"));
    expect(r.stderr).toContain("worktrees: not placed: ../outside: ../outside: leaves the repository");
    expect(readFileSync(join(wt, "setup.out"), "utf8")).toBe("setup-ran\n");
    expect(view!.setup).toMatchObject({ outcome: "ran" });
    // The carried changes and the agent's file are its change; ignored files are not.
    expect(view!.changedFiles.map((f) => `${f.status} ${f.path}`).sort()).toEqual(["A draft.txt", "A made.txt", "M guide.md"]);
    // The user's own index and tree are as they were.
    expect(git(env.ws, "diff", "--cached", "--name-only").trim()).toBe("guide.md");
    expect(existsSync(join(env.ws, "made.txt"))).toBe(false);
    // Its session is in the workspace's store (yoke sessions lists it there).
    const sessions = await cli(env, ["sessions", "--json", "--cwd", env.ws]);
    expect((JSON.parse(sessions.stdout) as { sessions: Array<{ id: string }> }).sessions.map((s) => s.id)).toContain(doc.sessionId);
    // Checkpoints: back to before the first turn, in the worktree only.
    const restore = await cli(env, ["checkpoints", "restore", doc.sessionId, "0", "--files", "--cwd", env.ws]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(existsSync(join(wt, "made.txt"))).toBe(false);
    expect(readFileSync(join(wt, "draft.txt"), "utf8")).toBe("draft\n");
    expect(readFileSync(join(env.ws, "draft.txt"), "utf8")).toBe("draft\n");

    // In the default permission mode nobody can approve the setup command: it is skipped, and says why.
    server.requests.length = 0;
    const r2 = await cli(env, ["run", "--worktree", "--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", env.ws, "--json", "again"]);
    expect(r2.code, r2.stderr).toBe(0);
    const second = (await agents(env)).find((a) => a.id !== view!.id)!;
    expect(second.setup).toMatchObject({ outcome: "skipped" });
    expect(second.setup!.detail).toContain("a background agent cannot ask — add an allow rule such as Bash(echo setup-ran > setup.out)");
    expect(existsSync(join(second.worktree, "setup.out"))).toBe(false);
  }, 120_000);

  it("queues agents beyond agents.maxConcurrent, and a note continues a finished agent in its worktree", async () => {
    const env = setup();
    mkdirSync(join(env.home, ".yoke"), { recursive: true });
    writeFileSync(join(env.home, ".yoke", "settings.json"), JSON.stringify({ agents: { maxConcurrent: 1 } }));
    server = await startScriptedLlmServer({
      script: (req): ScriptedTurn => {
        const text = convo(req);
        if (text.includes("NOTE-2")) return toolResults(req) > 1 ? { text: "Noted and done." } : { toolCalls: [{ name: "write_file", input: { path: "second.txt", content: "after the note\n" } }] };
        return toolResults(req) > 0 ? { text: "First pass done." } : { delayMs: 5000, toolCalls: [{ name: "write_file", input: { path: "first.txt", content: "first\n" } }] };
      },
    });
    const a = await startBackground(env, "QUEUE one");
    const b = await startBackground(env, "QUEUE two");
    const seen = await waitFor(env, (l) => l.length === 2 && l.some((x) => x.state === "running") && l.some((x) => x.state === "queued"), "one running, one queued");
    expect(seen.map((x) => x.state).sort()).toEqual(["queued", "running"]);
    const done = await waitFor(env, (l) => l.length === 2 && l.every((x) => x.state === "finished"), "both finished");
    // One after the other: the second session started after the first ended.
    const spans = done
      .map((v) => {
        const log = sessionLog(env, v.sessionId!);
        return { start: Date.parse(log.events[0]!.ts), end: Date.parse(log.events.at(-1)!.ts) };
      })
      .sort((x, y) => x.start - y.start);
    expect(spans[1]!.start).toBeGreaterThanOrEqual(spans[0]!.end);

    const note = await cli(env, ["agents", "note", a, "NOTE-2: also write second.txt", "--cwd", env.ws]);
    expect(note.code, note.stderr).toBe(0);
    const after = await waitFor(env, (l) => l.find((x) => x.id === a)?.state === "finished" && l.find((x) => x.id === a)?.lastMessage === "Noted and done.", "the note's turn");
    const view = after.find((x) => x.id === a)!;
    expect(readFileSync(join(view.worktree, "second.txt"), "utf8")).toBe("after the note\n");
    expect(view.changedFiles.map((f) => f.path).sort()).toEqual(["first.txt", "second.txt"]);
    // Same session, one more user message; attach prints the transcript.
    const attach = await cli(env, ["agents", "attach", a, "--no-follow", "--cwd", env.ws]);
    expect(attach.stdout).toContain("> QUEUE one");
    expect(attach.stdout).toContain("> NOTE-2: also write second.txt");
    expect(attach.stdout).toContain("Noted and done.");
    expect(sessionLog(env, view.sessionId!).events.filter((e) => e.type === "user_message")).toHaveLength(2);
    void b;
  }, 120_000);
});
