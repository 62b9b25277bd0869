/**
 * Background agents (issue 24) on the command line:
 *   yoke run --worktree|--background [--carry none|tracked|all] PROMPT   start one
 *   yoke agents [list] | attach | stop | diff | merge | discard | note | resume
 * An agent is a normal `yoke run` in its own git worktree (src/node/background), in its own
 * process group, whose session is kept in the original workspace's store: `yoke sessions`, the
 * panel and `yoke agents` see it. The hidden `yoke agents __run ID` is the agent's process.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { findCommand, parseInvocation } from "../../core/custom-commands";
import { loadNodeCommands } from "../../node/custom-commands";
import { agentState, type AgentRecord } from "../../core/background/agents";
import { AgentInbox, agentNotes } from "../../node/background/inbox";
import { applyAgentChange, mergeAgentBranch, type HunkSelection } from "../../node/background/merge";
import { agentWorktreeOf } from "../../node/background/paths";
import { AGENT_MARKER, AgentRegistry, agentAlive, newAgentId, stopAgentProcess, userWorkspaceFor } from "../../node/background/registry";
import { agentDiff, agentSessionEvents, agentViewOf } from "../../node/background/view";
import { agentPatch, createAgentWorktree, removeAgentWorktree, repositoryOf, worktreeTree } from "../../node/background/worktree";
import { readSettings } from "../../node/settings/reader";
import { canonicalFolder } from "../../node/session-location";
import { parse, printJson, UsageError } from "../args";
import type { Extension } from "../../core/extensions/types";
import { createConsoleRenderer } from "../render";
import { cliSessionDir } from "../session-setup";
import { decideTrust } from "../trust";
import { printable, say, warn } from "../printable";
import { printableJson } from "../../core/printable";

const CARRY = ["none", "tracked", "all"] as const;

/** The run options an agent's process gets again (everything but where and how it runs). */
const NOT_PASSED = new Set(["worktree", "background", "carry", "cwd", "session-dir", "trust", "json"]);

function passedArgs(values: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(values)) {
    if (NOT_PASSED.has(k) || v === undefined || v === false) continue;
    if (v === true) out.push(`--${k}`);
    else for (const x of Array.isArray(v) ? v : [v]) out.push(`--${k}`, String(x));
  }
  return out;
}

/** The registry of the workspace `cwd` is in (an agent's own worktree counts as its workspace's). */
async function workspaceOf(cwd: string): Promise<{ top: string; registry: AgentRegistry }> {
  const inWorktree = agentWorktreeOf(cwd);
  if (inWorktree) {
    const registry = AgentRegistry.inDir(inWorktree.agentsDir);
    const owner = registry.list().find((r) => canonicalFolder(r.worktree) === canonicalFolder(inWorktree.worktree));
    if (owner) return { top: owner.workspace, registry };
  }
  const { top } = await repositoryOf(cwd);
  return { top, registry: new AgentRegistry(top) };
}

async function agentSettings(top: string, trusted: boolean) {
  const s = await readSettings({ cwd: top, trusted });
  return {
    copy: s.worktrees.copy?.value ?? [],
    link: s.worktrees.link?.value ?? [],
    setup: s.worktrees.setup?.value,
    maxConcurrent: s.agents.maxConcurrent?.value ?? 3,
  };
}

/** `yoke run --worktree|--background PROMPT`: the worktree, the record, and the agent's process. */
export async function startAgent(argv: string[], values: Record<string, unknown>, prompt: string): Promise<number> {
  const carry = (values.carry as string | undefined) ?? "none";
  if (!(CARRY as readonly string[]).includes(carry)) throw new UsageError(`--carry must be one of ${CARRY.join(", ")} (got "${carry}")`);
  const cwd = resolve((values.cwd as string | undefined) ?? ".");
  if (!existsSync(cwd)) throw new UsageError(`--cwd ${cwd}: no such folder`);
  const { top } = await repositoryOf(cwd);
  // The workspace's trust carries to its worktree (asked here, on the user's terminal, if need be).
  const trust = await decideTrust({ folders: [top], flag: Boolean(values.trust) });
  const settings = await agentSettings(top, trust.trusted);
  const id = newAgentId();
  const wt = await createAgentWorktree({ workspace: top, id, task: prompt, carry: carry as AgentRecord["carried"], copy: settings.copy, link: settings.link });
  for (const s of wt.skipped) warn(`yoke: worktrees: not placed: ${s}\n`);
  const registry = new AgentRegistry(top);
  const now = new Date().toISOString();
  const record: AgentRecord = {
    id,
    task: prompt,
    workspace: top,
    userWorkspace: userWorkspaceFor(top),
    worktree: wt.worktree,
    branch: wt.branch,
    baseCommit: wt.baseCommit,
    carried: carry as AgentRecord["carried"],
    placed: wt.placed,
    sessionDir: values["session-dir"] ? resolve(values["session-dir"] as string) : cliSessionDir(top),
    runArgs: passedArgs(values),
    trusted: trust.trusted,
    phase: "queued",
    createdAt: now,
    updatedAt: now,
  };
  registry.write(record);
  if (values.background) {
    const pid = spawnWorker(registry, id, [prompt], true);
    registry.update(id, () => ({ pid }));
    if (values.json) printJson({ agentId: id, worktree: wt.worktree, branch: wt.branch, baseCommit: wt.baseCommit, sessionDir: record.sessionDir });
    else say(`${id}\n`);
    warn(`yoke: agent ${id} started in ${wt.worktree} (branch ${wt.branch}); yoke agents attach ${id} follows it\n`);
    return 0;
  }
  // --worktree: the same process, in the foreground, on this terminal.
  warn(`yoke: agent ${id} in ${wt.worktree} (branch ${wt.branch})\n`);
  void argv;
  return foregroundWorker(registry, id, [prompt], Boolean(values.json));
}

const cliEntry = () => process.argv[1]!;

/** Starts `yoke agents __run ID …` detached: its own process group, output to the agent's file. */
function spawnWorker(registry: AgentRegistry, id: string, args: string[], detached: boolean): number {
  const out = openSync(registry.outputPath(id), "a");
  try {
    const child = spawn(process.execPath, [cliEntry(), "agents", "__run", id, "--agents-dir", registry.dir, ...args], {
      detached,
      stdio: ["ignore", out, out],
      env: { ...process.env, [AGENT_MARKER]: id },
    });
    child.unref();
    return child.pid!;
  } finally {
    closeSync(out);
  }
}

function foregroundWorker(registry: AgentRegistry, id: string, args: string[], json: boolean): Promise<number> {
  const child = spawn(process.execPath, [cliEntry(), "agents", "__run", id, "--agents-dir", registry.dir, ...(json ? ["--json"] : []), ...args], {
    stdio: "inherit",
    env: { ...process.env, [AGENT_MARKER]: id },
  });
  registry.update(id, () => ({ pid: child.pid }));
  // The terminal's Ctrl+C reaches the agent's process too (same group): it stops gracefully; this one waits for it.
  const ignore = () => undefined;
  process.on("SIGINT", ignore);
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  return new Promise((res) => child.on("close", (code, signal) => res(code ?? (signal ? 128 + 15 : 1))));
}

/** The agent's process: waits for a slot, runs (or continues) its session in the worktree, records the end. */
async function workerCommand(argv: string[], runner: AgentRunner): Promise<number> {
  const { values, positionals } = parse(argv, { "agents-dir": { type: "string" }, resume: { type: "boolean" }, json: { type: "boolean" } });
  const [id, ...rest] = positionals;
  const registry = AgentRegistry.inDir(values["agents-dir"]!);
  let record = registry.update(id!, () => ({ pid: process.pid, phase: "queued", exitCode: undefined, stopped: undefined }));
  const settings = await agentSettings(record.workspace, record.trusted);
  let stopping = false;
  const onTerm = () => {
    stopping = true;
  };
  process.on("SIGTERM", onTerm);
  const release = await registry.acquireSlot(id!, settings.maxConcurrent, () => warn(`yoke: agent ${id} queued (agents.maxConcurrent ${settings.maxConcurrent})\n`));
  process.off("SIGTERM", onTerm);
  if (stopping) {
    release();
    registry.update(id!, () => ({ phase: "ended", exitCode: 143 }));
    return 143;
  }
  const inbox = new AgentInbox(registry.notesPath(id!));
  let code = 1;
  let resume = Boolean(values.resume);
  let text = rest.join(" ").trim();
  let releaseSlot: (() => void) | undefined = release;
  for (;;) {
    try {
      releaseSlot ??= await registry.acquireSlot(id!, settings.maxConcurrent, () => undefined);
      record = registry.update(id!, () => ({ phase: "running" }));
      const { runCommand, resumeCommand } = runner;
      const where = ["--cwd", record.worktree, "--session-dir", record.sessionDir, ...(record.trusted ? ["--trust"] : []), ...(values.json ? ["--json"] : [])];
      // Notes left while it runs reach its session at the next step, or after the task (inbox.ts).
      const notes = agentNotes(inbox);
      const hooks = { composer: notes.extension, followUp: notes.next };
      if (!resume && settings.setup && !record.setup) record = registry.update(id!, () => ({ setup: runSetup(record, settings.setup!) }));
      if (resume) {
        if (!record.sessionId) throw new Error(`agent ${id} has no session to continue yet`);
        code = await resumeCommand([record.sessionId, ...record.runArgs, ...where, ...(text ? [text] : [])], hooks);
      } else {
        code = await runCommand([...record.runArgs, ...where, text], { ...hooks, onSession: (sessionId) => registry.update(id!, () => ({ sessionId })) });
      }
    } catch (err) {
      warn(`yoke agent ${id}: ${err instanceof Error ? err.message : String(err)}\n`);
      code = 1;
    } finally {
      releaseSlot?.();
      releaseSlot = undefined;
      registry.update(id!, () => ({ phase: "ended", exitCode: code }));
    }
    // A note left after the session's last look at the inbox (the record said "running" to the
    // one who left it): the agent goes on with it. One left after this look finds the record
    // ended, and whoever left it continues the agent (continueCommand).
    const late = registry.get(id!).stopped || !registry.get(id!).sessionId ? [] : inbox.take();
    if (!late.length) break;
    resume = true;
    text = late.join("\n\n");
    registry.update(id!, () => ({ phase: "queued", exitCode: undefined }));
  }
  return code;
}

/**
 * `worktrees.setup` in a new worktree, before the session: only when the permission gate allows
 * it as a run_command there (nobody can answer a question in the background: an "ask" skips it,
 * saying which rule would allow it), and in the sandbox, as `yoke sandbox exec` runs commands.
 */
function runSetup(record: AgentRecord, command: string): NonNullable<AgentRecord["setup"]> {
  const modeAt = record.runArgs.indexOf("--permission-mode");
  const mode = modeAt >= 0 ? record.runArgs[modeAt + 1] : undefined;
  const check = spawnSync(
    process.execPath,
    [cliEntry(), "permissions", "check", "--tool", "Bash", "--input", JSON.stringify({ command }), "--cwd", record.worktree, ...(mode ? ["--mode", mode] : []), "--json"],
    { encoding: "utf8" },
  );
  let decision: { decision?: string; reason?: string } = {};
  try {
    decision = JSON.parse(check.stdout) as typeof decision;
  } catch {
    // reported below
  }
  if (decision.decision !== "allow") {
    const detail = `not run: the permission rules ${decision.decision === "deny" ? "deny" : "do not allow"} it (${decision.reason ?? check.stderr.trim()}); a background agent cannot ask — add an allow rule such as Bash(${command}) to run it`;
    warn(`yoke: worktrees.setup ${detail}\n`);
    return { command, outcome: "skipped", detail };
  }
  warn(`yoke: worktrees.setup: ${command}\n`);
  const run = spawnSync(process.execPath, [cliEntry(), "sandbox", "exec", "--cwd", record.worktree, "--timeout", "1800", "--", "bash", "-c", command], { stdio: ["ignore", "inherit", "inherit"] });
  const ok = run.status === 0;
  return { command, outcome: ok ? "ran" : "failed", detail: ok ? "exit status 0" : `exit status ${run.status ?? run.signal}` };
}

const common = { cwd: { type: "string" }, json: { type: "boolean" } } as const;

async function listCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, common, false);
  const { top, registry } = await workspaceOf(resolve(values.cwd ?? "."));
  const views = await Promise.all(registry.list().map((r) => agentViewOf(r)));
  if (values.json) {
    printJson({ workspace: top, agents: views });
    return 0;
  }
  if (!views.length) {
    say(`no background agents in ${top} (yoke run --background PROMPT starts one)\n`);
    return 0;
  }
  for (const v of views) {
    const spend = v.costUsd === null ? (v.usage ? `${v.usage.inputTokens + v.usage.outputTokens} tok` : "-") : `$${v.costUsd.toFixed(4)}`;
    const state = v.resumable ? "interrupted (resumable)" : v.state;
    say(`${v.id}  ${state.padEnd(11)}  ${spend.padEnd(9)}  ${v.changedFiles.length} file(s)  ${v.task.replace(/\s+/g, " ").slice(0, 60)}\n`);
    if (v.changedFiles.length) say(`    changed: ${v.changedFiles.map((f) => `${f.status} ${f.path}`).join(", ")}\n`);
    if (v.asking) say(`    waiting for an answer in the editor's panel: ${v.asking}\n`);
    if (v.lastMessage) say(`    last: ${v.lastMessage.replace(/\s+/g, " ").slice(0, 100)}\n`);
    if (v.resumable) say(`    continue it: yoke agents resume ${v.id}\n`);
  }
  return 0;
}

async function target(argv: string[], extra: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {}) {
  const { values, positionals } = parse(argv, { ...common, ...extra });
  const [id, ...rest] = positionals;
  if (!id) throw new UsageError("an agent id is required (see yoke agents)");
  const { top, registry } = await workspaceOf(resolve((values.cwd as string | undefined) ?? "."));
  const record = registry.get(id);
  // An agent started inside another agent's worktree (nested isolated agents) belongs to that tree: it is merged there.
  // Not when the chain of parents comes back to this agent (forged records, sbx18: its own worktree, or A in B's and B in A's).
  const tree = record.workspace !== top && agentWorktreeOf(record.workspace) && existsSync(join(record.workspace, ".git")) && !inLoop(record, registry.list()) ? record.workspace : top;
  return { values: values as Record<string, unknown>, rest, top: tree, registry, record };
}

/** Prints the transcript; while the agent runs, follows it as it grows. */
async function attachCommand(argv: string[]): Promise<number> {
  const { values, registry, record } = await target(argv, { "no-follow": { type: "boolean" } });
  const renderer = createConsoleRenderer(process.stdout, process.stderr);
  let printed = 0;
  const print = (r: AgentRecord) => {
    const events = agentSessionEvents(r);
    for (const e of events.slice(printed)) {
      if (values.json) process.stdout.write(printableJson(e) + "\n");
      else {
        if (e.type === "user_message") say(`\n> ${e.text}\n`);
        if (e.type === "assistant_message" && e.text) say(e.text.endsWith("\n") ? e.text : e.text + "\n");
        renderer.event(e);
      }
    }
    printed = events.length;
  };
  let r = record;
  for (;;) {
    print(r);
    if (values["no-follow"] || !agentAlive(r)) break;
    await new Promise((res) => setTimeout(res, 200));
    r = registry.get(r.id);
  }
  print(registry.get(r.id));
  const state = agentState(registry.get(r.id), agentAlive(r));
  if (!values.json) warn(`yoke: agent ${r.id} ${state}\n`);
  return 0;
}

/**
 * An agent that runs inside another process (a `background: true` custom agent in the editor's
 * session): that process sees its record marked stopped and cancels the run; this waits until the
 * record says it ended (or is gone: it changed nothing), or marks it ended when that process is gone.
 */
async function stopInProcess(json: boolean, registry: AgentRegistry, record: AgentRecord): Promise<number> {
  const deadline = Date.now() + IN_PROCESS_STOP_MS;
  for (;;) {
    const now = registry.read(record.id);
    if (!now || now.phase === "ended") break;
    if (!agentAlive(now)) {
      registry.update(record.id, () => ({ phase: "ended", exitCode: 143 }));
      break;
    }
    if (Date.now() > deadline) {
      warn(`yoke agents stop: agent ${record.id} runs inside process ${record.host}, which has not stopped it after ${IN_PROCESS_STOP_MS / 1000} s; it is marked to stop\n`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const after = registry.read(record.id);
  if (json) printJson({ agentId: record.id, state: "stopped" });
  else if (after) process.stdout.write(`stopped agent ${record.id}; its worktree ${record.worktree} stays (yoke agents diff|merge|discard ${record.id})\n`);
  else process.stdout.write(`stopped agent ${record.id}; it had changed nothing, so its worktree was removed\n`);
  return 0;
}

const IN_PROCESS_STOP_MS = 30_000;

async function stopCommand(argv: string[]): Promise<number> {
  const { values, registry, record } = await target(argv);
  registry.update(record.id, () => ({ stopped: true }));
  if (!record.pid && record.host !== undefined) return stopInProcess(values.json === true, registry, record);
  const left = await stopAgentProcess(record);
  if (left.length) {
    warn(`yoke agents stop: processes still alive: ${left.join(", ")}\n`);
    return 1;
  }
  // A process killed before it could record its end.
  const after = registry.get(record.id);
  if (after.phase !== "ended") registry.update(record.id, () => ({ phase: "ended", exitCode: 143 }));
  if (values.json) printJson({ agentId: record.id, state: "stopped" });
  else say(`stopped agent ${record.id}; its worktree ${record.worktree} stays (yoke agents diff|merge|discard ${record.id})\n`);
  return 0;
}

async function diffCommand(argv: string[]): Promise<number> {
  const { values, record } = await target(argv, { patch: { type: "boolean" } });
  if (values.patch) {
    // A patch piped to `git apply` stays byte for byte; on a terminal, its control characters are shown.
    const patch = await agentPatch(record.worktree, record.baseCommit, await worktreeTree(record.worktree, record.placed));
    process.stdout.write(process.stdout.isTTY ? printable(patch) : patch);
    return 0;
  }
  const out = await agentDiff(record);
  if (values.json) {
    printJson({ agentId: record.id, branch: record.branch, baseCommit: record.baseCommit, files: out });
    return 0;
  }
  if (!out.length) say(`agent ${record.id} changed nothing (against ${record.baseCommit.slice(0, 12)})\n`);
  for (const f of out) {
    say(
      `${f.status} ${f.path}${f.binary ? " (binary)" : ""}${f.filter ? ` (under your git filter "${f.filter}": as the agent's worktree has it, unfiltered; merged whole with --strategy apply, for your own git add to filter)` : ""}\n`,
    );
    for (const h of f.hunks) {
      // Unified-diff ranges; `path:N` is what --hunks takes.
      say(`@@ ${f.path}:${h.index} -${h.beforeStart + 1},${h.beforeLines.length} +${h.afterStart + 1},${h.afterLines.length} @@\n`);
      for (const l of h.beforeLines) say(`-${l.endsWith("\n") ? l : l + "\n"}`);
      for (const l of h.afterLines) say(`+${l.endsWith("\n") ? l : l + "\n"}`);
    }
  }
  return 0;
}

/** Files written unfiltered into the user's tree: their own git add runs the filter the agent's file never went through. */
function filteredNote(filtered: Record<string, string> | undefined): string {
  const list = Object.entries(filtered ?? {});
  if (!list.length) return "";
  return `written as the agent left them, not yet filtered (Yoke runs no git filter on an agent's files; your git add runs yours): ${list.map(([p, f]) => `${p} (${f})`).join(", ")}\n`;
}

function parseHunks(specs: string[]): HunkSelection {
  const sel: HunkSelection = new Map();
  for (const spec of specs) {
    const m = /^(.*):(\d+(?:,\d+)*)$/.exec(spec);
    const path = m ? m[1]! : spec;
    if (!m) {
      sel.set(path, "all");
      continue;
    }
    const prev = sel.get(path);
    const set = prev instanceof Set ? prev : new Set<number>();
    for (const n of m[2]!.split(",")) set.add(Number(n));
    if (prev !== "all") sel.set(path, set);
  }
  return sel;
}

async function mergeCommand(argv: string[]): Promise<number> {
  const { values, top, registry, record } = await target(argv, { strategy: { type: "string" }, hunks: { type: "string", multiple: true } });
  const strategy = (values.strategy as string | undefined) ?? "apply";
  if (strategy !== "apply" && strategy !== "merge") throw new UsageError(`--strategy must be apply or merge (got "${strategy}")`);
  const hunks = values.hunks as string[] | undefined;
  if (hunks && strategy === "merge") throw new UsageError("--hunks takes part of the change: it goes with --strategy apply");
  const state = registry.state(record);
  if (state === "running" || state === "queued") throw new Error(`agent ${record.id} is ${state}: wait for it to finish or stop it (yoke agents stop ${record.id}) before merging`);
  // Started inside another agent's worktree: its change is merged there, never into the user's tree instead.
  if (resolve(top) !== resolve(record.workspace) && agentWorktreeOf(record.workspace) && inLoop(record, registry.list()))
    throw new Error(
      `agent ${record.id} was not merged: its record says it started inside ${canonicalFolder(record.workspace) === canonicalFolder(record.worktree) ? "its own worktree" : "an agent that started inside it"} (${record.workspace}), a loop no real agent makes — the record was changed by something else. Nothing was written. See its change with yoke agents diff ${record.id}; remove it with yoke agents discard ${record.id}.`,
    );
  if (resolve(top) !== resolve(record.workspace) && agentWorktreeOf(record.workspace))
    throw new Error(
      `agent ${record.id} was not merged: its change is meant for the worktree it started in (${record.workspace}), which no longer exists. See it with yoke agents diff ${record.id}; discard it with yoke agents discard ${record.id}.`,
    );
  const t = { top, worktree: record.worktree, branch: record.branch, baseCommit: record.baseCommit, task: record.task, id: record.id, placed: record.placed };
  const result = strategy === "merge" ? await mergeAgentBranch(t) : await applyAgentChange(t, hunks ? parseHunks(hunks) : undefined);
  if (values.json) printJson({ agentId: record.id, ...result });
  if (!result.ok) {
    const lines = [`yoke agents merge: ${result.reason}`, ...result.conflicts.map((c) => `  ${c.path}: ${c.detail}`)];
    warn(lines.join("\n") + "\n");
    return 1;
  }
  registry.update(record.id, () => ({ mergedAt: new Date().toISOString() }));
  if (!values.json) {
    say(
      result.files.length
        ? `merged agent ${record.id} (${result.strategy}): ${result.files.join(", ")}\n${filteredNote(result.filtered)}yoke agents discard ${record.id} removes its worktree and branch\n`
        : `nothing to merge: your tree already has agent ${record.id}'s change\n`,
    );
  }
  return 0;
}

/**
 * The ids of the agents `record` was started inside (its parent: the agent whose worktree is its
 * workspace; then that one's parent…). Each record is visited once, so a loop in forged records
 * ends (A in B's worktree, B in A's) instead of recursing without bound.
 */
function ancestorsOf(record: AgentRecord, all: readonly AgentRecord[]): Set<string> {
  const byTree = new Map(all.map((r) => [canonicalFolder(r.worktree), r] as const));
  const seen = new Set<string>();
  let cur: AgentRecord | undefined = record;
  while (cur) {
    const up = byTree.get(canonicalFolder(cur.workspace));
    if (!up || up.id === record.id || seen.has(up.id)) break;
    seen.add(up.id);
    cur = up;
  }
  return seen;
}

/** Does the chain of parents from `record` come back to it (its workspace is its own worktree, or a loop through others)? */
function inLoop(record: AgentRecord, all: readonly AgentRecord[]): boolean {
  if (canonicalFolder(record.workspace) === canonicalFolder(record.worktree)) return true;
  const byTree = new Map(all.map((r) => [canonicalFolder(r.worktree), r] as const));
  const seen = new Set<string>();
  let cur: AgentRecord | undefined = record;
  while (cur && !seen.has(cur.id)) {
    seen.add(cur.id);
    cur = byTree.get(canonicalFolder(cur.workspace));
    if (cur?.id === record.id) return true;
  }
  return false;
}

async function discardCommand(argv: string[]): Promise<number> {
  const { values, top, registry, record } = await target(argv);
  // Agents started inside this one's worktree (nested isolated agents) keep their worktrees in it, and their change is
  // meant for its tree: removing it would delete their work and leave their change nowhere to go. Nothing is removed.
  // Compared as real paths: the worktree's path is built from the home as given, the nested agent's workspace is git's (links resolved).
  const mine = canonicalFolder(record.worktree);
  const all = registry.list();
  const ancestors = ancestorsOf(record, all);
  // One that is also this agent's parent, grand-parent… is a loop no real nesting makes (forged records, sbx18): it does not keep this one.
  const nested = all.filter((r) => r.id !== record.id && canonicalFolder(r.workspace) === mine && !ancestors.has(r.id));
  if (nested.length) {
    const ids = nested.map((r) => r.id).join(", ");
    throw new Error(
      `agent ${record.id} was not discarded: agent${nested.length > 1 ? "s" : ""} ${ids} started inside its worktree, and ${nested.length > 1 ? "their changes are" : "its change is"} meant for its tree. Merge or discard ${nested.length > 1 ? "them" : "it"} first (yoke agents merge|discard ${nested[0]!.id}), then discard agent ${record.id}.`,
    );
  }
  if (agentAlive(record)) {
    registry.update(record.id, () => ({ stopped: true }));
    const left = await stopAgentProcess(record);
    if (left.length) throw new Error(`agent ${record.id}'s processes ${left.join(", ")} would not stop; its worktree is kept`);
  }
  await removeAgentWorktree(top, record.worktree, record.branch);
  registry.remove(record.id);
  if (values.json) printJson({ agentId: record.id, discarded: true, sessionId: record.sessionId ?? null });
  else say(`discarded agent ${record.id}: worktree ${record.worktree} and branch ${record.branch} removed${record.sessionId ? ` (its transcript stays: session ${record.sessionId})` : ""}\n`);
  return 0;
}

/**
 * `note ID TEXT`: to a running (or queued) agent, the note goes to its inbox and its session gets
 * it as the user's message at its next step (inbox.ts); to an ended one — and `resume ID`, which
 * continues an interrupted one — the agent continues in its worktree, in the background again.
 */
async function continueCommand(argv: string[], needsText: boolean): Promise<number> {
  const { values, rest, registry, record } = await target(argv);
  let text = rest.join(" ").trim();
  if (needsText && !text) throw new UsageError("a note is required: yoke agents note ID TEXT");
  if (needsText) await refuseCommandNote(text, record.worktree);
  const inbox = new AgentInbox(registry.notesPath(record.id));
  const live = (s: string) => s === "running" || s === "queued";
  if (needsText && live(registry.state(record))) {
    const name = inbox.post(text);
    // Ended meanwhile, before its process looked at the inbox again: this command continues it with the note.
    const now = registry.get(record.id);
    if (live(registry.state(now)) || now.phase !== "ended" || inbox.takeOne(name) === undefined) {
      if (values.json) printJson({ agentId: record.id, sessionId: record.sessionId ?? null, delivered: "queued" });
      else say(`note queued: agent ${record.id} gets it at its next step (yoke agents attach ${record.id})\n`);
      return 0;
    }
  } else if (!needsText && live(registry.state(record))) {
    throw new Error(`agent ${record.id} is ${registry.state(record)}: there is nothing to resume`);
  }
  const fresh = registry.get(record.id);
  if (!fresh.sessionId) throw new Error(`agent ${record.id} never started its session; discard it and start it again`);
  if (!existsSync(fresh.worktree)) throw new Error(`agent ${record.id}'s worktree ${fresh.worktree} is gone`);
  // Notes still waiting (left while it ran, not taken before it stopped) go first.
  text = [...inbox.take(), ...(text ? [text] : [])].join("\n\n");
  registry.update(record.id, () => ({ phase: "queued", stopped: undefined, exitCode: undefined }));
  const pid = spawnWorker(registry, record.id, ["--resume", ...(text ? [text] : [])], true);
  registry.update(record.id, () => ({ pid }));
  if (values.json) printJson({ agentId: record.id, sessionId: fresh.sessionId, pid, delivered: "continued" });
  else say(`agent ${record.id} continues in ${fresh.worktree} (yoke agents attach ${record.id})\n`);
  return 0;
}

/**
 * A note that is a slash command (`/fix-issue 123`, an MCP prompt, `/output-style`) is refused: a
 * note reaches the agent as the user's words — steered into its running turn, which is past the
 * point where a message is expanded — so its model would read "/fix-issue 123", not the command,
 * and a headless agent has no one to ask a command's `!` lines or allowed-tools question. Other
 * text that starts with a slash ("/tmp is full") names no command and is sent as it is.
 */
async function refuseCommandNote(text: string, worktree: string): Promise<void> {
  const call = parseInvocation(text);
  if (!call) return;
  const known =
    call.name.startsWith("mcp__") ||
    call.name === "output-style" ||
    findCommand((await loadNodeCommands({ cwd: existsSync(worktree) ? worktree : process.cwd(), home: homedir() }).catch(() => ({ commands: [] }))).commands, call.name) !== undefined;
  if (!known) return;
  throw new Error(
    `note not sent: /${call.name} is a slash command, and a note reaches the agent as plain text (its model would read "${text.length > 80 ? `${text.slice(0, 79)}…` : text}", not the command). Write what you want in words, or run the command as an agent of its own: yoke run --background ${JSON.stringify(text)}`,
  );
}

/** What the agent's process gives its run (run.ts RunHooks): its session recorded, the notes left while it runs. */
interface RunHooks {
  onSession?(id: string): void;
  composer?: () => Extension;
  followUp?: () => string | undefined;
}

/** What an agent's own process runs: `yoke run` and `yoke resume` (given by main.ts, so that this module and run.ts do not import each other). */
export interface AgentRunner {
  runCommand(argv: string[], hooks?: RunHooks): Promise<number>;
  resumeCommand(argv: string[], hooks?: RunHooks): Promise<number>;
}

export async function agentsCommand(argv: string[], runner?: AgentRunner): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case undefined:
    case "list":
      return listCommand(rest);
    case "attach":
      return attachCommand(rest);
    case "stop":
      return stopCommand(rest);
    case "diff":
      return diffCommand(rest);
    case "merge":
      return mergeCommand(rest);
    case "discard":
      return discardCommand(rest);
    case "note":
      return continueCommand(rest, true);
    case "resume":
      return continueCommand(rest, false);
    case "__run":
      if (!runner) throw new Error("an agent's process needs yoke run (started through the yoke command line)");
      return workerCommand(rest, runner);
    default:
      if (sub.startsWith("-")) return listCommand(argv);
      throw new UsageError(`unknown subcommand "${sub}": list, attach, stop, diff, merge, discard, note, resume`);
  }
}

/** The agent's worker output (errors before its session existed), for `yoke agents list --json` readers and tests. */
export function workerOutput(registry: AgentRegistry, id: string): string {
  try {
    return readFileSync(registry.outputPath(id), "utf8");
  } catch {
    return "";
  }
}
