/**
 * The `subagents` key (proposed for contract section 4), through the one settings reader
 * (src/node/settings/reader.ts): a workspace may only lower the limits.
 */
import type { SandboxPath } from "./commands/sandbox/types";
import { lstat, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { AgentDefinition, AgentProblem } from "../core/subagents/agents";
import type { SessionInfo } from "../core/extensions/types";
import { describeDefinition, type McpSourceFile } from "../core/mcp/config";
import { ApprovalStore } from "./mcp/approvals";
import type { McpClientDeps } from "../core/mcp/client-requests";
import { createNodeMcp } from "./mcp/setup";
import { agentMcpRegistry } from "./mcp/agent-hubs";
import { DEFAULT_SUBAGENT_SETTINGS, loadAgents, subagentsExtension, type SubagentOptions, type SubagentSettings } from "../core/subagents";
import { workspaceAgentFiles } from "../core/subagents/agents";
import type { Provider } from "../core/providers/types";
import { folderAgentFiles, globalRooModeFiles, userAgentFolders, userModeRules, type AgentFolder, type RooStorage } from "./custom-agents";
import { projectModeRules } from "../core/subagents/roo-modes";
import { isolatedAgentRun, type IsolationHost } from "./background/isolated-agent";
import type { Extension } from "../core/extensions/types";
import { effectiveEntries, loadGuidance } from "../core/guidance";
import { createNodeGuidanceFiles } from "./guidance-files";
import { readSettings, type ReadSettingsOptions } from "./settings/reader";
import { problemsOf, type KeyReadOptions } from "./settings/key-options";

export async function readSubagentSettings(cwd: string, opts: string | KeyReadOptions = {}): Promise<{ settings: SubagentSettings; problems: string[] }> {
  const o: ReadSettingsOptions = typeof opts === "string" ? { cwd, home: opts } : { cwd, home: homedir(), ...opts };
  const r = await readSettings(o);
  const s = r.subagents;
  const settings: SubagentSettings = {
    maxDepth: s.maxDepth?.value ?? DEFAULT_SUBAGENT_SETTINGS.maxDepth,
    maxConcurrent: s.maxConcurrent?.value ?? DEFAULT_SUBAGENT_SETTINGS.maxConcurrent,
    ...(s.maxTurns ? { maxTurns: s.maxTurns.value } : {}),
  };
  return { settings, problems: problemsOf(r, "subagents") };
}

/** The subagents extension with the settings of the folder `cwd`; its problems go to `warn` when given (the CLI prints every settings problem in one place). */
export async function nodeSubagentsExtension(cwd: string, warn?: (message: string) => void, opts: KeyReadOptions & CustomAgentOptions = {}): Promise<Extension> {
  const { agentFolders, model, skillDirs, mcp, isolation, deliver, rooStorage, ...keyOpts } = opts;
  const { settings, problems } = await readSubagentSettings(cwd, keyOpts);
  if (warn) for (const p of problems) warn(`settings: ${p}`);
  return subagentsExtension({
    settings,
    ...(model ? { model } : {}),
    ...(warn ? { warn: (m: string) => warn(`agents: ${m}`) } : {}),
    // An agent's `isolation: worktree`: a git worktree of its own (src/node/background/isolated-agent.ts).
    ...(isolation
      ? { isolate: (agent: AgentDefinition, session: SessionInfo, task: { description: string; prompt: string; background?: boolean }) => isolatedAgentRun(isolation, agent, session, task) }
      : {}),
    ...(deliver ? { deliver } : {}), // `background: true` agents: the parent's turn hands back (SubagentOptions.deliver)
    // An agent's `memory: user`: ~/.claude/agent-memory/NAME/MEMORY.md (a regular file, bounded; a link is not followed).
    userMemory: (dirName: string) => readUserMemory(join(opts.home ?? homedir(), ".claude", "agent-memory", dirName, "MEMORY.md")),
    // An agent's `skills`: the skill's full text, found as the guidance loader finds skills (the workspace's, the user's, the plugins').
    skill: async (session, name) => {
      const set = await loadGuidance({
        fs: session.services.fs,
        files: createNodeGuidanceFiles({ ...(opts.home ? { home: opts.home } : {}), ...(skillDirs ? { skillDirs } : {}) }),
        access: session.services.access,
      });
      const skills = effectiveEntries(set.entries).filter((e) => e.kind === "skill");
      // A plugin's skill is `PLUGIN:NAME`; a bare name that only one plugin's skill has still finds it.
      const plugin = skills.filter((e) => e.name.endsWith(`:${name}`));
      return (skills.find((e) => e.name === name) ?? (plugin.length === 1 ? plugin[0] : undefined))?.body;
    },
    // An agent's own MCP servers (inline `mcpServers`): a hub for its run, with the approval rules of
    // the workspace's .mcp.json servers for a repository agent (trust, then your approval of that
    // definition, remembered in ~/.yoke/mcp-approvals.json), your own servers' for your agent.
    ...(mcp
      ? {
          agentServers: async (agent: AgentDefinition, session: SessionInfo, taken: readonly string[]) => {
            const nodeMcp = createNodeMcp({
              cwd,
              ...(opts.home ? { home: opts.home } : {}),
              trusted: session.trusted,
              ...(mcp.env ? { env: mcp.env } : {}),
              ...(mcp.client ? { client: mcp.client } : {}),
              ...(mcp.sandboxPaths ? { sandboxPaths: mcp.sandboxPaths } : {}),
              sources: [agentMcpSource(cwd, agent)],
              log: (m) => warn?.(`agents: ${agent.source}: ${m}`),
            });
            // Said where the user reads it (the hub records it in the agent's own log only).
            if (agent.origin === "project") {
              const approvals = new ApprovalStore(join(opts.home ?? homedir(), ".yoke", "mcp-approvals.json"));
              for (const srv of nodeMcp.servers) {
                const answer = session.trusted ? approvals.get(cwd, srv) : undefined;
                if (answer !== "allow")
                  warn?.(
                    `agents: ${agent.source}: not applied: its MCP server "${srv.name}" (${describeDefinition(srv)}) ${
                      !session.trusted
                        ? "does not start: the workspace is not trusted"
                        : answer === "deny"
                          ? "was declined by you"
                          : `waits for your approval: run \`yoke mcp approve ${srv.name}\` (or approve it in VS Code)`
                    }`,
                  );
              }
            }
            // Its own name, so the child keeps the session's MCP tools (a child drops the tools of an extension it sets up again).
            // Listed under the agent in the panel's MCP view while it runs (src/node/mcp/agent-hubs.ts).
            const unlist = agentMcpRegistry().add({ name: agent.name, source: agent.source }, nodeMcp.hub);
            return {
              extension: { ...nodeMcp.extension(taken), name: "agent-mcp" },
              dispose: () => {
                unlist();
                return nodeMcp.dispose();
              },
            };
          },
        }
      : {}),
    agents: async (session) => {
      const { agents, problems: agentProblems } = await sessionAgents(session, opts.home, agentFolders, rooStorage);
      if (warn) for (const p of agentProblems) warn(`agents: ${p.message}`);
      return agents;
    },
  });
}

/**
 * The custom agents of a session: the workspace's through its file system; the user's and the
 * plugins' from this machine; Roo Code's global custom modes are the user's (a .roomodes mode of
 * the same slug wins). The task tool and a Copilot prompt file's `agent` both read them here.
 */
export async function sessionAgents(
  session: Pick<SessionInfo, "services">,
  home?: string,
  agentFolders?: readonly AgentFolder[],
  rooStorage?: RooStorage,
): Promise<{ agents: AgentDefinition[]; problems: AgentProblem[] }> {
  const { fs, access } = session.services;
  // A Roo mode's rules: ~/.roo/rules-{slug}/ and the project's .roo/rules-{slug}/ (modeRules), for a .roomodes mode and a global one alike.
  const files = [
    ...(await workspaceAgentFiles(fs, access, userModeRules(home))),
    ...folderAgentFiles([...userAgentFolders(home), ...(agentFolders ?? [])]),
    ...(await globalRooModeFiles({ ...(home ? { home } : {}), ...(rooStorage ? { storage: rooStorage } : {}), project: projectModeRules(fs, access) })),
  ];
  return loadAgents(files);
}

/**
 * An agent's inline servers as a definitions file of its origin: a repository agent's are the
 * workspace's (trust, then the user's approval of that definition — never Claude Code's approvals of
 * `.mcp.json` servers by name), the user's agent's are the user's own.
 */
export function agentMcpSource(cwd: string, agent: AgentDefinition): McpSourceFile {
  const project = agent.origin === "project";
  return {
    kind: project ? "workspace-agent" : "claude-user",
    path: project ? join(cwd, agent.source) : agent.source,
    text: JSON.stringify({ mcpServers: agent.mcpServers?.inline ?? {} }),
  };
}

export interface CustomAgentOptions {
  /** Starts custom agents' own MCP servers (their inline `mcpServers`) with this environment and client. */
  /** `sandboxPaths`: the session's sandbox paths (their `rw` folders are no start folder for the person's servers). */
  mcp?: { env?: Record<string, string | undefined>; client?: McpClientDeps; sandboxPaths?: readonly SandboxPath[] };
  /** More agent folders: the enabled plugins' (src/node/plugins). */
  agentFolders?: AgentFolder[];
  /** More skill folders an agent's `skills` may name (the enabled plugins'). */
  skillDirs?: import("./guidance-files").SkillFolder[];
  /** Makes the provider of a custom agent's model (a model id of the session's provider). */
  model?: (model: string) => Promise<Provider>;
  /** Makes the worktree and the services of an agent with `isolation: worktree`; without it, such an agent is refused. */
  isolation?: IsolationHost;
  /** The host delivers a finished background agent's result as a turn of its own (SubagentOptions.deliver); without it, the parent's turn waits. */
  deliver?: SubagentOptions["deliver"];
  /** Where the running VS Code's Roo Code keeps its global modes (the extension host); the CLI looks in the usual places. */
  rooStorage?: RooStorage;
}

/** A user-scope agent memory file: read only when it is a regular file (not a link) of at most 256 KB. */
async function readUserMemory(path: string): Promise<string | undefined> {
  const st = await lstat(path).catch(() => undefined);
  if (!st?.isFile() || st.size > 256 * 1024) return undefined;
  return readFile(path, "utf8").catch(() => undefined);
}
