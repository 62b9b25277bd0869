/** The options of an agent session: what the host gives it, the policies, the limits. */
import type { CompactionSettings } from "../compaction/settings";
import type { Extension } from "../extensions/types";
import type { HookRunner } from "../hooks/run-hooks";
import type { HookGroupConfig } from "../permissions/types";
import type { Logger, SessionServices, SessionServicesFactory, SessionStore } from "../ports";
import type { Effort, Provider } from "../providers/types";
import type { ToolDefinition } from "../tools/types";
import type { LoopLimits } from "./context";
import type { Approver, PermissionGate, PermissionMode } from "./types";

export interface AgentSessionOptions {
  store: SessionStore;
  provider: Provider;
  /** Shown instead of the model name (e.g. "demo model"). */
  providerLabel?: string;
  /** Recorded in the log so a resume can reconnect (never a key). */
  baseUrl?: string;
  tools: ToolDefinition[];
  /**
   * Only these tools, once every extension has added its own (`yoke run --tools`): the others are
   * neither sent nor callable. A name the session does not have fails its start.
   */
  onlyTools?: readonly string[];
  /** What the host gives the session (file system, search, commands, review…), or a factory per session. */
  services: SessionServices | SessionServicesFactory;
  approver: Approver;
  /** The permission engine; without one, the mode's defaults decide. */
  gate?: PermissionGate;
  /**
   * Claude Code-compatible hooks (commands and in-process handlers), per session. `extraHooks`: hook
   * groups only this session runs besides the settings' (a custom agent's own `hooks`).
   */
  hooks?: (session: { id: string; extraHooks?: readonly HookGroupConfig[] }) => HookRunner;
  /** More extensions, set up for each session after the permission engine and the hooks. */
  extensions?: Extension[];
  permissionMode?: PermissionMode;
  /** false = Restricted Mode: tools that write or run are refused. */
  trusted?: boolean;
  /** How the user trusts this workspace, told to the model in Restricted Mode (default: VS Code's "Workspaces: Manage Workspace Trust"). */
  restrictedHint?: string;
  /** Overrides the built system prompt (tests, embedders). */
  systemPrompt?: string;
  instructions?: Array<{ source: string; text: string }>;
  /** The output style the session starts with (src/core/output-styles); fixed in its system prompt. */
  outputStyle?: { name: string; text: string; keepCodingInstructions: boolean };
  platform?: string;
  log?: Logger;
  /** Assistant turns per send() before the loop stops (default 50). */
  maxTurns?: number;
  /** The reasoning effort the session's requests start with (a sub-agent: its parent's now); unset: the provider's default. */
  effort?: Effort;
  timeouts?: {
    /** No event from the provider for this long aborts the request (default 120 s). */
    thinkingIdleMs?: number;
    /** An unanswered permission question is denied after this long (default: wait forever). */
    waitingUserMs?: number;
  };
  retry?: LoopLimits["retry"];
  /** Context compaction (src/core/compaction): on unless false. */
  compaction?: false | { settings?: Partial<CompactionSettings>; contextWindow?: number; summaryProvider?: Provider };
  now?: () => Date;
  /** This session is a sub-agent of that session, started by that call (recorded in session_start). */
  parent?: { id: string; callId?: string; agentType?: string };
}
