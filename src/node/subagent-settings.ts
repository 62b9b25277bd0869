/**
 * The `subagents` key (proposed for contract section 4), through the one settings reader
 * (src/node/settings/reader.ts): a workspace may only lower the limits.
 */
import { homedir } from "node:os";
import { DEFAULT_SUBAGENT_SETTINGS, loadAgents, subagentsExtension, type SubagentSettings } from "../core/subagents";
import { workspaceAgentFiles } from "../core/subagents/agents";
import type { Provider } from "../core/providers/types";
import { folderAgentFiles, userAgentFolders, type AgentFolder } from "./custom-agents";
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
  const { agentFolders, model, skillDirs, ...keyOpts } = opts;
  const { settings, problems } = await readSubagentSettings(cwd, keyOpts);
  if (warn) for (const p of problems) warn(`settings: ${p}`);
  return subagentsExtension({
    settings,
    ...(model ? { model } : {}),
    ...(warn ? { warn: (m: string) => warn(`agents: ${m}`) } : {}),
    // An agent's `skills`: the skill's full text, found as the guidance loader finds skills (the workspace's, the user's, the plugins').
    skill: async (session, name) => {
      const set = await loadGuidance({
        fs: session.services.fs,
        files: createNodeGuidanceFiles({ ...(opts.home ? { home: opts.home } : {}), ...(skillDirs ? { skillDirs } : {}) }),
        access: session.services.access,
      });
      return effectiveEntries(set.entries).find((e) => e.kind === "skill" && e.name === name)?.body;
    },
    agents: async (session) => {
      // The workspace's through its file system; the user's and the plugins' from this machine.
      const files = [...(await workspaceAgentFiles(session.services.fs)), ...folderAgentFiles([...userAgentFolders(opts.home), ...(agentFolders ?? [])])];
      const { agents, problems: agentProblems } = loadAgents(files);
      if (warn) for (const p of agentProblems) warn(`agents: ${p.message}`);
      return agents;
    },
  });
}

export interface CustomAgentOptions {
  /** More agent folders: the enabled plugins' (src/node/plugins). */
  agentFolders?: AgentFolder[];
  /** More skill folders an agent's `skills` may name (the enabled plugins'). */
  skillDirs?: Array<{ dir: string; label: string }>;
  /** Makes the provider of a custom agent's model (a model id of the session's provider). */
  model?: (model: string) => Promise<Provider>;
}
