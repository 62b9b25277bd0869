/**
 * Runs a session's MCP servers with the official SDK: stdio servers in their own process group
 * (GroupStdioTransport), remote servers over streamable HTTP with a fall back to SSE. Servers
 * start on first use, or at session start when configured (or when their tools are not cached
 * yet); each listed tool set is cached in Yoke's storage so a lazily started server's tools are
 * known to the next session. A server that fails or dies is reported and restarted at most
 * MAX_RESTARTS times. Workspace servers start only in a trusted workspace, after approval.
 *
 * The SDK is bundled into the lazily loaded session bundle (dist/session.js), never into the
 * activation bundle. (It is imported statically: a dynamic import() of it made esbuild wrap zod's
 * modules for lazy initialisation in an order that broke the minified session bundle at load.)
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { basename, delimiter, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describeDefinition, type McpRemoteServer, type McpServerConfig, type McpStdioServer } from "../../core/mcp/config";
import type {
  McpCallOptions,
  McpCallResult,
  McpHub,
  McpPromptInfo,
  McpPromptResult,
  McpResourceContents,
  McpResourceInfo,
  McpResourceList,
  McpResourceTemplateInfo,
  McpServerState,
  McpServerStatus,
  McpToolInfo,
  McpLogEntry,
} from "../../core/mcp/types";
import { MCP_CLIENT_REQUESTS_AT_ONCE, MCP_LOG_KEPT, MCP_LOG_PER_MINUTE, mcpLogText } from "../../core/mcp/types";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpClientHandlers, McpSamplingMessage, McpSamplingRequest } from "../../core/mcp/client-requests";
import { loadMcpSdk } from "./load-sdk";
import { ApprovalStore, claudeMcpChoices, namedWorkspaceFiles, type Approval, type ClaudeMcpChoices } from "./approvals";
import { ProcessRegistry } from "./processes";
import { stdioServerFolder } from "./server-folder";
import { mergeHeaders, runHeadersHelper } from "./headers-helper";
import { withoutProviderSecrets } from "../settings/secret-env";
import { McpOAuthProvider, type McpOAuthOptions } from "./oauth";
import { z } from "zod";

export const MAX_RESTARTS = 3;
const START_TIMEOUT_MS = 30_000;
/** Listing or reading resources: at most this long per request. */
const RESOURCE_TIMEOUT_MS = 60_000;
/** `resources/unsubscribe`: at most this long (at the end of a session it holds up the servers' stop). */
const UNSUBSCRIBE_TIMEOUT_MS = 2_000;
/** `logging/setLevel` at a start: at most this long (the start waits for it). */
const LOG_LEVEL_TIMEOUT_MS = 10_000;
/** Resources (and templates) listed per server, at most. */
const MAX_RESOURCES = 2_000;

/** The named fields of an object the server sent that are present (nothing else it sent). */
function pick<T>(o: object, keys: ReadonlyArray<keyof T & string>): T {
  const out: Record<string, unknown> = {};
  for (const k of keys) if ((o as Record<string, unknown>)[k] !== undefined) out[k] = (o as Record<string, unknown>)[k];
  return out as T;
}
/** How long a remote server has to answer `initialize` over one transport. */
const REMOTE_CONNECT_TIMEOUT_MS = 10_000;
/** How long the end of a streamable HTTP session (DELETE) may take when a server stops. */
const REMOTE_TERMINATE_TIMEOUT_MS = 2_000;

declare const YOKE_VERSION: string;
const VERSION = typeof YOKE_VERSION === "string" ? YOKE_VERSION : "0.0.0";

export interface ApprovalRequest {
  server: McpServerConfig;
  /** The command line or URL. */
  description: string;
}

export interface NodeMcpHubOptions {
  cwd: string;
  /** Yoke's storage folder (default ~/.yoke): approvals, the tool cache, the process registry. */
  storageDir: string;
  home: string;
  servers: McpServerConfig[];
  trusted: boolean;
  /** Asks the user about a new workspace server; undefined: cannot ask (the CLI), not started. */
  approve?(req: ApprovalRequest): Promise<Approval | undefined>;
  env?: Record<string, string | undefined>;
  /**
   * The workspace folders offered to servers as MCP roots (absolute paths; default: `cwd`).
   * `setRoots` changes them for the running servers (a `roots/list_changed` notification).
   */
  roots?: readonly string[];
  /** Folders the agent may write besides the roots (permissions.additionalDirectories, the sandbox's `rw` paths): never a neutral folder for the person's own servers. */
  workFolders?: readonly string[];
  log?: (message: string) => void;
  /** A server's log message (MCP `notifications/message`), for the host's own log; also kept in the server's status (`logs`). */
  serverLog?: (server: string, entry: McpLogEntry) => void;
  /**
   * OAuth for remote servers (src/node/mcp/oauth.ts): where tokens are kept and how the user is
   * asked to sign in. Undefined: no OAuth (a server answering 401 fails).
   */
  oauth?: McpOAuthOptions;
  /** How long a server may take to start and list its tools (ms; default 30 s; Claude Code's `MCP_TIMEOUT`). */
  startTimeoutMs?: number;
}

/**
 * Per connection, the tools that must be called as tasks (MCP tasks: `execution.taskSupport:
 * "required"`), with their `outputSchema` (a task's result is checked against it, as the SDK's
 * callTool checks a plain call's).
 */
const taskRequired = new WeakMap<Client, Map<string, object | undefined>>();
/** A listed tool's task tools and their output schemas. */
function taskTools(tools: ReadonlyArray<{ name: string; outputSchema?: object; execution?: { taskSupport?: string } }>): Map<string, object | undefined> {
  return new Map(tools.filter((t) => t.execution?.taskSupport === "required").map((t) => [t.name, t.outputSchema]));
}

/** The user did not open the sign-in page (said as it is, not as a failed sign-in). */
class SignInRefused extends Error {}

/**
 * Whether an error (or one it was caused by) is the authorization server refusing a client's
 * redirect URIs at registration (RFC 7591 §3.2.2: invalid_redirect_uri, invalid_client_metadata).
 * The SDK keeps the codes it knows (invalid_client_metadata) and makes any other a server_error,
 * so a failure while the provider is registering (McpOAuthProvider.registering) counts too.
 */
function refusedRedirects(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { errorCode?: unknown }).errorCode;
    if (code === "invalid_redirect_uri" || code === "invalid_client_metadata") return true;
  }
  return false;
}

/** How long the user has to sign in in the browser, by default. */
const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

interface Running {
  client: Client;
  close(): Promise<void>;
  pid?: number;
  /** Why Yoke itself stopped the server (a stdio message too large), if it did: told to the model instead of "Connection closed". */
  stoppedBecause?(): string | undefined;
}

interface ServerSlot {
  config: McpServerConfig;
  state: McpServerState;
  detail?: string;
  tools?: McpToolInfo[];
  fromCache?: boolean;
  startMs?: number;
  running?: Running;
  starting?: Promise<Running>;
  restarts: number;
  approved?: boolean;
  /**
   * The approval key (its definition and the digests of the workspace files its command line
   * names, approvals.ts) a workspace server was approved on in this session: each start checks the
   * files are still those (red team Z: a script rewritten after the session's check ran at the
   * server's first use or its restart).
   */
  approvedKey?: string;
  lastError?: { message: string; at: string };
  /** Closes what a start in progress has opened (a start that timed out leaves nothing behind). */
  abandon?: () => Promise<void>;
  /** What a stdio server in its start wrote on stdout that is not MCP (said when the start fails), if any. */
  stdoutNoise?: () => string;
  /** The prompts listed (for completion), until the server says its list changed. */
  prompts?: McpPromptInfo[];
  /** A remote server's OAuth client (kept for the slot: a sign-in spans two connection attempts). */
  oauth?: McpOAuthProvider;
  /** A remote server's headers for the current connection: its definition's, with its headersHelper's over them. */
  headers?: Record<string, string>;
  /** The resources subscribed to (resources/subscribe), with how many subscribers each; renewed when the server starts again. */
  subscriptions?: Map<string, number>;
  /** Its last log messages (notifications/message), at most MCP_LOG_KEPT. */
  logs?: McpLogEntry[];
  /** The log messages given to the host's log in the current minute. */
  logWindow?: { start: number; count: number };
}

function timeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * A stdio server's environment: the SDK's minimal inherited set (what its own StdioClientTransport
 * passes: HOME, LOGNAME, PATH, SHELL, TERM, USER), read from Yoke's environment, then what the
 * server's definition names (`env`, `envFile`). Nothing else of Yoke's environment — no provider
 * API key, no other server's variables. (The SDK's getDefaultEnvironment() reads process.env
 * itself; the hub takes the environment it is given, so the list is applied here.)
 */
export function serverEnvironment(from: Record<string, string | undefined>, inherited: readonly string[], named: Record<string, string>): Record<string, string> {
  const safe = withoutProviderSecrets(from);
  const out: Record<string, string> = {};
  for (const k of inherited) {
    const v = safe[k];
    // As the SDK: a value that is a shell function definition is skipped.
    if (v !== undefined && !v.startsWith("()")) out[k] = v;
  }
  return { ...out, ...named };
}

/** A prompt as the SDK lists it, as Yoke keeps it. */
function promptInfo(p: { name: string; title?: string; description?: string; arguments?: Array<{ name: string; description?: string; required?: boolean }> }): McpPromptInfo {
  return {
    name: p.name,
    ...(p.title ? { title: p.title } : {}),
    ...(p.description ? { description: p.description } : {}),
    ...(p.arguments?.length ? { arguments: p.arguments.map((a) => pick<{ name: string; description?: string; required?: boolean }>(a, ["name", "description", "required"])) } : {}),
  };
}

/** A tool as the SDK lists it, as Yoke keeps it. */
function toolInfo(t: { name: string; title?: string; description?: string; inputSchema: unknown; annotations?: unknown }): McpToolInfo {
  return { name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema as Record<string, unknown>, annotations: t.annotations as Record<string, unknown> | undefined };
}

export class NodeMcpHub implements McpHub {
  private readonly slots = new Map<string, ServerSlot>();
  private readonly listeners = new Set<(s: McpServerStatus) => void>();
  private readonly promptListeners = new Set<(server: string, what: "prompts" | "resources") => void>();
  private readonly registry: ProcessRegistry;
  private readonly approvals: ApprovalStore;
  private disposed: Promise<void> | undefined;
  private claude: Promise<ClaudeMcpChoices> | undefined;
  private catalogued: Promise<McpServerStatus[]> | undefined;
  private roots: readonly string[];
  private readonly spawned = new Set<number>();
  /** Each started server's marker (processes.ts SERVER_MARKER), by pid; then kept for a process exiting at once. */
  private readonly markers = new Map<number, string>();
  private readonly leftMarkers = new Set<string>();
  private handlers: McpClientHandlers | undefined;

  constructor(private readonly opts: NodeMcpHubOptions) {
    this.roots = opts.roots?.length ? [...opts.roots] : [opts.cwd];
    this.registry = new ProcessRegistry(join(opts.storageDir, "mcp-processes.json"));
    this.approvals = new ApprovalStore(join(opts.storageDir, "mcp-approvals.json"));
    for (const config of opts.servers) this.slots.set(config.name, { config, state: "configured", restarts: 0 });
  }

  /** Stops servers left running by a Yoke process that is gone (call once before starting any). */
  reapOrphans(): ReturnType<ProcessRegistry["reapOrphans"]> {
    return this.registry.reapOrphans();
  }

  /** Process ids (= process groups) of the stdio servers started and not yet exited (running or still starting). */
  pids(): number[] {
    return [...this.spawned];
  }

  /** The markers of every server started (what left a server's group carries one). */
  serverMarkers(): string[] {
    return [...this.markers.values(), ...this.leftMarkers];
  }

  /** The workspace folders changed: running servers are notified and ask for the new list (`roots/list`). */
  setRoots(folders: readonly string[]): void {
    this.roots = [...folders];
    for (const slot of this.slots.values()) void slot.running?.client.sendRootsListChanged().catch(() => undefined);
  }

  /** The roots as MCP lists them: a file: URI and the folder's name. */
  private rootList(): { uri: string; name: string }[] {
    return this.roots.map((f) => ({ uri: pathToFileURL(f).href, name: basename(f) }));
  }

  /** The session that answers servers' sampling and elicitation requests (undefined: they are refused). */
  serve(handlers: McpClientHandlers | undefined): void {
    this.handlers = handlers;
  }

  /**
   * Stops a server (if it runs) and starts it again now, with a fresh restart allowance: the
   * panel's Restart. Its tools stay those the session started with (the cached prompt prefix).
   */
  async restart(server: string): Promise<McpServerStatus> {
    const slot = this.slots.get(server);
    if (!slot) throw new Error(`no MCP server "${server}" is configured`);
    if (!slot.approved) throw new Error(`the MCP server "${server}" is not approved: ${slot.detail ?? ""}`);
    const running = slot.running ?? (await slot.starting?.catch(() => undefined));
    slot.running = undefined;
    if (running) await running.close().catch(() => undefined);
    slot.restarts = 0;
    await this.ensureStarted(slot).catch(() => undefined);
    return this.view(slot);
  }

  /**
   * The user's answer about a workspace server waiting for approval (the panel's Approve/Deny, as
   * \`yoke mcp approve\`): remembered like the approval dialog's. An approved server starts now; its
   * tools are offered from the next session (this session's tool list is fixed).
   */
  async decide(server: string, decision: "allow" | "deny"): Promise<McpServerStatus> {
    const slot = this.slots.get(server);
    if (!slot) throw new Error(`no MCP server "${server}" is configured`);
    if (!slot.config.workspace) throw new Error(`the MCP server "${server}" is your own (${slot.config.sourcePath}): it needs no approval`);
    if (!this.opts.trusted) throw new Error(`the MCP server "${server}" is defined by a workspace that is not trusted`);
    const key = ApprovalStore.key(this.opts.cwd, slot.config);
    this.approvals.set(this.opts.cwd, slot.config, decision, key);
    slot.approved = decision === "allow";
    slot.approvedKey = key;
    if (decision === "deny") {
      const running = slot.running;
      slot.running = undefined;
      if (running) await running.close().catch(() => undefined);
      this.set(slot, "disabled", "you declined to start this server (its definition changed? then you are asked again)");
    } else {
      const hadTools = !!slot.tools;
      await this.ensureStarted(slot).catch(() => undefined);
      if (!hadTools && slot.state === "running") this.set(slot, "running", "approved: its tools are offered from the next session");
    }
    return this.view(slot);
  }

  status(): McpServerStatus[] {
    return [...this.slots.values()].map((s) => this.view(s));
  }

  onChange(listener: (status: McpServerStatus) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  catalog(): Promise<McpServerStatus[]> {
    this.catalogued ??= (async () => {
      await this.reapOrphans().catch((err: unknown) => this.opts.log?.(`MCP: orphan cleanup failed: ${String(err)}`));
      // Approvals one at a time (one question at a time for the user), then starts in parallel.
      for (const slot of this.slots.values()) await this.decideApproval(slot);
      await Promise.all(
        [...this.slots.values()].map(async (slot) => {
          if (!slot.approved) return;
          const cached = this.readCache(slot.config);
          if (cached && !slot.config.startAtSessionStart) {
            slot.tools = cached;
            slot.fromCache = true;
            return;
          }
          await this.ensureStarted(slot).catch(() => undefined);
          // A server that cannot start now still offers the tools it had last time (a call retries the start).
          const fallback = cached ?? this.readCache(slot.config, true);
          if (!slot.tools && fallback) {
            slot.tools = fallback;
            slot.fromCache = true;
          }
        }),
      );
      return this.status();
    })();
    return this.catalogued;
  }

  async call(server: string, tool: string, args: Record<string, unknown>, opts: McpCallOptions): Promise<McpCallResult> {
    const slot = this.slots.get(server);
    if (!slot) throw new Error(`no MCP server "${server}" is configured`);
    if (!slot.approved) throw new Error(`the MCP server "${server}" is not started: ${slot.detail ?? "not approved"}`);
    const running = await this.ensureStarted(slot);
    try {
      return await this.callRenewing(slot, running, tool, args, opts);
    } catch (err) {
      // URL elicitation required (-32042): the server answered that the user must first complete
      // something at a URL (a sign-in, a consent…). The user is asked as for a URL-mode
      // elicitation; once they went there and the server says it is done (or the call's timeout
      // passed without a word from it), the call is made once more.
      const required = await urlElicitationsRequired(err);
      if (!required) throw err;
      await this.completeUrlElicitations(slot, required, opts);
      const again = slot.running ?? (await this.ensureStarted(slot));
      try {
        return await this.callRenewing(slot, again, tool, args, opts);
      } catch (err2) {
        if (await urlElicitationsRequired(err2))
          throw new Error(`the MCP server "${server}" still needs the user to finish at ${origins(required)} before ${tool} can run (asked once for this call; the user may not have finished yet)`, {
            cause: err2,
          });
        throw err2;
      }
    }
  }

  /**
   * The user is asked to open each URL the server requires (the host's URL question; headless:
   * declined), then Yoke waits for the server's `notifications/elicitation/complete` for each,
   * at most the call's timeout (the spec: a client must not wait for it indefinitely), or until
   * the user says they finished (the host's Done: a notification's button, Enter on a terminal).
   */
  private async completeUrlElicitations(slot: ServerSlot, required: UrlElicitation[], opts: McpCallOptions): Promise<void> {
    const server = slot.config.name;
    const handlers = this.handlers;
    const waits = required.map((e) => this.completion(server, e.elicitationId));
    try {
      for (const e of required) {
        const answer = handlers ? await handlers.elicitUrl(server, { message: e.message, url: e.url, elicitationId: e.elicitationId }, opts.signal) : { action: "decline" as const };
        if (answer.action !== "accept")
          throw new Error(
            `the MCP server "${server}" needs the user to complete something at ${origins([e])} first ("${e.message}"); the user ${answer.action === "cancel" ? "cancelled" : "declined"} it (or no one could be asked)`,
          );
      }
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((r) => (timer = setTimeout(r, opts.timeoutMs)));
      const aborted = new Promise<void>((r) => opts.signal.addEventListener("abort", () => r(), { once: true }));
      // The user may say they finished (a server that never sends the completion would otherwise
      // make them wait for the timeout): the question is withdrawn when the wait ends otherwise.
      const ended = new AbortController();
      const never = new Promise<void>(() => undefined);
      const userDone = handlers?.urlDone ? handlers.urlDone(server, { where: origins(required), timeoutMs: opts.timeoutMs }, ended.signal).catch(() => never) : never;
      await Promise.race([Promise.all(waits.map((w) => w.done)), timedOut, aborted, userDone]).finally(() => {
        clearTimeout(timer);
        ended.abort();
      });
      if (opts.signal.aborted) throw new Error("the call was cancelled");
    } finally {
      for (const w of waits) w.forget();
    }
  }

  private readonly completions = new Map<string, { resolve: () => void }>();
  private readonly completedEarly = new Set<string>();
  /** Waits for a server's word that a URL elicitation was completed (registered before the user is asked). */
  private completion(server: string, id: string): { done: Promise<void>; forget(): void } {
    const key = `${server}\u0000${id}`;
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    if (this.completedEarly.delete(key)) resolve();
    else this.completions.set(key, { resolve });
    return { done, forget: () => this.completions.delete(key) };
  }
  private elicitationCompleted(server: string, id: string): void {
    const key = `${server}\u0000${id}`;
    const w = this.completions.get(key);
    if (w) w.resolve();
    else if (this.completedEarly.size < 100) this.completedEarly.add(key);
  }

  /**
   * One call; when a Streamable HTTP server answers it 404 (it no longer knows the session: it
   * restarted, or ended the session itself), a new session is started and the call made once more,
   * as the specification has a client do ("MUST start a new session by sending a new
   * InitializeRequest"). The server did not run the call (it did not know the session). Before,
   * every later call of the session failed with "Session not found".
   */
  private async callRenewing(slot: ServerSlot, running: Running, tool: string, args: Record<string, unknown>, opts: McpCallOptions): Promise<McpCallResult> {
    try {
      return await this.callOnce(slot, running, tool, args, opts);
    } catch (err) {
      const { TaskTakenError } = await loadMcpSdk();
      // A task the server took: the connection is renewed on a 404, the call is not made again (it may have run).
      if (err instanceof TaskTakenError) {
        await this.sessionEnded(slot, running, err.cause);
        throw err;
      }
      if (!(await this.sessionEnded(slot, running, err))) throw err;
      return await this.callOnce(slot, await this.ensureStarted(slot), tool, args, opts);
    }
  }

  /** Whether `err` says the server ended this connection's Streamable HTTP session (HTTP 404); if so the connection is dropped, for the next use to start a new one. */
  private async sessionEnded(slot: ServerSlot, running: Running, err: unknown): Promise<boolean> {
    const { StreamableHTTPClientTransport, StreamableHTTPError } = await loadMcpSdk();
    const e = err instanceof Error && err.cause !== undefined ? err.cause : err;
    if (!(e instanceof StreamableHTTPError) || !(running.client.transport instanceof StreamableHTTPClientTransport)) return false;
    // A 401 to a server whose headers its headersHelper makes: the token it gave has expired (short-lived
    // tokens are what helpers are for). A new connection runs the helper again (Claude Code: "on
    // reconnect"), and the request is made once more: the server refused it, so it did not run it.
    const helperExpired = e.code === 401 && slot.config.transport !== "stdio" && !!slot.config.headersHelper;
    if (e.code !== 404 && !helperExpired) return false;
    if (slot.running === running) {
      slot.running = undefined;
      await running.close().catch(() => undefined);
    }
    this.opts.log?.(
      helperExpired
        ? `MCP server "${slot.config.name}": it refused the headers of its headersHelper (HTTP 401): connecting again, which runs the helper again`
        : `MCP server "${slot.config.name}": the server no longer knows its session (HTTP 404: it restarted, or ended the session): a new session is started`,
    );
    return true;
  }

  private async callOnce(slot: ServerSlot, running: Running, tool: string, args: Record<string, unknown>, opts: McpCallOptions): Promise<McpCallResult> {
    const server = slot.config.name;
    try {
      // Progress: `onprogress` makes the SDK send a progressToken; each progress notification
      // restarts the call's timeout (bounded overall at ten times it) and is passed on.
      const options = {
        signal: opts.signal,
        timeout: opts.timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: opts.timeoutMs * 10,
        onprogress: (p: { progress: number; total?: number; message?: string }) =>
          opts.onProgress?.({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) }),
      };
      if (!taskRequired.get(running.client)?.has(tool)) return (await running.client.callTool({ name: tool, arguments: args }, undefined, options)) as McpCallResult;
      // A tool that must run as a task (MCP tasks, `execution.taskSupport: "required"`): the task is
      // created, asked about (tasks/get, bounded waits that a Stop ends) until it ends, then its
      // result (tasks/result) is the call's (src/node/mcp/task-call.ts); each status it reports is
      // shown as progress (never sent to the model).
      let statuses = 0;
      const { callToolAsTask } = await loadMcpSdk();
      const outputSchema = taskRequired.get(running.client)?.get(tool);
      return await callToolAsTask(running.client, tool, args, options, (task) => opts.onProgress?.({ progress: ++statuses, message: task.statusMessage ?? task.status }), outputSchema);
    } catch (err) {
      if (err instanceof (await loadMcpSdk()).UnauthorizedError && slot.running === running) {
        // The token was refused mid-session and could not be renewed: the connection is closed,
        // and the next use connects again (and asks for a sign-in).
        slot.running = undefined;
        await running.close().catch(() => undefined);
        throw new Error(`the MCP server "${server}" no longer accepts the sign-in (OAuth): its next use signs in again`, { cause: err });
      }
      if (await urlElicitationsRequired(err)) throw err;
      const why = running.stoppedBecause?.();
      throw new Error(`the MCP server "${server}" did not answer the call: ${why ? `${why}, so Yoke stopped it` : err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  async resources(server: string, signal: AbortSignal): Promise<McpResourceList | undefined> {
    return this.withSession(server, (running) => this.resourcesOn(server, running, signal));
  }

  private async resourcesOn(server: string, running: Running, signal: AbortSignal): Promise<McpResourceList | undefined> {
    if (!running.client.getServerCapabilities()?.resources) return undefined;
    const out: McpResourceList = { resources: [], templates: [] };
    try {
      let cursor: string | undefined;
      do {
        const page = await running.client.listResources(cursor ? { cursor } : undefined, { signal, timeout: RESOURCE_TIMEOUT_MS });
        for (const r of page.resources) out.resources.push(pick<McpResourceInfo>(r, ["uri", "name", "title", "description", "mimeType", "size"]));
        cursor = page.nextCursor;
      } while (cursor && out.resources.length < MAX_RESOURCES);
      cursor = undefined;
      do {
        // (A server may offer resources without templates: "method not found" ends the listing.)
        const page: { resourceTemplates: object[]; nextCursor?: string } | undefined = await running.client
          .listResourceTemplates(cursor ? { cursor } : undefined, { signal, timeout: RESOURCE_TIMEOUT_MS })
          .catch(() => undefined);
        if (!page) break;
        for (const t of page.resourceTemplates) out.templates.push(pick<McpResourceTemplateInfo>(t, ["uriTemplate", "name", "title", "description", "mimeType"]));
        cursor = page.nextCursor;
      } while (cursor && out.templates.length < MAX_RESOURCES);
    } catch (err) {
      throw new Error(`the MCP server "${server}" did not list its resources: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return out;
  }

  async readResource(server: string, uri: string, signal: AbortSignal): Promise<McpResourceContents[]> {
    return this.withSession(server, async (running) => {
      if (!running.client.getServerCapabilities()?.resources) throw new Error(`the MCP server "${server}" offers no resources`);
      try {
        const r = await running.client.readResource({ uri }, { signal, timeout: RESOURCE_TIMEOUT_MS });
        return r.contents.map((c) => pick<McpResourceContents>(c, ["uri", "mimeType", "text", "blob"]));
      } catch (err) {
        throw new Error(`the MCP server "${server}" did not read ${uri}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    });
  }

  /** The resources subscribed to, per connection (what the server was told on that connection). */
  private readonly subscribed = new WeakMap<Client, Set<string>>();
  private readonly updatedListeners = new Set<(server: string, uri: string) => void>();

  /**
   * Subscribes to a resource (counted: each subscribeResource is undone by one unsubscribeResource).
   * The subscriptions are the slot's, not the connection's: a server started again (a crash, the
   * panel's Restart) is subscribed anew to each (resubscribe).
   */
  async subscribeResource(server: string, uri: string): Promise<boolean> {
    const slot = this.slots.get(server);
    const running = await this.runningFor(server);
    if (!running.client.getServerCapabilities()?.resources?.subscribe || !slot) return false;
    const wanted = (slot.subscriptions ??= new Map());
    wanted.set(uri, (wanted.get(uri) ?? 0) + 1);
    try {
      await this.tellSubscribed(running.client, uri);
    } catch (err) {
      this.dropSubscription(slot, uri);
      throw err;
    }
    return true;
  }

  /**
   * Undoes one subscribeResource; the last one sends `resources/unsubscribe` (to a running server
   * only: one that is not running has no subscription to end, and is not started for it).
   */
  async unsubscribeResource(server: string, uri: string): Promise<void> {
    const slot = this.slots.get(server);
    if (!slot || !this.dropSubscription(slot, uri)) return;
    const client = slot.running?.client;
    if (!client || !this.subscribed.get(client)?.delete(uri)) return;
    await client.unsubscribeResource({ uri }, { timeout: UNSUBSCRIBE_TIMEOUT_MS });
  }

  /** One subscriber fewer; true when it was the last. */
  private dropSubscription(slot: ServerSlot, uri: string): boolean {
    const n = slot.subscriptions?.get(uri);
    if (n === undefined) return false;
    if (n > 1) {
      slot.subscriptions!.set(uri, n - 1);
      return false;
    }
    slot.subscriptions!.delete(uri);
    return true;
  }

  private async tellSubscribed(client: Client, uri: string): Promise<void> {
    const uris = this.subscribed.get(client) ?? new Set<string>();
    this.subscribed.set(client, uris);
    if (uris.has(uri)) return;
    await client.subscribeResource({ uri }, { timeout: RESOURCE_TIMEOUT_MS });
    uris.add(uri);
  }

  /** A server (re)started: subscribed again to what its slot holds (a failure is logged, the others go on). */
  private resubscribe(slot: ServerSlot, running: Running): void {
    const uris = [...(slot.subscriptions?.keys() ?? [])];
    if (!uris.length) return;
    if (!running.client.getServerCapabilities()?.resources?.subscribe) {
      this.opts.log?.(`MCP: "${slot.config.name}" no longer offers resource subscriptions: ${uris.length} resource(s) not watched any more`);
      return;
    }
    for (const uri of uris)
      void this.tellSubscribed(running.client, uri).catch((err: unknown) =>
        this.opts.log?.(`MCP: could not subscribe again to ${uri} of "${slot.config.name}": ${err instanceof Error ? err.message : String(err)}`),
      );
  }

  /**
   * The definition's `logLevel`, sent at each start (MCP `logging/setLevel`) to a server that offers
   * logging (before its first call; a failure is logged, the server still runs); one that does
   * not is said in the log.
   */
  private async sendLogLevel(slot: ServerSlot, running: Running): Promise<void> {
    const level = slot.config.logLevel;
    if (!level) return;
    const name = slot.config.name;
    if (!running.client.getServerCapabilities()?.logging) {
      this.opts.log?.(`MCP: "${name}" offers no logging: its "logLevel" (${level}) is not sent`);
      return;
    }
    await running.client
      .setLoggingLevel(level, { timeout: LOG_LEVEL_TIMEOUT_MS })
      .catch((err: unknown) => this.opts.log?.(`MCP: "${name}" did not take the log level ${level}: ${err instanceof Error ? err.message : String(err)}`));
  }

  /** Before the connections close: every subscription still held is ended on its server (bounded). */
  private async unsubscribeAll(): Promise<void> {
    await Promise.all(
      [...this.slots.values()].flatMap((slot) => {
        const client = slot.running?.client;
        const uris = client ? [...(this.subscribed.get(client) ?? [])] : [];
        slot.subscriptions?.clear();
        return uris.map((uri) => client!.unsubscribeResource({ uri }, { timeout: UNSUBSCRIBE_TIMEOUT_MS }).catch(() => undefined));
      }),
    );
  }

  onResourceUpdated(listener: (server: string, uri: string) => void): { dispose(): void } {
    this.updatedListeners.add(listener);
    return { dispose: () => this.updatedListeners.delete(listener) };
  }

  private resourceUpdated(client: Client, server: string, uri: string): void {
    // Only what was subscribed to through this connection (a server may send others).
    if (!this.subscribed.get(client)?.has(uri)) return;
    for (const l of this.updatedListeners) l(server, uri);
  }

  async prompts(server: string, signal: AbortSignal): Promise<McpPromptInfo[] | undefined> {
    return this.withSession(server, (running) => this.promptsOn(server, running, signal));
  }

  private async promptsOn(server: string, running: Running, signal: AbortSignal): Promise<McpPromptInfo[] | undefined> {
    const slot = this.slots.get(server);
    if (!running.client.getServerCapabilities()?.prompts) return undefined;
    if (slot?.prompts) return slot.prompts;
    const out: McpPromptInfo[] = [];
    try {
      let cursor: string | undefined;
      do {
        const page = await running.client.listPrompts(cursor ? { cursor } : undefined, { signal, timeout: RESOURCE_TIMEOUT_MS });
        for (const p of page.prompts) out.push(promptInfo(p));
        cursor = page.nextCursor;
      } while (cursor && out.length < MAX_RESOURCES);
    } catch (err) {
      throw new Error(`the MCP server "${server}" did not list its prompts: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (slot && slot.running === running) slot.prompts = out;
    return out;
  }

  async getPrompt(server: string, name: string, args: Record<string, string>, signal: AbortSignal): Promise<McpPromptResult> {
    return this.withSession(server, async (running) => {
      try {
        const r = await running.client.getPrompt({ name, arguments: args }, { signal, timeout: RESOURCE_TIMEOUT_MS });
        return { ...(r.description ? { description: r.description } : {}), messages: r.messages.map((m) => ({ role: m.role, content: m.content as McpPromptResult["messages"][number]["content"] })) };
      } catch (err) {
        throw new Error(`the MCP server "${server}" did not give the prompt "${name}": ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    });
  }

  async complete(server: string, prompt: string, argument: { name: string; value: string }, context: Record<string, string>, signal: AbortSignal): Promise<string[]> {
    return this.completeRef(server, { type: "ref/prompt", name: prompt }, argument, context, signal);
  }

  async completeResource(server: string, uriTemplate: string, argument: { name: string; value: string }, context: Record<string, string>, signal: AbortSignal): Promise<string[]> {
    return this.completeRef(server, { type: "ref/resource", uri: uriTemplate }, argument, context, signal);
  }

  private completeRef(
    server: string,
    ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
    argument: { name: string; value: string },
    context: Record<string, string>,
    signal: AbortSignal,
  ): Promise<string[]> {
    return this.withSession(server, async (running) => {
      // The server declares `completions` when it completes arguments; otherwise there is nothing to ask.
      if (!running.client.getServerCapabilities()?.completions) return [];
      const r = await running.client.complete({ ref, argument, ...(Object.keys(context).length ? { context: { arguments: context } } : {}) }, { signal, timeout: 10_000 });
      return r.completion.values.slice(0, 100);
    });
  }

  /**
   * A request through the server's connection; when a Streamable HTTP server answers it 404 (it no
   * longer knows the session: it restarted, or ended it) a new session is started and the request
   * made once more — as callRenewing does for tool calls. Only for requests that change nothing on
   * the server (lists, reads, prompts, completions): it did not run the first one anyway.
   */
  private async withSession<T>(server: string, op: (running: Running) => Promise<T>): Promise<T> {
    const running = await this.runningFor(server);
    try {
      return await op(running);
    } catch (err) {
      const slot = this.slots.get(server);
      if (!slot || !(await this.sessionEnded(slot, running, err))) throw err;
      return await op(await this.ensureStarted(slot));
    }
  }

  private async runningFor(server: string): Promise<Running> {
    const slot = this.slots.get(server);
    if (!slot) throw new Error(`no MCP server "${server}" is configured (configured: ${[...this.slots.keys()].join(", ") || "none"})`);
    if (!slot.approved) throw new Error(`the MCP server "${server}" is not started: ${slot.detail ?? "not approved"}`);
    return this.ensureStarted(slot);
  }

  dispose(): Promise<void> {
    this.disposed ??= (async () => {
      for (const f of this.disposeListeners) f();
      await this.unsubscribeAll();
      await Promise.all(
        [...this.slots.values()].map(async (slot) => {
          const r = slot.running ?? (await slot.starting?.catch(() => undefined));
          slot.running = undefined;
          if (r) await r.close().catch(() => undefined);
          if (slot.state === "running" || slot.state === "starting") this.set(slot, "stopped", "the session ended");
        }),
      );
    })();
    return this.disposed;
  }

  private view(s: ServerSlot): McpServerStatus {
    return {
      config: s.config,
      state: s.state,
      detail: s.detail,
      tools: s.tools,
      fromCache: s.fromCache,
      startMs: s.startMs,
      ...(s.lastError ? { lastError: s.lastError } : {}),
      ...(s.logs?.length ? { logs: [...s.logs] } : {}),
    };
  }

  private set(slot: ServerSlot, state: McpServerState, detail?: string): void {
    slot.state = state;
    slot.detail = detail;
    if (state === "failed" && detail) slot.lastError = { message: detail, at: new Date().toISOString() };
    for (const l of this.listeners) l(this.view(slot));
  }

  private async decideApproval(slot: ServerSlot): Promise<void> {
    const c = slot.config;
    // Turned off for this project in Claude Code (its /mcp list's "Disable": `disabledMcpServers` in
    // ~/.claude.json), whatever the server's scope, as in Claude Code: not started, said why.
    const off = (await this.claudeChoices()).turnedOff(c.name);
    if (off) {
      slot.approved = false;
      this.set(slot, "disabled", `turned off for this project by disabledMcpServers in ${off} (Claude Code's /mcp "Disable"); remove it from that list to use the server`);
      return;
    }
    if (!c.workspace) {
      slot.approved = true;
      return;
    }
    if (!this.opts.trusted) {
      this.set(slot, "untrusted", `defined by the workspace (${c.sourcePath}), which is not trusted: not started`);
      return;
    }
    if (c.source === "workspace-mcp-json") {
      const choice = (await this.claudeChoices()).choice(c.name);
      if (choice) {
        slot.approved = choice.decision === "allow";
        if (!slot.approved) this.set(slot, "disabled", `turned off by disabledMcpjsonServers in ${choice.where}`);
        return;
      }
    }
    // One key for the check, the question and the answer kept: what the person is asked about is what is approved.
    // The workspace files its command line names are approved as they are now (approvals.ts).
    const named = namedWorkspaceFiles(this.opts.cwd, c);
    const key = ApprovalStore.key(this.opts.cwd, c, named);
    slot.approvedKey = key;
    let decision = this.approvals.get(this.opts.cwd, c, key);
    if (!decision && this.opts.approve) {
      const files = Object.keys(named);
      const description = describeDefinition(c) + (files.length ? `\napproves these workspace files as they are now (a change to them asks again): ${files.join(", ")}` : "");
      decision = await this.opts.approve({ server: c, description }).catch(() => undefined);
      if (decision) this.approvals.set(this.opts.cwd, c, decision, key);
    }
    slot.approved = decision === "allow";
    if (decision === "deny") this.set(slot, "disabled", "you declined to start this server (its definition changed? then you are asked again)");
    else if (!decision)
      this.set(
        slot,
        "not_approved",
        `a new server defined by the workspace (${c.sourcePath}) that you have not approved yet, or one whose definition or workspace files it runs changed since: run \`yoke mcp approve ${c.name}\` or approve it in VS Code`,
      );
  }

  /** Claude Code's choices about this project's MCP servers, read once. */
  private claudeChoices(): Promise<ClaudeMcpChoices> {
    this.claude ??= claudeMcpChoices(this.opts.cwd, this.opts.home).then((choices) => {
      for (const m of choices.ignored) this.opts.log?.(m);
      return choices;
    });
    return this.claude;
  }

  private ensureStarted(slot: ServerSlot): Promise<Running> {
    if (slot.running) return Promise.resolve(slot.running);
    if (this.disposed) return Promise.reject(new Error("the session has ended"));
    if (slot.state === "failed" && slot.restarts > MAX_RESTARTS) return Promise.reject(new Error(`it failed ${slot.restarts} times and is not started again in this session (${slot.detail ?? ""})`));
    // A workspace server starts only on the files it was approved on: the session's check was at its
    // start, and the server starts at its first use (its tools from the cache) or again after an exit.
    if (!slot.starting && slot.approvedKey && ApprovalStore.key(this.opts.cwd, slot.config) !== slot.approvedKey) {
      slot.approved = false;
      this.set(
        slot,
        "not_approved",
        `workspace files it runs changed since it was approved (${slot.config.sourcePath}): not started; run \`yoke mcp approve ${slot.config.name}\` or approve it in VS Code`,
      );
      return Promise.reject(new Error(`the MCP server "${slot.config.name}" is not started: ${slot.detail}`));
    }
    slot.starting ??= (async () => {
      const began = Date.now();
      this.set(slot, "starting");
      try {
        let running: Running;
        const connect = () => timeout(this.connect(slot), this.opts.startTimeoutMs ?? START_TIMEOUT_MS, `starting the MCP server "${slot.config.name}"`);
        try {
          try {
            running = await connect();
          } catch (err) {
            // The authorization server refused a client registered with the other windows' redirect
            // URIs too (src/node/mcp/oauth.ts, clientMetadata): registered with this window's alone.
            if (!slot.oauth?.widened || slot.oauth.narrow || !(slot.oauth.registering || refusedRedirects(err))) throw err;
            slot.oauth.narrow = true;
            this.opts.log?.(`the authorization server of "${slot.config.name}" refused one client for all your windows' redirect URIs: registered for this window alone`);
            running = await connect();
          }
        } catch (err) {
          // The server wants a sign-in (OAuth): the user signs in in the browser (not bounded by
          // the start's timeout: by the sign-in's own), then the connection is tried once more.
          if (!slot.oauth?.pending) throw err;
          await this.signIn(slot, slot.oauth);
          running = await connect();
        } finally {
          // A redirect URI held for a sign-in that was not needed goes back (signIn spends its own).
          slot.oauth?.settleRedirect(false);
        }
        slot.abandon = () => running.close();
        const listed = await timeout(this.listTools(running.client), this.opts.startTimeoutMs ?? START_TIMEOUT_MS, `listing the tools of "${slot.config.name}"`);
        slot.running = running;
        slot.prompts = undefined;
        slot.tools = listed;
        slot.fromCache = false;
        slot.startMs = Date.now() - began;
        this.writeCache(slot.config, listed);
        await this.sendLogLevel(slot, running);
        this.set(slot, "running");
        this.resubscribe(slot, running);
        if (this.disposed) await running.close();
        return running;
      } catch (err) {
        const noise = slot.stdoutNoise?.() ?? "";
        const base = err instanceof Error ? err.message : String(err);
        const msg = noise && !base.includes(noise) ? `${base}${noise}` : base;
        slot.restarts++;
        await slot.abandon?.().catch(() => undefined);
        if (slot.state === "starting") this.set(slot, "failed", msg);
        throw new Error(`the MCP server "${slot.config.name}" failed to start: ${msg}`, { cause: err });
      } finally {
        slot.starting = undefined;
        slot.abandon = undefined;
        slot.stdoutNoise = undefined;
      }
    })();
    return slot.starting;
  }

  /** A running server's tool list changed (tools/list_changed): cached for the next session, reported. */
  private toolsChanged(slot: ServerSlot, tools: McpToolInfo[]): void {
    if (this.disposed || !slot.running) return;
    const before = new Set((slot.tools ?? []).map((t) => t.name));
    const after = new Set(tools.map((t) => t.name));
    const added = [...after].filter((n) => !before.has(n));
    const removed = [...before].filter((n) => !after.has(n));
    this.writeCache(slot.config, tools);
    if (added.length === 0 && removed.length === 0) return;
    const list = (xs: string[]) => xs.slice(0, 10).join(", ") + (xs.length > 10 ? ", …" : "");
    this.set(
      slot,
      "running",
      `its tool list changed (${[added.length ? `added: ${list(added)}` : "", removed.length ? `removed: ${list(removed)}` : ""].filter(Boolean).join("; ")}); this session keeps the tools it started with, the next session offers the new list`,
    );
  }

  /** A running server's prompt or resource list changed: the prompts kept are replaced; reported to the log. */
  private listChanged(slot: ServerSlot, what: "prompts" | "resources", prompts?: McpPromptInfo[]): void {
    if (this.disposed || !slot.running) return;
    if (what === "prompts") slot.prompts = prompts;
    this.opts.log?.(`MCP: "${slot.config.name}" says its ${what} changed`);
    for (const l of this.promptListeners) l(slot.config.name, what);
  }

  /** Listens to prompt and resource list changes (the composer's completion lists them anew). */
  onListChanged(listener: (server: string, what: "prompts" | "resources") => void): { dispose(): void } {
    this.promptListeners.add(listener);
    return { dispose: () => this.promptListeners.delete(listener) };
  }

  private async listTools(client: Client): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    const tasks = new Map<string, object | undefined>();
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      for (const t of page.tools) tools.push(toolInfo(t));
      for (const [name, schema] of taskTools(page.tools)) tasks.set(name, schema);
      cursor = page.nextCursor;
    } while (cursor && tools.length < 10_000);
    taskRequired.set(client, tasks);
    return tools;
  }

  private async connect(slot: ServerSlot): Promise<Running> {
    const c = slot.config;
    const {
      Client,
      ClientTaskStore,
      CreateMessageRequestSchema,
      DEFAULT_INHERITED_ENV_VARS,
      ElicitationCompleteNotificationSchema,
      ElicitRequestSchema,
      GroupStdioTransport,
      ListRootsRequestSchema,
      LoggingMessageNotificationSchema,
      ResourceUpdatedNotificationSchema,
      SSEClientTransport,
      StreamableHTTPClientTransport,
      UnauthorizedError,
      McpError,
      limitedFetch,
    } = await loadMcpSdk();
    // Tasks Yoke runs for the server (sampling and elicitation asked as tasks), per connection.
    const taskStores: InstanceType<typeof ClientTaskStore>[] = [];
    const dropTasks = () => {
      for (const t of taskStores.splice(0)) t.dispose();
    };
    const newClient = () => {
      const taskStore = new ClientTaskStore();
      taskStores.push(taskStore);
      // Roots: the workspace folders, asked for by the server (`roots/list`), changes notified.
      // tools/list_changed: the SDK lists the tools again; the new list is cached for the next
      // session and reported, while this session keeps the tool list it started with (the tool
      // list is part of every request's cached prefix; see docs/mcp.md).
      const client = new Client(
        { name: "yoke", version: VERSION },
        {
          // Sampling and elicitation (form mode) are declared always, so a server lists the same
          // tools to a session and to \`yoke mcp list\` (whose hub has no session: it refuses them).
          // URL mode (MCP 2025-11-25): the user is shown the URL and asked; never opened without a yes.
          // Tasks (MCP 2025-11-25): a server may ask for a sampling or an elicitation as a task
          // (ClientTaskStore). `sampling.tools`: a server may offer its tools to the model; the
          // model's calls are returned to it unexecuted (src/core/mcp/client-requests.ts).
          capabilities: {
            roots: { listChanged: true },
            sampling: { tools: {} },
            elicitation: { form: { applyDefaults: true }, url: {} },
            tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
          },
          taskStore,
          // prompts/list_changed: the new list replaces the one kept for slash commands and their
          // completion (prompts are not part of the request's prefix: nothing sent before changes).
          // resources/list_changed: resources are listed when asked for (list_mcp_resources, the
          // composer's completion), never kept, so the next listing is the new one.
          listChanged: {
            tools: {
              onChanged: (err, tools) => {
                if (err || !tools) return;
                taskRequired.set(client, taskTools(tools));
                this.toolsChanged(slot, tools.map(toolInfo));
              },
            },
            prompts: { onChanged: (err, prompts) => (err || !prompts ? undefined : this.listChanged(slot, "prompts", prompts.map(promptInfo))) },
            resources: { autoRefresh: false, onChanged: () => this.listChanged(slot, "resources") },
          },
        },
      );
      client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: this.rootList() }));
      // The SDK validates the request and our answer against the protocol's schemas; what the
      // session answers is decided in src/core/mcp/client-requests.ts.
      // A request the server asks to run as a task (`params.task`) answers `{ task }` at once and runs in the background.
      // A plain request is answered while the server waits: at most MCP_CLIENT_REQUESTS_AT_ONCE at once, as for tasks
      // (ClientTaskStore) — each is a question to the person or a model request, and holds its messages meanwhile.
      let plainAtOnce = 0;
      const plain = async <R>(run: () => Promise<R>): Promise<R> => {
        if (plainAtOnce >= MCP_CLIENT_REQUESTS_AT_ONCE)
          throw new McpError(-32600, `Yoke answers at most ${MCP_CLIENT_REQUESTS_AT_ONCE} sampling and elicitation requests of a server at once: ask again when one has been answered`);
        plainAtOnce++;
        try {
          return await run();
        } finally {
          plainAtOnce--;
        }
      };
      const maybeTask = <R extends object>(asTask: boolean, extra: Parameters<InstanceType<typeof ClientTaskStore>["start"]>[0] & { signal: AbortSignal }, run: (signal: AbortSignal) => Promise<R>) =>
        asTask ? taskStore.start(extra, run as (signal: AbortSignal) => Promise<R & Record<string, unknown>>) : plain(() => run(extra.signal));
      client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
        const handlers = this.handlers;
        if (!handlers) throw new Error("no session is running to answer a sampling request");
        const p = req.params;
        return maybeTask(!!p.task, extra, async (signal) => {
          const result = await handlers.sample(c.name, samplingRequest(p), signal);
          // With tools (the SDK then checks the answer as CreateMessageResultWithTools): the text and
          // the model's calls, which the server runs; without: one text block, as before.
          const text = { type: "text" as const, text: result.text };
          const uses = (result.toolUses ?? []).map((u) => ({ type: "tool_use" as const, id: u.id, name: u.name, input: u.input }));
          const content = uses.length ? [...(result.text ? [text] : []), ...uses] : text;
          return { model: result.model, role: "assistant" as const, content, stopReason: result.stopReason };
        });
      });
      // Logging: the server's messages are kept (the last MCP_LOG_KEPT, in its status) and given to
      // the host's log; never to the model. The level is the definition's `logLevel` (sendLogLevel), else the server's own.
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        const entry: McpLogEntry = { level: n.params.level, text: mcpLogText(n.params), at: new Date().toISOString() };
        (slot.logs ??= []).push(entry);
        if (slot.logs.length > MCP_LOG_KEPT) slot.logs.splice(0, slot.logs.length - MCP_LOG_KEPT);
        // At most MCP_LOG_PER_MINUTE lines a minute to the host's log (a server flooding it is cut, said once).
        const now = Date.now();
        if (!slot.logWindow || now - slot.logWindow.start >= 60_000) slot.logWindow = { start: now, count: 0 };
        slot.logWindow.count++;
        if (slot.logWindow.count <= MCP_LOG_PER_MINUTE) this.opts.serverLog?.(c.name, entry);
        else if (slot.logWindow.count === MCP_LOG_PER_MINUTE + 1)
          this.opts.serverLog?.(c.name, {
            level: "warning",
            text: `more than ${MCP_LOG_PER_MINUTE} log messages in a minute: the rest of this minute's are not written here (the last ${MCP_LOG_KEPT} are in its status)`,
            at: entry.at,
          });
      });
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => this.resourceUpdated(client, c.name, n.params.uri));
      client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => this.elicitationCompleted(c.name, n.params.elicitationId));
      client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
        const handlers = this.handlers;
        const p = req.params;
        return maybeTask(!!p.task, extra, async (signal) => {
          if (!handlers) return { action: "decline" as const };
          if (p.mode === "url") return handlers.elicitUrl(c.name, { message: p.message, url: p.url, elicitationId: p.elicitationId }, signal);
          return handlers.elicit(c.name, { message: p.message, schema: p.requestedSchema }, signal);
        });
      });
      return client;
    };
    const onDied = (why: string) => {
      dropTasks();
      if (this.disposed || !slot.running) return;
      slot.running = undefined;
      slot.restarts++;
      this.set(slot, "failed", `${why}${slot.restarts <= MAX_RESTARTS ? "; it is restarted on its next use" : ""}`);
    };
    if (c.transport === "stdio") {
      const cwd = this.serverFolder(c);
      let pid: number | undefined;
      const transport = new GroupStdioTransport({
        command: c.command,
        args: c.args,
        cwd,
        env: serverEnvironment(this.opts.env ?? process.env, DEFAULT_INHERITED_ENV_VARS, c.env),
        onSpawn: (p) => {
          pid = p;
          this.spawned.add(p);
          this.markers.set(p, transport.marker);
          this.registry.add(c.name, p, transport.marker);
        },
        onExit: (code, signal) => {
          slot.abandon = undefined;
          if (pid) {
            this.registry.remove(pid);
            this.spawned.delete(pid);
            // Its marker stays known until what carries it is gone (the transport stops it after the exit).
            const marker = this.markers.get(pid);
            this.markers.delete(pid);
            if (marker) this.leftMarkers.add(marker);
          }
          const tail = transport.stderr.trim().split("\n").slice(-5).join("\n");
          onDied(transport.fatal ? `${transport.fatal}: Yoke stopped it` : `the server exited (${signal ?? `code ${code}`})${tail ? `: ${tail}` : ""}`);
        },
      });
      const client = newClient();
      slot.abandon = () => transport.close();
      // What it wrote on stdout that is not MCP (a log line, a usage text) is often why it never answered.
      slot.stdoutNoise = () =>
        transport.stdoutNoise.length ? ` — it wrote on stdout what is not an MCP message (stdout is for MCP messages only; logs go to stderr): ${transport.stdoutNoise.join("\n")}` : "";
      try {
        await client.connect(transport);
      } catch (err) {
        await transport.close().catch(() => undefined);
        await transport.stderrSettled(1000);
        const tail = transport.stderr.trim().split("\n").slice(-5).join("\n");
        throw new Error(`${err instanceof Error ? err.message : String(err)}${slot.stdoutNoise()}${tail ? ` — its stderr: ${tail}` : ""}`, { cause: err });
      }
      return {
        client,
        pid,
        close: () => {
          dropTasks();
          return client.close();
        },
        stoppedBecause: () => transport.fatal,
      };
    }
    const url = new URL(c.url);
    // Claude Code's headersHelper: run at each connection (no caching), its headers over the
    // definition's. connect() runs only for a server that may start: a repository's after the
    // person approved its definition, the helper's command line included (decideApproval).
    const headers = c.headersHelper ? mergeHeaders(c.headers, await this.helperHeaders(c)) : c.headers;
    slot.headers = headers;
    const requestInit = { headers };
    // OAuth, unless the definition (or its helper) carries its own Authorization header (a token the user manages).
    const oauth = this.opts.oauth && !Object.keys(headers).some((h) => h.toLowerCase() === "authorization") ? (slot.oauth ??= this.oauthProvider(c)) : undefined;
    if (oauth) {
      await oauth.load();
      oauth.pending = undefined;
    }
    // Every response body bounded as a stdio server's line is (MAX_MESSAGE_BYTES): past it the
    // server is stopped, and the person and the model are told why (http-limit.ts).
    const limit: { fatal?: string; stop?: () => void } = {};
    const fetch = limitedFetch((why) => {
      if (limit.fatal) return;
      limit.fatal = why;
      limit.stop?.();
    });
    const opts = { requestInit, fetch, ...(oauth ? { authProvider: oauth } : {}) };
    // A transport that failed to connect is closed at once: the SSE transport's EventSource (and
    // a streamable HTTP GET stream) otherwise keeps reconnecting to a server that is not there, and
    // that alone keeps `yoke run` and `yoke mcp list` from ever exiting. A start that times out
    // closes what it is trying (slot.abandon) for the same reason.
    const attempt = async (transport: InstanceType<typeof SSEClientTransport> | InstanceType<typeof StreamableHTTPClientTransport>): Promise<Client> => {
      const client = newClient();
      slot.abandon = () => transport.close();
      limit.stop = () => void transport.close().catch(() => undefined);
      try {
        // Each transport's connection is bounded on its own (a server that accepts and drops the
        // connection leaves Node's fetch of it pending: the SSE transport's start has no timeout
        // at all): `http` then still has time to try SSE.
        await timeout(client.connect(transport), REMOTE_CONNECT_TIMEOUT_MS, "connecting");
        return client;
      } catch (err) {
        await transport.close().catch(() => undefined);
        // An answer over the bound (an endless `initialize` answer) is why it failed, whatever the SDK says.
        throw limit.fatal ? new Error(`${limit.fatal}: Yoke stopped it`, { cause: err }) : err;
      }
    };
    const tryHttp = () => attempt(new StreamableHTTPClientTransport(url, opts));
    const trySse = () => attempt(new SSEClientTransport(url, opts));
    let client: Client;
    if (c.transport === "sse") client = await trySse();
    else {
      try {
        client = await tryHttp();
      } catch (httpErr) {
        // A server that wants a sign-in speaks streamable HTTP: no fall back to SSE.
        // Nor when it answered past the bound: it speaks streamable HTTP, too much.
        if (!c.fallbackToSse || oauth?.pending || httpErr instanceof UnauthorizedError || limit.fatal) throw httpErr;
        try {
          client = await trySse();
        } catch (sseErr) {
          throw new Error(`streamable HTTP: ${(httpErr as Error).message}; SSE: ${(sseErr as Error).message}`, { cause: sseErr });
        }
      }
    }
    client.onclose = () => onDied(limit.fatal ? `${limit.fatal}: Yoke stopped it` : "the connection closed");
    limit.stop = () => void client.close().catch(() => undefined);
    const transport = client.transport;
    return {
      client,
      stoppedBecause: () => limit.fatal,
      close: async () => {
        dropTasks();
        // Streamable HTTP: the server is told the session is over (DELETE with its Mcp-Session-Id,
        // the spec's "SHOULD"), or it keeps the session and what it holds for it until it decides to
        // drop it. The SDK's client.close() only closes the connection. Bounded: a server that does not
        // answer does not hold up the end of a session; a 405 (the server keeps no sessions) is fine.
        if (transport instanceof StreamableHTTPClientTransport && transport.sessionId)
          await timeout(transport.terminateSession(), REMOTE_TERMINATE_TIMEOUT_MS, "ending the session").catch(() => undefined);
        return client.close();
      },
    };
  }

  /**
   * The server asked for a sign-in (the SDK's auth() found no usable token, registered the client
   * if needed and made the PKCE authorization URL): the loopback listener starts, the user is
   * shown the URL, and the code the browser brings back is exchanged for tokens (kept in the
   * store). Without anyone to ask (headless), the start fails saying how to sign in.
   */
  private async signIn(slot: ServerSlot, oauth: McpOAuthProvider): Promise<void> {
    const c = slot.config;
    const url = oauth.pending;
    oauth.pending = undefined;
    const o = this.opts.oauth;
    if (!url || !o) throw new Error("no sign-in is pending");
    const again = oauth.hadTokens ? " again: its saved sign-in was refused (revoked, or expired and not renewable)" : "";
    if (!o.authorize || c.transport === "stdio") {
      // Said to the user too (the CLI's stderr): the session may go on without this server's tools.
      const why = `the MCP server "${c.name}" needs you to sign in (OAuth)${again}. ${o.howToSignIn?.(c.name) ?? "No one can be asked here."}`;
      this.opts.log?.(why);
      throw new Error(why);
    }
    // A pre-registered client's secret, asked once where someone can be (VS Code), kept in the store with the tokens.
    if (oauth.secretUnknown && o.askClientSecret && c.oauth?.clientId) {
      const secret = await o.askClientSecret({ server: c.name, clientId: c.oauth.clientId }).catch(() => undefined);
      if (secret !== undefined) await oauth.saveClientSecret(secret);
    }
    const ac = new AbortController();
    const stop = this.onDispose(() => ac.abort());
    let opened = false;
    try {
      const { code } = await oauth.listen(ac.signal, o.timeoutMs ?? SIGN_IN_TIMEOUT_MS);
      this.set(slot, "starting", `waiting for you to sign in${again} in the browser`);
      // Shown to the user (a question left unanswered is bounded by the listener's time).
      const shown = o.authorize({ server: c.name, url: url.href, signal: ac.signal }).then(
        () => void (opened = true),
        (err: unknown) => {
          throw new SignInRefused(`the MCP server "${c.name}" needs you to sign in (OAuth)${again}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        },
      );
      let answer: string;
      try {
        answer = await Promise.race([shown.then(() => code), code]);
        opened = true;
      } catch (err) {
        if (err instanceof SignInRefused) throw err;
        throw new Error(`signing in to the MCP server "${c.name}" failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      const { SSEClientTransport, StreamableHTTPClientTransport, limitedFetch } = await loadMcpSdk();
      const opts = { requestInit: { headers: slot.headers ?? c.headers }, authProvider: oauth, fetch: limitedFetch(() => undefined) };
      const transport = c.transport === "sse" ? new SSEClientTransport(new URL(c.url), opts) : new StreamableHTTPClientTransport(new URL(c.url), opts);
      try {
        // The SDK exchanges the code (with the PKCE verifier) and saves the tokens through the provider.
        await timeout(transport.finishAuth(answer), REMOTE_CONNECT_TIMEOUT_MS, "exchanging the authorization code");
      } catch (err) {
        throw new Error(`signing in to the MCP server "${c.name}" failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      } finally {
        await transport.close().catch(() => undefined);
      }
      this.opts.log?.(`MCP: signed in to "${c.name}" (OAuth); the tokens are kept in ${o.store.where}`);
    } finally {
      ac.abort();
      stop();
      // The redirect URI went to the browser once the page was opened (or answered): never handed out again.
      oauth.settleRedirect(opened);
    }
  }

  private readonly disposeListeners = new Set<() => void>();
  private onDispose(f: () => void): () => void {
    this.disposeListeners.add(f);
    return () => this.disposeListeners.delete(f);
  }

  /**
   * Connects to one remote server now (`yoke mcp login`): signs in when the server asks for it
   * (kept tokens are used, or renewed, first). Throws why it could not start.
   */
  async login(server: string): Promise<McpServerStatus> {
    const slot = this.slots.get(server);
    if (!slot) throw new Error(`no MCP server "${server}" is configured (configured: ${[...this.slots.keys()].join(", ") || "none"})`);
    if (slot.config.transport === "stdio") throw new Error(`the MCP server "${server}" runs as a program (stdio): it has no sign-in`);
    await this.decideApproval(slot);
    if (!slot.approved) throw new Error(`the MCP server "${server}" is not started: ${slot.detail ?? "not approved"}`);
    await this.ensureStarted(slot);
    return this.view(slot);
  }

  /**
   * Keeps the secret of a remote server's pre-registered OAuth client (`oauth.clientId`) in the
   * credential store, with its tokens (`yoke mcp login NAME --client-secret`). The secret is asked
   * for (`secret`) only for a server that may start: a repository's definition of the name (which
   * replaces your own server of that name) only once you approved it — else the secret you meant
   * for your server would be kept for the repository's URL and authorization server, and sent
   * there at the first sign-in after an approval.
   */
  async setClientSecret(server: string, secret: (c: McpRemoteServer) => Promise<string>): Promise<void> {
    const slot = this.slots.get(server);
    if (!slot) throw new Error(`no MCP server "${server}" is configured`);
    const c = slot.config;
    if (c.transport === "stdio") throw new Error(`the MCP server "${server}" runs as a program (stdio): it has no OAuth client`);
    if (!c.oauth?.clientId)
      throw new Error(`the MCP server "${server}" names no pre-registered OAuth client: a client secret goes with "oauth": { "clientId": "…" } in its definition (${c.sourcePath})`);
    if (!this.opts.oauth) throw new Error("no credential store is available here");
    await this.decideApproval(slot);
    if (!slot.approved) throw new Error(`the MCP server "${server}" is not started: ${slot.detail ?? "not approved"}; no client secret is asked for or kept for it`);
    const p = (slot.oauth ??= this.oauthProvider(c));
    await p.saveClientSecret(await secret(c));
  }

  /** Forgets the OAuth registration and tokens kept for a remote server (`yoke mcp logout`). */
  async signOut(server: string): Promise<boolean> {
    const slot = this.slots.get(server);
    if (!slot) throw new Error(`no MCP server "${server}" is configured`);
    if (slot.config.transport === "stdio" || !this.opts.oauth) return false;
    const p = (slot.oauth ??= this.oauthProvider(slot.config));
    await p.load();
    p.settleRedirect(false);
    const had = !!p.tokens() || !!p.clientInformation();
    await p.forget();
    return had;
  }

  /** A remote server's OAuth client, with its definition's pre-registered client, port, metadata URL and scopes (Claude Code's `oauth`). */
  private oauthProvider(c: McpRemoteServer): McpOAuthProvider {
    const o = this.opts.oauth!;
    return new McpOAuthProvider(c.name, c.url, o.store, o.receiver, o.alsoRegister, c.oauth);
  }

  /**
   * Runs a remote server's headersHelper (src/node/mcp/headers-helper.ts). It starts where a stdio
   * server of the same definition would (the workspace for a repository's; for your own, your home
   * folder: a command you wrote never picks up what the workspace planted, such as node_modules/.bin).
   * Its environment: for your own helper, Yoke's (as Claude Code gives it; your command, like your
   * shell) less the provider API keys; for a repository's, only the minimal set a stdio server gets.
   */
  private helperHeaders(c: McpRemoteServer): Promise<Record<string, string>> {
    const env = this.opts.env ?? process.env;
    return loadMcpSdk().then(({ DEFAULT_INHERITED_ENV_VARS }) =>
      runHeadersHelper({
        server: c.name,
        url: c.url,
        command: c.headersHelper!,
        cwd: this.serverFolder({ workspace: c.workspace }),
        // Never the provider API keys (invariant 8: not to hooks, MCP servers or commands): a helper of your
        // own, or of a plugin you enabled (the same kind of definition), could put one in a header to its server.
        env: c.workspace ? serverEnvironment(env, DEFAULT_INHERITED_ENV_VARS, {}) : withoutProviderSecrets(env),
      }),
    );
  }

  /** The folder a stdio server starts in (src/node/mcp/server-folder.ts: the person's own servers never in the workspace unless they say so). */
  private serverFolder(c: Pick<McpStdioServer, "cwd" | "workspace">): string {
    return stdioServerFolder(c, this.opts.cwd, this.opts.home, [...this.roots, ...(this.opts.workFolders ?? [])]);
  }

  private cacheFile(c: McpServerConfig): string {
    return join(this.opts.storageDir, "mcp-tools", `${ApprovalStore.key(this.opts.cwd, c).slice(0, 32)}.json`);
  }

  /**
   * What the cached tool list was listed from, besides the definition (the cache key): the size and
   * modification time of the server's program and of every argument that names a file (`node
   * server.js`, a venv's python and its script). A changed program is listed anew at the next
   * session start instead of offering last time's tools. (A package `npx` fetches, or a module
   * the script imports, is not seen: its tools update after one lazy start — see docs/mcp.md.)
   */
  private fingerprint(c: McpServerConfig): string {
    if (c.transport !== "stdio") return "";
    const cwd = this.serverFolder(c);
    const env = this.opts.env ?? process.env;
    const stamp = (path: string): string | undefined => {
      try {
        const st = statSync(path);
        return st.isFile() ? `${path}:${st.size}:${Math.round(st.mtimeMs)}` : undefined;
      } catch {
        return undefined;
      }
    };
    const onPath = (cmd: string): string | undefined => {
      if (cmd.includes("/") || cmd.includes("\\")) return stamp(resolve(cwd, cmd));
      for (const dir of (env.PATH ?? "").split(delimiter).filter(Boolean)) {
        const hit = stamp(join(dir, cmd));
        if (hit) return hit;
      }
      return undefined;
    };
    const parts = [onPath(c.command) ?? c.command, ...c.args.map((a) => (a.startsWith("-") ? undefined : stamp(resolve(cwd, a)))).filter((x): x is string => !!x)];
    return parts.join("\n");
  }

  /** The cached tools; `stale`: even when the program changed since (a server that cannot start now). */
  private readCache(c: McpServerConfig, stale = false): McpToolInfo[] | undefined {
    try {
      const v = JSON.parse(readFileSync(this.cacheFile(c), "utf8")) as { tools?: McpToolInfo[]; fingerprint?: string };
      if (!stale && v.fingerprint !== this.fingerprint(c)) return undefined;
      return Array.isArray(v.tools) ? v.tools : undefined;
    } catch {
      return undefined;
    }
  }

  private writeCache(c: McpServerConfig, tools: McpToolInfo[]): void {
    try {
      const file = this.cacheFile(c);
      mkdirSync(join(this.opts.storageDir, "mcp-tools"), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ server: c.name, at: new Date().toISOString(), fingerprint: this.fingerprint(c), tools }));
      renameSync(tmp, file);
    } catch (err) {
      this.opts.log?.(`MCP: could not cache the tools of "${c.name}": ${String(err)}`);
    }
  }
}

/** One URL elicitation a -32042 error carries (MCP 2025-11-25 `URLElicitationRequiredError`). */
const urlElicitationSchema = () => z.object({ mode: z.literal("url"), message: z.string(), url: z.string(), elicitationId: z.string().min(1) });
type UrlElicitation = z.infer<ReturnType<typeof urlElicitationSchema>>;
// Built when a call first fails for want of one, not when the module loads (docs/benchmarks.md, "Session 20: start20").
let urlElicitation: ReturnType<typeof urlElicitationSchema> | undefined;
/** At most this many URLs are asked for one call (a server cannot queue questions without end). */
const MAX_URL_ELICITATIONS = 3;

/** The URL elicitations a call's error requires (the SDK's UrlElicitationRequiredError, -32042), or undefined. */
async function urlElicitationsRequired(err: unknown): Promise<UrlElicitation[] | undefined> {
  const { McpError } = await loadMcpSdk();
  if (!(err instanceof McpError) || err.code !== URL_ELICITATION_REQUIRED) return undefined;
  const data = z.object({ elicitations: z.array(z.unknown()) }).safeParse(err.data);
  if (!data.success) return undefined;
  const urls = data.data.elicitations.flatMap((e) => {
    const p = (urlElicitation ??= urlElicitationSchema()).safeParse(e);
    return p.success ? [p.data] : [];
  });
  return urls.length ? urls.slice(0, MAX_URL_ELICITATIONS) : undefined;
}
/** ErrorCode.UrlElicitationRequired. */
const URL_ELICITATION_REQUIRED = -32042;

/** Where the URLs lead (their origins: a URL may carry a one-time code, never said to the model or the log). */
function origins(es: UrlElicitation[]): string {
  const out = es.map((e) => {
    try {
      return new URL(e.url).origin;
    } catch {
      return "a URL";
    }
  });
  return [...new Set(out)].join(", ");
}

type SamplingBlock = {
  type?: string;
  text?: string;
  mimeType?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
  toolUseId?: string;
  content?: unknown;
  isError?: boolean;
};
type SamplingParams = {
  messages: Array<{ role: string; content: unknown }>;
  systemPrompt?: string;
  maxTokens: number;
  modelPreferences?: { hints?: Array<{ name?: string }> };
  tools?: Array<{ name: string; description?: string; inputSchema: Record<string, unknown> }>;
  toolChoice?: { mode?: "auto" | "required" | "none" };
};

/**
 * A sampling request as the session is given it: text blocks as they are; an image or audio block as
 * a note (not passed to the model); tool calls and tool results (MCP 2025-11-25) as such, a result's
 * content as text (its structured content as JSON when it has no text).
 */
function samplingRequest(p: SamplingParams): McpSamplingRequest {
  const textOf = (blocks: SamplingBlock[]): string =>
    blocks.map((b) => (b?.type === "text" ? (b.text ?? "") : `[${b?.type ?? "content"}${b?.mimeType ? ` (${b.mimeType})` : ""} from the server: not passed to the model]`)).join("\n");
  const hints = (p.modelPreferences?.hints ?? []).map((h) => h.name).filter((n): n is string => !!n);
  const messages = p.messages.map((m): McpSamplingMessage => {
    const blocks = (Array.isArray(m.content) ? m.content : [m.content]) as SamplingBlock[];
    const uses = blocks.filter((b) => b?.type === "tool_use");
    const results = blocks.filter((b) => b?.type === "tool_result");
    const rest = blocks.filter((b) => b?.type !== "tool_use" && b?.type !== "tool_result");
    return {
      role: m.role === "assistant" ? "assistant" : "user",
      text: textOf(rest),
      ...(uses.length ? { toolUses: uses.map((b) => ({ id: b.id ?? "", name: b.name ?? "", input: b.input ?? {} })) } : {}),
      ...(results.length
        ? {
            toolResults: results.map((b) => {
              const content = (Array.isArray(b.content) ? b.content : []) as SamplingBlock[];
              const structured = (b as { structuredContent?: unknown }).structuredContent;
              const text = content.length ? textOf(content) : structured !== undefined ? JSON.stringify(structured) : "";
              return { toolUseId: b.toolUseId ?? "", text, isError: b.isError === true };
            }),
          }
        : {}),
    };
  });
  return {
    messages,
    ...(p.systemPrompt ? { systemPrompt: p.systemPrompt } : {}),
    maxTokens: p.maxTokens,
    ...(hints.length ? { modelHints: hints } : {}),
    ...(p.tools?.length ? { tools: p.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema })) } : {}),
    ...(p.toolChoice?.mode ? { toolChoice: p.toolChoice.mode } : {}),
  };
}
