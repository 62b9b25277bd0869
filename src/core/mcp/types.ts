/**
 * The port between the harness-neutral MCP extension and the Node side that runs servers
 * (src/node/mcp/hub.ts). The core never sees a process, a socket or the SDK.
 */
import type { McpServerConfig } from "./config";
import type { McpClientHandlers } from "./client-requests";

/** A tool as the server lists it (MCP `tools/list`). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** One content block of a tool result (MCP `CallToolResult.content`). */
export type McpContent =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; mimeType?: string; data?: string }
  | { type: "resource"; resource: { uri?: string; mimeType?: string; text?: string; blob?: string } }
  | { type: "resource_link"; uri?: string; name?: string; mimeType?: string; description?: string }
  | { type: string; [k: string]: unknown };

export interface McpCallResult {
  content: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
}

export type McpServerState = "configured" | "starting" | "running" | "failed" | "stopped" | "not_approved" | "untrusted" | "disabled";

export interface McpServerStatus {
  config: McpServerConfig;
  state: McpServerState;
  /** Why it is failed / not approved / untrusted. */
  detail?: string;
  /** Tools known (live, or from the cache of an earlier start). */
  tools?: McpToolInfo[];
  /** The tool list came from the cache (the server has not started in this session). */
  fromCache?: boolean;
  /** Milliseconds from spawn/connect to a listed tool set, when it started. */
  startMs?: number;
  /** The last failure of this server in this session (kept after it runs again), with when it happened. */
  lastError?: { message: string; at: string };
  /** The server's last log messages in this session (MCP `notifications/message`), oldest first, at most MCP_LOG_KEPT. */
  logs?: McpLogEntry[];
}

/** One log message a server sent (MCP logging: RFC 5424 levels, `data` made text and bounded). */
export interface McpLogEntry {
  level: string;
  text: string;
  at: string;
}

/** How many log messages are kept per server, and how long each may be. */
/** A server's sampling and elicitation requests Yoke answers at once (plain, and again as tasks): each is a question or a model request. */
export const MCP_CLIENT_REQUESTS_AT_ONCE = 32;
export const MCP_LOG_KEPT = 20;
export const MCP_LOG_CHARS = 2_000;
/** How many of a server's log messages a minute go to the host's log. */
export const MCP_LOG_PER_MINUTE = 100;

/** A server's log message as text: `data` (any JSON) written out, after its logger's name, cut to MCP_LOG_CHARS. */
export function mcpLogText(params: { data?: unknown; logger?: string }): string {
  let data: string;
  if (typeof params.data === "string") data = params.data;
  else {
    try {
      data = JSON.stringify(params.data) ?? String(params.data);
    } catch {
      data = String(params.data);
    }
  }
  const text = params.logger ? `${params.logger}: ${data}` : data;
  return text.length > MCP_LOG_CHARS ? `${text.slice(0, MCP_LOG_CHARS)}… (${text.length - MCP_LOG_CHARS} more characters)` : text;
}

/** What the MCP extension needs from the harness. */
export interface McpHub {
  /**
   * The servers of this session with their tool lists: servers set to start at session start (and
   * servers whose tools are not cached yet) are started now; the others are listed from the cache.
   */
  catalog(signal?: AbortSignal): Promise<McpServerStatus[]>;
  /** Calls a tool, starting its server first if needed. */
  call(server: string, tool: string, args: Record<string, unknown>, opts: McpCallOptions): Promise<McpCallResult>;
  /**
   * The resources and resource templates a server offers (MCP `resources/list`,
   * `resources/templates/list`), starting it first if needed; undefined when it offers none.
   */
  resources?(server: string, signal: AbortSignal): Promise<McpResourceList | undefined>;
  /** Reads one resource (MCP `resources/read`). */
  readResource?(server: string, uri: string, signal: AbortSignal): Promise<McpResourceContents[]>;
  /**
   * Asks to be told when a resource changes (MCP `resources/subscribe`), where the server offers
   * subscriptions; false where it does not. Changes come to `onResourceUpdated`.
   */
  subscribeResource?(server: string, uri: string): Promise<boolean>;
  /**
   * Undoes one subscribeResource (counted per server and URI: the last one sends MCP
   * `resources/unsubscribe`). Subscriptions are renewed when a server starts again.
   */
  unsubscribeResource?(server: string, uri: string): Promise<void>;
  /** A subscribed resource changed (MCP `notifications/resources/updated`). */
  onResourceUpdated?(listener: (server: string, uri: string) => void): { dispose(): void };
  /** The prompts a server offers (MCP `prompts/list`), starting it first if needed; undefined when it offers none. */
  prompts?(server: string, signal: AbortSignal): Promise<McpPromptInfo[] | undefined>;
  /** One prompt with its arguments (MCP `prompts/get`). */
  getPrompt?(server: string, name: string, args: Record<string, string>, signal: AbortSignal): Promise<McpPromptResult>;
  /**
   * Completions of one argument of a prompt (MCP `completion/complete`, `ref/prompt`), given the
   * arguments already typed (`context`); [] when the server does not complete.
   */
  complete?(server: string, prompt: string, argument: { name: string; value: string }, context: Record<string, string>, signal: AbortSignal): Promise<string[]>;
  /**
   * Completions of one variable of a resource template (MCP `completion/complete`, `ref/resource`),
   * given the variables already typed; [] when the server does not complete.
   */
  completeResource?(server: string, uriTemplate: string, argument: { name: string; value: string }, context: Record<string, string>, signal: AbortSignal): Promise<string[]>;
  /** Current state of every server (for the panel and `yoke mcp list`). */
  status(): McpServerStatus[];
  /** Listens to state changes. */
  onChange(listener: (status: McpServerStatus) => void): { dispose(): void };
  /** Stops every server (SIGTERM, then SIGKILL) and forgets them. */
  dispose(): Promise<void>;
  /** Who answers the servers' sampling and elicitation requests (the session; unset: refused). */
  serve?(handlers: McpClientHandlers | undefined): void;
}

export interface McpResourceInfo {
  uri: string;
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

export interface McpResourceTemplateInfo {
  uriTemplate: string;
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface McpResourceList {
  resources: McpResourceInfo[];
  templates: McpResourceTemplateInfo[];
}

/** One item of a read resource: text, or base64 bytes. */
export interface McpResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** One progress notification of a call (MCP `notifications/progress`). */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface McpCallOptions {
  signal: AbortSignal;
  /** Without progress; each progress notification restarts it. */
  timeoutMs: number;
  onProgress?(p: McpProgress): void;
}

/** A prompt as the server lists it (MCP `prompts/list`). */
export interface McpPromptInfo {
  name: string;
  title?: string;
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
}

/** A prompt's messages (MCP `prompts/get`). */
export interface McpPromptResult {
  description?: string;
  messages: Array<{ role: string; content: McpContent }>;
}
