// Background agents in the panel (issue 24): "Run in background" from the composer and the
// palette, the Agents view (every agent of the workspace, running or finished, from the same
// records `yoke agents list` reads), an agent's read-only transcript, a note back, stop, the review
// of its change per file and hunk, Merge back and Discard. Reading goes straight to the records,
// session logs and worktrees (src/node/background); every action runs the yoke command line the
// extension ships (cli.ts), so the panel and `yoke agents` are one engine.
import * as vscode from "vscode";
import type { AgentRecord } from "../../core/background/agents";
import type { PermissionMode } from "../../core/loop/types";
import type { ChangeReviewer, ProposedFile } from "../../core/review";
import type { AgentFileDiffView, AgentItemView, AgentOutcomeView, HostToWebview, WebviewToHost } from "../../protocol/messages";
import { applyMode, planAgentChange, writePlan } from "../../node/background/merge";
import { askWholeFiles } from "./whole-files";
import { AgentLogs } from "../../node/background/log-tail";
import { AgentRegistry } from "../../node/background/registry";
import { agentChangedFiles, agentDiff, agentSessionEvents, agentViewOf, transcriptLines, type AgentView } from "../../node/background/view";
import { repositoryOf } from "../../node/background/worktree";
import { readSettings, type ApiKeys } from "../settings";
import { jsonOf, problemOf, runYoke, type CliOutcome } from "./cli";
import { notify } from "../shown";

type AgentMessage = Extract<WebviewToHost, { type: `agents.${string}` }>;
type Carry = "none" | "tracked" | "all";

/** How often the view is refreshed: while an agent is queued or running, and otherwise (agents the CLI started). */
const BUSY_MS = 1000;
const IDLE_MS = 5000;
/** A running agent's changed files (a `git add` into an index copy) are read at most this often. */
const FILES_MS = 3000;
/** The key a background agent's process gets its provider's API key from (never on its command line). */
const KEY_ENV = "YOKE_AGENT_API_KEY";

export interface HostAgentsDeps {
  extensionPath: string;
  log: vscode.LogOutputChannel;
  keys: ApiKeys;
  post: (msg: HostToWebview) => void;
  /** The panel's permission mode: an agent starts in it (it cannot ask: what would ask is refused). */
  mode: () => PermissionMode;
  /** The panel is shown: the view is refreshed only then. */
  visible: () => boolean;
  /** The editor's change review (src/host/review): "Review in editor" puts an agent's change up there. */
  review?: Pick<ChangeReviewer, "reviewSet">;
}

export class HostAgents implements vscode.Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private top: string | undefined;
  private lastPosted = "";
  private busy = false;
  /** Changed files per agent: recomputed when its record changed, or (running) every FILES_MS. */
  private readonly files = new Map<string, { stamp: string; at: number; files: AgentView["changedFiles"] }>();
  /** The transcript open in the view (refreshed while that agent runs). */
  private openTranscript: { id: string; count: number } | undefined;
  private disposed = false;
  /** Agents whose change is under review in the editor: stopped (taken back) when the agent is discarded or the window goes. */
  private readonly inEditor = new Map<string, AbortController>();
  private readonly logs = new AgentLogs(); // the agents' session logs, read as they grow: a refresh parses only what was appended

  constructor(private readonly deps: HostAgentsDeps) {}

  /** The panel (re)connected: show the agents at once, then keep them current. */
  panelConnected(): void {
    this.lastPosted = "";
    void this.refresh();
  }

  async handle(msg: AgentMessage): Promise<void> {
    switch (msg.type) {
      case "agents.start":
        await this.start(msg.text, msg.carry);
        return;
      case "agents.open":
        return msg.what === "transcript" ? this.showTranscript(msg.id) : this.showReview(msg.id);
      case "agents.stop":
        return this.act(msg.id, "stop", ["stop", msg.id]);
      case "agents.discard":
        this.inEditor.get(msg.id)?.abort();
        return this.act(msg.id, "discard", ["discard", msg.id]);
      case "agents.note":
        return this.act(msg.id, "note", ["note", msg.id, msg.text], await this.keyEnv());
      case "agents.merge":
        return msg.strategy === "merge" ? this.mergeBranch(msg.id) : this.merge(msg.id, msg.files);
      case "agents.reviewInEditor":
        return this.reviewInEditor(msg.id);
      default:
        msg satisfies never;
    }
  }

  /** "Yoke: Run in Background…": the task and what to carry, asked in the palette. */
  async startFromPalette(): Promise<void> {
    const text = await vscode.window.showInputBox({ title: "Yoke: Run in Background", prompt: "The task, run by an agent in a git worktree of its own", ignoreFocusOut: true });
    if (!text?.trim()) return;
    const carry = await vscode.window.showQuickPick(
      [
        { label: "none", detail: "Start from your last commit (HEAD)" },
        { label: "tracked", detail: "Also carry your uncommitted changes to tracked files" },
        { label: "all", detail: "Also carry your untracked files (not ignored ones)" },
      ],
      { title: "Yoke: Run in Background: what of your uncommitted work should the agent get?" },
    );
    if (!carry) return;
    const id = await this.start(text.trim(), carry.label as Carry);
    if (id) void notify("info", `Yoke: background agent ${id} started. The Agents list in the Yoke panel follows it.`);
  }

  /** Starts an agent (`yoke run --background`); its id, or undefined with the reason shown. */
  async start(text: string, carry: Carry): Promise<string | undefined> {
    const fail = (why: string) => {
      this.deps.post({ type: "agents.outcome", outcome: { id: null, action: "start", ok: false, text: why, conflicts: [] } });
      void notify("error", `Yoke: the background agent did not start: ${why}`);
      return undefined;
    };
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== "file") return fail("open a local folder first: a background agent works in a git worktree of it.");
    if (!vscode.workspace.isTrusted) return fail("trust this workspace first: a background agent runs commands and writes files, and cannot ask.");
    const s = readSettings();
    if (s.provider === "vscode-lm") return fail("a background agent is a process of its own and cannot use VS Code's language models: choose a provider with a key or a local server (yoke.provider).");
    const args = ["run", "--background", "--json", "--trust", "--cwd", folder.uri.fsPath, "--carry", carry, "--provider", s.provider, "--model", s.model, "--permission-mode", this.deps.mode()];
    if (s.baseUrl) args.push("--base-url", s.baseUrl);
    if (!s.stream) args.push("--no-stream");
    const env = await this.keyEnv();
    if (env[KEY_ENV]) args.push("--api-key-env", KEY_ENV);
    args.push("--", text);
    const out = await this.cli(args, env);
    const started = jsonOf<{ agentId?: string }>(out);
    if (out.code !== 0 || !started?.agentId) return fail(problemOf(out));
    this.deps.log.info(`background agent ${started.agentId} started: ${text.slice(0, 80)}`);
    await this.refresh();
    return started.agentId;
  }

  private async keyEnv(): Promise<Record<string, string>> {
    const key = await this.deps.keys.get(readSettings().provider);
    return key ? { [KEY_ENV]: key } : {};
  }

  private async registry(): Promise<AgentRegistry | undefined> {
    if (!this.top) {
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (!folder || folder.uri.scheme !== "file") return undefined;
      this.top = await repositoryOf(folder.uri.fsPath)
        .then((r) => r.top)
        .catch(() => undefined);
      if (!this.top) return undefined;
    }
    return new AgentRegistry(this.top);
  }

  private async record(id: string): Promise<AgentRecord | undefined> {
    return (await this.registry())?.read(id);
  }

  private cli(args: string[], env: Record<string, string> = {}): Promise<CliOutcome> {
    return runYoke(this.deps.extensionPath, args, env, this.top).catch((err: unknown) => ({ code: 1, stdout: "", stderr: err instanceof Error ? err.message : String(err) }));
  }

  /** One `yoke agents` action; what it did (or why not) is shown under the agent. */
  private async act(id: string, action: string, args: string[], env: Record<string, string> = {}): Promise<void> {
    await this.registry();
    const out = await this.cli(["agents", ...args.slice(0, 2), "--json", ...(this.top ? ["--cwd", this.top] : []), ...args.slice(2)], env);
    const ok = out.code === 0;
    const queued = action === "note" && jsonOf<{ delivered?: string }>(out)?.delivered === "queued";
    const text = ok ? (queued ? NOTE_QUEUED : (DONE[action] ?? action)) : problemOf(out);
    this.outcome({ id, action, ok, text, conflicts: [] });
    if (action === "discard" && ok && this.openTranscript?.id === id) this.openTranscript = undefined;
    await this.refresh();
  }

  private async merge(id: string, files: Extract<AgentMessage, { type: "agents.merge" }>["files"]): Promise<void> {
    const specs = files.filter((f) => f.hunks === "all" || f.hunks.length > 0).map((f) => (f.hunks === "all" ? f.path : `${f.path}:${f.hunks.join(",")}`));
    if (!specs.length) return this.outcome({ id, action: "merge", ok: false, text: "Nothing accepted: accept a hunk or a file first, or Discard the agent.", conflicts: [] });
    await this.registry();
    const out = await this.cli(["agents", "merge", id, "--json", ...(this.top ? ["--cwd", this.top] : []), ...specs.flatMap((s) => ["--hunks", s])]);
    const result = jsonOf<{ ok: boolean; files?: string[]; reason?: string; conflicts?: Array<{ path: string; detail: string }> }>(out);
    if (result?.ok) {
      const merged = result.files ?? [];
      this.outcome({ id, action: "merge", ok: true, text: merged.length ? `Merged into your tree: ${merged.join(", ")}.` : "Nothing to merge: your tree already has this change.", conflicts: [] });
    } else {
      this.outcome({ id, action: "merge", ok: false, text: result?.reason ? capital(result.reason) : problemOf(out), conflicts: result?.conflicts ?? [] });
    }
    await this.refresh();
  }

  /** "Merge branch": git merge of the agent's whole branch into the person's current branch (`yoke agents merge --strategy merge`). */
  private async mergeBranch(id: string): Promise<void> {
    await this.registry();
    const branch = (await this.record(id))?.branch ?? "its branch";
    const out = await this.cli(["agents", "merge", id, "--json", "--strategy", "merge", ...(this.top ? ["--cwd", this.top] : [])]);
    const result = jsonOf<{ ok: boolean; files?: string[]; reason?: string; conflicts?: Array<{ path: string; detail: string }> }>(out);
    if (result?.ok) {
      const merged = result.files ?? [];
      this.outcome({
        id,
        action: "merge",
        ok: true,
        text: merged.length ? `Merged ${branch} into your branch (git merge): ${merged.join(", ")}.` : `Nothing to merge: your branch already has ${branch}.`,
        conflicts: [],
      });
    } else {
      this.outcome({ id, action: "merge", ok: false, text: result?.reason ? capital(result.reason) : problemOf(out), conflicts: result?.conflicts ?? [] });
    }
    await this.refresh();
  }

  /**
   * "Review in editor": the agent's change, three-way merged onto the person's files as they are
   * now (what `yoke agents merge` would write: src/node/background/merge.ts), is put up in the
   * editor's per-hunk review as one change of several files — the review a foreground session's
   * edits get (CodeLens Accept / Reject per hunk and file, the panel's "Changes to review"). What
   * the person accepts there is what is written to their files, all files at once when every hunk
   * is decided; what they reject never reaches them. Refused, with the explanation, as a merge is.
   */
  private async reviewInEditor(id: string): Promise<void> {
    const fail = (text: string, conflicts: AgentOutcomeView["conflicts"] = []) => this.outcome({ id, action: "review", ok: false, text, conflicts });
    const reviewer = this.deps.review;
    if (!reviewer?.reviewSet) return fail("The editor's review is not available in this window: use Review and Merge back here.");
    if (this.inEditor.has(id)) return fail("Its change is already open in the editor: decide its hunks there (or in Changes to review).");
    const r = await this.record(id);
    if (!r || !this.top) return;
    const state = new AgentRegistry(this.top).state(r);
    if (state === "running" || state === "queued") return fail(`It is ${state}: review it once it has finished (or stop it first).`);
    const top = this.top;
    let planned;
    try {
      planned = await planAgentChange({ top, worktree: r.worktree, branch: r.branch, baseCommit: r.baseCommit, task: r.task, id: r.id, placed: r.placed });
    } catch (err) {
      return fail(`Its change could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!planned.ok) return fail(capital(planned.reason), planned.conflicts);
    if (!planned.plan.length) return this.outcome({ id, action: "review", ok: true, text: "Nothing to review: your files already have this change.", conflicts: [] });
    // Binary files and mode-only changes have no hunks to show: each is taken whole or not at all,
    // asked here, and written byte-exact (with its executable bit) with the rest once it is decided.
    const whole = planned.plan.filter((p) => p.binary || p.modeOnly);
    const text = planned.plan.filter((p) => !p.binary && !p.modeOnly);
    const setId = `agent-${id}-${Date.now().toString(36)}`;
    const files: ProposedFile[] = text.map((p, k) => ({
      editId: `${setId}:${k}`,
      callId: setId,
      path: `${top}/${p.path}`,
      relPath: p.path,
      before: p.user === null ? null : p.user.toString("utf8"),
      after: p.content === null ? "" : p.content.toString("utf8"),
      tool: "background agent",
      op: p.content === null ? "delete" : p.user === null ? "add" : "update",
    }));
    const abort = new AbortController();
    this.inEditor.set(id, abort);
    const count = `${files.length} file${files.length === 1 ? "" : "s"}`;
    const parts = whole.length ? [files.length ? `${count} to review by hunk` : "", `${whole.length} to take whole`].filter(Boolean) : [count];
    this.outcome({
      id,
      action: "review",
      ok: true,
      text: whole.length
        ? `Its change is open in your editor (${parts.join(", ")}): Accept or Reject each binary file or mode change in its notification${files.length ? ", then each hunk in the editor" : ""}. What you accept is written to your files once everything is decided.`
        : `Its change is open in your editor (${parts.join(", ")}): Accept or Reject each hunk there. What you accept is written to your files once every hunk is decided.`,
      conflicts: [],
    });
    this.deps.log.info(`agent ${id}: its change (${planned.plan.map((f) => f.path).join(", ")}) is under review in the editor`);
    try {
      const wholeTaken = await askWholeFiles(id, whole, abort.signal);
      if (!wholeTaken) return;
      const result = files.length ? await reviewer.reviewSet({ setId, callId: setId, tool: "background agent", files }, "ask", abort.signal) : { files: [] };
      if (result.error) return fail(`Not merged: ${result.error}`);
      // What the editor's review wrote keeps the agent's executable bit; the files taken whole are written byte-exact.
      const modeProblems: string[] = [];
      const taken: string[] = [];
      for (const [k, f] of files.entries()) {
        const o = result.files[k];
        if (!o || o.status === "rejected") continue;
        const plannedFile = text[k]!;
        if (plannedFile.content !== null) {
          try {
            await applyMode(top, plannedFile.path, plannedFile.mode);
          } catch (err) {
            modeProblems.push(`${plannedFile.path}: its mode was not set (${err instanceof Error ? err.message : String(err)})`);
          }
        }
        const h = o.hunks;
        taken.push(h && h.rejected ? `${f.relPath} (${h.accepted} of ${h.accepted + h.rejected} hunks)` : f.relPath);
      }
      if (wholeTaken.length) {
        await writePlan(top, wholeTaken);
        taken.push(...wholeTaken.map((p) => (p.modeOnly ? `${p.path} (mode)` : p.path)));
      }
      for (const m of modeProblems) this.deps.log.warn(`agent ${id}: ${m}`);
      if (!taken.length) return this.outcome({ id, action: "merge", ok: true, text: "Nothing merged: you rejected all of its change. Discard it, or send it a note.", conflicts: [] });
      new AgentRegistry(top).update(id, () => ({ mergedAt: new Date().toISOString() }));
      this.outcome({ id, action: "merge", ok: true, text: `Merged into your tree from the editor's review: ${taken.join(", ")}.`, conflicts: [] });
    } catch (err) {
      fail(`The review in the editor failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.inEditor.delete(id);
      await this.refresh();
    }
  }

  private outcome(o: AgentOutcomeView): void {
    if (!o.ok) this.deps.log.warn(`agent ${o.id} ${o.action}: ${o.text}`);
    this.deps.post({ type: "agents.outcome", outcome: o });
  }

  private async showTranscript(id: string): Promise<void> {
    const r = await this.record(id);
    if (!r) return;
    const events = agentSessionEvents(r, this.logs);
    this.openTranscript = { id, count: events.length };
    this.deps.post({ type: "agents.transcript", id, lines: transcriptLines(events, r.worktree) });
  }

  private async showReview(id: string): Promise<void> {
    const r = await this.record(id);
    if (!r) return;
    const files = await agentDiff(r).catch((err: unknown) => {
      this.outcome({ id, action: "review", ok: false, text: `Its change could not be read: ${err instanceof Error ? err.message : String(err)}`, conflicts: [] });
      return undefined;
    });
    if (!files) return;
    const view: AgentFileDiffView[] = files.map((f) => ({
      path: f.path,
      status: f.status,
      binary: f.binary,
      hunks: f.hunks.map((h) => ({ index: h.index, beforeStart: h.beforeStart, before: h.beforeLines.map(chomp), after: h.afterLines.map(chomp) })),
    }));
    this.deps.post({ type: "agents.review", id, files: view });
  }

  /** Reads the agents and posts the list when it changed; schedules the next read. */
  async refresh(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.disposed) return;
    let active = false;
    if (!this.busy && this.deps.visible()) {
      this.busy = true;
      try {
        const registry = await this.registry();
        const records = registry?.list() ?? [];
        const views = await Promise.all(records.map(async (r) => agentViewOf(r, await this.changedFiles(r), this.logs)));
        active = views.some((v) => v.state === "running" || v.state === "queued");
        const items = views.map(itemOf);
        const json = JSON.stringify(items);
        if (json !== this.lastPosted) {
          this.lastPosted = json;
          this.deps.post({ type: "agents", agents: items });
        }
        const open = this.openTranscript && records.find((r) => r.id === this.openTranscript!.id);
        if (open && agentSessionEvents(open, this.logs).length !== this.openTranscript!.count) await this.showTranscript(open.id);
      } catch (err) {
        this.deps.log.warn(`agents: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        this.busy = false;
      }
    }
    if (!this.disposed) this.timer = setTimeout(() => void this.refresh(), active ? BUSY_MS : IDLE_MS);
  }

  private async changedFiles(r: AgentRecord): Promise<AgentView["changedFiles"]> {
    const cached = this.files.get(r.id);
    const running = r.phase !== "ended";
    if (cached && cached.stamp === r.updatedAt && (!running || Date.now() - cached.at < FILES_MS)) return cached.files;
    const files = await agentChangedFiles(r);
    this.files.set(r.id, { stamp: r.updatedAt, at: Date.now(), files });
    return files;
  }

  dispose(): void {
    // The agents themselves run on: they are processes of their own (yoke agents lists them).
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    // A window that goes takes back the agents' changes it put up in the editor (the agents keep them).
    for (const a of this.inEditor.values()) a.abort();
  }
}

const DONE: Record<string, string> = {
  stop: "Stopped. Its worktree stays: review, merge or discard it.",
  discard: "Discarded: its worktree and branch are removed (its transcript stays in the session history).",
  note: "Note sent: the agent continues in its worktree.",
};
const NOTE_QUEUED = "Note sent: the agent is working and gets it as your message at its next step.";

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const chomp = (l: string) => l.replace(/\r?\n$/, "");

function itemOf(v: AgentView): AgentItemView {
  const spend = v.costUsd !== null ? `$${v.costUsd.toFixed(4)}` : v.usage ? `${v.usage.inputTokens + v.usage.outputTokens} tok` : "";
  const { id, task, state, resumable, branch, changedFiles, asking, merged } = v;
  const lastMessage = v.lastMessage && v.lastMessage.length > 400 ? v.lastMessage.slice(0, 400) + "…" : v.lastMessage;
  return { id, task, state, resumable, branch, spend, changedFiles, lastMessage, asking, merged };
}
