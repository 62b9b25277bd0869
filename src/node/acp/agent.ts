/**
 * Yoke as an Agent Client Protocol agent (`yoke acp`): an editor (Zed, JetBrains, Neovim…) starts
 * it and talks JSON-RPC over its stdio. Each ACP session is a Yoke session built exactly as the
 * CLI builds one (the caller's `build`: settings, trust, permission engine, sandbox, hooks, MCP),
 * in the same session store as the panel and `yoke run`; only the approver (the editor's
 * `session/request_permission`) and, when the editor offers it, the file system differ.
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { resolve } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { AgentSession, type AgentSessionOptions } from "../../core/loop/agent-session";
import type { Approver, PermissionAnswer, PermissionMode, PermissionQuestion } from "../../core/loop/types";
import { summarizeSession } from "../../core/session/projection";
import { sessionCost } from "../../core/cost";
import { contextWindowOf } from "../../core/providers/context-windows";
import { parseLog } from "../../core/session/session-log";
import type { SessionEvent } from "../../core/events";
import { describeEvent } from "../../core/describe-event";
import type { ChangeReviewer, ProposedChange, ReviewOutcome } from "../../core/review";
import type { WorkspaceFs } from "../../core/ports";
import type { NodeServices } from "../agent-services";
import { createFileSessionStore, type FileSessionStore } from "../session-store";
import { createClientWorkspaceFs } from "./client-fs";
import { mcpServersProblem, mcpSettingsFile } from "./mcp-servers";
import { promptText } from "./prompt";
import { kindOf, replay, updatesFor, type UpdateContext } from "./updates";
import { takeHandBacks } from "../background/hand-back";
import { agentWorktreeOf } from "../background/paths";
import { clientTerminalLauncher, type TerminalClient } from "./client-terminal";
import type { ProcessLauncher } from "../commands/launcher";
import type { McpHub } from "../../core/mcp/types";
import { availableCommands } from "./commands";
import { FOR_RUN_CHOICES } from "../../protocol/choices";

export interface AcpSessionSetup {
  options: AgentSessionOptions;
  /** The folders are trusted (else Restricted Mode): the enabled plugins' commands are listed only then, as they run only then. */
  trusted?: boolean;
  store: FileSessionStore;
  services: NodeServices;
  /** The session's model and the ones it may switch to (the `model` config option); absent: not switchable. */
  models?: {
    provider: string;
    /** The session's own model and its fallback models. */
    choices: string[];
    current(): string;
    /** What the provider's server lists (bounded, cached). */
    listed(): Promise<{ ids: string[]; problem?: string }>;
    use(model: string): Promise<void>;
  };
  /** From now on each model choice is recorded in this session's log (a model_change event: a loaded session starts on it). */
  recordModelChanges?(session: AgentSession): void;
  dispose(): Promise<void>;
}

export interface AcpAgentDeps {
  /** Builds a session's options for a folder as the CLI does (resumeId: an existing session, locked for this process). */
  build(req: {
    cwd: string;
    additionalDirectories: string[];
    resumeId?: string;
    approver: Approver;
    settings: string[];
    launcher?: ProcessLauncher;
    /** The MCP hub of the session's servers (their prompts are slash commands). */
    onMcpHub?(hub: McpHub): void;
  }): Promise<AcpSessionSetup>;
  /** The home folder (the user's commands); default: $HOME. */
  home?: string;
  /** The session store folder of a workspace folder (the one the panel and `yoke run` use). */
  sessionDir(cwd: string): string;
  /** The folder session/list lists when the client names none. */
  defaultCwd: string;
  version: string;
  warn(message: string): void;
}

const MODES: ReadonlyArray<{ id: PermissionMode; name: string; description: string }> = [
  { id: "default", name: "Ask", description: "Reads freely; asks before editing files or running commands the rules do not allow." },
  { id: "acceptEdits", name: "Accept edits", description: "Edits workspace files without asking; still asks before commands the rules do not allow." },
  { id: "plan", name: "Plan", description: "Read-only: explores and plans, changes nothing." },
  { id: "bypassPermissions", name: "Bypass permissions", description: "Never asks (deny rules and the sandbox still apply)." },
];

interface Live {
  session: AgentSession;
  setup: AcpSessionSetup;
  cwd: string;
  additionalDirectories: string[];
  /** The session's MCP servers (the settings files' and the editor's). */
  hub?: McpHub;
  /** The slash commands last told the editor (JSON), and the pending re-announcement after an MCP server changed. */
  commands?: string;
  commandsTimer?: ReturnType<typeof setTimeout>;
  streamed: { text: boolean; reasoning: boolean };
  running?: Promise<void>;
  /** Its events stream to the editor. */
  listening?: boolean;
  /** The session/update notifications in order; a prompt answers after they are sent. */
  queue: Promise<void>;
  updates: UpdateContext;
  /** Commands in the editor's terminal: the execute calls waiting for theirs, and each call's terminal. */
  terminals: { waiting: string[]; byCall: Map<string, string> };
  /** The title and time last told the editor (session_info_update). */
  info: { title?: string; updatedAt?: string };
  /** The models the provider lists, once asked (the model option offers them too). */
  listed?: string[];
  listing?: Promise<void>;
  /** When open() began: the events since are this start's (an MCP server that failed to start). */
  openedAt: string;
}

/** Why a prompt turn ended, from the events it appended. */
export function stopReasonOf(events: readonly SessionEvent[]): acp.StopReason {
  const status = events.findLast((e) => e.type === "status" && e.state !== "idle");
  if (status?.type === "status" && status.state === "cancelled") return "cancelled";
  if (events.some((e) => e.type === "error" && e.code === "max_turns")) return "max_turn_requests";
  const last = events.findLast((e) => e.type === "assistant_message");
  if (last?.type === "assistant_message" && last.stopReason === "max_tokens") return "max_tokens";
  if (last?.type === "assistant_message" && last.stopReason === "refusal") return "refusal";
  return "end_turn";
}

/** The agent app, and how to end its sessions once the editor closed the connection. */
export function createAcpAgent(deps: AcpAgentDeps): { app: acp.AgentApp; closeAll(): Promise<void> } {
  const sessions = new Map<string, Live>();
  /** The folders whose session stores this connection has seen (session/delete looks there: it names no folder). */
  const cwds = new Set<string>([deps.defaultCwd]);
  let clientCaps: acp.ClientCapabilities = {};
  let client: acp.AgentContext | undefined;

  const get = (id: string): Live => {
    const s = sessions.get(id);
    if (!s) throw acp.RequestError.sessionNotFound(id);
    return s;
  };

  /** Does this session run its commands in the editor's terminal? */
  function launcherUsed(live: Live): boolean {
    return Boolean(clientCaps.terminal) && live.session.services.commands !== undefined;
  }

  /** A terminal was made for a command: it is the oldest execute call's still waiting for one. */
  function attachTerminal(sessionId: string | undefined, terminals: Live["terminals"], terminalId: string): void {
    const live = sessionId ? sessions.get(sessionId) : undefined;
    const callId = terminals.waiting.shift();
    if (!live || !callId) return;
    terminals.byCall.set(callId, terminalId);
    send(live, { sessionUpdate: "tool_call_update", toolCallId: callId, content: [{ type: "terminal", terminalId }] });
  }

  /** The final update of a command's call keeps showing its terminal. */
  function withTerminal(live: Live, e: SessionEvent, u: acp.SessionUpdate): acp.SessionUpdate {
    if (e.type !== "tool_result" || u.sessionUpdate !== "tool_call_update") return u;
    const waiting = live.terminals.waiting.indexOf(e.callId);
    if (waiting >= 0) live.terminals.waiting.splice(waiting, 1);
    const terminalId = live.terminals.byCall.get(e.callId);
    if (!terminalId) return u;
    live.terminals.byCall.delete(e.callId);
    return { ...u, content: [{ type: "terminal", terminalId }, ...(u.content ?? [])] };
  }

  function send(live: Live, update: acp.SessionUpdate): void {
    const c = client;
    if (!c) return;
    live.queue = live.queue.then(() => c.notify(acp.methods.client.session.update, { sessionId: live.session.id, update })).catch((err: unknown) => deps.warn(`session/update failed: ${String(err)}`));
  }

  /** A question for the whole run (PermissionQuestion.forRun): "Allow for this run" or "Ask each time" — no allow-once, no rule. */
  async function askForRun(q: PermissionQuestion, sessionId: string, signal: AbortSignal): Promise<PermissionAnswer> {
    if (!client) return { decision: "deny", message: "no editor to ask" };
    try {
      const res = await client.request(
        acp.methods.client.session.requestPermission,
        {
          sessionId,
          toolCall: { toolCallId: q.callId, title: q.summary, kind: "other", status: "pending", rawInput: q.input, content: [{ type: "content", content: { type: "text", text: q.reason } }] },
          options: [
            { optionId: "allow_run", name: FOR_RUN_CHOICES.allow, kind: "allow_always" },
            { optionId: "ask_each_time", name: FOR_RUN_CHOICES.ask, kind: "reject_once" },
          ],
        },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
      return res.outcome.outcome === "selected" && res.outcome.optionId === "allow_run" ? { decision: "allow" } : { decision: "deny" };
    } catch (err) {
      return { decision: "deny", message: signal.aborted ? "cancelled" : `the editor did not answer: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  /** The editor's permission question: allow once, always (a rule Yoke proposes, saved as the panel saves it), or deny. */
  function approverFor(ref: { id?: string; services?: NodeServices; session?: AgentSession }): Approver {
    return {
      async ask(q: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer> {
        if (!client || !ref.id) return { decision: "deny", message: "no editor to ask" };
        const gate = ref.services?.gate;
        // A question for the whole run (a project command's allowed-tools): the options say what happens, and no rule is proposed.
        if (q.forRun) return askForRun(q, ref.id, signal);
        // An agent with rules of its own (a custom agent in its worktree): its folder's rule, added to its rules as well as saved.
        const req = { tool: q.tool, permission: q.permission, input: q.input, mutates: !q.readOnly };
        const rule = (await (q.rules ? q.rules.propose(req) : gate?.proposeRule(req))?.catch(() => null)) ?? null;
        const options: acp.PermissionOption[] = [
          { optionId: "allow_once", name: "Allow", kind: "allow_once" },
          ...(rule ? [{ optionId: "allow_always", name: `Always allow ${rule}`, kind: "allow_always" as const }] : []),
          { optionId: "reject_once", name: "Deny", kind: "reject_once" },
          ...(rule && gate ? [{ optionId: "reject_always", name: `Always deny ${rule} (this session)`, kind: "reject_always" as const }] : []),
        ];
        const def = ref.session?.tool(q.tool);
        let res: acp.RequestPermissionResponse;
        try {
          res = await client.request(
            acp.methods.client.session.requestPermission,
            {
              sessionId: ref.id,
              toolCall: {
                toolCallId: q.callId,
                title: q.summary ? `${q.tool} ${q.summary}` : q.tool,
                kind: kindOf(def),
                status: "pending",
                rawInput: q.input,
                content: [{ type: "content", content: { type: "text", text: q.reason } }],
              },
              options,
            },
            { cancellationSignal: signal, stopWaitingOnCancel: true },
          );
        } catch (err) {
          return { decision: "deny", message: signal.aborted ? "cancelled" : `the editor did not answer: ${err instanceof Error ? err.message : String(err)}` };
        }
        if (res.outcome.outcome !== "selected") return { decision: "deny", message: "cancelled by the user" };
        // An answer naming none of the options offered (a client's bug, or "allow_always" where no rule was offered): a denial.
        const chosen = res.outcome.optionId;
        if (!options.some((o) => o.optionId === chosen)) {
          deps.warn(`permission for ${q.tool}: the editor answered with an option not offered (${JSON.stringify(chosen).slice(0, 80)}); denied`);
          return { decision: "deny", message: "The editor answered with an option Yoke did not offer; treated as a denial." };
        }
        if (res.outcome.optionId === "allow_always" && rule && gate) {
          try {
            await gate.addLocalRule(rule);
            q.rules?.add(rule, "allow");
          } catch (err) {
            deps.warn(`could not save the rule ${rule}: ${String(err)}`);
          }
          return { decision: "allow" };
        }
        if (res.outcome.optionId === "allow_once" || res.outcome.optionId === "allow_always") return { decision: "allow" };
        // Always deny: a deny rule of the same pattern "Always allow" offers, for the rest of this session (not saved).
        if (res.outcome.optionId === "reject_always" && rule && gate) {
          try {
            gate.addSessionRule(rule, "deny");
            q.rules?.add(rule, "deny");
            return { decision: "deny", message: `The user denied this in the editor, and denied ${rule} for the rest of this session.` };
          } catch (err) {
            deps.warn(`could not add the deny rule ${rule}: ${String(err)}`);
          }
        }
        return { decision: "deny", message: "The user denied this in the editor." };
      },
    };
  }

  /**
   * The editor's review of an edit: the proposed change as a diff in session/request_permission
   * (allow, allow every edit from now on — the Accept edits mode —, or reject); on allow it is
   * written through the session's file system (the editor's, when it offers one). In "auto"
   * (the mode or a rule allowed the edit) it is written at once and the editor sees the diff on
   * the tool call.
   */
  function reviewerFor(sessionId: string, fs: WorkspaceFs): ChangeReviewer {
    const write = async (change: ProposedChange) => {
      // The review carries text without the byte order mark: a file that had one keeps it.
      const had =
        change.before !== null &&
        (await readFile(change.path).then(
          (b) => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf,
          () => false,
        ));
      await fs.writeChecked(change.path, new TextEncoder().encode((had ? "\ufeff" : "") + change.after));
    };
    return {
      async review(change, mode, signal): Promise<ReviewOutcome> {
        try {
          if (mode === "auto") {
            await write(change);
            return { status: "accepted", finalContent: change.after, auto: true };
          }
          if (!client) return { status: "rejected", finalContent: change.before, message: "no editor to ask" };
          const res = await client
            .request(
              acp.methods.client.session.requestPermission,
              {
                sessionId,
                toolCall: {
                  toolCallId: change.callId,
                  title: `${change.tool} ${change.relPath}`,
                  kind: "edit",
                  status: "pending",
                  locations: [{ path: change.path }],
                  content: [{ type: "diff", path: change.path, oldText: change.before, newText: change.after }],
                },
                options: [
                  { optionId: "allow_once", name: "Accept", kind: "allow_once" },
                  { optionId: "allow_always", name: "Accept all edits (Accept edits mode)", kind: "allow_always" },
                  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
                ],
              },
              { cancellationSignal: signal, stopWaitingOnCancel: true },
            )
            .catch((): acp.RequestPermissionResponse => ({ outcome: { outcome: "cancelled" } }));
          // Only an option offered to allow writes: a reject, a cancel, or an answer naming none of the options (a client's bug) writes nothing.
          const chosen = res.outcome.outcome === "selected" ? res.outcome.optionId : undefined;
          if (chosen !== "allow_once" && chosen !== "allow_always") {
            const message =
              chosen === undefined
                ? "cancelled"
                : chosen === "reject_once"
                  ? "The user rejected this change in the editor."
                  : `The editor answered with an option Yoke did not offer (${JSON.stringify(chosen).slice(0, 80)}): the change was not written.`;
            if (chosen !== undefined && chosen !== "reject_once")
              deps.warn(`edit review of ${change.relPath}: the editor answered with an option not offered (${JSON.stringify(chosen).slice(0, 80)}); not written`);
            return { status: "rejected", finalContent: change.before, message };
          }
          if (chosen === "allow_always") sessions.get(sessionId)?.session.setPermissionMode("acceptEdits", "user");
          await write(change);
          return { status: "accepted", finalContent: change.after };
        } catch (err) {
          return { status: "rejected", finalContent: change.before, error: `could not write ${change.relPath}: ${err instanceof Error ? err.message : String(err)}` };
        }
      },
    };
  }

  /** The session's options with the editor's review of edits, and its file system when it offers one. */
  function withClient(options: AgentSessionOptions): AgentSessionOptions {
    const fsCaps = clientCaps.fs;
    const base = options.services;
    // The first session of these options is the editor's; its sub-agents (which inherit them) ask and read under its id.
    let editorId: string | undefined;
    return {
      ...options,
      services: (session) => {
        const services = typeof base === "function" ? base(session) : base;
        const s = { id: (editorId ??= session.id) };
        const c = client!;
        const fs =
          fsCaps?.readTextFile || fsCaps?.writeTextFile
            ? createClientWorkspaceFs(services.fs, {
                ...(fsCaps.readTextFile
                  ? {
                      read: async (path, range) => (await c.request(acp.methods.client.fs.readTextFile, { sessionId: s.id, path, ...(range ? { line: range.line, limit: range.limit } : {}) })).content,
                    }
                  : {}),
                ...(fsCaps.writeTextFile ? { write: async (path, content) => void (await c.request(acp.methods.client.fs.writeTextFile, { sessionId: s.id, path, content })) } : {}),
              })
            : services.fs;
        return { ...services, fs, reviewer: reviewerFor(s.id, fs) };
      },
    };
  }

  async function modeState(live: Live): Promise<acp.SessionModeState> {
    const gate = live.setup.services.gate;
    const availableModes: acp.SessionMode[] = [];
    for (const m of MODES) if (await gate.modeAllowed(m.id).catch(() => true)) availableModes.push(m);
    return { currentModeId: live.session.permissionMode, availableModes };
  }

  async function open(cwd: string, additionalDirectories: string[], mcpServers: readonly acp.McpServer[], resumeId?: string): Promise<Live> {
    const openedAt = new Date().toISOString();
    // A session the folder's store does not have: the protocol's "resource not found", before anything is started.
    if (resumeId) {
      const view = createFileSessionStore(deps.sessionDir(cwd), { readOnly: true });
      try {
        if (!view.exists(resumeId)) throw acp.RequestError.sessionNotFound(resumeId);
      } finally {
        view.dispose();
      }
    }
    const ref: { id?: string; services?: NodeServices; session?: AgentSession } = { id: resumeId };
    const terminals: Live["terminals"] = { waiting: [], byCall: new Map() };
    // The editor's terminal runs the commands when it offers one (client-terminal.ts: the same
    // sandboxed command line); its output shows in the command's tool call.
    const launcher =
      clientCaps.terminal && client
        ? clientTerminalLauncher(terminalClient(client), { sessionId: () => ref.id ?? "", onTerminal: (id) => attachTerminal(ref.id, terminals, id), warn: deps.warn })
        : undefined;
    // The editor's MCP servers: an extra settings file of this session, for Yoke's MCP mechanism.
    const problem = mcpServersProblem(mcpServers);
    if (problem) throw acp.RequestError.invalidParams(undefined, problem);
    const mcp = mcpSettingsFile(mcpServers);
    let hub: McpHub | undefined;
    let built: AcpSessionSetup;
    try {
      built = await deps.build({
        cwd,
        additionalDirectories,
        ...(resumeId ? { resumeId } : {}),
        approver: approverFor(ref),
        settings: mcp.path ? [mcp.path] : [],
        ...(launcher ? { launcher } : {}),
        onMcpHub: (h) => (hub = h),
      });
    } catch (err) {
      mcp.dispose();
      throw clientError(err);
    }
    const setup: AcpSessionSetup = {
      ...built,
      dispose: async () => {
        await built.dispose();
        mcp.dispose();
      },
    };
    ref.services = setup.services;
    const options = withClient(setup.options);
    let session: AgentSession;
    try {
      session = resumeId ? await AgentSession.resume(resumeId, options) : await AgentSession.create(options);
    } catch (err) {
      await setup.dispose();
      setup.store.dispose();
      throw clientError(err);
    }
    ref.id = session.id;
    ref.session = session;
    setup.recordModelChanges?.(session);
    const live: Live = {
      session,
      setup,
      cwd,
      additionalDirectories,
      ...(hub ? { hub } : {}),
      streamed: { text: false, reasoning: false },
      queue: Promise.resolve(),
      updates: { tool: (n) => session.tool(n), root: session.services.fs.root },
      terminals,
      info: {},
      openedAt,
    };
    return live;
  }

  /** Streams the session's activity to the editor from now on. */
  function listen(live: Live): void {
    live.listening = true;
    live.session.onDelta((d) => {
      if (d.type === "text") live.streamed.text = true;
      else live.streamed.reasoning = true;
      send(live, { sessionUpdate: d.type === "text" ? "agent_message_chunk" : "agent_thought_chunk", content: { type: "text", text: d.text } });
    });
    // An MCP server started, stopped or changed its prompts: the list again (once things settle).
    live.hub?.onChange(() => {
      if (live.commandsTimer) clearTimeout(live.commandsTimer);
      live.commandsTimer = setTimeout(() => announceCommands(live), 300);
      live.commandsTimer.unref?.();
    });
    live.session.onEvent((e) => {
      if (e.type === "tool_call" && kindOf(live.updates.tool(e.name)) === "execute" && launcherUsed(live)) live.terminals.waiting.push(e.callId);
      for (const u of updatesFor(e, live.updates, { streamed: live.streamed })) send(live, withTerminal(live, e, u));
      if (e.type === "assistant_message") live.streamed = { text: false, reasoning: false };
      // The user's message names the session (its title, as the panel and `yoke sessions` show it).
      if (e.type === "user_message" && (e.from ?? "user") === "user") announceInfo(live);
      // A request's tokens and the session's spend so far (a sampling request of an MCP server is paid, not in the context).
      if (e.type === "usage" && !e.sampling) send(live, usageUpdate(live, e));
      // The mode changed (the editor, an "accept all edits", a plan approved): the config options say so too.
      if (e.type === "mode_change") void configOptions(live).then((configOptions) => send(live, { sessionUpdate: "config_option_update", configOptions }));
    });
  }

  /**
   * Results its background agents handed back after the session ended (kept beside its log, as the
   * panel and `yoke resume` find them, src/node/background/hand-back.ts): taken into the log — a rename
   * only one process wins, so they are delivered once — after the history was replayed; the session's
   * listener streams them to the editor (updates.ts), and the model has them with the next prompt.
   */
  function deliverKept(live: Live): void {
    if (live.running) return;
    try {
      takeHandBacks(live.setup.store.dir, live.session);
    } catch (err) {
      deps.warn(`results kept for session ${live.session.id} not delivered (they stay kept): ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Tells the editor the session's title and last activity when they changed (session_info_update). */
  function announceInfo(live: Live): void {
    const s = summarizeSession(live.session.events(), live.session.id);
    const named = live.session.events().some((e) => e.type === "user_message");
    const title = named ? s.title : undefined;
    if (title === live.info.title && s.updatedAt === live.info.updatedAt) return;
    live.info = { ...(title !== undefined ? { title } : {}), updatedAt: s.updatedAt };
    send(live, { sessionUpdate: "session_info_update", ...(title !== undefined ? { title } : {}), updatedAt: s.updatedAt });
  }

  /** A request's usage: the tokens of the context it filled, the model's window, and the session's cost so far (Yoke's cost accounting, src/core/cost). */
  function usageUpdate(live: Live, e: Extract<SessionEvent, { type: "usage" }>): acp.SessionUpdate {
    const u = e.usage;
    const used = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.outputTokens;
    const options = live.setup.options.compaction;
    const size = (options && options.contextWindow) || contextWindowOf(e.model).tokens;
    const cost = sessionCost(live.session.events()).total.costUsd;
    return { sessionUpdate: "usage_update", used, size, ...(cost !== undefined ? { cost: { amount: cost, currency: "USD" } } : {}) };
  }

  /** The session's settings the editor may change: the permission mode and, where the session has a choice, the model. */
  async function configOptions(live: Live): Promise<acp.SessionConfigOption[]> {
    const modes = await modeState(live);
    const out: acp.SessionConfigOption[] = [
      {
        id: "mode",
        name: "Permission mode",
        description: "How often Yoke asks before it edits files or runs commands.",
        category: "mode",
        type: "select",
        currentValue: modes.currentModeId,
        options: modes.availableModes.map((m) => ({ value: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) })),
      },
    ];
    const m = live.setup.models;
    if (m && m.choices.length > 0) {
      out.push({
        id: "model",
        name: "Model",
        description: `The model that answers the next request (${m.provider}); the session's fallback models stay behind it.`,
        category: "model",
        type: "select",
        currentValue: m.current(),
        options: modelChoices(live).map((c) => ({ value: c.model, name: c.model, description: c.why })),
      });
    }
    return out;
  }

  /** The models the option offers: the one in use first, the session's own and its fallbacks, then what the provider lists. */
  function modelChoices(live: Live): Array<{ model: string; why: string }> {
    const m = live.setup.models;
    if (!m) return [];
    const out = new Map<string, string>();
    const add = (model: string, why: string) => void (model && !out.has(model) && out.set(model, why));
    add(m.current(), m.current() === m.choices[0] ? "the session's model" : "the model in use now");
    m.choices.forEach((c, i) => add(c, i === 0 ? "the session's model" : "a fallback model of the session"));
    for (const id of live.listed ?? []) add(id, `listed by the provider (${m.provider})`);
    return [...out].map(([model, why]) => ({ model, why }));
  }

  /** Asks the provider for its models once per session (cached across sessions); the editor gets the longer list when it comes. */
  function listModelsFor(live: Live): Promise<void> {
    const m = live.setup.models;
    if (!m) return Promise.resolve();
    live.listing ??= (async () => {
      await new Promise((r) => setTimeout(r, 0));
      const r = await m.listed();
      if (r.problem) deps.warn(`model list: ${r.problem}`);
      const before = modelChoices(live).length;
      live.listed = r.ids;
      if (modelChoices(live).length !== before && sessions.has(live.session.id)) send(live, { sessionUpdate: "config_option_update", configOptions: await configOptions(live) });
    })().catch((err: unknown) => deps.warn(`model list: ${String(err)}`));
    return live.listing;
  }

  /** A mode the editor chose (session/set_mode, the `mode` config option), checked against the permission settings. */
  async function setMode(live: Live, modeId: string): Promise<void> {
    const mode = MODES.find((m) => m.id === modeId);
    if (!mode) throw acp.RequestError.invalidParams(undefined, `unknown mode ${modeId}: one of ${MODES.map((m) => m.id).join(", ")}`);
    if (!(await live.setup.services.gate.modeAllowed(mode.id))) throw acp.RequestError.invalidParams(undefined, `the mode ${mode.id} is turned off by the permission settings`);
    live.session.setPermissionMode(mode.id, "user");
  }

  /** Tells the editor the session's slash commands (after session/new, load and resume; again when the MCP servers change). */
  /**
   * The warnings of this start (an MCP server — the editor's or the settings' — that failed to
   * start: its tools are missing), told the editor as an agent message once it knows the session,
   * as `yoke run` prints them: ACP has no other update for a warning (the schema's session updates
   * are messages, tool calls, plans, commands, modes and info). The model is told by the MCP
   * mechanism itself (src/core/mcp/extension.ts).
   */
  function announceSetupWarnings(live: Live): void {
    const lines = live.session
      .events()
      .filter((e) => e.ts >= live.openedAt && e.type === "mcp_server")
      .map((e) => describeEvent(e))
      .filter((n) => n?.level === "warning" || n?.level === "error")
      .map((n) => `⚠ ${n!.text}`);
    if (!lines.length) return;
    void (async () => {
      await new Promise((r) => setTimeout(r, 0));
      send(live, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${lines.join("\n")}\n` } });
    })();
  }

  function announceCommands(live: Live): void {
    void (async () => {
      // After the answer to session/new (or load, resume) is on its way: the editor knows the session first.
      await new Promise((r) => setTimeout(r, 0));
      const list = await availableCommands({
        cwd: live.cwd,
        folders: live.additionalDirectories,
        home: deps.home ?? process.env.HOME ?? homedir(),
        trusted: live.setup.trusted ?? false,
        hub: live.hub,
        warn: deps.warn,
      });
      const json = JSON.stringify(list);
      if (json === live.commands || !sessions.has(live.session.id)) return;
      live.commands = json;
      send(live, { sessionUpdate: "available_commands_update", availableCommands: list });
    })().catch((err: unknown) => deps.warn(`slash commands: ${String(err)}`));
  }

  async function closeSession(live: Live): Promise<void> {
    sessions.delete(live.session.id);
    if (live.commandsTimer) clearTimeout(live.commandsTimer);
    live.session.cancel();
    await live.running?.catch(() => undefined);
    await live.session.end("other").catch((err: unknown) => deps.warn(`ending session ${live.session.id}: ${String(err)}`));
    await live.setup.dispose().catch(() => undefined);
    live.setup.store.dispose();
  }

  async function closeAll(): Promise<void> {
    for (const live of sessions.values()) {
      if (live.commandsTimer) clearTimeout(live.commandsTimer);
      await live.session.end("other").catch((err: unknown) => deps.warn(`ending session ${live.session.id}: ${String(err)}`));
      await live.setup.dispose().catch(() => undefined);
      live.setup.store.dispose();
    }
    sessions.clear();
  }

  const app = acp
    .agent({ name: "yoke" })
    .onConnect((conn) => {
      client = conn.client;
    })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      clientCaps = params.clientCapabilities ?? {};
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {} },
        },
        agentInfo: { name: "yoke", title: "Yoke", version: deps.version },
        authMethods: [],
      };
    })
    .onRequest(acp.methods.agent.authenticate, () => ({}))
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      cwds.add(params.cwd);
      const live = await open(params.cwd, params.additionalDirectories ?? [], params.mcpServers);
      sessions.set(live.session.id, live);
      listen(live);
      announceSetupWarnings(live);
      announceCommands(live);
      void listModelsFor(live);
      return { sessionId: live.session.id, modes: await modeState(live), configOptions: await configOptions(live) };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params }) => {
      cwds.add(params.cwd);
      let live = sessions.get(params.sessionId);
      const fresh = !live;
      if (!live) {
        live = await open(params.cwd, params.additionalDirectories ?? [], params.mcpServers, params.sessionId);
        sessions.set(live.session.id, live);
      } else if (live.running) throw acp.RequestError.invalidRequest(undefined, "the session is working on a prompt");
      // The whole conversation as it was, then the answer; only then does the live stream start.
      for (const n of replay(live.session.events(), live.updates, live.session.id)) send(live, n.update);
      live.info = {};
      announceInfo(live);
      await live.queue;
      if (!live.listening) listen(live);
      deliverKept(live);
      if (fresh) announceSetupWarnings(live);
      announceCommands(live);
      void listModelsFor(live);
      return { modes: await modeState(live), configOptions: await configOptions(live) };
    })
    // Like session/load without the history replayed: the editor has it.
    .onRequest(acp.methods.agent.session.resume, async ({ params }) => {
      cwds.add(params.cwd);
      let live = sessions.get(params.sessionId);
      const fresh = !live;
      if (!live) {
        live = await open(params.cwd, params.additionalDirectories ?? [], params.mcpServers ?? [], params.sessionId);
        sessions.set(live.session.id, live);
      }
      if (!live.listening) listen(live);
      deliverKept(live);
      if (fresh) announceSetupWarnings(live);
      announceCommands(live);
      void listModelsFor(live);
      return { modes: await modeState(live), configOptions: await configOptions(live) };
    })
    // The session ends (its log complete, its commands and MCP servers stopped); the store keeps it for session/load.
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      await closeSession(get(params.sessionId));
      return {};
    })
    // Deleted from the one session store (the panel's and the CLI's): its log, spilled results and sub-agents' logs.
    .onRequest(acp.methods.agent.session.delete, async ({ params }) => {
      const live = sessions.get(params.sessionId);
      if (live?.running) throw acp.RequestError.invalidRequest(undefined, `the session ${params.sessionId} is working on a prompt: cancel it (session/cancel) first`);
      const dirs = live ? [deps.sessionDir(live.cwd)] : [...new Set([...cwds].map((c) => deps.sessionDir(c)))];
      const dir = dirs.find((d) => {
        const view = createFileSessionStore(d, { readOnly: true });
        try {
          return view.exists(params.sessionId);
        } finally {
          view.dispose();
        }
      });
      if (!dir) throw acp.RequestError.sessionNotFound(params.sessionId);
      if (live) await closeSession(live);
      const store = createFileSessionStore(dir, { owner: "yoke acp" });
      try {
        deleteWithSubagents(store, params.sessionId);
      } catch (err) {
        throw acp.RequestError.invalidRequest(undefined, err instanceof Error ? err.message : String(err));
      } finally {
        store.dispose();
      }
      return {};
    })
    // The sessions of the folder's store (the agent's own folder's when the client names none), each with the folder it was
    // started in (its session_start); a cwd given filters by it, as the schema defines — one --session-dir may hold several folders'.
    .onRequest(acp.methods.agent.session.list, ({ params }) => {
      const cwd = params.cwd ?? deps.defaultCwd;
      cwds.add(cwd);
      const dir = deps.sessionDir(cwd);
      const store = createFileSessionStore(dir, { readOnly: true });
      try {
        const list = store.list().flatMap((id) => {
          const events = parseLog(store.read(id)).events;
          const start = events.find((e) => e.type === "session_start");
          const own = start?.type === "session_start" ? start.cwd : cwd;
          // A background agent of this workspace (its worktree's sessions are kept in the workspace's store) is listed with it, under its own folder.
          if (params.cwd && resolve(own) !== resolve(params.cwd) && !(agentWorktreeOf(own) && deps.sessionDir(own) === dir)) return [];
          const s = summarizeSession(events, id);
          return s.parentId ? [] : [{ sessionId: id, cwd: own, title: s.title, updatedAt: s.updatedAt }];
        });
        return { sessions: list };
      } finally {
        store.dispose();
      }
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      await setMode(get(params.sessionId), params.modeId);
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
      const live = get(params.sessionId);
      const value = params.value;
      if (typeof value !== "string") throw acp.RequestError.invalidParams(undefined, `the option ${params.configId} takes one of its values (a string), not ${JSON.stringify(value)}`);
      if (params.configId === "mode") await setMode(live, value);
      else if (params.configId === "model" && live.setup.models) {
        const m = live.setup.models;
        const offered = () => modelChoices(live).some((c) => c.model === value);
        // Not among the known ones: the provider's list, once it is in (bounded by its timeout).
        if (!offered()) await listModelsFor(live);
        if (!offered()) {
          const all = modelChoices(live).map((c) => c.model);
          throw acp.RequestError.invalidParams(undefined, `unknown model ${value}: one of ${all.slice(0, 20).join(", ")}${all.length > 20 ? ` (and ${all.length - 20} more)` : ""}`);
        }
        try {
          await m.use(value);
        } catch (err) {
          throw acp.RequestError.invalidParams(undefined, `could not use the model ${value}: ${err instanceof Error ? err.message : String(err)}`);
        }
      } else throw acp.RequestError.invalidParams(undefined, `unknown config option ${params.configId}: one of ${(await configOptions(live)).map((o) => o.id).join(", ")}`);
      return { configOptions: await configOptions(live) };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const live = get(params.sessionId);
      if (live.running) throw acp.RequestError.invalidRequest(undefined, "the session is already working on a prompt");
      const from = live.session.events().length;
      live.streamed = { text: false, reasoning: false };
      live.running = live.session.send(promptText(params.prompt));
      try {
        await live.running;
      } finally {
        live.running = undefined;
      }
      const turn = live.session.events().slice(from);
      const status = turn.findLast((e) => e.type === "status" && e.state !== "idle");
      if (status?.type === "status" && status.state === "error") {
        const err = turn.findLast((e) => e.type === "error");
        if (err?.type === "error") send(live, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n\nYoke stopped: ${err.message}` } });
      }
      announceInfo(live);
      await live.queue;
      return { stopReason: stopReasonOf(turn) };
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.session.cancel();
    });
  return { app, closeAll };
}

/**
 * A session that could not be opened, as the editor shows it: the reason in the error's message
 * (the SDK's default for a thrown Error is a bare "Internal error", the reason hidden in its data) —
 * e.g. the session is in use by another process (a background agent's worker, another editor).
 */
function clientError(err: unknown): acp.RequestError {
  if (err instanceof acp.RequestError) return err;
  return acp.RequestError.internalError(undefined, err instanceof Error ? err.message : String(err));
}

/** Deletes a session and, first, the sub-agents' sessions it started (linked by their parentId). */
function deleteWithSubagents(store: FileSessionStore, id: string, depth = 0): void {
  if (depth < 8) {
    for (const child of store.list()) {
      if (child === id) continue;
      const start = parseLog(store.read(child).slice(0, 1)).events[0];
      if (start?.type === "session_start" && start.parentId === id) deleteWithSubagents(store, child, depth + 1);
    }
  }
  store.remove(id);
}

/** The editor's terminal methods over the connection. */
function terminalClient(c: acp.AgentContext): TerminalClient {
  return {
    create: (p) => c.request(acp.methods.client.terminal.create, p),
    output: (p) => c.request(acp.methods.client.terminal.output, p),
    waitForExit: (p) => c.request(acp.methods.client.terminal.waitForExit, p),
    kill: (p) => c.request(acp.methods.client.terminal.kill, p),
    release: (p) => c.request(acp.methods.client.terminal.release, p),
  };
}
