/**
 * Everything that customizes a Yoke session in a folder, in one listing (issue 23): project memory
 * and rules, lessons, skills (the guidance loader's), custom slash commands, custom agents, output
 * styles, hooks, plugins and MCP servers — each with where it came from (built-in, user, project,
 * plugin; its file), how it comes into force and whether it is in force now, and the problems found
 * (`path:line: message`). `yoke lessons list` prints it and the panel's Customizations view shows
 * it: one function feeds both.
 *
 * Given the events of a session (the panel's live session), the guidance entries the session sent
 * are marked in force (with the reasons it logged) and those the budget left out as over budget.
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { relative, resolve, sep } from "node:path";
import { originLabel } from "../core/custom-commands";
import type { SessionEvent } from "../core/events";
import { effectiveEntries, entryState, loadGuidance } from "../core/guidance";
import type { GuidanceEntry, GuidanceSet } from "../core/guidance/types";
import { loadAgentIgnoreFiles } from "../core/permissions/ignore-files";
import { mergeSettings } from "../core/permissions/merge-settings";
import type { HookGroupConfig, LoadedSource } from "../core/permissions/types";
import { loadAgents, workspaceAgentFiles } from "../core/subagents/agents";
import { findStyle } from "../core/output-styles";
import { loadNodeCommands, loadNodeOutputStyles, outputStyleSetting } from "./custom-commands";
import { folderAgentFiles, globalRooModeFiles, userAgentFolders, userModeRules, type RooStorage } from "./custom-agents";
import { projectModeRules } from "../core/subagents/roo-modes";
import { createNodeGuidanceFiles } from "./guidance-files";
import { loadMcpConfig } from "./mcp/config-files";
import { createNodeWorkspaceFs } from "./node-fs";
import { folderGate } from "./permission-check";
import {
  enabledState,
  installedPlugins,
  knownMarketplaces,
  pluginAgentFolders,
  pluginCommandSources,
  pluginOutputStyleSources,
  pluginDigest,
  pluginHookSources,
  pluginMcpSourceFiles,
  pluginSkillFolders,
  readMarketplace,
  readPluginFolder,
  type PluginFolder,
} from "./plugins";
import { readApprovalsPublic } from "./plugins/store";
import { createRipgrepSearcher } from "./ripgrep-searcher";
import { loadSettingsSources } from "./settings/files";

export type CustomizationKind = "memory" | "rule" | "skill" | "lesson" | "command" | "agent" | "output-style" | "hook" | "plugin" | "mcp-server" | "ignore-file" | "excluded";
export type CustomizationOrigin = "builtin" | "user" | "project" | "plugin";

/**
 * How it comes into force, or why it does not:
 * always · folder · glob · listed (agent-requested: by description) · manual (only when named:
 * `@name`, `/name`, a pin) · match (a lesson) · active (in force in this session now) · over-budget
 * (applies, left out by the guidance budget) · enabled · disabled · not-approved (a plugin's hooks
 * and servers wait for the user) · not-trusted (the folder is not trusted) · needs-approval (asked
 * when the session starts) · inactive · overridden · excluded.
 */
export type CustomizationState =
  | "always"
  | "folder"
  | "glob"
  | "listed"
  | "manual"
  | "match"
  | "active"
  | "over-budget"
  | "enabled"
  | "disabled"
  | "not-approved"
  | "not-trusted"
  | "needs-approval"
  | "inactive"
  | "overridden"
  | "excluded";

export interface Customization {
  kind: CustomizationKind;
  name: string;
  origin: CustomizationOrigin;
  /** The plugin it comes with (`name@marketplace`). */
  plugin?: string;
  /** For people: a workspace-relative path, `~/…`, `plugin x@m: agents/a.md`. */
  source: string;
  /** The file (absolute), to open it. */
  path?: string;
  state: CustomizationState;
  /** In force now (sent, running, offered to the model), not only when something happens. */
  inForce: boolean;
  why: string;
  description?: string;
  /** The guidance id (`kind:source`) pin and mute use. */
  id?: string;
}

export interface CustomizationProblem {
  path: string;
  line?: number;
  message: string;
  /** `path:line`. */
  at: string;
}

export interface PluginProgram {
  kind: "hook" | "mcp-server";
  /** The hook's event, or the server's name. */
  name: string;
  /** What would run: the command line, or the server's URL. */
  run: string;
}

export interface PluginListing {
  id: string;
  name: string;
  version?: string;
  description?: string;
  path: string;
  enabled: boolean;
  /** Which settings file enabled (or disabled) it. */
  enabledBy?: string;
  /** It has hooks or MCP servers (which need the user's approval to run). */
  runsPrograms: boolean;
  /** Approved as installed now (the digest of its files matches the approval). */
  approved: boolean;
  /** The digest of its files now (what an approval is keyed on). */
  digest: string;
  /** What its hooks and servers would run, for the user to read before approving. */
  programs: PluginProgram[];
  components: { commands: number; agents: number; skills: number };
  problems: string[];
}

export interface MarketplaceListing {
  name: string;
  plugins: Array<{ id: string; name: string; description?: string; installed: boolean }>;
  problem?: string;
}

export interface CustomizationListing {
  items: Customization[];
  /** The guidance loader's own set (for `yoke lessons list --json`'s `entries`). */
  guidance: GuidanceSet;
  problems: CustomizationProblem[];
  plugins: PluginListing[];
  marketplaces: MarketplaceListing[];
}

export interface ListOptions {
  cwd: string;
  home?: string;
  /** More workspace folders. */
  folders?: readonly string[];
  /** The folder is trusted (its settings may loosen, its hooks run, it may enable plugins). */
  trusted: boolean;
  /** A session's events: what it sent, and what the budget left out. */
  events?: readonly SessionEvent[];
  /** The built-in lessons folder (null: none; default: the installed package's). */
  builtinDir?: string | null;
  /** Read the workspace's files with synchronous calls (the CLI; never the extension host): createNodeWorkspaceFs's `syncReads`. */
  syncReads?: boolean;
  /** Where the running VS Code's Roo Code keeps its global modes (the panel); the CLI looks in the usual places. */
  rooStorage?: RooStorage;
}

const posix = (p: string) => p.split(sep).join("/");
const at = (p: { path: string; line?: number }) => `${p.path}${p.line ? `:${p.line}` : ""}`;

/** The guidance entry's origin in the listing's words. */
function guidanceOrigin(e: GuidanceEntry): { origin: CustomizationOrigin; plugin?: string } {
  const m = /^plugin ([^:]+):/.exec(e.source);
  if (m) return { origin: "plugin", plugin: m[1]! };
  return { origin: e.origin === "workspace" ? "project" : e.origin };
}

const ALWAYS_IN_FORCE = new Set(["always"]);

/** What one session's guidance events say: the entries sent (with why) and those the budget left out. */
function sessionGuidance(events: readonly SessionEvent[] | undefined): { sent: Map<string, { reasons: string[]; listed: boolean }>; withheld: Set<string> } {
  const sent = new Map<string, { reasons: string[]; listed: boolean }>();
  const withheld = new Set<string>();
  for (const e of events ?? []) {
    if (e.type !== "guidance") continue;
    for (const i of e.injected) {
      const prev = sent.get(i.id);
      if (prev && !prev.listed) continue;
      sent.set(i.id, { reasons: i.reasons, listed: Boolean(i.listed) });
      if (!i.listed) withheld.delete(i.id);
    }
    for (const id of e.withheld ?? []) if (!sent.get(id) || sent.get(id)!.listed) withheld.add(id);
  }
  return { sent, withheld };
}

/** Everything found for the folder `cwd`, in force or not, with why, and the problems. */
export async function listCustomizations(o: ListOptions): Promise<CustomizationListing> {
  const cwd = resolve(o.cwd);
  const home = o.home ?? homedir();
  const scope = { home, cwd, trusted: o.trusted };
  const items: Customization[] = [];
  const problems: CustomizationProblem[] = [];
  const problem = (path: string, message: string, line?: number) => problems.push({ path, ...(line ? { line } : {}), message, at: at({ path, line }) });
  const tilde = (abs: string) => {
    const rel = posix(relative(home, abs));
    const inCwd = posix(relative(cwd, abs));
    if (!inCwd.startsWith("..")) return inCwd;
    return rel.startsWith("..") ? posix(abs) : `~/${rel}`;
  };

  // --- guidance: memory, rules, skills, lessons (and the files left out on purpose) ---
  const gate = folderGate({ cwd, home, trusted: o.trusted });
  const fs = createNodeWorkspaceFs(cwd, { ...(o.folders ? { folders: o.folders.map((root) => ({ root })) } : {}), ...(o.syncReads ? { syncReads: true } : {}) });
  const set = await loadGuidance({
    fs,
    files: createNodeGuidanceFiles({ home, skillDirs: pluginSkillFolders(scope), ...(o.builtinDir !== undefined ? { builtinDir: o.builtinDir } : {}) }),
    nestedMemory: true,
    search: createRipgrepSearcher(),
    access: { deniedBy: (permission, abs) => gate.deniedBy(permission, abs) },
  });
  const effective = new Set(effectiveEntries(set.entries));
  const session = sessionGuidance(o.events);
  for (const e of set.entries) {
    const base = effective.has(e)
      ? entryState(e)
      : { state: "overridden" as const, why: "another entry of the same kind and name (the workspace's over the user's over the built-in one) is used instead" };
    let state: CustomizationState = base.state;
    let why = base.why;
    let inForce = ALWAYS_IN_FORCE.has(base.state) && (!e.dir || !!e.above);
    const sent = session.sent.get(e.id);
    if (o.events && effective.has(e)) {
      if (sent && !sent.listed) {
        state = "active";
        inForce = true;
        why = `in force in this session: ${sent.reasons.join("; ")}`;
      } else if (session.withheld.has(e.id)) {
        state = "over-budget";
        inForce = false;
        why = `it applies, but the guidance budget left it out (the model was told its name: load_skill ${e.name} loads it)`;
      } else if (sent?.listed) {
        inForce = true;
        why = `listed to the model in this session (${sent.reasons.join("; ")}); ${base.why}`;
      } else if (base.state === "always" && (!e.dir || e.above)) {
        inForce = false;
        why = `not sent yet in this session; ${base.why}`;
      }
      if (e.cut && !why.includes(e.cut)) why = `${why}; ${e.cut}`;
    }
    items.push({
      kind: e.kind,
      name: e.name,
      ...guidanceOrigin(e),
      source: e.source,
      path: e.path,
      state,
      inForce,
      why,
      ...(e.description ? { description: e.description } : {}),
      id: e.id,
    });
    // A skill's own hooks: from its load (load_skill, @name, /name) for the rest of the session; a repository's only in a trusted folder.
    const repo = e.origin === "workspace";
    for (const h of effective.has(e) && e.kind === "skill" ? (e.hooks ?? []) : []) {
      const event = e.fork && h.event === "Stop" ? "SubagentStop" : h.event;
      const loadedNow = !!sent && !sent.listed && !e.fork;
      for (const cmd of h.hooks) {
        const run = `${[cmd.command, ...(cmd.args ?? [])].join(" ")}${repo ? " (it may block, never allow)" : ""}`;
        items.push({
          kind: "hook",
          name: `${event}${h.matcher ? ` (${h.matcher})` : ""}`,
          ...guidanceOrigin(e),
          source: e.source,
          path: e.path,
          state: repo && !o.trusted ? "not-trusted" : loadedNow ? "active" : "manual",
          inForce: (!repo || o.trusted) && loadedNow,
          why:
            repo && !o.trusted
              ? `the skill "${e.name}"'s hook: does not run, the folder is not trusted (Restricted Mode)`
              : e.fork
                ? `runs only while the skill "${e.name}" runs (in its sub-agent), on ${event}: ${run}`
                : `${loadedNow ? "in force: the skill was loaded in this session" : `runs once the skill "${e.name}" is loaded (load_skill, @${e.name} or /${e.name})`}, for the rest of the session, on ${event}: ${run}`,
        });
      }
    }
  }
  for (const x of set.excluded ?? [])
    items.push({ kind: "excluded", name: x.source.split("/").pop() ?? x.source, origin: "project", source: x.source, path: x.path, state: "excluded", inForce: false, why: x.why });
  for (const p of set.problems) problem(p.path, p.message, p.line);

  // --- custom slash commands ---
  const places = { cwd, home, ...(o.folders ? { folders: o.folders } : {}) };
  const cmds = await loadNodeCommands(places, pluginCommandSources(scope));
  for (const c of cmds.commands) {
    const plugin = c.origin.startsWith("plugin:") ? c.origin.slice("plugin:".length) : undefined;
    items.push({
      kind: "command",
      name: `/${c.name}`,
      origin: plugin ? "plugin" : c.origin === "user" ? "user" : "project",
      ...(plugin ? { plugin } : {}),
      source: tilde(c.path),
      path: c.path,
      state: "manual",
      inForce: false,
      why: `runs when you type /${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""} ${originLabel(c)}${c.allowedTools.length && c.origin === "project" ? "; its allowed-tools are ignored (a repository's command cannot grant tools)" : ""}`,
      ...(c.description ? { description: c.description } : {}),
    });
    // Its own hooks: in force only while it runs, a repository's only in a trusted folder (as the agents' above).
    const repo = c.origin === "project";
    // A skill's (SKILL.md run as /name) are listed with the skill, above.
    for (const h of c.path.endsWith("/SKILL.md") ? [] : (c.hooks ?? [])) {
      const event = c.fork && h.event === "Stop" ? "SubagentStop" : h.event;
      for (const cmd of h.hooks) {
        items.push({
          kind: "hook",
          name: `${event}${h.matcher ? ` (${h.matcher})` : ""}`,
          origin: repo ? "project" : "user",
          source: tilde(c.path),
          path: c.path,
          state: repo && !o.trusted ? "not-trusted" : "active",
          inForce: !repo || o.trusted,
          why:
            repo && !o.trusted
              ? `the /${c.name} command's hook: does not run, the folder is not trusted (Restricted Mode)`
              : `${c.fork ? `runs only while /${c.name} runs (in its sub-agent)` : `runs from when /${c.name} runs, for the rest of the session`}, on ${event}: ${[cmd.command, ...(cmd.args ?? [])].join(" ")}${repo ? " (it may block, never allow)" : ""}`,
        });
      }
    }
  }
  for (const p of cmds.problems) problem(p.path, p.message, p.line);

  // --- output styles ---
  const styles = await loadNodeOutputStyles(places, pluginOutputStyleSources(scope));
  const sources = await loadSettingsSources({ cwd, home });
  const chosen = outputStyleSetting(sources.filter((s) => o.trusted || !["project", "project-local", "claude", "claude-local"].includes(s.info.kind)));
  const chosenStyle = chosen ? findStyle(styles.styles, chosen) : undefined;
  for (const s of styles.styles) {
    const on = chosenStyle === s;
    items.push({
      kind: "output-style",
      name: s.name,
      origin: s.origin.startsWith("plugin:") ? "plugin" : s.origin === "user" ? "user" : "project",
      ...(s.origin.startsWith("plugin:") ? { plugin: s.origin.slice("plugin:".length) } : {}),
      source: tilde(s.path),
      path: s.path,
      state: on ? "active" : "manual",
      inForce: on,
      why: on
        ? `chosen by the outputStyle setting: it replaces the system prompt's coding instructions${s.keepCodingInstructions ? " (kept: keep-coding-instructions)" : ""}`
        : `chosen with /output-style ${s.name} or --output-style ${s.name}`,
      ...(s.description ? { description: s.description } : {}),
    });
  }
  for (const p of styles.problems) problem(p.path, p.message, p.line);

  // --- custom agents ---
  const agentFiles = [
    ...(await workspaceAgentFiles(fs, undefined, userModeRules(home))),
    ...folderAgentFiles([...userAgentFolders(home), ...pluginAgentFolders(scope)]),
    ...(await globalRooModeFiles({ home, ...(o.rooStorage ? { storage: o.rooStorage } : {}), project: projectModeRules(fs) })),
  ];
  const loaded = loadAgents(agentFiles);
  const agentPaths = new Map(agentFiles.map((f) => [f.display, f.path]));
  for (const a of loaded.agents) {
    const plugin = a.origin === "plugin" ? /^plugin ([^:]+):/.exec(a.source)?.[1] : undefined;
    const path = agentPaths.get(a.source);
    items.push({
      kind: "agent",
      name: a.name,
      origin: a.origin,
      ...(plugin ? { plugin } : {}),
      source: a.source,
      ...(path ? { path } : {}),
      state: a.modelInvocable ? "listed" : "manual",
      inForce: a.modelInvocable,
      why: a.modelInvocable
        ? `offered to the model by its description in the task tool${a.tools ? ` (tools: ${a.tools.join(", ")})` : ""}; you can ask for it by name (@agent-${a.name})`
        : `only when you ask for it by name (@agent-${a.name}): the model does not pick it`,
      description: a.description,
    });
    // Its own hooks and MCP servers: in force only while it runs, with the repository's trust and approval rules.
    const repo = a.origin === "project";
    for (const h of a.hooks ?? []) {
      for (const cmd of h.hooks) {
        items.push({
          kind: "hook",
          name: `${h.event}${h.matcher ? ` (${h.matcher})` : ""}`,
          origin: a.origin,
          source: a.source,
          ...(path ? { path } : {}),
          state: repo && !o.trusted ? "not-trusted" : "active",
          inForce: !repo || o.trusted,
          why:
            repo && !o.trusted
              ? `the "${a.name}" agent's hook: does not run, the folder is not trusted (Restricted Mode)`
              : `runs only while the "${a.name}" agent runs, on ${h.event}: ${[cmd.command, ...(cmd.args ?? [])].join(" ")}${repo ? " (it may block, never allow)" : ""}`,
        });
      }
    }
    for (const [name, def] of Object.entries(a.mcpServers?.inline ?? {})) {
      const run = typeof def.command === "string" ? [def.command, ...(Array.isArray(def.args) ? def.args.map(String) : [])].join(" ") : String(def.url ?? "");
      items.push({
        kind: "mcp-server",
        name,
        origin: a.origin,
        source: a.source,
        ...(path ? { path } : {}),
        state: repo ? (o.trusted ? "needs-approval" : "not-trusted") : "enabled",
        inForce: !repo,
        why: repo
          ? o.trusted
            ? `the "${a.name}" agent's own server (the repository's): it starts while the agent runs once you approve it (\`yoke mcp approve ${name}\`): ${run}`
            : `the "${a.name}" agent's own server (the repository's): the folder is not trusted, so it does not start`
          : `starts while the "${a.name}" agent runs: ${run}`,
      });
    }
  }
  for (const p of loaded.problems) {
    const m = /^(.*?):(\d+): (.*)$/s.exec(p.message);
    if (m) problem(m[1]!, m[3]!, Number(m[2]));
    else problems.push({ path: "", message: p.message, at: "" });
  }

  // --- hooks: what the settings files define, and which run here ---
  const pluginHooks = pluginHookSources(scope);
  const all: LoadedSource[] = [...pluginHooks, ...sources];
  const everything = mergeSettings(all, { trusted: true });
  const running = mergeSettings(all, { trusted: o.trusted });
  const key = (h: HookGroupConfig) => `${h.source.path ?? h.source.label}\0${h.event}\0${h.matcher}\0${h.hooks.map((x) => x.command).join("\0")}`;
  const runs = new Set(running.hooks.map(key));
  const workspaceKinds = new Set(["project", "project-local", "claude", "claude-local", "vscode-workspace"]);
  for (const h of everything.hooks) {
    const plugin = h.source.hookEnv?.CLAUDE_PLUGIN_ROOT ? /^plugin ([^ ]+)/.exec(h.source.label)?.[1] : undefined;
    const on = runs.has(key(h));
    const repo = workspaceKinds.has(h.source.kind);
    for (const cmd of h.hooks) {
      items.push({
        kind: "hook",
        // A Cursor hook by its own event's name (hooks/cursor.ts maps it onto Claude Code's).
        name: cmd.cursor ? `${cmd.cursor.event} (Cursor: ${h.event})` : cmd.kiro ? `${cmd.kiro.name} (Kiro ${cmd.kiro.trigger}: ${h.event})` : `${h.event}${h.matcher ? ` (${h.matcher})` : ""}`,
        origin: plugin ? "plugin" : repo ? "project" : h.source.kind === "managed" ? "user" : "user",
        ...(plugin ? { plugin } : {}),
        source: h.source.path ? tilde(h.source.path) : h.source.label,
        ...(h.source.path ? { path: h.source.path } : {}),
        state: on ? "always" : !o.trusted && repo ? "not-trusted" : "disabled",
        inForce: on,
        why: on
          ? `runs on ${h.event}: ${[cmd.command, ...(cmd.args ?? [])].join(" ")}${repo || plugin ? " (it may block, never allow)" : ""}`
          : !o.trusted && repo
            ? "does not run: the folder is not trusted (Restricted Mode)"
            : 'does not run: "disableAllHooks" (or allowManagedHooksOnly) is set',
      });
    }
  }
  for (const p of running.problems)
    if (p.level !== "info" && /hooks/.test(p.message)) problems.push({ path: p.source.path ?? p.source.label, message: p.message, at: p.source.path ?? p.source.label });

  // --- plugins: installed ones (enabled or not, approved or not), their unapproved programs, the marketplaces ---
  const plugins = listPlugins(home, cwd, o.trusted);
  for (const p of plugins) {
    items.push({
      kind: "plugin",
      name: p.id,
      origin: "plugin",
      plugin: p.id,
      source: p.path,
      path: p.path,
      state: !p.enabled ? "disabled" : p.runsPrograms && !p.approved ? "not-approved" : "enabled",
      inForce: p.enabled,
      why: !p.enabled
        ? `disabled${p.enabledBy ? ` (${tilde(p.enabledBy)})` : ""}: none of its commands, agents, skills, hooks or servers are used`
        : p.runsPrograms && !p.approved
          ? `enabled; its commands, agents and skills are used, its hooks and MCP servers wait for your approval (${p.programs.length} program${p.programs.length === 1 ? "" : "s"})`
          : `enabled${p.enabledBy ? ` by ${tilde(p.enabledBy)}` : ""}${p.runsPrograms ? "; its hooks and MCP servers are approved as installed now" : ""}`,
      ...(p.description ? { description: p.description } : {}),
    });
    if (p.enabled && p.runsPrograms && !p.approved) {
      for (const prog of p.programs.filter((x) => x.kind === "hook")) {
        items.push({
          kind: "hook",
          name: prog.name,
          origin: "plugin",
          plugin: p.id,
          source: `plugin ${p.id}`,
          path: p.path,
          state: "not-approved",
          inForce: false,
          why: `waits for your approval of ${p.id}: ${prog.run}`,
        });
      }
    }
    for (const pr of p.problems) problem(p.path, pr);
  }

  // --- MCP servers: the settings files', .mcp.json's and approved plugins' (defined, not started here) ---
  try {
    const mcp = loadMcpConfig(
      cwd,
      home,
      { env: process.env as Record<string, string | undefined> },
      [],
      [...sources, ...pluginMcpSourceFiles(scope).map((f) => ({ info: { kind: "user" as const, label: f.path, path: f.path, baseDir: cwd }, text: f.text }))],
    );
    for (const s of mcp.servers) {
      const plugin = plugins.find((p) => s.sourcePath.startsWith(p.path));
      const workspace = s.workspace;
      items.push({
        kind: "mcp-server",
        name: s.name,
        origin: plugin ? "plugin" : workspace ? "project" : "user",
        ...(plugin ? { plugin: plugin.id } : {}),
        source: tilde(s.sourcePath),
        path: s.sourcePath,
        state: workspace ? (o.trusted ? "needs-approval" : "not-trusted") : "enabled",
        inForce: !workspace,
        why: workspace
          ? o.trusted
            ? "the repository's server: it starts once you approve it (asked when a session starts)"
            : "the repository's server: the folder is not trusted, so it does not start"
          : `starts for the session: ${s.transport === "stdio" ? [s.command, ...s.args].join(" ") : s.url}`,
      });
    }
    for (const p of mcp.problems) problem(p.sourcePath, p.message);
  } catch (err) {
    problem(cwd, `MCP servers: ${err instanceof Error ? err.message : String(err)}`);
  }
  for (const p of plugins.filter((x) => x.enabled && x.runsPrograms && !x.approved)) {
    for (const prog of p.programs.filter((x) => x.kind === "mcp-server")) {
      items.push({
        kind: "mcp-server",
        name: prog.name,
        origin: "plugin",
        plugin: p.id,
        source: `plugin ${p.id}`,
        path: p.path,
        state: "not-approved",
        inForce: false,
        why: `waits for your approval of ${p.id}: ${prog.run}`,
      });
    }
  }

  // --- other agents' ignore files: deny rules of the permission engine (core/permissions/ignore-files.ts) ---
  const ignoreFiles = await loadAgentIgnoreFiles([cwd, ...(o.folders ?? []).map((f) => resolve(f))].map(posix), (p) => readFile(p, "utf8").catch(() => undefined));
  for (const f of ignoreFiles) {
    const n = f.patterns.filter((p) => !p.negative).length;
    const inside = !posix(relative(cwd, f.path)).startsWith("..");
    items.push({
      kind: "ignore-file",
      name: f.format.name,
      origin: inside ? "project" : "user",
      source: tilde(f.path),
      path: f.path,
      state: f.format.restricts ? "always" : "inactive",
      inForce: f.format.restricts && n > 0,
      why: f.format.restricts
        ? `${f.format.tool}'s ignore file (${n} pattern${n === 1 ? "" : "s"}${f.patterns.length > n ? `, ${f.patterns.length - n} exception${f.patterns.length - n === 1 ? "" : "s"}` : ""}): reading and changing the paths it lists is denied — file tools, listings and searches, @file mentions, and commands naming those paths; a program a command starts is not stopped (as in ${f.format.tool}): use a Read deny rule for secrets`
        : `${f.format.tool}'s indexing-only ignore file: its paths stay readable (in ${f.format.tool} too); Yoke keeps no index, so it changes nothing`,
    });
    for (const p of f.problems) problem(p.path, p.message, p.line);
  }

  return { items, guidance: set, problems, plugins, marketplaces: listMarketplaces(home) };
}

/** What a plugin's hooks and MCP servers would run. */
export function pluginPrograms(f: PluginFolder): PluginProgram[] {
  const out: PluginProgram[] = [];
  for (const [event, groups] of Object.entries(f.components.hooks ?? {})) {
    for (const g of Array.isArray(groups) ? groups : []) {
      const group = g as { matcher?: string; hooks?: Array<{ command?: string; args?: string[] }> };
      for (const h of group.hooks ?? []) if (h.command) out.push({ kind: "hook", name: `${event}${group.matcher ? ` (${group.matcher})` : ""}`, run: [h.command, ...(h.args ?? [])].join(" ") });
    }
  }
  for (const [name, s] of Object.entries(f.components.mcpServers ?? {})) {
    const d = s as { command?: string; args?: string[]; url?: string };
    out.push({ kind: "mcp-server", name, run: d.url ?? [d.command, ...(d.args ?? [])].join(" ") });
  }
  return out;
}

/** The installed plugins, enabled or not, with their approval and what they would run. */
export function listPlugins(home: string, cwd: string | undefined, trusted: boolean): PluginListing[] {
  const installed = installedPlugins(home);
  const state = enabledState(home, cwd, trusted);
  const approvals = readApprovalsPublic(home);
  return Object.entries(installed)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([id, p]) => {
      const folder = readPluginFolder(p.installPath, id.slice(0, id.lastIndexOf("@")) || id);
      const runsPrograms = folder.components.hooks !== undefined || folder.components.mcpServers !== undefined;
      let digest: string;
      try {
        digest = pluginDigest(p.installPath);
      } catch {
        digest = "";
      }
      const approved = runsPrograms && digest !== "" && approvals[id]?.digest === digest;
      return {
        id,
        name: folder.manifest.name,
        ...(folder.manifest.version ? { version: folder.manifest.version } : {}),
        ...(folder.manifest.description ? { description: folder.manifest.description } : {}),
        path: p.installPath,
        enabled: state.get(id)?.enabled ?? false,
        ...(state.get(id) ? { enabledBy: state.get(id)!.where } : {}),
        runsPrograms,
        approved,
        digest,
        programs: pluginPrograms(folder),
        components: { commands: folder.components.commands.length, agents: folder.components.agents.length, skills: folder.components.skills.length },
        problems: folder.problems,
      };
    });
}

export function listMarketplaces(home: string): MarketplaceListing[] {
  const installed = installedPlugins(home);
  return Object.entries(knownMarketplaces(home)).map(([name, m]) => {
    try {
      const market = readMarketplace(m.installLocation);
      return {
        name,
        plugins: market.plugins.map((p) => ({ id: `${p.name}@${name}`, name: p.name, ...(p.description ? { description: p.description } : {}), installed: Boolean(installed[`${p.name}@${name}`]) })),
      };
    } catch (err) {
      return { name, plugins: [], problem: (err as Error).message };
    }
  });
}
