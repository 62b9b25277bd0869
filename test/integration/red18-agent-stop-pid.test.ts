/**
 * Red team 18: `yoke agents stop` and a reused pid. An agent that dies without writing its end
 * (kill -9, a crash, a reboot) leaves its record `running` with its pid; that pid is later given
 * to another program. `yoke agents stop ID` (what the user runs to clean such an agent up) then
 * waited 5 s for the pid to go away and SIGKILLed it, its process group and its children: an
 * unrelated program of the user's killed. The stop now signals the record's pid (and its group and
 * descendants) only while the pid is still the agent's (its environment carries YOKE_AGENT=ID);
 * what does carry the marker is still stopped. Built CLI, real processes, as root and as an
 * unprivileged user (no sandbox is involved: nothing runs a command).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { AgentRegistry } from "../../src/node/background/registry";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, spawnAs, type Identity } from "../support/identities";
import { execFileSync } from "node:child_process";

const { list: who, missing } = identities();
const temps: string[] = [];
const groups: number[] = [];

beforeAll(() => ensureBuilt(), 180_000);
afterEach(() => {
  for (const g of groups.splice(0)) {
    try {
      process.kill(-g, "SIGKILL");
    } catch {
      // gone
    }
  }
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

it("runs as root and as an unprivileged user (or says why it cannot)", () => {
  if (missing) console.warn(missing);
  expect(who.length).toBeGreaterThan(0);
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (not reaped yet) is gone.
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

/** A program leading its own process group, with a child: `bash` running `sleep` in the background and waiting. */
function program(id: Identity, env: Record<string, string> = {}): { child: ChildProcess; pid: number; grandchild: () => number | undefined } {
  const child = spawn("bash", ["-c", "sleep 300 & wait"], { detached: true, stdio: "ignore", ...spawnAs(id, env) });
  child.unref();
  groups.push(child.pid!);
  const grandchild = () => {
    try {
      const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim();
      return kids ? Number(kids.split(/\s+/)[0]) : undefined;
    } catch {
      return undefined;
    }
  };
  return { child, pid: child.pid!, grandchild };
}

async function until(what: () => boolean, label: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A repository and a home of `id`'s, and the record of agent `agentId` whose process was `pid` (left `running`). */
function agentLeftRunning(id: Identity, agentId: string, pid: number): { ws: string; home: string; registry: AgentRegistry } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-red18-stop-")));
  temps.push(base);
  const home = join(base, "home");
  const ws = join(base, "repo");
  mkdirSync(home);
  mkdirSync(ws);
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: ws });
  writeFileSync(join(ws, "README.md"), "readme\n");
  execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", "add", "-A"], { cwd: ws });
  execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "initial"], { cwd: ws });
  const registry = new AgentRegistry(ws, home);
  const now = new Date().toISOString();
  registry.write({
    id: agentId,
    task: "a task",
    workspace: ws,
    worktree: join(base, "wt"),
    branch: `yoke/a-task-${agentId}`,
    baseCommit: execFileSync("git", ["rev-parse", "HEAD"], { cwd: ws, encoding: "utf8" }).trim(),
    carried: "none",
    sessionDir: join(base, "sessions"),
    runArgs: [],
    trusted: true,
    pid,
    phase: "running",
    createdAt: now,
    updatedAt: now,
  });
  chownTree(base, id);
  return { ws, home, registry };
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it("`yoke agents stop` on an agent whose pid another program now has leaves that program, its group and its child alive; the agent's own leftover is stopped", async () => {
    const agentId = "a18b" + Math.random().toString(16).slice(2, 8);
    // The program that was given the dead agent's pid (not the agent: no marker in its environment).
    const other = program(id);
    await until(() => other.grandchild() !== undefined, "the program's child");
    const otherChild = other.grandchild()!;
    // What the agent left behind when it died (a command it had started in its own group): it carries the marker.
    const leftover = program(id, { YOKE_AGENT: agentId });
    await until(() => leftover.grandchild() !== undefined, "the leftover's child");
    const leftoverChild = leftover.grandchild()!;
    const { ws, home, registry } = agentLeftRunning(id, agentId, other.pid);

    const r = await runCliAs(id, ["agents", "stop", agentId, "--cwd", ws], { cwd: ws, env: { HOME: home }, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(alive(other.pid), "yoke agents stop killed the unrelated program that had the agent's old pid").toBe(true);
    expect(alive(otherChild), "yoke agents stop killed the unrelated program's child").toBe(true);
    // The agent's leftover (it carries the marker) was stopped, and the record says the agent ended.
    await until(() => !alive(leftover.pid) && !alive(leftoverChild), "the agent's leftover to end", 5_000);
    const after = registry.read(agentId)!;
    expect(after.phase).toBe("ended");
    expect(after.stopped).toBe(true);
  }, 90_000);

  it("control: when the record's pid is the agent's (it carries the marker), stop ends it, its group and its child", async () => {
    const agentId = "c18b" + Math.random().toString(16).slice(2, 8);
    const agent = program(id, { YOKE_AGENT: agentId });
    await until(() => agent.grandchild() !== undefined, "the agent's child");
    const child = agent.grandchild()!;
    const { ws, home, registry } = agentLeftRunning(id, agentId, agent.pid);
    const r = await runCliAs(id, ["agents", "stop", agentId, "--cwd", ws], { cwd: ws, env: { HOME: home }, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    await until(() => !alive(agent.pid) && !alive(child), "the agent to end", 5_000);
    expect(registry.read(agentId)!.phase).toBe("ended");
  }, 90_000);
});
