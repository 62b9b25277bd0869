/**
 * The options of a sub-agent's session (SessionInfo.spawn): its parent's, with the tools, the
 * extensions and the instructions of the spec, the parent's approver, mode and trust, and a link
 * to the parent (recorded in its session_start).
 */
import type { ChildSessionSpec } from "../extensions/types";
import type { ExtensionRegistry } from "../extensions/registry";
import type { AgentSessionOptions } from "./options";
import type { Approver, Asker, AskerRules, PermissionMode } from "./types";
import type { HookGroupConfig } from "../permissions/types";
import type { Effort } from "../providers/types";

export interface ParentFacts {
  id: string;
  opts: AgentSessionOptions;
  extensions: Pick<ExtensionRegistry, "toolProviders" | "ownerOf">;
  /** The extensions every session sets up itself (the permission engine, hooks, compaction). */
  builtinNames: readonly string[];
  approver: Approver;
  mode: PermissionMode;
  trusted: boolean;
  /** The system prompt sub-agents build on: the user's session's, before any sub-agent instructions. */
  baseSystem: string;
  /** The parent's workspace root (a child with a workspace of its own names its root instead). */
  root: string;
  /**
   * Hook groups scoped to the parent's current run (SessionInfo.scopeHooks: a Copilot prompt file's
   * agent's own hooks): they govern the whole run, so a sub-agent the run starts runs them too.
   */
  scopedHooks?: readonly HookGroupConfig[];
  /** The parent's reasoning effort now (a command's `effort` holds for the sub-agents its run starts). */
  effort?: Effort;
}

/** The child's questions name it, and carry its own rules when it has a gate of its own (a nested child's own come first). */
function askingAs(approver: Approver, asker: Asker | undefined, rules: AskerRules | undefined): Approver {
  return {
    ask: (q, signal) => {
      const who = q.asker ?? asker;
      // An agent in dontAsk mode (or a sub-agent it started): denied, nobody is asked.
      const strict = asker?.dontAsk ? asker : q.asker?.dontAsk ? q.asker : undefined;
      if (strict)
        return Promise.resolve({
          decision: "deny" as const,
          message: `Denied without asking: the "${strict.agent}" agent runs in dontAsk mode (its permissionMode), which denies whatever would need approval. Only what the permission rules already allow runs.`,
        });
      const own = q.rules ?? rules;
      return approver.ask({ ...q, ...(who ? { asker: who } : {}), ...(own ? { rules: own } : {}) }, signal);
    },
  };
}

export function childOptions(spec: ChildSessionSpec, parent: ParentFacts): AgentSessionOptions {
  // An extension that offered tools (MCP servers, skills) is not set up again: the child gets
  // those tools (when given) as they are, sharing what serves them (a server is not started twice).
  const inherited = (parent.opts.extensions ?? []).filter((e) => !parent.extensions.toolProviders.has(e.name));
  const extensions = spec.extensions ? spec.extensions(inherited) : [...inherited];
  // A tool of an extension the child sets up itself (compaction's recall) is the child's own, not the parent's.
  const again = new Set([...parent.builtinNames, ...extensions.map((e) => e.name)]);
  const tools = spec.tools.filter((t) => {
    const owner = parent.extensions.ownerOf(t);
    return owner === undefined || !again.has(owner);
  });
  // A custom agent's own hooks run in its session only, through the same hook engine (the settings' hooks and these).
  // A workspace of its own (isolation: worktree): that folder's services, rules and hooks.
  const own = spec.workspace;
  const base = own ? own.sessionOptions.hooks : parent.opts.hooks;
  // The parent's run-scoped hooks first (they govern the whole run, its sub-agents too), then the agent's own.
  const extra = [...(parent.scopedHooks ?? []), ...(spec.hooks ?? [])];
  const hooks =
    base && extra?.length ? { hooks: (s: { id: string; extraHooks?: readonly HookGroupConfig[] }) => base({ ...s, extraHooks: [...extra, ...(s.extraHooks ?? [])] }) } : own ? { hooks: base } : {};
  const baseSystem = own && parent.root ? parent.baseSystem.split(parent.root).join(own.root) : parent.baseSystem;
  return {
    ...parent.opts,
    ...(own ? { services: own.services, gate: own.sessionOptions.gate } : {}),
    ...hooks,
    ...(spec.provider ? { provider: spec.provider } : {}),
    tools,
    // The spec's tools are already from the parent's kept ones (`--tools`); the child's own extensions' tools stay.
    onlyTools: undefined,
    extensions,
    // A custom agent's questions name it (and where it works).
    approver: spec.asker || own?.rules ? askingAs(parent.approver, spec.asker, own?.rules) : parent.approver,
    permissionMode: spec.permissionMode ?? parent.mode,
    trusted: parent.trusted,
    systemPrompt: spec.systemPrompt ? spec.systemPrompt(baseSystem) : spec.instructions ? `${baseSystem}\n\n${spec.instructions}` : baseSystem,
    maxTurns: spec.maxTurns ?? parent.opts.maxTurns,
    effort: spec.effort ?? parent.effort,
    parent: { id: parent.id, ...(spec.callId ? { callId: spec.callId } : {}), ...(spec.agentType ? { agentType: spec.agentType } : {}) },
  };
}
