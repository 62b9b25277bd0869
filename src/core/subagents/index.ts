/**
 * Sub-agents: the `task` tool (contract section 1, permission name `Task`). A call runs a child
 * session — the same loop, its own context and log (linked by `parentId` in its session_start) —
 * on the prompt the parent's model wrote, with read-only tools unless the parent grants more of
 * its own, through the same permission engine, hooks and approver. The parent's model gets only
 * the distilled result (resultText); the child's progress is recorded in the parent's log as
 * `subagent` events (never sent to the model) for the panel and the CLI, and its cost counts in
 * the parent's. Depth and concurrency are bounded by the `subagents` settings.
 */
import { z } from "zod";
import { ConcurrencyGate } from "../concurrency";
import type { SessionEvent } from "../events";
import type { ChildSession, ChildWorkspace, Extension, ExtensionApi, SessionInfo } from "../extensions/types";
import { defineTool, isReadOnly, ToolError, type ToolContext, type ToolDefinition, type ToolIdentity, type ToolOutput } from "../tools/types";
import { builtinSchema } from "../tools/schema-table";
import type { Effort, Provider } from "../providers/types";
import type { HookGroupConfig } from "../permissions/types";
import { HASHLINE_NOTE, harnessParts } from "../loop/system-prompt";
import { agentModel, agentPermissionMode, agentTools, mentionedAgents, type AgentDefinition, type AgentMode } from "./agents";
import { editPathsExtension } from "./edit-paths";
import { agentMemory } from "./memory";
import type { FileRegex } from "./file-regex";
import { childFacts, childOutcome, resultText, type SubagentResult } from "./result";
import { DEFAULT_SUBAGENT_SETTINGS, type SubagentSettings } from "./settings";

/** The task tool, as the permission engine knows it: the call itself only starts an agent; whatever the agent does is gated call by call. */
export const TASK_TOOL: ToolIdentity = { name: "task", permission: "Task", permissionClass: "session", capabilities: { reads: true } };

export { parseSubagentSettings, DEFAULT_SUBAGENT_SETTINGS, type SubagentSettings } from "./settings";
export { resultText, type SubagentResult } from "./result";
export { loadAgents, parseAgentFile, agentTools, agentModel, mentionedAgents, type AgentDefinition, type AgentFile, type AgentProblem } from "./agents";

export const SUBAGENT_EXTENSION = "subagents";
/** A sub-agent may work this long before its call times out (the user's Stop ends it any time). */
export const TASK_TIMEOUT_MS = 30 * 60_000;

/** Claude Code's name for a plain sub-agent (`subagent_type: "general-purpose"`). */
const GENERAL_PURPOSE = /^general[-_ ]?purpose$/i;
/** Claude Code's built-in read-only agents (a forked command's `agent: Explore`): a sub-agent with the read-only tools here. */
const READ_ONLY_BUILTIN = /^(explore|plan)$/i;

const taskArgs = builtinSchema("task", () =>
  z.object({
    description: z.string().trim().min(1).max(120).describe("A short (3-6 word) label for the task, shown to the user."),
    prompt: z
      .string()
      .trim()
      .min(1)
      .describe("The complete task for the sub-agent: it does not see this conversation, so say the goal, the files or names involved, and what its answer must contain."),
    tools: z.array(z.string().min(1)).optional().describe('Names of more of your tools to give it (e.g. ["edit_file"]) beyond its read-only ones; its calls pass the same permission rules as yours.'),
    subagent_type: z.string().trim().min(1).optional().describe("The custom agent to start, by its name from this tool's description; omit it for a general-purpose sub-agent."),
  }),
);
type TaskArgs = z.infer<typeof taskArgs>;

export interface SubagentOptions {
  settings?: Partial<SubagentSettings>;
  /**
   * The custom agents (`.claude/agents`, `.github/agents`, plugins), read once when the session is
   * set up: the task tool's description lists them and `subagent_type` starts one.
   */
  agents?: (session: SessionInfo) => Promise<readonly AgentDefinition[]>;
  /** Makes the provider of an agent's `model` (a model id of the session's provider). */
  model?: (model: string) => Promise<Provider>;
  /** Where notes about an agent go (an unknown tool in its list, a model that does not fit). */
  warn?: (message: string) => void;
  /** The user scope's MEMORY.md of an agent with `memory: user` (~/.claude/agent-memory/NAME/, outside the workspace); undefined: none. */
  userMemory?: (dirName: string) => Promise<string | undefined>;
  /** The full text of a skill by name (an agent's `skills` are preloaded into its prompt); undefined: no such skill. */
  skill?: (session: SessionInfo, name: string) => Promise<string | undefined>;
  /** Depth of the sessions this extension is set up for (0: the user's session). */
  depth?: number;
  /**
   * Starts an agent's own MCP servers (its inline `mcpServers`) for one run: an extension that offers
   * their tools in the child (names not in `takenNames`), and what stops them when the run ends.
   * Undefined: the host does not start agents' servers (a note says so).
   */
  agentServers?: (agent: AgentDefinition, session: SessionInfo, takenNames: readonly string[]) => Promise<{ extension: Extension; dispose(): Promise<void> } | undefined>;
  /**
   * A workspace of its own for an agent with `isolation: worktree` (a git worktree on a new branch,
   * made by the host); it throws, saying why, when it cannot make one (not a git repository).
   * Undefined: the host cannot isolate agents (the call is refused, never run in the user's tree).
   */
  isolate?: (agent: AgentDefinition, session: SessionInfo, task: { description: string; prompt: string; background?: boolean }) => Promise<IsolatedRun>;
  /**
   * The host hands control back while `background: true` agents run (the panel, as Claude Code
   * does): the parent's turn ends without waiting for them, and when one finishes while the parent
   * is not working, this starts a turn of the parent that delivers its result (`text`, a context
   * message), and says true; false when it cannot now (a turn runs: the result comes at that turn's
   * next request, or it is offered again). Undefined (a one-shot `yoke run`, whose process would
   * end with the turn): a parent about to finish waits for its background agents.
   * `ended`: the parent session has ended (a New Session, another one opened): the host keeps the
   * result durably and delivers it once when that session is opened again (true), or false to be
   * offered again.
   */
  deliver?: (session: SessionInfo, text: string, when?: { ended: boolean; agents?: readonly FinishedAgent[] }) => Promise<boolean>;
  /**
   * The only agent types this session may start (its agent's `Agent(a, b)` / `Task(a, b)` in its
   * `tools`, as Claude Code restricts spawnable sub-agents); undefined: any, and general-purpose ones.
   */
  allowedTypes?: readonly string[];
}

/** An isolated agent's run (SubagentOptions.isolate). */
export interface IsolatedRun {
  workspace: ChildWorkspace;
  /** Told to the agent after its framing: where it works and what becomes of its change. */
  instructions: string;
  /**
   * After the run: the worktree is removed when the agent changed nothing, else kept (with its
   * branch) as a background agent's change for the user to review; what the parent's model is told.
   */
  finish(run: { childId?: string; status: SubagentResult["status"]; description: string; prompt: string }): Promise<string>;
  /**
   * The agent's session was created (a background agent is listed as running from here on).
   * `stop` cancels its run (its turn and commands), for a stop asked from outside (`yoke agents stop`).
   */
  started?(childId: string, stop: () => void): void;
  /** Where it works: its background agent id, worktree and branch (its questions name them). */
  where?: { id: string; worktree: string; branch: string };
}

/** The instructions a child gets after its parent's system prompt. */
export function childInstructions(depth: number, settings: SubagentSettings, tools: readonly ToolDefinition[], nesting = true): string {
  const nested = nesting && depth < settings.maxDepth ? ` You may start sub-agents of your own with task (depth ${depth} of at most ${settings.maxDepth}).` : "";
  return [
    `You are a sub-agent (depth ${depth}): another agent gave you the task in the next message. Work on it alone — nobody reads your messages while you work and nobody can answer questions.`,
    `Your tools: ${tools.map((t) => t.name).join(", ") || "none"}.${nested}`,
    "When you are done, reply with your final answer and nothing else: it is all the other agent receives. Give concrete findings — file paths with line numbers, names, what you changed — without preamble. If you cannot finish, say what you found and what stopped you.",
  ].join("\n");
}

/** An extension whose tools pass an agent's allow-list (`tools`, `disallowedTools`): the others are not offered. */
function allowListed(ext: Extension, agent: AgentDefinition): Extension {
  return {
    name: ext.name,
    setup(api) {
      const filtered: ExtensionApi = Object.create(api) as ExtensionApi;
      filtered.addTools = (tools) => api.addTools(agentTools(agent, tools).tools);
      return ext.setup(filtered);
    },
  };
}

/** The `task` tool's description: what it is for, its limits, the tools a sub-agent gets. */
export function taskDescription(readOnly: readonly string[], settings: SubagentSettings, depth: number, agents: readonly AgentDefinition[] = [], allowedTypes?: readonly string[]): string {
  const nesting = depth + 1 < settings.maxDepth ? `Sub-agents may start their own, ${settings.maxDepth} levels deep at most.` : "Sub-agents cannot start sub-agents of their own.";
  const offered = agents.filter((a) => a.modelInvocable);
  const custom = offered.length
    ? [
        "",
        'Custom agents: set `subagent_type` to an agent\'s name to start it — with its own instructions and only its own tools (`tools` cannot add more). Pick one whose description fits the task, and always the one the user asks for by name ("use the code-reviewer agent", @agent-code-reviewer):',
        ...offered.map((a) => `- ${a.name}: ${a.description} (Tools: ${a.tools ? a.tools.join(", ") || "none" : "all of yours"})`),
      ]
    : [];
  if (allowedTypes) {
    // Agent(a, b) in the agent's definition: only those, each with its own instructions and tools.
    return [
      "Start a sub-agent: a fresh agent with its own context that works on one self-contained task and returns only its final answer, with the files it read and changed. Its tool output never enters your context.",
      `You may start only these agents (your definition allows Agent(${allowedTypes.join(", ")})); set \`subagent_type\` to one of them. A general-purpose sub-agent is not available to you. ${nesting}`,
      "The sub-agent cannot see this conversation: put everything it needs in `prompt` — the goal, the files or names involved, and what its answer must contain.",
      ...(agents.length ? agents.map((a) => `- ${a.name}: ${a.description} (Tools: ${a.tools ? a.tools.join(", ") || "none" : "all of yours"})`) : ["(None of them is defined in this session.)"]),
    ].join("\n");
  }
  return [
    "Start a sub-agent: a fresh agent with its own context that works on one self-contained task and returns only its final answer, with the files it read and changed. Its tool output never enters your context.",
    'Use it for broad searches and investigations whose intermediate output you do not need ("find every caller of parseConfig and summarise how each uses it"), or to split independent work. Several task calls in one message run at the same time ' +
      `(at most ${settings.maxConcurrent}; more wait their turn). Do not use it for a single file read or grep you can do yourself.`,
    "The sub-agent cannot see this conversation: put everything it needs in `prompt` — the goal, the files or names involved, and what its answer must contain.",
    `It has read-only tools (${readOnly.join(", ") || "none"}) unless you name more of your own tools in \`tools\`; every call it makes passes the same permission rules as yours. ${nesting}`,
    ...custom,
  ].join("\n");
}

/** The extension that offers `task` to one session (and, one level deeper, to its sub-agents). */
export function subagentsExtension(opts: SubagentOptions = {}): Extension {
  const settings: SubagentSettings = { ...DEFAULT_SUBAGENT_SETTINGS, ...opts.settings };
  const depth = opts.depth ?? 0;
  const self: Extension = {
    name: SUBAGENT_EXTENSION,
    async setup(api) {
      if (depth >= settings.maxDepth) return;
      const gate = new ConcurrencyGate("subagents", settings.maxConcurrent);
      const session = api.session;
      // Agents with `background: true`: their results reach the model at its next request. When it is
      // about to finish: with a host that hands back (opts.deliver) the turn ends and each result comes
      // later as a turn of its own; without one, the turn waits for them and goes on with their results.
      const deliver = opts.deliver;
      let working = false;
      /** The session ended: what finishes from now on is handed to the host to keep for it. */
      let ended = false;
      if (deliver)
        api.onEvent((e) => {
          if (e.type === "status") working = e.state === "thinking" || e.state === "waiting_tool";
        });
      const background = new BackgroundRuns(deliver ? () => void offer() : undefined, deliver !== undefined);
      let offering = false;
      // A finished background agent's result, to a parent that is not working: a turn of its own.
      const offer = async (): Promise<void> => {
        if (offering || !deliver || !background.pending) return;
        offering = true;
        try {
          if (!working || ended) {
            const done = background.takeRuns();
            const text = done.map((d) => d.text).join("\n\n");
            if (done.length && !(await deliver(session, text, { ended, agents: done.map(({ agent, task, failed }) => ({ agent, task, failed })) }).catch(() => false))) background.putBack(done);
          }
        } finally {
          offering = false;
        }
        // Not taken (a turn ran, or ended just now without its request): offered again.
        if (background.pending) setTimeout(() => void offer(), 1000);
      };
      api.on("request.prepare", () => {
        const done = background.take();
        return done.length ? { append: done.map((text) => ({ source: "subagents", text })) } : undefined;
      });
      api.on("turn.after", async (input, hctx) => {
        if (!input.final) return undefined;
        if (deliver) {
          // Hands back: what already finished is answered in this turn; the rest comes later.
          const done = background.take();
          return done.length ? { nudge: done.join("\n\n") } : undefined;
        }
        if (!background.size) return undefined;
        await background.settled(hctx.signal);
        const done = background.take();
        return done.length ? { nudge: done.join("\n\n") } : undefined;
      });
      api.on("session.end", async () => {
        // A host that hands back (the panel): each background agent is a session of its own, which
        // outlives the one that started it (a new panel session, a reopened one, a settings change
        // must not stop it). It still ends at the task time limit or by `yoke agents stop`; its
        // result is offered to the parent's id (the same session opened again takes it).
        // What finished and was not yet taken is kept by the host too.
        if (deliver) {
          ended = true;
          if (background.pending) void offer();
          return background.size ? { outlive: background.settled() } : undefined;
        }
        // A one-shot run (the process ends with its session): they stop with it.
        background.cancelAll();
        await background.settled();
        return undefined;
      });
      // Read once: the list is part of the task tool's description, so of every request's prefix.
      const agents = opts.agents ? await opts.agents(session) : [];
      // A child's own task tool: any type, unless its agent's list names the types it may start.
      const { allowedTypes: _own, ...inherited } = opts;
      const childFor = (types?: readonly string[]) => subagentsExtension({ ...inherited, settings, depth: depth + 1, agents: async () => agents, ...(types ? { allowedTypes: types } : {}) });
      const child = childFor();
      const allowed = opts.allowedTypes?.map((t) => t.toLowerCase());
      const mayStart = (a: AgentDefinition) => !allowed || allowed.includes(a.name.toLowerCase()) || (a.displayName !== undefined && allowed.includes(a.displayName.toLowerCase()));
      const startable = agents.filter(mayStart);
      if (agents.length && depth === 0) {
        // The user names an agent: `@agent-NAME` (Claude Code) or `@NAME`.
        api.on("prompt.submit", ({ text }) => {
          const named = mentionedAgents(text, agents);
          if (!named.length) return;
          return { context: named.map((a) => `The user asks for the "${a.name}" agent: start it with task (subagent_type "${a.name}").`) };
        });
      }
      // The child's tools: the parent's own (built-in and extensions'), never this tool itself —
      // the child's own subagents extension offers it one level deeper when the depth allows.
      const available = () => session.tools().filter((t) => t !== tool);
      const readOnly = () => available().filter((t) => isReadOnly(t.capabilities));
      const tool: ToolDefinition<typeof taskArgs> = defineTool({
        ...TASK_TOOL,
        kind: "other",
        get description() {
          return taskDescription(
            readOnly().map((t) => t.name),
            settings,
            depth,
            startable,
            opts.allowedTypes,
          );
        },
        // Listed whole when the user has custom agents (their descriptions are how the model picks one); else deferred.
        deferred: agents.length === 0,
        brief: "run a sub-agent on a self-contained task in a context of its own",
        schema: taskArgs,
        timeoutMs: TASK_TIMEOUT_MS,
        concurrent: true,
        summarize: (input) => (typeof input.description === "string" ? input.description : typeof input.prompt === "string" ? input.prompt : ""),
        // The agent type as the call resolves it (rules and hooks see the agent that would start):
        // a custom agent's own name whatever case or display name the model sent, and
        // "general-purpose" for a plain sub-agent, named or not (red team O: `Task(helper)` let
        // "Helper" start helper, `Task(general-purpose)` let a call without a type start one).
        hookInput: (args) => ({
          description: args.description,
          prompt: args.prompt,
          subagent_type: resolvedType(args.subagent_type, agents),
          ...(args.tools ? { tools: args.tools } : {}),
        }),
        card: (out) => {
          const r = out.meta as SubagentResult | undefined;
          if (!r?.status) return undefined;
          const badges = [r.status, `${r.toolCalls} tool call${r.toolCalls === 1 ? "" : "s"}`];
          if (r.filesChanged.length) badges.push(`${r.filesChanged.length} changed`);
          if (r.costUsd !== undefined) badges.push(`$${r.costUsd.toFixed(4)}`);
          return { badges };
        },
        run: (args, ctx) => start(args, ctx),
      });
      /**
       * One run of the task tool: the model's call (run), or a forked command or skill (fork: its
       * extra extensions in the child — its allowed-tools — and its model).
       */
      const start = async (
        args: TaskArgs,
        ctx: ToolContext,
        extra: { extensions?: readonly Extension[]; model?: string; effort?: Effort; hooks?: readonly HookGroupConfig[] } = {},
      ): Promise<ToolOutput> => {
        // Claude Code's built-in type: models trained on it send "general-purpose" for a plain
        // sub-agent. It is that here too, unless a custom agent has the name (or an Agent(…) list
        // restricts this agent and does not name it: refused below as any other type).
        if (args.subagent_type && GENERAL_PURPOSE.test(args.subagent_type) && !agents.some((a) => a.name.toLowerCase() === args.subagent_type!.toLowerCase())) {
          const listed = opts.allowedTypes?.some((t) => GENERAL_PURPOSE.test(t));
          if (!opts.allowedTypes || listed) args = { ...args, subagent_type: undefined };
        }
        if (opts.allowedTypes && !args.subagent_type)
          throw new ToolError(
            `task: you may start only these agents (Agent(…) in your definition's tools): ${startable.map((a) => a.name).join(", ") || "none of them is defined"}; a general-purpose sub-agent is not available to you. Call task again with one of them as subagent_type.`,
          );
        if (args.subagent_type) {
          const agent = findAgent(args.subagent_type, agents);
          if (!mayStart(agent))
            throw new ToolError(
              `task: you may not start the "${agent.name}" agent: your definition's tools allow only Agent(${(opts.allowedTypes ?? []).join(", ")}). Call task again with one of ${startable.map((a) => a.name).join(", ") || "those (none is defined)"}.`,
            );
          const { tools, task, unknown, agentTypes } = agentTools(agent, available());
          if (agentTypes) {
            const known = new Set(agents.map((a) => a.name.toLowerCase()));
            const missing = agentTypes.filter((t) => !known.has(t.toLowerCase()));
            if (missing.length) opts.warn?.(`${agent.source}: Agent(${missing.join(", ")}) names no agent of this session; the agent cannot start ${missing.length > 1 ? "them" : "it"}`);
          }
          if (args.tools?.length) {
            const own = new Set(tools.map((t) => t.name));
            const extra = args.tools.filter((n) => !own.has(n));
            if (extra.length)
              throw new ToolError(
                `task: the "${agent.name}" agent's tools are fixed by its definition (${tools.map((t) => t.name).join(", ") || "none"}); ${extra.join(", ")} cannot be added. Call task again without "tools", or without subagent_type for a general-purpose sub-agent.`,
              );
          }
          if (unknown.length) opts.warn?.(`${agent.source}: tools ${unknown.map((u) => `"${u}"`).join(", ")} name no tool of this session; the agent runs without them`);
          const chosen = agentModel(extra.model ?? agent.model, session.provider);
          if (chosen.note) opts.warn?.(`${agent.source}: ${chosen.note}`);
          const provider = chosen.model && chosen.model !== session.model && opts.model ? await opts.model(chosen.model) : undefined;
          const mode = agentPermissionMode(agent, session.mode);
          if (mode.note) opts.warn?.(mode.note);
          const skills: string[] = [];
          for (const name of agent.skills ?? []) {
            const text = opts.skill ? await opts.skill(session, name) : undefined;
            if (text === undefined) opts.warn?.(`${agent.source}: skill "${name}" was not found; the agent starts without it`);
            else skills.push(`Skill "${name}" (preloaded for this agent):\n${text.trim()}`);
          }
          // Its `memory`: the folder's MEMORY.md in its prompt, and Read/Write/Edit for that folder only when its tools lack them.
          const memory = await agentMemory(agent, session, tools, available(), opts.userMemory);
          if (memory?.note) opts.warn?.(memory.note);
          if (memory) skills.push(memory.prompt);
          // Its own hooks: as the workspace's hooks, a repository agent's run only in a trusted workspace (and may block, never allow: parseAgentFile marks them checked in).
          const own = agent.hooks?.length && (agent.origin !== "project" || session.trusted) ? agent.hooks : undefined;
          // A forked skill's own hooks (trust checked by its caller) with the agent's.
          const hooks = own || extra.hooks?.length ? [...(own ?? []), ...(extra.hooks ?? [])] : undefined;
          if (agent.hooks?.length && !hooks)
            opts.warn?.(`${agent.source}: not applied: its hooks do not run, because the workspace is not trusted (Restricted Mode), as the repository's other hooks do not`);
          // Its own MCP servers, for this run only (approval as the workspace's .mcp.json servers: the host's hub decides).
          const inline = Object.keys(agent.mcpServers?.inline ?? {});
          const servers =
            inline.length && opts.agentServers
              ? await opts.agentServers(
                  agent,
                  session,
                  available().map((t) => t.name),
                )
              : undefined;
          if (inline.length && !opts.agentServers) opts.warn?.(`${agent.source}: not applied: its MCP servers (${inline.join(", ")}) are not started by this host`);
          // isolation: worktree (and background: true, which always works in a worktree) — never in
          // the user's tree: without a worktree the call is refused.
          let isolated: IsolatedRun | undefined;
          if (agent.isolation === "worktree" || agent.background) {
            const field = agent.background ? "background: true" : "isolation: worktree";
            if (!opts.isolate) {
              await servers?.dispose().catch(() => undefined);
              throw new ToolError(`task: the "${agent.name}" agent runs in a git worktree of its own (${field} in ${agent.source}), and this host cannot make one; it was not started.`);
            }
            try {
              isolated = await opts.isolate(agent, session, { description: args.description, prompt: args.prompt, ...(agent.background ? { background: true } : {}) });
            } catch (err) {
              await servers?.dispose().catch(() => undefined);
              throw new ToolError(`task: the "${agent.name}" agent was not started: ${err instanceof Error ? err.message : String(err)}`);
            }
          }
          const deps: RunDeps = {
            session,
            gate,
            settings,
            depth: depth + 1,
            self,
            child: task ? (agentTypes ? childFor(agentTypes) : child) : undefined,
            tools: memory?.tools.length ? [...tools, ...memory.tools] : tools,
            agent,
            skills,
            ...(memory?.editPaths ? { memoryEdit: memory.editPaths } : {}),
            // Its own servers' tools obey its `tools` / `disallowedTools` as every other tool does.
            ...(servers ? { servers: { ...servers, extension: allowListed(servers.extension, agent) } } : {}),
            ...(isolated ? { isolated } : {}),
            ...(mode.mode ? { mode: mode.mode } : {}),
            ...(mode.dontAsk ? { dontAsk: true } : {}),
            ...(provider ? { provider } : {}),
            ...(hooks ? { hooks } : {}),
            ...(extra.extensions ? { extensions: extra.extensions } : {}),
            // A forked skill's effort over the agent's own (Claude Code's agent `effort`: "overrides the session effort level").
            ...(extra.effort || agent.effort ? { effort: extra.effort ?? agent.effort } : {}),
          };
          if (agent.background) return background.start(agent, args, ctx, deps);
          return runTask(args, ctx, deps);
        }
        const chosen = extra.model ? agentModel(extra.model, session.provider) : undefined;
        if (chosen?.note) opts.warn?.(`${args.description}: ${chosen.note}`);
        const provider = chosen?.model && chosen.model !== session.model && opts.model ? await opts.model(chosen.model) : undefined;
        return runTask(args, ctx, {
          session,
          gate,
          settings,
          depth: depth + 1,
          self,
          child,
          tools: grant(args, available(), readOnly()),
          ...(provider ? { provider } : {}),
          ...(extra.extensions ? { extensions: extra.extensions } : {}),
          ...(extra.effort ? { effort: extra.effort } : {}),
          ...(extra.hooks?.length ? { hooks: extra.hooks } : {}),
        });
      };
      // A fork asCall is recorded as a call of this tool (tool_call, then tool_result with the tool's own
      // card), so the panel and the CLI show it as they show the model's task calls: a card the
      // sub-agent's progress nests under, then its outcome. The model's conversation does not carry
      // it (no assistant message names the call); the parent's turn gets the answer as text.
      const forked: ForkRunner = {
        fork: async (req, ctx) => {
          if (!req.asCall) return forkStart(req, ctx);
          const input = { description: req.description, prompt: req.prompt, ...(req.agent ? { subagent_type: req.agent } : {}) };
          ctx.record({ type: "tool_call", callId: ctx.callId, name: tool.name, input });
          const began = Date.now();
          const done = (out: ToolOutput) => {
            const card = tool.card?.(out);
            ctx.record({ type: "tool_result", callId: ctx.callId, name: tool.name, output: out.text, isError: out.isError === true, durationMs: Date.now() - began, ...(card ? { card } : {}) });
            return out;
          };
          return forkStart(req, ctx).then(done, (err: unknown) => {
            done({ text: err instanceof Error ? err.message : String(err), isError: true });
            throw err;
          });
        },
      };
      const forkStart = (req: ForkRequest, ctx: ToolContext) =>
        start(
          {
            description: req.description,
            prompt: req.prompt,
            // A general-purpose fork has every tool of the session (as Claude Code's general-purpose agent), each call gated as the session's;
            // Claude Code's built-in read-only Explore and Plan (unless a custom agent has the name): the read-only tools.
            ...(req.agent && !GENERAL_PURPOSE.test(req.agent) && (!READ_ONLY_BUILTIN.test(req.agent) || agents.some((a) => a.name.toLowerCase() === req.agent!.toLowerCase()))
              ? { subagent_type: req.agent }
              : req.agent && READ_ONLY_BUILTIN.test(req.agent)
                ? {}
                : { tools: available().map((t) => t.name) }),
          },
          ctx,
          {
            ...(req.extensions ? { extensions: req.extensions } : {}),
            ...(req.model ? { model: req.model } : {}),
            ...(req.effort ? { effort: req.effort } : {}),
            ...(req.hooks?.length ? { hooks: req.hooks } : {}),
          },
        );
      api.addTools([Object.assign(tool, { [FORK]: forked })]);
    },
  };
  return self;
}

/** The child's tools: the read-only ones, plus those the call names (each one the parent has). */
function grant(args: TaskArgs, available: readonly ToolDefinition[], readOnly: readonly ToolDefinition[]): ToolDefinition[] {
  const byName = new Map(available.map((t) => [t.name, t]));
  const unknown = (args.tools ?? []).filter((n) => !byName.has(n));
  if (unknown.length) {
    throw new ToolError(
      `task: ${unknown.map((n) => `"${n}"`).join(", ")} ${unknown.length > 1 ? "are not tools" : "is not a tool"} you have, so ${unknown.length > 1 ? "they" : "it"} cannot be given to a sub-agent. ` +
        `Your tools: ${[...byName.keys()].join(", ")}. Call task again with names from that list, or without "tools" for read-only tools.`,
    );
  }
  const names = new Set([...readOnly.map((t) => t.name), ...(args.tools ?? [])]);
  // In the parent's order, so the child's tool list (and prompt cache) is stable.
  return available.filter((t) => names.has(t.name));
}

/** The agent `subagent_type` names (exact name first, then without case), or a refusal listing the agents. */
function agentNamed(name: string, agents: readonly AgentDefinition[]): AgentDefinition | undefined {
  return agents.find((a) => a.name === name) ?? agents.find((a) => a.name.toLowerCase() === name.toLowerCase() || a.displayName?.toLowerCase() === name.toLowerCase());
}

/** The type a task call starts: the custom agent's name, "general-purpose" (a plain sub-agent), or the unknown name as sent. */
function resolvedType(sent: string | undefined, agents: readonly AgentDefinition[]): string {
  // As run() decides: Claude Code's built-in name is a plain sub-agent unless a custom agent has that name.
  if (!sent || (GENERAL_PURPOSE.test(sent) && !agents.some((a) => a.name.toLowerCase() === sent.toLowerCase()))) return "general-purpose";
  return agentNamed(sent, agents)?.name ?? sent;
}

function findAgent(name: string, agents: readonly AgentDefinition[]): AgentDefinition {
  const found = agentNamed(name, agents);
  if (found) return found;
  throw new ToolError(
    agents.length
      ? `task: there is no agent named "${name}". The agents: ${agents.map((a) => a.name).join(", ")}. Call task again with one of those names as subagent_type, or without subagent_type for a general-purpose sub-agent.`
      : `task: there is no agent named "${name}" (no custom agents are defined). Call task again without subagent_type.`,
  );
}

/** What a custom agent's child is told after the sub-agent framing: its own instructions. */
export function agentInstructions(agent: AgentDefinition): string {
  return `You are the "${agent.name}" agent (${agent.source}). Your instructions:\n\n${agent.prompt}`;
}

/**
 * A custom agent's system prompt: its body replaces Yoke's prose (the identity line, "How to work",
 * an output style), as Claude Code makes the body the agent's system prompt. Kept, because the
 * harness needs them: the workspace and path line(s), Restricted Mode and plan mode, how tools show
 * lines (the hashline anchors edit_file needs), and the sub-agent framing (its tools, that its final
 * message is the answer); then its preloaded skills.
 */
export function agentSystemPrompt(parentSystem: string, framing: string, agent: AgentDefinition, skills: readonly string[] = []): string {
  return [agentInstructions(agent), ...harnessParts(parentSystem), HASHLINE_NOTE, framing, ...skills].join("\n\n");
}

const FORK = Symbol("yoke.subagents.fork");

/** A forked command or skill (Claude Code's `context: fork`): run as a sub-agent through the task tool's own run. */
export interface ForkRequest {
  /** Shown to the user (the command's name). */
  description: string;
  /** The expanded command or skill: the sub-agent's task. */
  prompt: string;
  /** The custom agent it runs as (`agent:`); absent or general-purpose: a general-purpose sub-agent with the session's tools. */
  agent?: string;
  /** Set up in the child besides its inherited ones (the command's allowed-tools as grants). */
  extensions?: readonly Extension[];
  /** The command's `model` (over its agent's). */
  model?: string;
  /** The skill's `effort`: the sub-agent's reasoning effort (default: the parent's now). */
  effort?: Effort;
  /** A forked skill's own `hooks` (allowed to run: its caller checked the trust), run in the sub-agent only; `Stop` already made `SubagentStop`. */
  hooks?: readonly HookGroupConfig[];
  /**
   * Record the fork as a call of the task tool of its own (tool_call, tool_result with the tool's
   * card): for a fork that is not already inside a tool call (a typed command; a skill the model
   * loads runs inside its load_skill call, whose card it nests under).
   */
  asCall?: boolean;
}

export interface ForkRunner {
  fork(req: ForkRequest, ctx: ToolContext): Promise<ToolOutput>;
}

/** The fork runner of a session's task tool (undefined: the session cannot start sub-agents). */
export function forkRunner(tools: readonly ToolDefinition[]): ForkRunner | undefined {
  for (const t of tools) {
    const f = (t as { [FORK]?: ForkRunner })[FORK];
    if (f) return f;
  }
  return undefined;
}

interface RunDeps {
  /** Extensions set up in the child besides the inherited ones (a forked command's grants). */
  extensions?: readonly Extension[];
  /** The child's reasoning effort (a forked skill's `effort`; default: the parent's). */
  effort?: Effort;
  session: SessionInfo;
  gate: ConcurrencyGate;
  settings: SubagentSettings;
  depth: number;
  self: Extension;
  /** The child's own task tool (absent: a custom agent whose list does not name Task). */
  child: Extension | undefined;
  tools: ToolDefinition[];
  agent?: AgentDefinition;
  /** An agent's preloaded skills, each's full text (and its memory's part). */
  skills?: string[];
  /** The edit limit of the Write/Edit tools added for an agent's memory folder (agentMemory). */
  memoryEdit?: readonly FileRegex[];
  /** An agent's permission mode (agentPermissionMode). */
  mode?: AgentMode;
  /** An agent's `permissionMode: dontAsk`: its questions are denied without asking (agentPermissionMode). */
  dontAsk?: boolean;
  provider?: Provider;
  /** An agent's own hooks, allowed to run (trust checked). */
  hooks?: readonly HookGroupConfig[];
  /** An agent's own MCP servers: their extension in the child, stopped when the run ends. */
  servers?: { extension: Extension; dispose(): Promise<void> };
  /** An agent's own worktree (isolation: worktree). */
  isolated?: IsolatedRun;
}

/** The turns a child may take: the agent's `maxTurns` and the `subagents.maxTurns` setting, the lower of the two. */
function turnLimit(d: RunDeps): { limit?: number; byAgent: boolean } {
  const own = d.agent?.maxTurns;
  const setting = d.settings.maxTurns;
  if (own && (!setting || own <= setting)) return { limit: own, byAgent: true };
  return setting ? { limit: setting, byAgent: false } : { byAgent: false };
}

async function runTask(args: TaskArgs, ctx: ToolContext, d: RunDeps): Promise<ToolOutput> {
  const release = await d.gate.acquire(ctx.signal, (position) => ctx.record({ type: "tool_queued", callId: ctx.callId, name: "task", gate: d.gate.name, position, limit: d.gate.limit }));
  let child: ChildSession | undefined;
  let isolatedDone = false;
  const turns = turnLimit(d);
  try {
    child = await d.session.spawn({
      tools: d.tools,
      extensions: (inherited) => [
        ...inherited.filter((e) => e !== d.self),
        ...(d.child ? [d.child] : []),
        ...(d.extensions ?? []),
        ...(d.servers ? [d.servers.extension] : []),
        // A Roo mode's fileRegex: its edits outside the matching files are refused.
        ...(d.agent?.editPaths?.length ? [editPathsExtension({ name: d.agent.name, source: d.agent.source, editPaths: d.agent.editPaths })] : []),
        // Write/Edit given for its memory only: its edits elsewhere are refused.
        ...(d.agent && d.memoryEdit?.length ? [editPathsExtension({ name: d.agent.name, source: d.agent.source, editPaths: d.memoryEdit })] : []),
      ],
      ...(d.agent
        ? {
            systemPrompt: (parent: string) =>
              agentSystemPrompt(
                parent,
                [childInstructions(d.depth, d.settings, d.tools, d.child !== undefined), ...(d.isolated ? [d.isolated.instructions] : [])].join("\n\n"),
                d.agent!,
                d.skills ?? [],
              ),
          }
        : { instructions: childInstructions(d.depth, d.settings, d.tools) }),
      ...(d.mode ? { permissionMode: d.mode } : {}),
      ...(d.effort ? { effort: d.effort } : {}),
      callId: ctx.callId,
      ...(d.agent ? { agentType: d.agent.name, asker: { agent: d.agent.name, background: d.agent.background === true, ...(d.dontAsk ? { dontAsk: true } : {}), ...(d.isolated?.where ?? {}) } } : {}),
      ...(d.provider ? { provider: d.provider } : {}),
      ...(turns.limit ? { maxTurns: turns.limit } : {}),
      ...(d.hooks ? { hooks: d.hooks } : {}),
      ...(d.isolated ? { workspace: d.isolated.workspace } : {}),
    });
    const running = child;
    ctx.record({ type: "subagent", callId: ctx.callId, childId: running.id, phase: "started", depth: d.depth, description: args.description });
    d.isolated?.started?.(running.id, () => void running.cancel());
    const summaries = new Map<string, string>();
    const progress = running.onEvent((e: SessionEvent) => {
      if (e.type === "assistant_message") for (const c of e.toolCalls) summaries.set(c.id, c.summary ?? "");
      else if (e.type === "tool_result") {
        ctx.record({ type: "subagent", callId: ctx.callId, childId: running.id, phase: "step", depth: d.depth, tool: e.name, summary: summaries.get(e.callId) ?? "", isError: e.isError });
      }
    });
    const stop = () => running.cancel();
    ctx.signal.addEventListener("abort", stop, { once: true });
    try {
      if (!ctx.signal.aborted) await running.send(args.prompt);
    } finally {
      ctx.signal.removeEventListener("abort", stop);
      progress.dispose();
    }
    const events = running.events();
    const why = (ctx.signal.reason as { name?: string } | undefined)?.name === "TimeoutError" ? `it ran longer than ${TASK_TIMEOUT_MS / 60_000} minutes` : "the parent agent was stopped";
    const outcome = ctx.signal.aborted
      ? { ...childOutcome(events), status: "cancelled" as const, error: why }
      : childOutcome(events, turns.limit ? { maxTurns: turns.limit, ...(turns.byAgent && d.agent ? { source: d.agent.source } : {}) } : undefined);
    const facts = childFacts(events, new Map(d.tools.map((t) => [t.name, t])), ctx.fs);
    const result: SubagentResult = { ...outcome, childId: running.id, description: args.description, ...facts };
    ctx.record({
      type: "subagent",
      callId: ctx.callId,
      childId: running.id,
      phase: "finished",
      depth: d.depth,
      description: args.description,
      status: result.status,
      ...(result.error ? { error: result.error } : {}),
      turns: result.turns,
      toolCalls: result.toolCalls,
      filesRead: result.filesRead,
      filesChanged: result.filesChanged,
      usage: result.usage,
      ...(result.costUsd !== undefined ? { costUsd: result.costUsd } : {}),
    });
    let text = resultText(result);
    if (d.isolated) {
      // Its commands stop first, so the worktree is looked at (and maybe removed) as it was left.
      await running.end(ctx.signal.aborted ? "cancelled" : "subagent finished").catch(() => undefined);
      child = undefined;
      text += `\n${await isolatedOutcome(d.isolated, { childId: running.id, status: result.status, description: args.description, prompt: args.prompt })}`;
      isolatedDone = true;
    }
    return { text, isError: result.status !== "completed", meta: result };
  } finally {
    release();
    await child?.end(ctx.signal.aborted ? "cancelled" : "subagent finished").catch(() => undefined);
    if (d.isolated && !isolatedDone) await isolatedOutcome(d.isolated, { ...(child ? { childId: child.id } : {}), status: "failed", description: args.description, prompt: args.prompt });
    await d.servers?.dispose().catch(() => undefined);
  }
}

/** What becomes of an isolated agent's worktree, for the parent's model (a failure to keep it is said, never thrown). */
async function isolatedOutcome(run: IsolatedRun, facts: Parameters<IsolatedRun["finish"]>[0]): Promise<string> {
  try {
    return await run.finish(facts);
  } catch (err) {
    return `Its worktree could not be finished: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * The background runs of one session's task tool (`background: true`): each runs on its own signal
 * (the task timeout stops it, and the session's end when the host does not hand back; never the end
 * of the call that started it); what
 * each ends with waits in `take()` for the parent's model.
 */
/** Which background agent a result handed back is from (SubagentOptions.deliver): its name, its task's description, whether it failed. */
export interface FinishedAgent {
  agent: string;
  task: string;
  failed: boolean;
}

interface FinishedRun extends FinishedAgent {
  /** What the parent's model is told. */
  text: string;
}

class BackgroundRuns {
  private readonly running = new Map<string, { promise: Promise<void>; controller: AbortController }>();
  private done: FinishedRun[] = [];

  /** `finished`: called when a run's result is waiting; `handsBack`: the parent's turn does not wait for them. */
  constructor(
    private readonly finished?: () => void,
    private readonly handsBack = false,
  ) {}

  get size(): number {
    return this.running.size;
  }

  get pending(): number {
    return this.done.length;
  }

  /** Results a delivery could not take, kept for the next. */
  putBack(runs: FinishedRun[]): void {
    this.done = [...runs, ...this.done];
  }

  start(agent: AgentDefinition, args: TaskArgs, ctx: ToolContext, deps: RunDeps): ToolOutput {
    const controller = new AbortController();
    const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(TASK_TIMEOUT_MS)]);
    const label = `The background agent "${agent.name}" (task call ${ctx.callId}: ${args.description})`;
    const promise = runTask(args, { ...ctx, signal }, deps).then(
      (out) => {
        this.done.push({ agent: agent.name, task: args.description, failed: false, text: `${label} has finished.\n${out.text}` });
      },
      (err: unknown) => {
        this.done.push({ agent: agent.name, task: args.description, failed: true, text: `${label} failed: ${err instanceof Error ? err.message : String(err)}` });
      },
    );
    const entry = {
      promise: promise.finally(() => {
        this.running.delete(ctx.callId);
        this.finished?.();
      }),
      controller,
    };
    this.running.set(ctx.callId, entry);
    return {
      text: [
        `The "${agent.name}" agent was started in the background (background: true in ${agent.source}), in a git worktree of its own; its changes are kept there for the user's review, never written into the workspace.`,
        this.handsBack
          ? "Its result comes to you as a message when it finishes. Go on with other work meanwhile; do not do its task yourself and do not wait for it: when you finish, the user gets control back while it runs (they see it in the Agents view), and its result comes to you later, as a message of its own."
          : "Its result comes to you as a message when it finishes. Go on with other work meanwhile; do not do its task yourself and do not wait for it: when you finish, your turn waits for it and you get its result.",
      ].join("\n"),
    };
  }

  /** What finished since the last look. */
  take(): string[] {
    return this.takeRuns().map((r) => r.text);
  }

  /** The same, with which agent each result is from. */
  takeRuns(): FinishedRun[] {
    const out = this.done;
    this.done = [];
    return out;
  }

  /** Resolves when every run has ended (or when `signal` is aborted: the user stopped the parent). */
  async settled(signal?: AbortSignal): Promise<void> {
    while (this.running.size && !signal?.aborted) {
      const all = Promise.all([...this.running.values()].map((r) => r.promise));
      if (!signal) {
        await all;
        continue;
      }
      await Promise.race([all, new Promise<void>((res) => signal.addEventListener("abort", () => res(), { once: true }))]);
    }
  }

  cancelAll(): void {
    for (const r of this.running.values()) r.controller.abort(new DOMException("the session ended", "AbortError"));
  }
}
