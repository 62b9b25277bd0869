/**
 * A custom agent's `isolation: worktree` (Claude Code's sub-agent field), on the background
 * agents' machinery: the sub-agent works in a new git worktree of the repository, on a branch of
 * its own (createAgentWorktree, with the workspace's worktrees.copy / .link), with that folder's
 * file system, command sandbox, permission rules and hooks. When it changed nothing, the worktree
 * and its branch are removed. When it changed something, its change is never written into the
 * user's tree: the worktree is kept and recorded as a finished background agent, so the Agents
 * view and `yoke agents diff|merge|discard` review, merge or discard it like any other.
 */
import * as nodePath from "node:path";
import type { AgentRecord } from "../../core/background/agents";
import type { ChildWorkspace, SessionInfo } from "../../core/extensions/types";
import type { AgentDefinition } from "../../core/subagents/agents";
import type { IsolatedRun } from "../../core/subagents";
import { plural } from "../../core/tools/output";
import { readSettings } from "../settings/reader";
import { agentWorktreeOf } from "./paths";
import { AgentRegistry, newAgentId, userWorkspaceFor } from "./registry";
import { changedFiles, createAgentWorktree, removeAgentWorktree, worktreeTree } from "./worktree";

export interface IsolationHost {
  /** Where the sessions are kept (the agent's record points there, for its transcript). */
  sessionDir: string;
  home?: string;
  /** The services, permission engine and hooks of a folder (the worktree), as the session's own are made. */
  workspace(root: string): ChildWorkspace;
}

const MAX_FILES_SAID = 20;
/** How often a running in-process agent looks whether `yoke agents stop` asked it to stop. */
const STOP_POLL_MS = 500;

/** Makes the worktree of one isolated agent's run (SubagentOptions.isolate). */
export async function isolatedAgentRun(host: IsolationHost, agent: AgentDefinition, session: SessionInfo, task: { description: string; prompt: string; background?: boolean }): Promise<IsolatedRun> {
  const root = session.services.fs.root;
  const settings = await readSettings({ cwd: root, trusted: session.trusted, ...(host.home ? { home: host.home } : {}) });
  const id = newAgentId();
  const created = await createAgentWorktree({
    workspace: root,
    id,
    task: `${agent.name} ${task.description}`,
    carry: "none",
    copy: settings.worktrees.copy?.value ?? [],
    link: settings.worktrees.link?.value ?? [],
    ...(host.home ? { home: host.home } : {}),
  });
  const { top, worktree, branch, baseCommit, placed, skipped } = created;
  // What worktrees.copy / worktrees.link did not place, and why (said to the agent and its parent).
  const notPlaced = skipped.length ? `Not placed in the worktree (worktrees.copy / worktrees.link): ${skipped.join("; ")}.` : "";
  const createdAt = new Date().toISOString();
  let workspace: ChildWorkspace;
  try {
    workspace = host.workspace(worktree);
  } catch (err) {
    await removeAgentWorktree(top, worktree, branch).catch(() => undefined);
    throw err;
  }
  // Started inside another agent's worktree (nested isolated agents): recorded with that agent's workspace's agents, where
  // the Agents view and `yoke agents` look; its change still belongs to (is merged into) the tree it started from.
  const owner = agentWorktreeOf(top, host.home);
  const registry = owner ? AgentRegistry.inDir(owner.agentsDir) : new AgentRegistry(top, host.home);
  const userWorkspace = userWorkspaceFor(top, host.home);
  const recordOf = (childId: string | undefined): AgentRecord => ({
    id,
    task: task.prompt,
    workspace: top,
    userWorkspace,
    worktree,
    branch,
    baseCommit,
    carried: "none",
    placed,
    sessionDir: host.sessionDir,
    ...(childId ? { sessionId: childId } : {}),
    runArgs: [],
    trusted: session.trusted,
    phase: "running",
    // It runs inside this process (its parent's session): listed as running while this process lives; no process of its own to signal.
    host: process.pid,
    createdAt,
    updatedAt: createdAt,
  });
  // `yoke agents stop ID` (another process) marks the record stopped: this process, which runs the agent, sees it and cancels the run.
  let watch: ReturnType<typeof setInterval> | undefined;
  let stopAsked = false;
  const started = (childId: string, stop: () => void) => {
    registry.write(recordOf(childId));
    watch = setInterval(() => {
      if (stopAsked || registry.read(id)?.stopped !== true) return;
      stopAsked = true;
      clearInterval(watch);
      stop();
    }, STOP_POLL_MS);
    watch.unref?.();
  };
  return {
    workspace,
    // A background agent is listed in the Agents view (and `yoke agents`) while it runs.
    ...(task.background ? { started } : {}),
    where: { id, worktree, branch },
    instructions: [
      `You work in a git worktree of your own: ${worktree} (branch ${branch}, from the commit ${baseCommit.slice(0, 12)} of ${top}; uncommitted changes there are not in it).`,
      "Your file tools and commands act in this worktree only. Leave your change there, uncommitted: the user reviews it and merges it into their workspace. Do not copy it into " + top + ".",
      ...(notPlaced ? [notPlaced] : []),
    ].join(" "),
    async finish(run) {
      if (watch) clearInterval(watch);
      const tree = await worktreeTree(worktree, placed);
      const files = await changedFiles(worktree, baseCommit, tree);
      if (!files.length) {
        await removeAgentWorktree(top, worktree, branch);
        if (task.background) registry.remove(id);
        return `It worked in a git worktree of its own (isolation: worktree) and changed no file there: the worktree and its branch ${branch} were removed.${notPlaced ? ` ${notPlaced}` : ""}`;
      }
      const { host: _running, ...started } = recordOf(run.childId);
      const record: AgentRecord = {
        ...started,
        phase: "ended",
        exitCode: run.status === "completed" ? 0 : 1,
        ...(run.status === "cancelled" || stopAsked ? { stopped: true } : {}),
      };
      registry.write(record);
      const shown = files.slice(0, MAX_FILES_SAID).map((f) => `${f.status} ${f.path}`);
      if (files.length > MAX_FILES_SAID) shown.push(`and ${files.length - MAX_FILES_SAID} more`);
      return [
        `Its change was NOT applied to the workspace: it worked in a git worktree of its own (isolation: worktree), and its change (${plural(files.length, "file")}: ${shown.join(", ")}) is kept there for review, as background agent ${id}:`,
        `- worktree ${worktree}, branch ${branch} (from ${baseCommit.slice(0, 12)})`,
        `- the user reviews it in the Agents view, or with \`yoke agents diff ${id}\`, then merges it (\`yoke agents merge ${id}\`) or discards it (\`yoke agents discard ${id}\`).`,
        `Tell the user it waits for their review; do not make the same change in the workspace yourself. Files under ${nodePath.basename(worktree)} are not in the workspace.`,
        ...(notPlaced ? [notPlaced] : []),
      ].join("\n");
    },
  };
}
