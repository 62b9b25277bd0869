/**
 * Background agents (issue 24): a session run in its own git worktree, on its own branch, in its
 * own process. This module is harness-neutral: the record an agent leaves, its state as the CLI
 * and the panel show it, and the names Yoke gives its branches. The worktrees themselves are made
 * with git (src/node/background/).
 */

/** What an agent is doing, as `yoke agents` and the Agents view show it. */
export type AgentState = "queued" | "running" | "finished" | "failed" | "stopped" | "interrupted";

/** The record of one agent: `~/.yoke/agents/<workspace-key>/<id>.json`. */
export interface AgentRecord {
  /** Short id (`a1b2c3d4`). */
  id: string;
  /** The task, as the user wrote it. */
  task: string;
  /** The user's workspace folder (the repository's top level) the agent started from. */
  workspace: string;
  /**
   * The person's own workspace: `workspace` itself, or — for an agent started inside another agent's
   * worktree — the workspace at the root of that chain, decided when the record is made. Its untracked
   * local settings files govern the agent (src/node/background/registry.ts agentWorkspaceOf), also
   * after the agents between them were discarded. Absent in records made before session 19.
   */
  userWorkspace?: string;
  /** The agent's worktree (outside the repository). */
  worktree: string;
  /** Its branch: `yoke/<slug>-<id>`. */
  branch: string;
  /** The commit its branch started from (the user's HEAD then). */
  baseCommit: string;
  /** What of the user's uncommitted work was carried into the worktree. */
  carried: "none" | "tracked" | "all";
  /** Paths worktrees.copy / .link placed in the worktree (not part of its change). */
  placed?: string[];
  /** The session store (the original workspace's). */
  sessionDir: string;
  /** The session, once the agent's process created it. */
  sessionId?: string;
  /** The run's options as `yoke run` takes them (provider, model, budgets…), without the prompt. */
  runArgs: string[];
  /** The workspace was trusted when the agent started: its worktree is trusted the same. */
  trusted: boolean;
  /**
   * A custom agent with `background: true` runs inside its parent session's process: that process
   * (no `pid` of its own to signal); it is running while that process lives.
   */
  host?: number;
  /** The agent's process (the leader of its own process group), while it is queued or running. */
  pid?: number;
  /** Where the process is: waiting for a slot (agents.maxConcurrent), running, or ended (with its exit status). */
  phase: "queued" | "running" | "ended";
  exitCode?: number;
  /** Someone stopped it (`yoke agents stop`). */
  stopped?: boolean;
  createdAt: string;
  updatedAt: string;
  /** When its change was merged into the user's tree. */
  mergedAt?: string;
  /** What `worktrees.setup` did, when set. */
  setup?: { command: string; outcome: "ran" | "failed" | "skipped"; detail: string };
}

/**
 * The state of an agent from its record and whether its process is alive: a process that died
 * without recording its end (kill -9, a crash, a reboot) is `interrupted`, and its session resumes.
 */
export function agentState(r: Pick<AgentRecord, "phase" | "exitCode" | "stopped">, alive: boolean): AgentState {
  if (r.stopped && !(r.phase !== "ended" && alive)) return "stopped";
  if (r.phase === "ended") return r.exitCode === 0 ? "finished" : "failed";
  if (!alive) return "interrupted";
  return r.phase === "queued" ? "queued" : "running";
}

/** A branch-name-safe slug of the task: lower case words joined by `-`, at most `max` characters. */
export function taskSlug(task: string, max = 32): string {
  const slug = task
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, max)
    .replace(/-+$/, "");
  return slug || "task";
}

/** The agent's branch name. */
export function agentBranch(task: string, id: string): string {
  return `yoke/${taskSlug(task)}-${id}`;
}

/**
 * A path of `worktrees.copy` / `worktrees.link`: relative to the repository and inside it. Returns
 * the normalised path, or why it is refused.
 */
export function checkCopyPath(p: string): { path: string } | { error: string } {
  const trimmed = p.trim().replace(/\\/g, "/");
  if (!trimmed) return { error: "an empty path" };
  if (trimmed.startsWith("/") || /^[A-Za-z]:/.test(trimmed)) return { error: `${p}: an absolute path (paths are relative to the repository)` };
  const parts = trimmed.split("/").filter((s) => s && s !== ".");
  if (parts.some((s) => s === "..")) return { error: `${p}: leaves the repository` };
  if (parts[0] === ".git") return { error: `${p}: inside .git` };
  if (!parts.length) return { error: `${p}: the repository itself` };
  return { path: parts.join("/") };
}
