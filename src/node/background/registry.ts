/**
 * The records of a workspace's background agents (`~/.yoke/agents/<workspace-key>/<id>.json`),
 * whether each agent's process is alive, the concurrency slots that queue agents beyond
 * `agents.maxConcurrent`, and stopping an agent's whole process tree.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import * as nodePath from "node:path";
import { agentState, type AgentRecord, type AgentState } from "../../core/background/agents";
import { descendants, groupAlive, isAlive, killTree } from "../commands/process-tree";
import { agentsDir, agentWorktreeOf } from "./paths";
import { canonicalFolder } from "../session-location";

/** The environment variable every agent process carries: its id (so a reused pid is not taken for it). */
export const AGENT_MARKER = "YOKE_AGENT";

export function newAgentId(): string {
  return randomBytes(4).toString("hex");
}

export class AgentRegistry {
  readonly dir: string;
  constructor(workspace: string, home?: string) {
    this.dir = agentsDir(workspace, home);
  }

  static inDir(dir: string): AgentRegistry {
    const r = Object.create(AgentRegistry.prototype) as AgentRegistry;
    (r as { dir: string }).dir = dir;
    return r;
  }

  private file(id: string): string {
    if (!/^[a-f0-9]{4,32}$/.test(id)) throw new Error(`"${id}" is not an agent id (see yoke agents)`);
    return nodePath.join(this.dir, `${id}.json`);
  }

  /** The worker's output (what the agent's process printed: errors before its session existed). */
  outputPath(id: string): string {
    return nodePath.join(this.dir, `${id}.out`);
  }

  write(r: AgentRecord): void {
    mkdirSync(this.dir, { recursive: true });
    const tmp = `${this.file(r.id)}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ ...r, updatedAt: new Date().toISOString() }, null, 2) + "\n");
    renameSync(tmp, this.file(r.id));
  }

  read(id: string): AgentRecord | undefined {
    try {
      return JSON.parse(readFileSync(this.file(id), "utf8")) as AgentRecord;
    } catch {
      return undefined;
    }
  }

  /** The record, or an error naming the known ids. */
  get(id: string): AgentRecord {
    const r = this.read(id);
    if (!r) throw new Error(`no agent "${id}" in this workspace (see yoke agents)`);
    return r;
  }

  update(id: string, change: (r: AgentRecord) => Partial<AgentRecord>): AgentRecord {
    const r = this.get(id);
    const next = { ...r, ...change(r) };
    this.write(next);
    return next;
  }

  list(): AgentRecord[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => /^[a-f0-9]+\.json$/.test(f))
      .flatMap((f) => {
        const r = this.read(f.slice(0, -5));
        return r ? [r] : [];
      })
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  remove(id: string): void {
    rmSync(this.file(id), { force: true });
    rmSync(this.outputPath(id), { force: true });
    rmSync(this.notesPath(id), { recursive: true, force: true });
  }

  /** The agent's inbox of notes left while it runs (src/node/background/inbox.ts). */
  notesPath(id: string): string {
    return this.file(id).replace(/\.json$/, ".notes");
  }

  state(r: AgentRecord): AgentState {
    return agentState(r, agentAlive(r));
  }

  /**
   * Waits for one of `max` slots (a file created exclusively, holding the agent's pid; a slot
   * whose holder died is free again). Returns a release function.
   */
  async acquireSlot(id: string, max: number, onQueued: () => void, pollMs = 150): Promise<() => void> {
    const slots = nodePath.join(this.dir, "slots");
    mkdirSync(slots, { recursive: true });
    let told = false;
    for (;;) {
      for (let i = 0; i < max; i++) {
        const f = nodePath.join(slots, `${i}.slot`);
        try {
          writeFileSync(f, `${process.pid} ${id}\n`, { flag: "wx" });
          return () => {
            try {
              if (readFileSync(f, "utf8").startsWith(`${process.pid} `)) unlinkSync(f);
            } catch {
              // gone
            }
          };
        } catch {
          const pid = Number(safeRead(f).split(" ")[0]);
          if (!pid || !isAlive(pid)) rmSync(f, { force: true });
        }
      }
      if (!told) onQueued();
      told = true;
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }
}

function safeRead(f: string): string {
  try {
    return readFileSync(f, "utf8");
  } catch {
    return "";
  }
}

/** Is the agent's process alive, and is it still that agent (its environment carries the marker)? */
export function agentAlive(r: Pick<AgentRecord, "pid" | "id" | "host">): boolean {
  if (!r.pid) return r.host !== undefined && isAlive(r.host);
  if (!isAlive(r.pid)) return false;
  try {
    return readFileSync(`/proc/${r.pid}/environ`, "utf8").split("\0").includes(`${AGENT_MARKER}=${r.id}`);
  } catch {
    // No /proc (macOS): the pid alone.
    return true;
  }
}

/** Live processes whose environment carries the agent's marker (what left its tree: setsid, double forks). */
export function markedAgentProcesses(id: string): number[] {
  const out: number[] = [];
  if (!existsSync("/proc/self/environ")) return out;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    if (safeRead(`/proc/${name}/environ`).split("\0").includes(`${AGENT_MARKER}=${id}`) && isAlive(Number(name))) out.push(Number(name));
  }
  return out;
}

/**
 * Stops an agent: SIGTERM to its process, which ends its session (the turn is cancelled, its
 * commands stopped, the log closed); after `graceMs`, SIGKILL to its group, every descendant and
 * everything still carrying its marker. Resolves when none is left (or reports the survivors).
 *
 * The record's pid is signalled (with its group and descendants) only while it is still the
 * agent's process (its environment carries the marker). A record left `running` by an agent that
 * died without writing its end (kill -9, a reboot) keeps a pid another program may have since
 * been given: that program, its group and its children are never touched; only processes that
 * carry the agent's marker are (red team 18: `yoke agents stop` SIGKILLed the unrelated process
 * group that reused the pid). While the pid is free, its group can only be the agent's (Linux
 * does not give out a pid still in use as a process group id).
 */
export async function stopAgentProcess(r: Pick<AgentRecord, "pid" | "id">, graceMs = 5000): Promise<number[]> {
  if (!r.pid) return [];
  const root = r.pid;
  const ours = agentAlive(r);
  if (!ours && isAlive(root)) return stopMarkedOnly(r.id, graceMs);
  const seen = new Set<number>([...(ours ? [root, ...descendants(root).map((p) => p.pid)] : []), ...markedAgentProcesses(r.id)]);
  const anyAlive = () => groupAlive(root) || [...seen].some(isAlive) || markedAgentProcesses(r.id).length > 0;
  if (ours) {
    try {
      process.kill(root, "SIGTERM");
    } catch {
      // gone
    }
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && anyAlive()) {
    if (ours) for (const p of descendants(root)) seen.add(p.pid);
    await new Promise((res) => setTimeout(res, 50));
  }
  for (let i = 0; i < 20 && anyAlive(); i++) {
    for (const p of markedAgentProcesses(r.id)) seen.add(p);
    if (isAlive(root) && !agentAlive(r)) {
      // The pid was given to another program meanwhile: only what carries the marker.
      seen.delete(root);
      for (const p of seen) if (!marked(p, r.id)) seen.delete(p);
      for (const p of seen) send(p, "SIGKILL");
    } else killTree({ root, helpers: [] }, [...seen]);
    await new Promise((res) => setTimeout(res, 50));
  }
  return [...seen].filter(isAlive);
}

/** The agent's pid belongs to another program now: SIGTERM, then SIGKILL, to the processes carrying the agent's marker only. */
async function stopMarkedOnly(id: string, graceMs: number): Promise<number[]> {
  const seen = new Set(markedAgentProcesses(id));
  for (const p of seen) send(p, "SIGTERM");
  const left = () => [...new Set([...seen, ...markedAgentProcesses(id)])].filter((p) => isAlive(p) && marked(p, id));
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && left().length) await new Promise((res) => setTimeout(res, 50));
  for (let i = 0; i < 20 && left().length; i++) {
    for (const p of left()) send(p, "SIGKILL");
    await new Promise((res) => setTimeout(res, 50));
  }
  return left();
}

function marked(pid: number, id: string): boolean {
  return safeRead(`/proc/${pid}/environ`).split("\0").includes(`${AGENT_MARKER}=${id}`);
}

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** How many agent worktrees deep a chain of agents started inside agents' worktrees is followed. */
const MAX_AGENT_NESTING = 32;

/**
 * The person's workspace whose agent works in `folder` (one of Yoke's agent worktrees), from the
 * agent's record in the user's own storage — never from the worktree's `.git`, which its commands
 * may rewrite. An agent started inside another agent's worktree (a `task` with `isolation: worktree`
 * from a background agent, `yoke run --worktree --cwd` in a worktree) is recorded with that worktree
 * as its workspace, which has none of the person's untracked files either: the chain is followed
 * to the first folder that is no agent's worktree. A record names that folder itself
 * (`userWorkspace`, written when the agent is made), so the chain is not needed and survives the
 * discard of the agents between; records made before it are followed as before. Undefined for any
 * other folder, or when a record on the way is missing (or the chain loops or runs deeper than
 * MAX_AGENT_NESTING).
 */
export function agentWorkspaceOf(folder: string, home?: string): string | undefined {
  let at = folder;
  const seen = new Set<string>();
  for (let depth = 0; depth < MAX_AGENT_NESTING; depth++) {
    const owner = agentWorktreeOf(at, home);
    if (!owner) return depth === 0 ? undefined : at;
    const wanted = canonicalFolder(owner.worktree);
    if (seen.has(wanted)) return undefined;
    seen.add(wanted);
    const record = AgentRegistry.inDir(owner.agentsDir)
      .list()
      .find((r) => canonicalFolder(r.worktree) === wanted);
    if (record === undefined) return undefined;
    // The person's workspace as recorded at the start — unless it is itself one of Yoke's agent worktrees (a forged or broken record): then the walk.
    if (record.userWorkspace !== undefined && !agentWorktreeOf(record.userWorkspace, home)) return record.userWorkspace;
    at = record.workspace;
  }
  return undefined;
}

/** The person's own workspace for an agent whose record names `workspace` (the tree it starts from): that tree, or the root of its chain. */
export function userWorkspaceFor(workspace: string, home?: string): string {
  return agentWorkspaceOf(workspace, home) ?? workspace;
}
