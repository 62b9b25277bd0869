/**
 * What the enabled plugins contribute to a session (src/node/plugins/store.ts keeps them):
 * agents (the custom agents loader), skills (the guidance loader), commands (the folders for the
 * command loader), and — only once the user approved the plugin as installed — hooks (as one more
 * settings source of the permission engine, allowed to block, never to allow) and MCP servers.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { CommandSource } from "../../core/custom-commands/types";
import type { McpSourceFile } from "../../core/mcp/config";
import type { OutputStyleSource } from "../../core/output-styles";
import type { LoadedSource } from "../../core/permissions/types";
import type { AgentFolder } from "../custom-agents";
import type { SkillFolder } from "../guidance-files";
import { activePlugins, type ActivePlugin } from "./store";

export * from "./store";
export { readPluginFolder, substituteRoot, type PluginFolder, type PluginComponents, type PluginManifest } from "./manifest";

export interface PluginScope {
  home: string;
  /** The workspace folder: its settings may enable or disable installed plugins when trusted. */
  cwd?: string;
  trusted: boolean;
}

const active = (s: PluginScope): ActivePlugin[] => activePlugins(s.home, s.cwd, s.trusted);
const label = (p: ActivePlugin, abs: string) => `plugin ${p.id}: ${abs.slice(p.folder.root.length + 1) || "."}`;

/** The enabled plugins' agent folders, each agent named `plugin:agent` as in Claude Code (the lowest priority on a clash). */
export function pluginAgentFolders(s: PluginScope): AgentFolder[] {
  return active(s).flatMap((p) => p.folder.components.agents.map((path) => ({ path, origin: "plugin" as const, label: label(p, path), namespace: p.folder.manifest.name })));
}

/** The enabled plugins' skill folders (each holding skill folders with a SKILL.md); their skills are `PLUGIN:NAME`, as in Claude Code. */
export function pluginSkillFolders(s: PluginScope): SkillFolder[] {
  return active(s).flatMap((p) => p.folder.components.skills.map((dir) => ({ dir, label: label(p, dir), namespace: p.folder.manifest.name, root: p.folder.root })));
}

/**
 * The enabled plugins' command folders, for the custom command loader: each folder (or .md file)
 * with the plugin's name (Claude Code shows plugin commands as `/plugin-name:command`) and a label
 * saying where it came from.
 */
export function pluginCommandFolders(s: PluginScope): Array<{ path: string; plugin: string; namespace: string; origin: string; root: string }> {
  return active(s).flatMap((p) => p.folder.components.commands.map((path) => ({ path, plugin: p.id, namespace: p.folder.manifest.name, origin: label(p, path), root: p.folder.root })));
}

/** The enabled plugins' commands, as sources of the custom command loader (`/plugin:command`): folders, and single files a plugin.json names; and their skills (`/plugin:skill`, as Claude Code runs them). */
export function pluginCommandSources(s: PluginScope): CommandSource[] {
  const skills = active(s).flatMap((p) =>
    p.folder.components.skills.map((dir): CommandSource => {
      const path = dir.replace(/\\/g, "/");
      const base = { format: "claude" as const, origin: `plugin:${p.id}`, namespace: p.folder.manifest.name, layout: "skills" as const, pluginRoot: p.folder.root.replace(/\\/g, "/") };
      // A skill folder itself (`"skills": ["./skills/xlsx"]`): its parent, with only that skill.
      if (existsSync(join(dir, "SKILL.md"))) {
        const at = path.lastIndexOf("/");
        return { dir: path.slice(0, at), files: [`${path.slice(at + 1)}/SKILL.md`], ...base };
      }
      return { dir: path, ...base };
    }),
  );
  const commands = pluginCommandFolders(s).map((f) => {
    const path = f.path.replace(/\\/g, "/");
    const base = { format: "claude" as const, origin: `plugin:${f.plugin}`, namespace: f.namespace, pluginRoot: f.root.replace(/\\/g, "/") };
    if (!/\.md$/i.test(path)) return { dir: path, ...base };
    const at = path.lastIndexOf("/");
    return { dir: path.slice(0, at), files: [path.slice(at + 1)], ...base };
  });
  return [...skills, ...commands];
}

/**
 * The enabled plugins' output styles (`output-styles/*.md`, or the folders and files plugin.json's
 * `outputStyles` names), each `PLUGIN:NAME`, after the project's and the user's (lowest priority).
 * A style is text for the system prompt and runs nothing, so it needs no approval, as commands do not.
 */
export function pluginOutputStyleSources(s: PluginScope): OutputStyleSource[] {
  return active(s).flatMap((p) =>
    p.folder.components.outputStyles.map((abs): OutputStyleSource => {
      const path = abs.replace(/\\/g, "/");
      const base = { origin: `plugin:${p.id}`, namespace: p.folder.manifest.name };
      if (!/\.md$/i.test(path)) return { dir: path, ...base };
      const at = path.lastIndexOf("/");
      return { dir: path.slice(0, at), files: [path.slice(at + 1)], ...base };
    }),
  );
}

/** The approved plugins' hooks, as settings sources (lowest priority): shared-like, so a hook may block but never allow. */
export function pluginHookSources(s: PluginScope): LoadedSource[] {
  return active(s)
    .filter((p) => p.approved && p.folder.components.hooks)
    .map((p) => ({
      info: {
        kind: "user" as const,
        label: `plugin ${p.id} (${p.folder.components.hooksFrom ?? "hooks"})`,
        path: join(p.folder.root, "hooks", "hooks.json"),
        baseDir: s.cwd ?? p.folder.root,
        checkedIn: true,
        checkedInWhy: `it comes with the plugin ${p.id}`,
        hookEnv: { CLAUDE_PLUGIN_ROOT: p.folder.root },
      },
      text: JSON.stringify({ hooks: p.folder.components.hooks }),
    }));
}

/** The approved plugins' MCP servers, as the user's own definitions (the approval was the plugin's). */
export function pluginMcpSourceFiles(s: PluginScope): McpSourceFile[] {
  return active(s)
    .filter((p) => p.approved && p.folder.components.mcpServers)
    .map((p) => ({ kind: "user-settings" as const, path: join(p.folder.root, p.folder.components.mcpFrom ?? ".mcp.json"), text: JSON.stringify({ mcpServers: p.folder.components.mcpServers }) }));
}

/** The enabled plugins whose hooks or servers wait for the user's approval (told to the user at session start). */
export function pluginsAwaitingApproval(s: PluginScope): string[] {
  return active(s)
    .filter((p) => p.runsPrograms && !p.approved)
    .map((p) => p.id);
}
