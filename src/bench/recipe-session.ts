/**
 * A bench's session, built by THE session recipe (src/node/session-recipe.ts) as the CLI builds one:
 * the settings of a temporary workspace and home read by the one settings reader, every mechanism
 * the recipe lists, the Node services (permission engine, hooks, command runner). What a bench
 * passes is only what a host passes: its scripted model, its store, a fixed approver (allow), its
 * tools. A bench that wants data in the session (lessons, rules, settings) writes it into its
 * workspace or home, where a real session finds it.
 */
import { join } from "node:path";
import { AgentSession, type AgentSessionOptions } from "../core/loop/agent-session";
import type { PermissionMode } from "../core/loop/types";
import type { SessionStore } from "../core/ports";
import type { Provider } from "../core/providers/types";
import type { ToolDefinition } from "../core/tools/types";
import { createNodeWorkspaceFs } from "../node/node-fs";
import { createRipgrepSearcher } from "../node/ripgrep-searcher";
import { sessionRecipe, type SessionHost } from "../node/session-recipe";
import { readSessionSettings, type SessionSettings } from "../node/session-settings";

export interface BenchSessionOptions {
  /** The bench's workspace folder (a temporary folder it made). */
  cwd: string;
  /** The bench's home folder (a temporary folder beside the workspace): the user's own ~/.yoke and ~/.claude never count in a figure. */
  home: string;
  provider: Provider;
  store: SessionStore;
  /** The tools before the recipe's wrappers (default: the built-in tools). */
  tools?: ToolDefinition[];
  permissionMode?: PermissionMode;
  limits?: SessionHost["limits"];
  /** The platform the system prompt names (default: this machine's). */
  platform?: string;
}

export interface BenchSession {
  session: AgentSession;
  settings: SessionSettings;
  options: AgentSessionOptions;
  /** Ends the session and what the recipe started (MCP servers, traces). */
  dispose(): Promise<void>;
}

/** The recipe's options for a bench: the caller creates the session (or adjusts what only a fixture needs). */
export async function benchRecipe(opts: BenchSessionOptions): Promise<{ settings: SessionSettings; options: AgentSessionOptions; dispose(): Promise<void> }> {
  const home = opts.home;
  const settings = await readSessionSettings({ cwd: opts.cwd, home, sessionDir: join(home, ".yoke", "sessions"), trusted: true });
  const recipe = await sessionRecipe(settings, {
    store: opts.store,
    fs: createNodeWorkspaceFs(opts.cwd),
    search: createRipgrepSearcher(),
    warn: (m) => process.stderr.write(`bench: ${m}\n`),
    models: { primary: opts.provider, make: async () => opts.provider },
    approver: { ask: async () => ({ decision: "allow" }) },
    permissionMode: opts.permissionMode ?? "bypassPermissions",
    ...(opts.tools ? { tools: opts.tools } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.platform ? { platform: opts.platform } : {}),
    env: { ...process.env, HOME: home },
  });
  return { settings, options: recipe.options, dispose: () => recipe.dispose() };
}

/** A new session from the recipe. */
export async function benchSession(opts: BenchSessionOptions): Promise<BenchSession> {
  const { settings, options, dispose } = await benchRecipe(opts);
  const session = await AgentSession.create(options);
  return {
    session,
    settings,
    options,
    dispose: async () => {
      await session.end();
      await dispose();
    },
  };
}
