/**
 * Custom slash commands in a session: a message `/name args` naming a command is expanded before it
 * is sent (prompt.expand), the same for the panel and the CLI. While the command's turn runs, its
 * `allowed-tools` are allow rules of the permission engine (deny and ask rules still win) and its
 * `model` answers, if the session's provider can make it. `!` shell lines run before sending,
 * through the permission gate, the user's answer and the sandbox, as run_command does: a command
 * that is denied or refused does not run, and the model is told so in its place.
 */
import type { Extension, ExtensionApi, SessionInfo } from "../extensions/types";
import { forkRunner } from "../subagents/index";
import { agentPermissionMode, agentTools, stricterAgentMode, type AgentDefinition } from "../subagents/agents";
import { editOutsideLimit, type EditLimit } from "../subagents/edit-paths";
import type { Approver, PermissionCheck, PermissionDecision, PermissionMode } from "../loop/types";
import { canonicalWorkspacePath, isAbsolutePath, isInside, joinPath, normalizePath, relativePath } from "../paths";
import { isPathChanged, type Disposable } from "../ports";
import { resolveTouches } from "../tools/touches";
import { isReadOnly } from "../tools/types";
import { copilotToolLimit } from "./copilot-tools";
import { copilotInputs, expandCommand, hasShellLines, NO_SUCH_FILE, parseInvocation, runShellLines, type EditorContext } from "./expand";
import { findCommand, originLabel } from "./loader";
import { hooksFingerprint, recordedHooks } from "../hooks/frontmatter";
import type { CustomCommand, LoadedCommands } from "./types";
import type { ModelCommandBridge, ModelCommandResult } from "./model-commands";

export const CUSTOM_COMMANDS_EXTENSION = "custom-commands";

/** Largest file an `@file` / `#file:` reference attaches. */
export const MAX_ATTACHED_BYTES = 100 * 1024;

export interface CustomCommandsOptions {
  /** The commands (read again for each slash message, so a new file works without a restart). */
  load(): Promise<LoadedCommands>;
  /** The permission engine (PermissionGate.check), with the command's grants in the request. */
  check(req: PermissionCheck, mode: PermissionMode): Promise<PermissionDecision>;
  /** Asks the user about a `!` line the engine asks about (the host's approver). */
  approver: Approver;
  /**
   * Switches the session's model for the command's turn (undefined: back to the session's own);
   * resolves to why it could not (the provider does not know the model), or undefined when it did.
   */
  useModel?(model: string | undefined): Promise<string | undefined>;
  /** The editor's file and selection now (the panel), for a Copilot prompt's `${file}`, `${selection}`, …; absent in the CLI. */
  editor?(): Promise<EditorContext | undefined>;
  /**
   * Asks the user for a Copilot prompt's `${input:name}` the message did not give (the panel's
   * input box, the terminal's prompt): the value, or undefined when they cancelled. Absent
   * (headless): the message is not sent, and the user is told how to give it (`name=value`).
   */
  askInput?(q: { command: string; name: string; placeholder?: string }): Promise<string | undefined>;
  /** The session's custom agents: a Copilot prompt file whose `agent` (or `mode`) names one runs under it. */
  agents?(session: SessionInfo): Promise<readonly AgentDefinition[]>;
  /**
   * Commands the model runs itself (load_skill with a command's name and arguments): filled here
   * (the commands, and the main conversation's runner) and read by the guidance, which lists them.
   */
  bridge?: ModelCommandBridge;
}

interface Active {
  command: CustomCommand;
  /** How the user is told who asks (a skill the model loaded: `the skill "x" (project)`); default `/name (origin)`. */
  label?: string;
  grants: string[];
  /**
   * A project command's `allowed-tools`: not granted by the file (a repository may not grant
   * itself tools), but asked of the user once per run, the first time one of them would lift a
   * question; allowed, they are this run's grants.
   */
  requested?: string[];
  /** That question, once asked (every later call of the run waits for the same answer). */
  question?: Promise<boolean>;
  /** A Copilot prompt's `mode` / `tools`: the only tools this run may use. */
  onlyTools?: ReadonlySet<string>;
  /** The model this run switched to (the command's, or the agent's its prompt file runs under). */
  model?: string;
  /** The agent a prompt file runs under, when it limits the files it edits (a Roo mode's fileRegex). */
  editLimit?: EditLimit;
  /**
   * That agent's permissionMode, where it is stricter than the session's: each call is also checked
   * in it. `dontAsk` (Claude Code's): a call the rules (with the command's grants) would ask about is
   * denied without asking anyone, as through `task`.
   */
  agentMode?: { agent: string; mode: PermissionMode; dontAsk?: boolean };
  /** That agent's own hooks run with the session's for this run (SessionInfo.scopeHooks): cleared when it ends. */
  hooks?: boolean;
  /** The command's `effort` holds for this run (SessionInfo.useEffort): cleared when it ends. */
  effort?: boolean;
}

export function customCommandsExtension(opts: CustomCommandsOptions): Extension {
  if (opts.bridge) opts.bridge.load = async () => (await opts.load()).commands;
  return {
    name: CUSTOM_COMMANDS_EXTENSION,
    async setup(api) {
      let active: Active | undefined;
      // A resumed session: the hooks of the commands it ran hold for the rest of it, as before the restart.
      await restoreCommandHooks(api, opts);
      let shellCalls = 0;
      const end = async () => {
        const had = active;
        active = undefined;
        if (had?.hooks) api.session.scopeHooks?.(undefined);
        if (had?.effort) api.session.useEffort?.(undefined);
        if (had?.model && opts.useModel) await opts.useModel(undefined);
      };
      api.onEvent((e) => {
        if (e.type === "status" && (e.state === "done" || e.state === "error" || e.state === "cancelled")) void end();
      });

      // The model runs a command itself (load_skill): the same expansion as `/name args` typed by the
      // person — `!` lines through the gate, `@file` through the Read rules, allowed-tools (a
      // repository's asked once), model, effort, hooks, context: fork — for the rest of this turn.
      // In a sub-agent (Claude Code's sub-agents run skills and commands too) it runs in the
      // sub-agent's own session: its tools (a `!` line needs its run_command, an `@file` a tool that
      // reads), its permission mode, the same rules, and its questions — asked in its name, denied
      // unasked when it is a dontAsk agent; the grants, hooks and effort hold for its turn; `model`
      // is not switched there (it would switch the conversation's model).
      const sub = api.session.parentId !== undefined;
      // A sub-agent asks through its own approver (its name on the card, its dontAsk), not the host's.
      const own: CustomCommandsOptions = sub && api.session.approver ? { ...opts, approver: api.session.approver } : opts;
      const runByModel = async (cmd: CustomCommand, args: string, ctx: { callId: string; signal: AbortSignal }): Promise<ModelCommandResult> => {
        const held = active;
        // A prompt file's limits (its tools, its agent's files and mode) hold for its whole run: a command cannot lift them.
        if (held && (held.onlyTools || held.editLimit || held.agentMode))
          return { error: `/${cmd.name} was not run: /${held.command.name} (a prompt file) limits this request, and a command run now would lift its limits` };
        await end();
        const grants = cmd.origin === "project" ? [] : cmd.allowedTools;
        const run: Active = { command: cmd, grants, ...(cmd.origin === "project" && cmd.allowedTools.length ? { requested: cmd.allowedTools } : {}) };
        active = run;
        const note = (detail: string) => api.record({ type: "extension", name: CUSTOM_COMMANDS_EXTENSION, point: "load_skill", outcome: "decided", detail });
        note(`/${cmd.name} ${originLabel(cmd)}: run by the model (load_skill)${args ? ` with arguments: ${args.slice(0, 200)}` : ""}`);
        const mode = api.session.mode;
        const grantsFor = (req: PermissionCheck, callId: string) => runGrants(api, own, run, req, callId);
        const expanded = await expandCommand(cmd, args, {
          workspaceRoot: api.session.services.fs.root,
          shell: (command) => runShellLine(api, own, cmd, command, grantsFor, mode, `${ctx.callId}-sh${++shellCalls}`),
          file: (ref, base) => attachFile(api, own, ref, base, grantsFor, mode),
        });
        const scoped = await commandScope(api, cmd);
        if (cmd.fork) {
          const forked = await runForked(api, own, run, expanded, ctx.signal);
          if (scoped.hooks) api.session.scopeHooks?.(undefined);
          if (scoped.effort) api.session.useEffort?.(undefined);
          if (active === run) active = undefined;
          return "block" in forked ? { error: forked.block } : forked;
        }
        if (active === run) active = { ...run, ...scoped };
        if (cmd.model && sub) note(`/${cmd.name}: not applied: model ${cmd.model} (a sub-agent ran it; the conversation's model is not switched for it)`);
        else if (cmd.model && own.useModel) {
          if (active) active.model = cmd.model;
          const why = await own.useModel(cmd.model);
          note(why ? `/${cmd.name}: model ${cmd.model} not used: ${why}` : `/${cmd.name}: model ${cmd.model} for the rest of this turn`);
        }
        if (grants.length) note(`/${cmd.name} ${originLabel(cmd)}: allowed for the rest of this turn: ${grants.join(", ")}`);
        return { text: expanded };
      };

      let registered: Disposable | undefined;
      if (opts.bridge) {
        const bridge = opts.bridge;
        const id = api.session.id;
        bridge.runners.set(id, runByModel);
        registered = { dispose: () => void bridge.runners.delete(id) };
      }

      api.on("prompt.expand", async ({ text }, hctx) => {
        await end();
        // Slash commands are the user's: a sub-agent's prompt was written by the model (`task`), so
        // it is sent as text — else the model could run the user's command, its `!` lines and its
        // allowed-tools as grants, or have a project command's question put to the user in its name
        // (red team 22-merged).
        if (api.session.parentId !== undefined) return undefined;
        const call = parseInvocation(text);
        if (!call) return undefined;
        const loaded = await opts.load();
        const cmd = findCommand(loaded.commands, call.name);
        if (!cmd) return undefined;
        // A repository's own command cannot grant tools: its text and its grants would both be the
        // repository's, and a repository may only restrict what Yoke does (the user's and plugins' may).
        const grants = cmd.origin === "project" ? [] : cmd.allowedTools;
        const run: Active = { command: cmd, grants, ...(cmd.origin === "project" && cmd.allowedTools.length ? { requested: cmd.allowedTools } : {}) };
        active = run;
        if (run.requested) {
          api.record({
            type: "extension",
            name: CUSTOM_COMMANDS_EXTENSION,
            point: "prompt.expand",
            outcome: "decided",
            detail: `/${cmd.name} ${originLabel(cmd)}: allowed-tools (${cmd.allowedTools.join(", ")}) not granted by the file: a repository's command may not grant tools; you are asked once for this run when one of them would skip a question (copy it to ~/.claude/commands to grant them)`,
          });
        }
        const mode = api.session.mode;
        // The grants of a check made during this run: the command's, or — for a project command — its
        // allowed-tools once the user allowed them (asked once, when they would lift a question).
        const grantsFor = (req: PermissionCheck, callId: string) => runGrants(api, opts, run, req, callId);
        // Copilot: `${input:name}` not given in the message is asked (or, headless, the message is refused saying how to give it).
        let answers: Map<string, string> | undefined;
        let editor: EditorContext | undefined;
        let limit: ReturnType<typeof copilotToolLimit> | undefined;
        let underAgent: AgentDefinition | undefined;
        if (cmd.format === "copilot") {
          const { missing } = copilotInputs(cmd, call.args);
          if (missing.length) {
            const how = `type ${missing.length > 1 ? "them" : "it"} after the command: /${cmd.name} ${missing.map((m) => `${m.name}=${m.placeholder ? JSON.stringify(m.placeholder) : "VALUE"}`).join(" ")}`;
            if (!opts.askInput) {
              active = undefined;
              return { block: `/${cmd.name} needs ${missing.map((m) => `\${input:${m.name}}`).join(", ")}, and there is no one to ask here: ${how}` };
            }
            answers = new Map();
            for (const m of missing) {
              const v = await opts.askInput({ command: cmd.name, ...m }).catch((err: unknown) => new Error(err instanceof Error ? err.message : String(err)));
              if (v instanceof Error || v === undefined) {
                active = undefined;
                return { block: `/${cmd.name}: no value for \${input:${m.name}}${v instanceof Error ? ` (${v.message})` : " (cancelled)"}; ${how}` };
              }
              answers.set(m.name, v);
            }
          }
          editor = await opts.editor?.().catch(() => undefined);
          // `agent: NAME` (or `mode`, its older name) naming a custom agent: the prompt runs under it —
          // its instructions before the prompt, its tools (unless the prompt file lists its own: VS
          // Code's order is the prompt's tools, then the agent's), its model (unless the prompt's).
          underAgent = await promptAgent(api, opts, cmd.mode);
          // The agent's own MCP servers start for a run of their own (task): this conversation's tool
          // list is its cached prefix and cannot take them. Refused, saying so, rather than run without them.
          const inline = Object.keys(underAgent?.mcpServers?.inline ?? {});
          if (underAgent && inline.length) {
            active = undefined;
            return {
              block: `/${cmd.name} runs as the "${underAgent.name}" agent (${underAgent.source}), which has MCP servers of its own (${inline.join(", ")}); they start only when the agent runs as a sub-agent, never inside this conversation, so /${cmd.name} was not run. Ask for the agent instead ("use the ${underAgent.name} agent to …"), or remove \`agent: ${cmd.mode}\` from ${relativePath(api.session.services.fs.root, cmd.path)}.`,
            };
          }
          // Its own hooks run with the session's for this run, as through task — a repository agent's only in a trusted workspace.
          if (underAgent?.hooks?.length) {
            const allowed = underAgent.origin !== "project" || api.session.trusted;
            if (allowed && api.session.scopeHooks) {
              api.session.scopeHooks(underAgent.hooks);
              active = { ...active, hooks: true };
            }
            api.record({
              type: "extension",
              name: CUSTOM_COMMANDS_EXTENSION,
              point: "prompt.expand",
              outcome: "decided",
              detail: !allowed
                ? `/${cmd.name}: not applied: the "${underAgent.name}" agent's hooks do not run, because the workspace is not trusted (Restricted Mode), as the repository's other hooks do not`
                : api.session.scopeHooks
                  ? `/${cmd.name}: the "${underAgent.name}" agent's hooks run for this run`
                  : `/${cmd.name}: not applied: the "${underAgent.name}" agent's hooks (this session has no hook engine)`,
            });
          }
          limit = underAgent ? agentLimit(underAgent, cmd.tools, api.session.tools()) : copilotToolLimit(cmd.mode, cmd.tools, api.session.tools());
          if (limit.allowed) active = { ...active, onlyTools: limit.allowed };
          // The agent's edit limit holds whatever tools the prompt file lists: they choose the
          // tools, not which files the agent may change.
          if (underAgent?.editPaths?.length) active = { ...active, editLimit: { name: underAgent.name, source: underAgent.source, editPaths: underAgent.editPaths } };
          // Its permissionMode too where stricter (a read-only reviewer in plan): as through `task`, never looser.
          const stricter = underAgent ? stricterAgentMode(underAgent, mode) : undefined;
          // Its `permissionMode: dontAsk` holds for the run as through `task`: nobody is asked, so a
          // project command's allowed-tools (granted only by asking) are not granted either.
          const dontAsk = underAgent ? agentPermissionMode(underAgent, mode).dontAsk === true : false;
          if (stricter || dontAsk)
            active = { ...active, requested: dontAsk ? undefined : active?.requested, agentMode: { agent: underAgent!.name, mode: stricter ?? mode, ...(dontAsk ? { dontAsk } : {}) } };
          if (limit.unknown.length)
            api.record({
              type: "extension",
              name: CUSTOM_COMMANDS_EXTENSION,
              point: "prompt.expand",
              outcome: "decided",
              detail: `/${cmd.name} ${originLabel(cmd)}: not applied: ${limit.unknown.join(", ")} (Yoke has no such tool)`,
            });
        }
        let expanded = await expandCommand(cmd, call.args, {
          workspaceRoot: api.session.services.fs.root,
          shell: (command) => runShellLine(api, opts, cmd, command, grantsFor, mode, `cmd-${++shellCalls}`),
          file: (ref, base) => attachFile(api, opts, ref, base, grantsFor, mode),
          ...(editor ? { editor } : {}),
          ...(answers ? { answers } : {}),
        });
        // The command's own `hooks` (from now on, for the rest of the session) and `effort` (for its run); a forked one's: its sub-agent's, which inherits them.
        const scoped = await commandScope(api, cmd);
        if (cmd.fork) {
          // The parent's turn only answers with the result: the command's grants, model, hooks and effort are the child's.
          const forked = await runForked(api, opts, run, expanded, hctx.signal);
          if (scoped.hooks) api.session.scopeHooks?.(undefined);
          if (scoped.effort) api.session.useEffort?.(undefined);
          active = undefined;
          return forked;
        }
        if (active) active = { ...active, ...scoped };
        if (underAgent) {
          expanded = `[/${cmd.name} is a prompt file that runs as the "${underAgent.name}" agent (${underAgent.source}). Its instructions for this request:]\n${underAgent.prompt.trim()}\n\n[The prompt:]\n${expanded}`;
          api.record({
            type: "extension",
            name: CUSTOM_COMMANDS_EXTENSION,
            point: "prompt.expand",
            outcome: "decided",
            detail: `/${cmd.name} ${originLabel(cmd)}: runs as the "${underAgent.name}" agent (${underAgent.source})`,
          });
        }
        if (limit?.allowed) {
          const why = [cmd.mode ? `${underAgent ? "agent" : "mode"}: ${cmd.mode}` : "", cmd.tools?.length ? `tools: ${cmd.tools.join(", ")}` : ""].filter(Boolean).join("; ");
          const names = [...limit.allowed].sort();
          expanded += `\n\n[/${cmd.name} is a prompt file (${why}): for this request use only these tools: ${names.join(", ") || "none — answer from what you know and what is above"}. Calls to any other tool are refused until the user's next message.]`;
          api.record({
            type: "extension",
            name: CUSTOM_COMMANDS_EXTENSION,
            point: "prompt.expand",
            outcome: "decided",
            detail: `/${cmd.name} ${originLabel(cmd)}: this run may use only ${names.join(", ") || "no tools"} (${why})`,
          });
        }
        const model = cmd.model ?? underAgent?.model;
        if (model && opts.useModel) {
          if (active) active.model = model;
          const why = await opts.useModel(model);
          api.record({
            type: "extension",
            name: CUSTOM_COMMANDS_EXTENSION,
            point: "prompt.expand",
            outcome: "decided",
            detail: why ? `/${cmd.name}: model ${model} not used: ${why}` : `/${cmd.name}: model ${model} for this turn`,
          });
        }
        if (grants.length) {
          api.record({
            type: "extension",
            name: CUSTOM_COMMANDS_EXTENSION,
            point: "prompt.expand",
            outcome: "decided",
            detail: `/${cmd.name} ${originLabel(cmd)}: allowed for this turn: ${grants.join(", ")}`,
          });
        }
        return { text: expanded };
      });

      // A prompt file under an agent that may edit only some files: its edits elsewhere are refused,
      // as the agent's are through `task` (edit-paths.ts) — after the hooks, just before the gate.
      api.on(
        "tool.before",
        async ({ tool, args }) => {
          const a = active;
          if (a?.editLimit) {
            const decision = await editOutsideLimit(a.editLimit, tool, args, api.session.services.fs);
            if (decision) return { decision };
          }
          if (a?.agentMode) {
            // The gate's answer in the agent's mode (with the call's touched files, as the grants' check below).
            const first: PermissionCheck = { tool: tool.name, permission: tool.permission, input: tool.hookInput(args), mutates: !isReadOnly(tool.capabilities) };
            const touched = await resolveTouches(tool, args, api.session.services.fs);
            const checked: PermissionCheck = a.agentMode.dontAsk && a.grants.length ? { ...first, grants: a.grants } : first;
            const reqs = touched.length ? touched.map((t) => ({ ...checked, permission: t.permission, input: { file_path: "abs" in t ? t.abs : t.path } })) : [checked];
            const ds = await Promise.all(reqs.map((r) => opts.check(r, a.agentMode!.mode)));
            const d = ds.find((x) => x.decision === "deny") ?? ds.find((x) => x.decision === "ask");
            if (d && a.agentMode.dontAsk)
              return {
                decision: {
                  decision: "deny",
                  by: "extension",
                  rule: d.rule,
                  reason: `Denied without asking: /${a.command.name} runs as the "${a.agentMode.agent}" agent, whose permissionMode is dontAsk, which denies whatever would need approval (${d.reason}). Only what the permission rules already allow runs.`,
                },
              };
            if (d)
              return {
                decision: {
                  decision: d.decision,
                  by: "extension",
                  rule: d.rule,
                  reason: `/${a.command.name} runs as the "${a.agentMode.agent}" agent, in its permission mode (${a.agentMode.mode}): ${d.reason}`,
                },
              };
          }
          return undefined;
        },
        { priority: -90, failClosed: true },
      );

      // A prompt file's mode / tools: a tool outside them is refused for this run (the tool list itself stays: it is the cached prefix).
      api.on("tool.before", async ({ tool }) => {
        const a = active;
        if (a?.onlyTools && !a.onlyTools.has(tool.name)) {
          const names = [...a.onlyTools].sort().join(", ") || "no tools";
          return {
            decision: { decision: "deny", by: "extension", rule: null, reason: `/${a.command.name} (a prompt file) limits this request to ${names}; ${tool.name} is not one of them` },
          };
        }
        return undefined;
      });
      // The command's allowed-tools: the engine's answer with them as allow rules (never past a deny or ask rule).
      onGrants(api, own, () => active);
      return registered;
    },
  };
}

/** A command's allowed-tools as allow rules of the engine's answer for each call (never past a deny or ask rule), while `current()` runs. */
function onGrants(api: ExtensionApi, opts: CustomCommandsOptions, current: () => Active | undefined): void {
  api.on("tool.before", async ({ tool, args, call }) => {
    const a = current();
    if (!a || (!a.grants.length && !a.requested)) return undefined;
    const readOnly = isReadOnly(tool.capabilities);
    const first: PermissionCheck = { tool: tool.name, permission: tool.permission, input: tool.hookInput(args), mutates: !readOnly };
    const touched = await resolveTouches(tool, args, api.session.services.fs);
    if (touched.some((t) => "error" in t)) return undefined;
    const asked = touched.length ? { ...first, permission: touched[0]!.permission, input: { file_path: "abs" in touched[0]! ? touched[0]!.abs : touched[0]!.path } } : first;
    const grants = await runGrants(api, opts, a, asked, call.id);
    if (!grants.length) return undefined;
    const base: PermissionCheck = { ...first, grants };
    const reqs = touched.length ? touched.map((t) => ({ ...base, permission: t.permission, input: { file_path: "abs" in t ? t.abs : t.path } })) : [base];
    const ds = await Promise.all(reqs.map((r) => opts.check(r, api.session.mode)));
    if (!ds.every((d) => d.decision === "allow")) return undefined;
    const rule = ds.find((d) => d.rule)?.rule ?? null;
    return {
      decision: {
        decision: "allow",
        by: "extension",
        rule,
        reason: `allowed by /${a.command.name}'s allowed-tools${a.requested ? " (you allowed them for this run)" : ""}${rule ? ` (${rule})` : ""}`,
        ...(ds[0]!.confine ? { confine: ds[0]!.confine } : {}),
      },
    };
  });
}

/**
 * A forked command (`context: fork`): its expanded text is the task of a sub-agent started through
 * the task tool's own run (the agent `agent:` names, else general-purpose with the session's
 * tools), with the command's allowed-tools as grants in the child — a project command's asked once
 * for the run, as in this conversation — and its model; this conversation gets only the answer.
 */
async function runForked(api: ExtensionApi, opts: CustomCommandsOptions, run: Active, expanded: string, signal: AbortSignal): Promise<{ text: string } | { block: string }> {
  const cmd = run.command;
  const agent = cmd.fork?.agent;
  const who = agent && !/^general[-_ ]?purpose$/i.test(agent) ? `the "${agent}" agent` : "a general-purpose sub-agent";
  const runner = forkRunner(api.session.tools());
  if (!runner)
    return { block: `/${cmd.name} runs in a sub-agent (context: fork in ${cmd.path}), and this session cannot start sub-agents (the subagents settings allow none here), so it was not run.` };
  const note = (detail: string) => api.record({ type: "extension", name: CUSTOM_COMMANDS_EXTENSION, point: "prompt.expand", outcome: "decided", detail });
  note(`/${cmd.name} ${originLabel(cmd)}: runs in ${who} (context: fork); this conversation gets only its answer`);
  // The grants hold in the child for its whole run (a fresh copy: the question, once answered, holds for the run).
  const childRun: Active = { command: cmd, grants: run.grants, ...(run.requested ? { requested: run.requested } : {}) };
  const grants: Extension = { name: `${CUSTOM_COMMANDS_EXTENSION}-fork`, setup: (child) => onGrants(child, opts, () => childRun) };
  const out = await runner
    .fork(
      {
        description: `/${cmd.name}`,
        prompt: expanded,
        asCall: true,
        ...(agent ? { agent } : {}),
        ...(run.grants.length || run.requested ? { extensions: [grants] } : {}),
        ...(cmd.model ? { model: cmd.model } : {}),
      },
      {
        ...api.session.services,
        signal,
        sessionId: api.session.id,
        callId: `fork-${cmd.name}-${Date.now()}`,
        readState: new Map(),
        reviewMode: "auto",
        record: (event) => api.record(event),
      },
    )
    .catch((err: unknown) => new Error(err instanceof Error ? err.message : String(err)));
  // Not started (no such agent, no worktree for it): nothing is sent; the user is told why.
  if (out instanceof Error) return { block: `/${cmd.name} (context: fork) was not run: ${out.message}` };
  // Stopped by the user while it ran: nothing is sent (the sub-agent's progress stays in the log).
  if (signal.aborted) return { block: `/${cmd.name} (context: fork) was stopped while its sub-agent ran; nothing was sent.` };
  if (out.isError) note(`/${cmd.name}: the sub-agent did not finish: ${out.text.slice(0, 200)}`);
  return {
    text: `[/${cmd.name} ran in ${who} (context: fork in ${relativePath(api.session.services.fs.root, cmd.path)}), which did not see this conversation. Its ${out.isError ? "outcome" : "answer"}:]\n${out.text}`,
  };
}

/**
 * A Claude command's or skill's own `hooks` and `effort`. Hooks: registered when it runs, for the rest
 * of the session (Claude Code registers a skill's — a command's — at its invocation and keeps them); a
 * repository command's only in a trusted workspace (as the repository's other hooks: Restricted Mode
 * runs none); a forked command's run in its sub-agent only, its `Stop` being the sub-agent's
 * SubagentStop (as Claude Code converts an agent's). Effort: the model's reasoning level for the
 * run's requests (cleared by the caller when the run ends; a provider without one is said in the
 * log). Each is said in the log.
 */
async function commandScope(api: ExtensionApi, cmd: CustomCommand): Promise<{ hooks?: boolean; effort?: boolean }> {
  const note = (detail: string) => api.record({ type: "extension", name: CUSTOM_COMMANDS_EXTENSION, point: "prompt.expand", outcome: "decided", detail });
  const out: { hooks?: boolean; effort?: boolean } = {};
  if (cmd.hooks?.length) {
    const groups = cmd.fork ? cmd.hooks.map((g) => (g.event === "Stop" ? { ...g, event: "SubagentStop" } : g)) : cmd.hooks;
    const events = [...new Set(groups.map((g) => g.event))].join(", ");
    if (cmd.origin === "project" && !api.session.trusted)
      note(`/${cmd.name} ${originLabel(cmd)}: not applied: its hooks (${events}) do not run, because the workspace is not trusted (Restricted Mode), as the repository's other hooks do not`);
    else if (!(cmd.fork ? api.session.scopeHooks : api.session.addHooks)) note(`/${cmd.name} ${originLabel(cmd)}: not applied: its hooks (${events}) — this session has no hook engine`);
    else if (cmd.fork) {
      // (Only Claude's format has them; a prompt file's agent's hooks are Copilot's: the two never meet.)
      api.session.scopeHooks!(groups);
      out.hooks = true;
      note(`/${cmd.name} ${originLabel(cmd)}: its hooks (${events}) run in its sub-agent`);
    } else {
      // Claude Code registers a command's (a skill's) hooks when it is invoked and keeps them for the rest of the session.
      // The log records what they run: a resumed session registers them again only while the file still has these.
      const fingerprint = await hooksFingerprint(groups);
      if (api.session.addHooks!(commandHooksKey(cmd), groups))
        api.record({
          type: "extension",
          name: CUSTOM_COMMANDS_EXTENSION,
          point: "prompt.expand",
          outcome: "decided",
          detail: `/${cmd.name} ${originLabel(cmd)}: its hooks (${events}) run from now on, for the rest of the session`,
          hooks: { key: commandHooksKey(cmd), fingerprint },
        });
      else note(`/${cmd.name} ${originLabel(cmd)}: its hooks (${events}) hold already in this session`);
    }
  }
  if (cmd.effort) {
    if (!api.session.useEffort) note(`/${cmd.name}: not applied: effort ${cmd.effort} (this session cannot set it)`);
    else if (api.session.provider === "vscode-lm") note(`/${cmd.name}: not applied: effort ${cmd.effort} (the VS Code language model API has no reasoning setting)`);
    else {
      api.session.useEffort(cmd.effort);
      out.effort = true;
      note(`/${cmd.name}: effort ${cmd.effort} for this run${cmd.fork ? " (its sub-agent)" : ""}`);
    }
  }
  return out;
}

/** One set per file: a skill run as `/name` and loaded with load_skill registers its hooks once. */
const commandHooksKey = (cmd: CustomCommand) => `file:${cmd.path}`;

/**
 * A resumed session: the commands it ran whose hooks were in force hold again — for the rest of the
 * session, as Claude Code keeps them — with the trust of now, and only as they were when they ran:
 * the log recorded what they run (hooksFingerprint). A command file whose hooks changed since, or
 * that is gone, registers none (the new ones run when the person runs the command again), and the
 * log says so; so does a command typed before the log recorded them (its hooks then are unknown).
 */
async function restoreCommandHooks(api: ExtensionApi, opts: CustomCommandsOptions): Promise<void> {
  if (api.session.parentId !== undefined || !api.session.addHooks) return;
  const events = api.session.events();
  const recorded = recordedHooks(events);
  const typed = events.flatMap((e) => (e.type === "user_message" && e.typed ? [e.typed] : []));
  if (!typed.length) return;
  const loaded = await opts.load().catch(() => undefined);
  if (!loaded) return;
  const note = (detail: string) => api.record({ type: "extension", name: CUSTOM_COMMANDS_EXTENSION, point: "resume", outcome: "decided", detail });
  const seen = new Set<string>();
  for (const t of typed) {
    const call = parseInvocation(t);
    const cmd = call ? findCommand(loaded.commands, call.name) : undefined;
    if (!cmd || cmd.fork || seen.has(commandHooksKey(cmd))) continue;
    const key = commandHooksKey(cmd);
    seen.add(key);
    const was = recorded.get(key);
    // Registered by the guidance (a skill loaded, then run as /name): restored there.
    if (was && was.by !== CUSTOM_COMMANDS_EXTENSION) continue;
    if (cmd.origin === "project" && !api.session.trusted) continue;
    const now = cmd.hooks?.length ? await hooksFingerprint(cmd.hooks) : undefined;
    if (!was) {
      if (now)
        note(
          `/${cmd.name} ${originLabel(cmd)}: not applied after the resume: its hooks (they were not registered when it ran in this session, or the log does not say which they were); run /${cmd.name} again to use them`,
        );
      continue;
    }
    if (now !== was.fingerprint) {
      note(
        `/${cmd.name} ${originLabel(cmd)}: not applied after the resume: its hooks changed since it ran in this session (${relativePath(api.session.services.fs.root, cmd.path)}); none of them run until you run /${cmd.name} again`,
      );
      continue;
    }
    api.session.addHooks(key, cmd.hooks!);
  }
  // Recorded hook sets whose command is no longer found (file removed or renamed): said, not run.
  for (const [key, was] of recorded)
    if (was.by === CUSTOM_COMMANDS_EXTENSION && !seen.has(key) && !loaded.commands.some((c) => commandHooksKey(c) === key))
      note(`not applied after the resume: the hooks of ${key.replace(/^file:/, "")} (the command that registered them is gone)`);
}

/** One `!` line: the gate (with the command's grants), the user when it asks, then run_command's own runner and sandbox. */
type GrantsFor = (req: PermissionCheck, callId: string) => Promise<string[]>;

/**
 * The grants for one check of a command's run. A project command's `allowed-tools` are asked of the
 * user once per run — only when they would turn this check's question (or denial by the mode) into
 * an allow, never past a deny rule — with a line naming what the command asks for; the answer holds
 * for the rest of the run.
 */
async function runGrants(api: ExtensionApi, opts: Pick<CustomCommandsOptions, "check" | "approver">, a: Active, req: PermissionCheck, callId: string): Promise<string[]> {
  if (a.grants.length || !a.requested) return a.grants;
  if (!a.question) {
    const mode = api.session.mode;
    const without = await opts.check({ ...req, grants: [] }, mode).catch(() => undefined);
    if (!without || without.decision === "allow") return [];
    const withThem = await opts.check({ ...req, grants: a.requested }, mode).catch(() => undefined);
    if (withThem?.decision !== "allow") return [];
    const requested = a.requested;
    const name = a.label ?? `/${a.command.name} ${originLabel(a.command)}`;
    const what = a.label ? "skill" : "command";
    a.question = opts.approver
      .ask(
        {
          callId,
          tool: req.tool,
          permission: req.permission,
          input: req.input,
          reason: `${name} asks for: ${requested.join(", ")}. A repository's ${what} cannot grant tools itself, so you are asked once for this run: allow them until it ends? (Deny rules, protected paths and the mode still apply; if not, each call is asked as usual.)`,
          summary: `this ${what} asks for: ${requested.join(", ")}`,
          readOnly: !req.mutates,
          forRun: { grants: requested },
        },
        new AbortController().signal,
      )
      .then(
        (answer) => ({ allowed: answer.decision === "allow", why: answer.message }),
        (err: unknown) => ({ allowed: false, why: err instanceof Error ? err.message : String(err) }),
      )
      .then(({ allowed, why }) => {
        api.record({
          type: "extension",
          name: CUSTOM_COMMANDS_EXTENSION,
          point: "tool.before",
          outcome: "decided",
          detail: allowed
            ? `${name}: you allowed ${requested.join(", ")} for this run`
            : `${name}: ${requested.join(", ")} not allowed for this run${why ? ` (${why})` : ""}; the permission rules decide each call`,
        });
        if (allowed) a.grants = requested;
        return allowed;
      });
  }
  return (await a.question) ? a.grants : [];
}

async function runShellLine(
  api: ExtensionApi,
  opts: Pick<CustomCommandsOptions, "check" | "approver">,
  cmd: CustomCommand,
  command: string,
  grantsFor: GrantsFor,
  mode: PermissionMode,
  callId: string,
  who = `/${cmd.name}`,
): Promise<string> {
  const note = (detail: string) => api.record({ type: "extension", name: CUSTOM_COMMANDS_EXTENSION, point: "prompt.expand", outcome: "decided", detail });
  const tool = api.session.tools().find((t) => t.name === "run_command");
  if (!tool) {
    note(`${who}: !\`${command}\` not run: this session cannot run commands`);
    return `[The command \`${command}\` was not run: this session cannot run commands.]`;
  }
  const input = { command };
  let d: PermissionDecision;
  if (!api.session.trusted) d = { decision: "deny", by: "restricted", reason: "the workspace is in Restricted Mode", rule: null };
  else
    d = await grantsFor({ tool: tool.name, permission: tool.permission, input, mutates: true }, callId)
      .then((grants) => opts.check({ tool: tool.name, permission: tool.permission, input, mutates: true, grants }, mode))
      .catch((err: unknown) => ({ decision: "ask" as const, by: "mode" as const, rule: null, reason: `the permission check failed (${err instanceof Error ? err.message : String(err)})` }));
  if (d.decision === "deny") {
    note(`${who}: !\`${command}\` denied: ${d.reason}`);
    return `[The command \`${command}\` was not run: the permission rules deny it (${d.reason}).]`;
  }
  if (d.decision === "ask") {
    const signal = new AbortController().signal;
    const answer = await opts.approver
      .ask(
        {
          callId,
          tool: tool.name,
          permission: tool.permission,
          input: tool.hookInput(input),
          reason: `${who} runs this before it is sent. ${d.reason}`,
          summary: `${who}: ${command}`,
          readOnly: false,
        },
        signal,
      )
      .catch((err: unknown) => ({ decision: "deny" as const, message: err instanceof Error ? err.message : String(err) }));
    if (answer.decision !== "allow") {
      note(`${who}: !\`${command}\` refused by the user${answer.message ? `: ${answer.message}` : ""}`);
      return `[The command \`${command}\` was not run: the user refused it${answer.message ? ` ("${answer.message}")` : ""}.]`;
    }
  }
  note(`${who}: !\`${command}\` run (${d.decision === "allow" ? `allowed: ${d.reason}` : "the user allowed it"})`);
  const prepared = await tool
    .run(input, {
      ...api.session.services,
      signal: new AbortController().signal,
      sessionId: api.session.id,
      callId,
      readState: new Map(),
      reviewMode: "auto",
      // A plugin's command: its own folder readable (read-only) in the sandbox, for its scripts.
      ...(d.confine || cmd.pluginRoot ? { confine: { ...d.confine, ...(cmd.pluginRoot ? { pluginRoot: cmd.pluginRoot } : {}) } } : {}),
      record: (event) => api.record(event),
    })
    .catch((err: unknown) => ({ text: err instanceof Error ? err.message : String(err), isError: true }));
  return prepared.text.replace(/\s+$/, "");
}

/** An `@file` / `#file:` reference: a workspace file the Read rules let the model see. */
async function attachFile(
  api: ExtensionApi,
  opts: CustomCommandsOptions,
  ref: string,
  base: string,
  grantsFor: GrantsFor,
  mode: PermissionMode,
): Promise<{ path: string; text: string } | { error: string }> {
  // A sub-agent's tools are its limits: one that cannot read files gets none attached by a command either.
  if (api.session.parentId !== undefined && !api.session.tools().some((t) => t.permission === "Read")) return { error: "not attached: this sub-agent has no tool that reads files" };
  const fs = api.session.services.fs;
  const given = normalizePath(isAbsolutePath(ref) ? ref : joinPath(base, ref));
  const folders = fs.folders?.length ? fs.folders.map((f) => f.root) : [fs.root];
  const root = folders.find((r) => isInside(r, given));
  if (!root) return { error: "outside the workspace, not attached" };
  if (!(await fs.stat(given).catch(() => undefined))) return { error: NO_SUCH_FILE };
  // The path the file tools act on (every link below the root resolved, inside the workspace): the
  // gate checks it and it is read by descriptor without following a link, so a link swapped in after
  // the check is refused, not followed (red team 22-merged: a background command swapping `d/` for
  // a folder of links to the Read-denied .env put it into the request when the user typed /rev).
  const abs = await canonicalWorkspacePath(fs, given).then(
    (c) => c.abs,
    () => undefined,
  );
  if (!abs) return { error: "outside the workspace (a link on the way leads out), not attached" };
  const st = await fs.stat(abs).catch(() => undefined);
  if (!st || st.type !== "file") return { error: NO_SUCH_FILE };
  const read: PermissionCheck = { tool: "read_file", permission: "Read", input: { file_path: abs }, mutates: false };
  const d = await grantsFor(read, `attach-${ref}`)
    .then((grants) => opts.check({ ...read, grants }, mode))
    .catch(() => undefined);
  if (!d || d.decision !== "allow") return { error: `not attached: reading it ${d?.decision === "deny" ? "is denied" : "needs approval"}${d ? ` (${d.reason})` : ""}` };
  if (st.size > MAX_ATTACHED_BYTES) return { error: `larger than ${MAX_ATTACHED_BYTES / 1024} KB, not attached; read it with read_file` };
  let data: Uint8Array;
  try {
    data = (await fs.readChecked(abs)).data;
  } catch (err) {
    if (isPathChanged(err)) return { error: `not attached: it changed while it was being read (${err.detail}); a link that appears after the check is not followed` };
    return { error: NO_SUCH_FILE };
  }
  const text = new TextDecoder().decode(data);
  return { path: relativePath(fs.root, given).startsWith("..") ? given : relativePath(fs.root, given), text };
}

/** The custom agent a prompt file's `agent`/`mode` names (not ask, edit or agent), by name or display name. */
async function promptAgent(api: ExtensionApi, opts: CustomCommandsOptions, mode: string | undefined): Promise<AgentDefinition | undefined> {
  const m = mode?.trim().toLowerCase();
  if (!m || m === "ask" || m === "edit" || m === "agent" || !opts.agents) return undefined;
  const agents = await opts.agents(api.session).catch(() => []);
  return agents.find((a) => a.name.toLowerCase() === m) ?? agents.find((a) => a.displayName?.toLowerCase() === m);
}

/** The tools a prompt file running under an agent may use: its own `tools` when it lists them, else the agent's. */
function agentLimit(agent: AgentDefinition, tools: readonly string[] | undefined, session: Parameters<typeof copilotToolLimit>[2]): ReturnType<typeof copilotToolLimit> {
  if (tools?.length) return copilotToolLimit(undefined, tools, session);
  const own = agentTools(agent, session);
  // No list: every tool of the session (as the agent would have them); `task` only when its list allows sub-agents.
  return { allowed: new Set([...own.tools.map((t) => t.name), ...(own.task ? session.filter((t) => t.permission === "Task").map((t) => t.name) : [])]), unknown: [] };
}

/** A skill the model loads (load_skill) or the user names (`@name`), as the skill preprocessor sees it. */
export interface LoadedSkill {
  name: string;
  /** Its SKILL.md (absolute). */
  path: string;
  /** Its text, `${CLAUDE_SKILL_DIR}` and `${CLAUDE_PLUGIN_ROOT}` already substituted. */
  body: string;
  /** The workspace's (a repository's), or the user's own / a plugin's. */
  fromRepository: boolean;
  /** Its `allowed-tools`. */
  allowedTools?: readonly string[];
  /** A plugin's skill: the plugin's installed folder (read-only to its `!` lines in the sandbox). */
  pluginRoot?: string;
}

/**
 * Claude Code's preprocessing of a skill it loads: each `` !`cmd` `` line and ```` ```! ```` block
 * runs before the text reaches the model, through the same gate as a command's `!` lines — the
 * permission rules, the user's answer where they ask, the sandbox — with the skill's
 * `allowed-tools` as grants (a repository's skill cannot grant itself tools: they are asked once
 * for the load, as a project command's are for its run). Restricted Mode runs none. What did not
 * run is said in its place.
 */
export function skillPreprocessor(opts: Pick<CustomCommandsOptions, "check" | "approver">): (api: ExtensionApi, skill: LoadedSkill, callId: string) => Promise<string> {
  return async (api, skill, callId) => {
    if (!hasShellLines(skill.body)) return skill.body;
    const allowed = [...(skill.allowedTools ?? [])];
    const who = `the skill "${skill.name}"${skill.fromRepository ? " (project)" : ""}`;
    const cmd: CustomCommand = {
      name: skill.name,
      aliases: [],
      format: "claude",
      origin: skill.fromRepository ? "project" : "user",
      path: skill.path,
      allowedTools: allowed,
      disableModelInvocation: false,
      body: skill.body,
      ...(skill.pluginRoot ? { pluginRoot: skill.pluginRoot } : {}),
    };
    const run: Active = { command: cmd, label: who, grants: skill.fromRepository ? [] : allowed, ...(skill.fromRepository && allowed.length ? { requested: allowed } : {}) };
    let n = 0;
    const mode = api.session.mode;
    return runShellLines(skill.body, (command) => runShellLine(api, opts, cmd, command, (req, id) => runGrants(api, opts, run, req, id), mode, `${callId}-sh${++n}`, who));
  };
}
