/**
 * What `yoke agents list` and the panel's Agents view show of an agent: its task, state, spend,
 * changed files and last message (from its record, its session log and its worktree), and its
 * change per hunk (what `yoke agents diff` prints and the panel's review shows). One reading for both.
 */
import { existsSync } from "node:fs";
import { agentState, type AgentRecord, type AgentState } from "../../core/background/agents";
import type { SessionEvent } from "../../core/events";
import type { Hunk } from "../../core/review-hunks";
import { summarizeSession } from "../../core/session/projection";
import { parseLog } from "../../core/session/session-log";
import { createFileSessionStore, sessionLogPath } from "../session-store";
import { openQuestion, type AgentLogs, type LogSummary } from "./log-tail";
import { fileHunks, readBlob } from "./merge";
import { filteredPaths } from "./git";
import { agentAlive } from "./registry";
import { changedFiles, worktreeTree } from "./worktree";

export interface AgentView {
  id: string;
  task: string;
  state: AgentState;
  resumable: boolean;
  branch: string;
  worktree: string;
  baseCommit: string;
  sessionId: string | null;
  costUsd: number | null;
  usage: { inputTokens: number; outputTokens: number } | null;
  changedFiles: Array<{ path: string; status: string }>;
  lastMessage: string | null;
  /** While it runs: a permission question it waits on (its tool and summary), asked through the editor's panel. */
  asking: string | null;
  createdAt: string;
  merged: boolean;
  /** The agent's process while it is queued or running (the leader of its process group). */
  pid: number | null;
  /** What worktrees.setup did. */
  setup: AgentRecord["setup"] | null;
}

/** The agent's session events (none before its process created the session); `logs`: read as the log grows (the panel's refresh), not whole each time. */
export function agentSessionEvents(r: AgentRecord, logs?: AgentLogs): SessionEvent[] {
  if (!r.sessionId) return [];
  if (logs) return logs.events(sessionLogPath(r.sessionDir, r.sessionId));
  const store = createFileSessionStore(r.sessionDir, { readOnly: true });
  return store.exists(r.sessionId) ? parseLog(store.read(r.sessionId)).events : [];
}

/** What the list shows of the agent's log; `logs`: only the lines that carry it are parsed, as the log grows (the panel's refresh). */
async function agentLogSummary(r: AgentRecord, logs?: AgentLogs): Promise<LogSummary> {
  if (logs && r.sessionId) return logs.summary(sessionLogPath(r.sessionDir, r.sessionId));
  const events = agentSessionEvents(r);
  const s = summarizeSession(events, r.sessionId);
  const last = events.findLast((e) => e.type === "assistant_message" && e.text.trim());
  return {
    any: events.length > 0,
    costUsd: s.costUsd,
    usage: { inputTokens: s.usage.inputTokens, outputTokens: s.usage.outputTokens },
    lastMessage: last?.type === "assistant_message" ? last.text.trim() : null,
    asking: openQuestion(events),
  };
}

/** The files the agent changed against its base (committed, uncommitted and untracked work). */
export async function agentChangedFiles(r: AgentRecord): Promise<Array<{ path: string; status: string }>> {
  if (!existsSync(r.worktree)) return [];
  return worktreeTree(r.worktree, r.placed)
    .then((tree) => changedFiles(r.worktree, r.baseCommit, tree))
    .catch(() => []);
}

/** The view of one agent; `files` when the caller already has them (the panel recomputes them only when the record changed). */
export async function agentViewOf(r: AgentRecord, files?: Array<{ path: string; status: string }>, logs?: AgentLogs): Promise<AgentView> {
  const shown = await agentLogSummary(r, logs);
  const state = agentState(r, agentAlive(r));
  return {
    id: r.id,
    task: r.task,
    state,
    resumable: state === "interrupted" && !!r.sessionId,
    branch: r.branch,
    worktree: r.worktree,
    baseCommit: r.baseCommit,
    sessionId: r.sessionId ?? null,
    costUsd: shown.any ? (shown.costUsd ?? null) : null,
    usage: shown.any ? shown.usage : null,
    changedFiles: files ?? (await agentChangedFiles(r)),
    lastMessage: shown.lastMessage,
    asking: state === "running" ? shown.asking : null,
    createdAt: r.createdAt,
    merged: Boolean(r.mergedAt),
    pid: state === "running" || state === "queued" ? (r.pid ?? null) : null,
    setup: r.setup ?? null,
  };
}

export interface AgentFileDiff {
  path: string;
  status: string;
  binary: boolean;
  /** Numbered from 1, as `yoke agents merge --hunks PATH:N` takes them. */
  hunks: Hunk[];
  /** The filter driver of the person's git that applies to the file (`lfs`): shown as the agent's worktree has it, unfiltered, and taken only whole. */
  filter?: string;
}

/** The agent's whole change (its branch and its worktree against its base), per file and hunk. */
export async function agentDiff(r: AgentRecord): Promise<AgentFileDiff[]> {
  const tree = await worktreeTree(r.worktree, r.placed);
  const files = await changedFiles(r.worktree, r.baseCommit, tree);
  const filters = await filteredPaths(
    r.worktree,
    r.baseCommit,
    files.map((f) => f.path),
  );
  const out: AgentFileDiff[] = [];
  for (const f of files) {
    const base = await readBlob(r.worktree, r.baseCommit, f.path);
    const agent = await readBlob(r.worktree, tree, f.path);
    const binary = [base, agent].some((b) => b !== null && b.subarray(0, 8000).includes(0));
    const filter = filters.get(f.path);
    out.push({ ...f, binary, hunks: binary || filter ? [] : fileHunks(base, agent), ...(filter ? { filter } : {}) });
  }
  return out;
}

/**
 * The session's events as lines of a read-only transcript: the tool calls by their name and first
 * argument as the log holds it, paths inside the agent's worktree `root` shown relative to it.
 */
export function transcriptLines(events: readonly SessionEvent[], root?: string): Array<{ kind: "user" | "assistant" | "tool" | "notice"; text: string }> {
  const lines: Array<{ kind: "user" | "assistant" | "tool" | "notice"; text: string }> = [];
  for (const e of events) {
    if (e.type === "user_message") lines.push({ kind: "user", text: e.text });
    else if (e.type === "assistant_message" && e.text.trim()) lines.push({ kind: "assistant", text: e.text.trim() });
    else if (e.type === "tool_call") {
      const first = e.input && typeof e.input === "object" ? Object.values(e.input as Record<string, unknown>).find((v) => typeof v === "string") : undefined;
      const arg = typeof first === "string" ? (root && first.startsWith(root + "/") ? first.slice(root.length + 1) : first).split("\n")[0]!.slice(0, 120) : undefined;
      lines.push({ kind: "tool", text: arg ? `${e.name} ${arg}` : e.name });
    } else if (e.type === "error") lines.push({ kind: "notice", text: e.message });
  }
  return lines.slice(-500);
}
