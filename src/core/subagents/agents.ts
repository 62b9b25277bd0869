/**
 * Custom sub-agents, as Claude Code and GitHub Copilot define them: a Markdown file whose YAML
 * frontmatter gives the agent's `name`, `description` (when to use it: what the model picks it by),
 * a `tools` allow-list and a `model`, and whose body is the agent's system prompt.
 *
 * - Claude Code: `.claude/agents/*.md` (the project's) and `~/.claude/agents/*.md` (the user's);
 *   `tools` a comma-separated string (or a YAML list) of Claude tool names (`Read, Grep, Bash`,
 *   `mcp__server__tool`); absent = every tool of the session; `disallowedTools` removes tools;
 *   `model` `sonnet`/`opus`/`haiku`/`inherit` or a model id. A project agent wins over a user
 *   agent of the same name, and both over a plugin's.
 * - GitHub Copilot: `.github/agents/*.agent.md` (and the older `.github/chatmodes/*.chatmode.md`);
 *   `tools` a list of Copilot tool sets (`read`, `edit`, `search`, `execute`, `server/*`); the
 *   name defaults to the file name; `infer: false` / `disable-model-invocation: true` keep the
 *   model from picking it (it can still be asked for by name).
 * - Cursor: `.cursor/agents/*.md` and `~/.cursor/agents/*.md` (Cursor's subagents): `name` (default:
 *   the file name), `description` (what Cursor's agent delegates by), `model` (`inherit`, `fast` or a
 *   model id), `readonly: true` (restricted write permissions: the agent runs in plan mode, where
 *   nothing is written or run that would change anything) and `is_background` (noted: Yoke waits for
 *   the agent's answer). Every other key is not Cursor's: noted, not applied.
 *
 * The allow-list is enforced: the sub-agent is offered only those tools, so a call to any other is
 * refused as an unknown tool; every call it makes still passes the permission engine and hooks.
 */
import { frontmatterTrue, keyLine, parseFrontmatter } from "../guidance/frontmatter";
import { readHooks } from "../hooks/config";
import type { HookGroupConfig, SettingsProblem } from "../permissions/types";
import { EFFORT_LEVELS, type Effort } from "../providers/types";
import type { FileAccessPolicy, WorkspaceFs } from "../ports";
import { trimTools, type ToolDefinition } from "../tools/types";
import type { FileRegex } from "./file-regex";
import { workspaceRooModes, type ModeRule } from "./roo-modes";

export type AgentOrigin = "project" | "user" | "plugin";
export type AgentFormat = "claude" | "copilot" | "cursor";

export interface AgentDefinition {
  /** What `subagent_type` names it by (Claude Code: the frontmatter name; Copilot: the file name when the name is a display name). */
  name: string;
  /** Copilot's human-readable name, when it differs from `name`. */
  displayName?: string;
  description: string;
  /** The allow-list as written; absent: every tool the session has. */
  tools?: string[];
  disallowedTools?: string[];
  /** As written (`sonnet`, `inherit`, a model id); absent = inherit. */
  model?: string;
  /** The body: the agent's system prompt. */
  prompt: string;
  /** Where it came from, for the user (`.claude/agents/reviewer.md`, `plugin review@tools: agents/x.md`). */
  source: string;
  origin: AgentOrigin;
  format: AgentFormat;
  /** The model may pick it by itself (false: only when the user asks for it by name). */
  modelInvocable: boolean;
  /** Claude Code's `permissionMode`, as written (applied by agentPermissionMode). */
  permissionMode?: string;
  /**
   * Cursor's `readonly: true` ("restricted write permissions"): a restriction, not a mode to choose —
   * the agent runs in plan mode whatever the session's mode, bypassPermissions included.
   */
  readonly?: true;
  /** Claude Code's `skills`: skill names whose full text the agent starts with. */
  skills?: string[];
  /** Claude Code's `memory`: a folder the agent keeps across runs (src/core/subagents/memory.ts). */
  memory?: "user" | "project" | "local";
  /**
   * Claude Code's `hooks`, scoped to this agent: run (through the session's hook engine) only while
   * it runs, and only as the workspace's own hooks run (a project agent's: in a trusted workspace,
   * and they may block, never allow). A `Stop` hook is a `SubagentStop` hook (as Claude Code converts it).
   */
  hooks?: HookGroupConfig[];
  /**
   * Claude Code's `mcpServers` / Copilot's `mcp-servers`: `inline` definitions (name → the .mcp.json
   * entry) are servers of this agent only, started for its run with the approval rules of the
   * workspace's .mcp.json (a repository agent's) or the user's own servers; `names` refer to servers
   * the session already has (their tools are added to its `tools` list).
   */
  mcpServers?: { inline: Record<string, Record<string, unknown>>; names: string[] };
  /** Claude Code's `maxTurns`: the agent's model turns are bounded by it (and by the `subagents.maxTurns` setting). */
  /** Claude Code's `effort`: the model's reasoning effort while the agent runs (over the session's; a forked skill's own wins). */
  effort?: Effort;
  maxTurns?: number;
  /**
   * Claude Code's `isolation: worktree`: the agent works in a temporary git worktree of the
   * repository (on a branch of its own), removed when it changed nothing; a change it made stays
   * there as a background agent's change, for the user to review and merge.
   */
  isolation?: "worktree";
  /**
   * Claude Code's `background: true`: the agent always runs as a background task — the task call
   * returns at once and the parent goes on; its result reaches the parent when it finishes. In Yoke
   * a background agent always works in a worktree of its own (as every background agent does).
   */
  background?: boolean;
  /**
   * Roo Code's edit group `fileRegex`: the agent may edit only files whose workspace-relative path
   * matches one of these (edit-paths.ts enforces it; a refused pattern lets it edit none).
   */
  editPaths?: readonly FileRegex[];
}

export interface AgentFile {
  /** Shown in problems and listings. */
  display: string;
  text: string;
  origin: AgentOrigin;
  format: AgentFormat;
  /** The file name without its extension(s): `code-reviewer` of `code-reviewer.agent.md`. */
  stem: string;
  /** A plugin's name: its agents are `plugin:agent`, as Claude Code names them. */
  namespace?: string;
  /** The file's absolute path (to open it from a listing). */
  path?: string;
  /** What its reader could not apply (a Roo mode's fileRegex, an unknown group), reported with the agent's problems. */
  notes?: string[];
  /** Not an agent: only `notes` to report (a `.roomodes` that cannot be read as modes). */
  skip?: boolean;
  /** The files it may edit (a Roo mode's edit group fileRegex), as AgentDefinition.editPaths. */
  editPaths?: readonly FileRegex[];
}

export interface AgentProblem {
  /** `path:line: message`, as other guidance problems are reported. */
  message: string;
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
/**
 * A Claude Code or Cursor agent's `name`: Claude Code takes any string as the agent's type (its
 * docs ask for lower-case letters and hyphens, its loader checks only that there is one), so
 * "Code Reviewer" is an agent there, started as `subagent_type: "Code Reviewer"`. Yoke takes
 * letters and digits of any script, spaces and `_ . : -` — no control character, quote, slash or
 * bracket (the name reaches the task tool's description, permission rules' `Agent(…)` and paths).
 */
const SPACED_NAME_RE = /^[\p{L}\p{N}](?:[\p{L}\p{N}_.:-]| (?! ))*$/u;

function list(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return v.map((x) => String(x).trim()).filter(Boolean);
  if (typeof v === "string") return splitOutsideParens(v);
  return undefined;
}

/** `Read, Agent(worker, researcher), Bash(git *)` → its entries: commas inside parentheses do not split. */
function splitOutsideParens(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    else if (ch === ")") depth = Math.max(0, depth - 1);
    if ((ch === "," || ch === "\n") && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}

/** One agent file → its definition, or the problems that keep it from being one. */
export function parseAgentFile(file: AgentFile): { agent?: AgentDefinition; problems: AgentProblem[] } {
  // Complete `path:line: message` lines from the file's reader.
  const notes = (file.notes ?? []).map((message) => ({ message }));
  if (file.skip) return { problems: notes };
  const fm = parseFrontmatter(file.text);
  const problems: AgentProblem[] = [...notes];
  const at = (key: string, message: string) => problems.push({ message: `${file.display}:${keyLine(file.text, key) || 1}: ${message}` });
  if (fm.problem) return { problems: [{ message: `${file.display}:${fm.problem.line}: ${fm.problem.message}` }] };
  const d = fm.data;
  const rawName = typeof d.name === "string" ? d.name.trim() : "";
  let name = rawName;
  let displayName: string | undefined;
  if (file.format === "copilot") {
    // Copilot's `name` is a display name ("Code Reviewer"); the file name is the identifier.
    if (!rawName || !NAME_RE.test(rawName)) {
      name = file.stem;
      if (rawName && rawName !== file.stem) displayName = rawName;
    }
  } else if (!rawName && file.format === "cursor") {
    // Cursor: the name defaults to the file name.
    name = file.stem;
  } else if (!rawName && file.origin === "plugin") {
    // Plugin agents (Claude Code's plugin reference) may have only a description: the file name is the name.
    name = file.stem;
  } else if (!rawName) {
    problems.push({ message: `${file.display}:1: a sub-agent needs a "name" in its frontmatter (Claude Code skips the file without one); skipped` });
    return { problems };
  }
  if (!(file.format === "copilot" ? NAME_RE : SPACED_NAME_RE).test(name) || name.length > 128) {
    at("name", `the name ${JSON.stringify(name)} must be letters, digits, single spaces and - _ . : (lower-case and hyphens, as "code-reviewer"); skipped`);
    return { problems };
  }
  // Claude Code (2.1.218 on) rejects a project or user agent whose name has a ":", the plugins' namespace separator.
  if (file.format === "claude" && file.origin !== "plugin" && name.includes(":")) {
    at("name", `the name ${JSON.stringify(name)} has a ":", which Claude Code keeps for plugins' agents (plugin:agent) and rejects in a project or user agent; skipped`);
    return { problems };
  }
  // Copilot's `target`: `vscode` or `github-copilot` (unset: both). `github-copilot` names GitHub's
  // cloud agent, not VS Code (GitHub's custom agents configuration; VS Code's custom agent file
  // reference): Yoke runs where VS Code does, so such an agent is not one of its agents.
  if (file.format === "copilot" && d.target !== undefined && d.target !== null) {
    const target = String(d.target).trim().toLowerCase();
    if (target === "github-copilot") {
      at("target", `"target: github-copilot" makes it an agent of GitHub's Copilot cloud agent, not of VS Code, where Yoke runs; not used (remove "target" or set it to vscode to use it)`);
      return { problems };
    }
    if (target !== "vscode") at("target", `not applied: "target: ${String(d.target)}" is neither vscode nor github-copilot; the agent is used`);
  }
  if (file.namespace && !name.startsWith(`${file.namespace}:`)) name = `${file.namespace}:${name}`;
  let description = typeof d.description === "string" ? d.description.trim().replace(/\s+/g, " ") : "";
  if (!description && file.format === "cursor") {
    // Cursor lists a subagent without one (its agent delegates by name then): kept, the model told its name only.
    at("description", `the subagent has no "description": the model is told only its name`);
    description = `(no description) the "${name}" subagent`;
  }
  if (!description && d.description !== undefined && d.description !== null && typeof d.description !== "string") {
    // Claude Code's agent loader takes only a string (`description: 42` is no description there, unlike a command's or a skill's).
    at(
      "description",
      `the "description" must be text (Claude Code skips an agent whose description is ${typeof d.description === "object" ? "a list or a mapping" : `the ${typeof d.description} ${String(d.description)}`}); quote it; skipped`,
    );
    return { problems };
  }
  if (!description) {
    at("description", `a sub-agent needs a "description" (it is how the model knows when to use it); skipped`);
    return { problems };
  }
  const tools = list(d.tools);
  if (d.tools !== undefined && d.tools !== null && tools === undefined) at("tools", `"tools" must be a comma-separated list or a list of tool names; the agent gets every tool`);
  const disallowed = list(d.disallowedTools);
  let model: string | undefined;
  if (d.model !== undefined && d.model !== null) {
    if (typeof d.model === "string" && d.model.trim()) model = d.model.trim();
    else if (Array.isArray(d.model) && typeof d.model[0] === "string")
      model = d.model[0].trim(); // Copilot: a list of models, first available wins
    else at("model", `"model" must be sonnet, opus, haiku, inherit or a model id; the session's model is used`);
  }
  const prompt = fm.body.trim();
  if (!prompt) problems.push({ message: `${file.display}:${fm.bodyLine}: the agent has no instructions (the file's body is its system prompt)` });
  // Claude Code reads a boolean field as true when YAML gives true (`true`, `True`, `TRUE`: YAML 1.2's
  // core schema) or the string "true"; `yes`, `on`, `1` are other strings there, so not true.
  const modelInvocable = !(d.infer === false || frontmatterTrue(d["disable-model-invocation"]));
  // Claude Code's further fields. A plugin's agent may not set hooks, mcpServers or permissionMode (Claude Code ignores them there too).
  const permissionMode = typeof d.permissionMode === "string" && d.permissionMode.trim() ? d.permissionMode.trim() : undefined;
  if (d.permissionMode !== undefined && d.permissionMode !== null && !permissionMode)
    at("permissionMode", `"permissionMode" must be default, acceptEdits, plan, dontAsk or bypassPermissions; ignored`);
  const skills = list(d.skills);
  // Claude Code's `memory: user | project | local` (any case); another value is a note.
  let memory: "user" | "project" | "local" | undefined;
  if (d.memory !== undefined && d.memory !== null && file.format === "claude") {
    const m = typeof d.memory === "string" ? d.memory.trim().toLowerCase() : "";
    if (m === "user" || m === "project" || m === "local") memory = m;
    else at("memory", `not applied: "memory: ${String(d.memory)}" is not user, project or local; the agent starts without a memory folder`);
  }
  const plugin = file.origin === "plugin";
  for (const key of ["permissionMode", "hooks", "mcpServers"] as const) {
    if (plugin && d[key] !== undefined && d[key] !== null) at(key, `"${key}" is ignored in a plugin's agent (as Claude Code ignores it: a plugin's agent cannot change permissions or run programs)`);
  }
  const hooks = !plugin && d.hooks !== undefined && d.hooks !== null ? agentHooks(d.hooks, file, at) : undefined;
  const mcpKey = d.mcpServers !== undefined && d.mcpServers !== null ? "mcpServers" : d["mcp-servers"] !== undefined && d["mcp-servers"] !== null ? "mcp-servers" : undefined;
  const mcpServers = !plugin && mcpKey ? agentServers(d[mcpKey], (m) => at(mcpKey, m)) : undefined;
  let maxTurns: number | undefined;
  if (d.maxTurns !== undefined && d.maxTurns !== null) {
    const n = typeof d.maxTurns === "string" && /^\s*\d+\s*$/.test(d.maxTurns) ? Number(d.maxTurns) : d.maxTurns;
    if (typeof n === "number" && Number.isInteger(n) && n > 0) maxTurns = n;
    else at("maxTurns", `"maxTurns" must be a whole number of turns above 0; the agent's turns are not bounded by it`);
  }
  let effort: Effort | undefined;
  if (d.effort !== undefined && d.effort !== null && d.effort !== "") {
    const e = String(d.effort).trim().toLowerCase();
    if ((EFFORT_LEVELS as readonly string[]).includes(e)) effort = e as Effort;
    else at("effort", `not applied: "effort: ${String(d.effort)}" is not one of ${EFFORT_LEVELS.join(", ")}; the agent runs at the session's effort`);
  }
  let isolation: "worktree" | undefined;
  if (d.isolation !== undefined && d.isolation !== null) {
    if (typeof d.isolation === "string" && d.isolation.trim().toLowerCase() === "worktree") isolation = "worktree";
    else if (!(typeof d.isolation === "string" && d.isolation.trim().toLowerCase() === "none"))
      at("isolation", `"isolation" must be worktree (Claude Code's only value); the agent works in the session's workspace`);
  }
  let background: boolean | undefined;
  if (d.background !== undefined && d.background !== null) {
    const b = typeof d.background === "string" ? d.background.trim().toLowerCase() : d.background;
    if (b === true || b === "true") background = true;
    else if (!(b === false || b === "false")) at("background", `"background" must be true or false; the agent runs in the foreground`);
  }
  if (file.format === "cursor") return cursorAgent(file, d, { name, description, model, prompt, problems, at });
  for (const key of Object.keys(d)) {
    if (key === "target" && file.format === "copilot") continue; // read above
    const note = file.format === "claude" ? CLAUDE_NOT_APPLIED[key] : COPILOT_NOT_APPLIED[key];
    if (note) at(key, `not applied: "${key}" ${note}`);
    else if (!APPLIED_KEYS.has(key)) at(key, `not applied: "${key}" is not a ${file.format === "claude" ? "Claude Code sub-agent" : "Copilot custom agent"} field Yoke knows; ignored`);
  }
  return {
    agent: {
      name,
      ...(displayName ? { displayName } : {}),
      description,
      ...(tools !== undefined ? { tools } : {}),
      ...(disallowed?.length ? { disallowedTools: disallowed } : {}),
      ...(model && model !== "inherit" ? { model } : {}),
      prompt,
      source: file.display,
      origin: file.origin,
      format: file.format,
      modelInvocable,
      ...(permissionMode && !plugin ? { permissionMode } : {}),
      ...(skills?.length ? { skills } : {}),
      ...(memory ? { memory } : {}),
      ...(hooks?.length ? { hooks } : {}),
      ...(mcpServers ? { mcpServers } : {}),
      ...(maxTurns ? { maxTurns } : {}),
      ...(effort ? { effort } : {}),
      ...(isolation ? { isolation } : {}),
      ...(background ? { background } : {}),
      ...(file.editPaths?.length ? { editPaths: file.editPaths } : {}),
    },
    problems,
  };
}

/**
 * A Cursor subagent (cursor.com/docs/subagents): only Cursor's own keys are read. `readonly: true`
 * runs it in plan mode (Cursor: "restricted write permissions"); `model: fast` (Cursor's own fast
 * model) and `is_background` are noted, not applied; Claude Code's keys in a Cursor file are not
 * Cursor's and not applied either (Cursor does not read them).
 */
function cursorAgent(
  file: AgentFile,
  d: Record<string, unknown>,
  p: { name: string; description: string; model: string | undefined; prompt: string; problems: AgentProblem[]; at: (key: string, message: string) => void },
): { agent: AgentDefinition; problems: AgentProblem[] } {
  const flag = (key: string): boolean => {
    const v = typeof d[key] === "string" ? (d[key] as string).trim().toLowerCase() : d[key];
    if (v === undefined || v === null || v === false || v === "false") return false;
    if (v === true || v === "true") return true;
    p.at(key, `"${key}" must be true or false; taken as false`);
    return false;
  };
  const readonly = flag("readonly");
  if (flag("is_background")) p.at("is_background", `not applied: "is_background" (Cursor runs the subagent without waiting for it): Yoke waits for its answer`);
  let model = p.model;
  if (model?.toLowerCase() === "fast") {
    p.at("model", `not applied: "model: fast" (Cursor's own fast model): the session's model is used`);
    model = undefined;
  }
  for (const key of Object.keys(d))
    if (!CURSOR_KEYS.has(key)) p.at(key, `not applied: "${key}" is not a Cursor subagent field (Cursor reads name, description, model, readonly, is_background); ignored`);
  return {
    agent: {
      name: p.name,
      description: p.description,
      ...(model && model.toLowerCase() !== "inherit" ? { model } : {}),
      prompt: p.prompt,
      source: file.display,
      origin: file.origin,
      format: "cursor",
      modelInvocable: true,
      ...(readonly ? { permissionMode: "plan", readonly: true as const } : {}),
    },
    problems: p.problems,
  };
}

const CURSOR_KEYS = new Set(["name", "description", "model", "readonly", "is_background"]);

/** The frontmatter keys Yoke reads and applies (Claude Code's and Copilot's: the parser reads both in either format). */
const APPLIED_KEYS = new Set([
  "name",
  "description",
  "tools",
  "disallowedTools",
  "model",
  "permissionMode",
  "skills",
  "memory",
  "hooks",
  "mcpServers",
  "mcp-servers",
  "maxTurns",
  "effort",
  "isolation",
  "background",
  "infer",
  "disable-model-invocation",
]);

/** Documented keys Yoke reads but does not apply: each is a problem note ("not applied: …"), never silently ignored. */
const CLAUDE_NOT_APPLIED: Record<string, string> = {
  color: "(the agent's colour in the interface): Yoke shows no agent colours",
  initialPrompt: "(the first message when the agent is the main session): Yoke runs agents only as sub-agents",
};
const COPILOT_NOT_APPLIED: Record<string, string> = {
  handoffs: "(buttons to hand the conversation to another agent): Yoke has no hand-offs; ask for the other agent by name",
  "argument-hint": "(the hint shown when you pick the agent): Yoke does not show it",
  "user-invocable": "(whether it is listed in the agent picker): the model and @agent-NAME can always start it",
  metadata: "(annotations for GitHub): no effect in Yoke",
};

/**
 * An agent's MCP servers: Claude Code's list of server names and `{name: definition}` objects, or a
 * mapping of names to definitions (Copilot's `mcp-servers`, and Claude's written as a mapping).
 */
function agentServers(raw: unknown, warn: (message: string) => void): AgentDefinition["mcpServers"] {
  const inline: Record<string, Record<string, unknown>> = {};
  const names: string[] = [];
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const addMap = (m: Record<string, unknown>) => {
    for (const [name, def] of Object.entries(m)) {
      if (isObj(def)) inline[name] = def;
      else warn(`MCP server "${name}" must be a server definition (as in .mcp.json: command and args, or url); skipped`);
    }
  };
  if (Array.isArray(raw)) {
    for (const e of raw) {
      if (typeof e === "string" && e.trim()) names.push(e.trim());
      else if (isObj(e)) addMap(e);
      else warn(`each MCP server must be a configured server's name or {name: definition}; ${JSON.stringify(e)} skipped`);
    }
  } else if (typeof raw === "string" && raw.trim()) names.push(...(list(raw) ?? []));
  else if (isObj(raw)) addMap(raw);
  else warn(`MCP servers must be a list of server names and {name: definition} objects; ignored`);
  return Object.keys(inline).length || names.length ? { inline, names } : undefined;
}

/**
 * An agent's `hooks` (Claude Code's settings shape) as hook groups, read by the hook engine's own
 * reader: a project agent's count as the repository's (checked in: they may block, never allow),
 * the user's own as the user's. `Stop` becomes `SubagentStop`, as Claude Code converts it (an
 * agent's session ends with SubagentStop, never Stop).
 */
function agentHooks(raw: unknown, file: AgentFile, at: (key: string, message: string) => void): HookGroupConfig[] | undefined {
  if (typeof raw !== "object" || Array.isArray(raw) || raw === null) {
    at("hooks", `"hooks" must be a mapping of hook events to lists of {matcher, hooks} (as in settings.json); the agent runs without them`);
    return undefined;
  }
  const byEvent: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(raw as Record<string, unknown>)) {
    const name = event === "Stop" ? "SubagentStop" : event;
    byEvent[name] = Array.isArray(byEvent[name]) && Array.isArray(groups) ? [...(byEvent[name] as unknown[]), ...groups] : groups;
  }
  const problems: SettingsProblem[] = [];
  const project = file.origin === "project";
  const groups = readHooks(
    byEvent,
    { kind: project ? "claude" : "claude-user", label: `${file.display} (agent hooks)`, baseDir: "", ...(project ? { checkedIn: true, checkedInWhy: "it is an agent file of the repository" } : {}) },
    problems,
  );
  for (const p of problems) at("hooks", p.message.replace(/^.*? \(agent hooks\): /, ""));
  return groups;
}

const RANK: Record<AgentOrigin, number> = { project: 0, user: 1, plugin: 2 };

/**
 * Every agent of these files, one per name (compared without case): a project agent wins over a
 * user agent, a user agent over a plugin's; within one origin the first file wins. Sorted by name
 * so the task tool's description (part of the cached prefix) does not depend on the file order.
 */
export function loadAgents(files: readonly AgentFile[]): { agents: AgentDefinition[]; problems: AgentProblem[] } {
  const problems: AgentProblem[] = [];
  const byName = new Map<string, AgentDefinition>();
  const ordered = [...files].sort((a, b) => RANK[a.origin] - RANK[b.origin]);
  for (const f of ordered) {
    const r = parseAgentFile(f);
    problems.push(...r.problems);
    if (!r.agent) continue;
    const key = r.agent.name.toLowerCase();
    const kept = byName.get(key);
    if (kept) {
      if (kept.origin === r.agent.origin) problems.push({ message: `${r.agent.source}: a sub-agent named "${r.agent.name}" is already defined in ${kept.source}; this one is ignored` });
      continue;
    }
    byName.set(key, r.agent);
  }
  return { agents: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), problems };
}

/** Copilot's tool sets (and older names) as Claude Code's tool names. */
const COPILOT_SETS: Record<string, string[]> = {
  read: ["Read"],
  readfile: ["Read"],
  edit: ["Edit", "Write"],
  editfiles: ["Edit", "Write"],
  search: ["Grep", "Glob"],
  codebase: ["Grep", "Glob", "Read"],
  usages: ["Grep"],
  findtestfiles: ["Glob"],
  execute: ["Bash"],
  shell: ["Bash"],
  runcommands: ["Bash"],
  runinterminal: ["Bash"],
  terminal: ["Bash"],
  todo: ["TodoWrite"],
  todos: ["TodoWrite"],
  agent: ["Task"],
  runsubagent: ["Task"],
  // GitHub's "compatible aliases" of its tool aliases, all case-insensitive (custom agents configuration).
  bash: ["Bash"],
  powershell: ["Bash"],
  write: ["Edit", "Write"],
  multiedit: ["Edit", "Write"],
  notebookedit: ["Edit", "Write"],
  notebookread: ["Read"],
  grep: ["Grep", "Glob"],
  glob: ["Grep", "Glob"],
  "custom-agent": ["Task"],
  task: ["Task"],
  todowrite: ["TodoWrite"],
};

/** Claude Code names Yoke's tools answer to besides their permission names. */
const CLAUDE_ALIASES: Record<string, string[]> = {
  MultiEdit: ["Edit"],
  NotebookEdit: ["Edit"],
  NotebookRead: ["Read"],
  LS: ["Read"],
  Agent: ["Task"],
};

/** The Claude names one allow-list entry stands for (Copilot sets mapped), or undefined when it is not a plain name. */
function claudeNames(entry: string, format: AgentFormat): string[] {
  if (format === "copilot") {
    const key = entry.toLowerCase();
    const set = COPILOT_SETS[key] ?? COPILOT_SETS[key.split("/")[0]!] ?? COPILOT_SETS[key.split("/").pop()!];
    if (set) return set;
  }
  return CLAUDE_ALIASES[entry] ?? [entry];
}

function mcpPattern(entry: string, format: AgentFormat): RegExp | undefined {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // Claude Code: mcp__server (every tool of the server), mcp__server__tool, mcp__server__*.
  let m = /^mcp__([^_]+(?:_[^_]+)*?)(?:__(.+))?$/.exec(entry);
  if (m) return new RegExp(`^mcp__${esc(m[1]!)}__${m[2] && m[2] !== "*" ? `${esc(m[2])}$` : ""}`);
  // Copilot: server/* or server/tool for an MCP server's tools.
  if (format === "copilot") {
    m = /^([^/]+)\/(.+)$/.exec(entry);
    if (m) return new RegExp(`^mcp__${esc(m[1]!)}__${m[2] === "*" ? "" : `${esc(m[2]!)}$`}`);
  }
  return undefined;
}

export interface AgentTools {
  /** The tools it is offered, in the session's order (a stable prefix). */
  tools: ToolDefinition[];
  /** It may start sub-agents of its own (its list names Task, or it has no list). */
  task: boolean;
  /**
   * Claude Code's `Agent(worker, researcher)` / `Task(…)` in its list: the only agent types it may
   * start (no general-purpose one); undefined: any (a bare `Agent`/`Task`, or no list).
   */
  agentTypes?: string[];
  /** Entries that name no tool of this session, for a problem note. */
  unknown: string[];
}

/**
 * The tools an agent is offered: its allow-list (Claude names, Yoke names, MCP names, Copilot
 * sets) over the session's tools, minus `disallowedTools`; every tool when it has no list.
 */
export function agentTools(agent: Pick<AgentDefinition, "tools" | "disallowedTools" | "format" | "mcpServers">, available: readonly ToolDefinition[]): AgentTools {
  const claudeName = (t: ToolDefinition) => t.hookName ?? t.permission;
  const matches = (entries: readonly string[], collectUnknown?: string[]) => {
    const picked = new Set<ToolDefinition>();
    let task = false;
    // Agent(a, b): only those types; a bare Agent/Task: any (undefined wins over a list).
    let types: string[] | undefined = [];
    for (const raw of entries) {
      const entry = raw.replace(/\(.*\)$/s, "").trim(); // Claude rule syntax `Bash(git *)`: the tool
      if (!entry) continue;
      const names = claudeNames(entry, agent.format);
      let hit = false;
      if (names.includes("Task")) {
        task = true;
        hit = true;
        const inner = /^(?:Agent|Task)\((.*)\)$/s.exec(raw.trim())?.[1];
        if (inner === undefined) types = undefined;
        else if (types) types.push(...inner.split(/[,\s]+/).filter(Boolean));
      }
      const mcp = mcpPattern(entry, agent.format);
      for (const t of available) {
        if (t.name === entry || names.includes(claudeName(t)) || names.includes(t.permission) || (mcp && mcp.test(t.name))) {
          picked.add(t);
          hit = true;
        }
      }
      if (!hit) collectUnknown?.push(raw);
    }
    return { picked, task, types: task ? types : undefined };
  };
  const unknown: string[] = [];
  const denied = agent.disallowedTools ? matches(agent.disallowedTools) : { picked: new Set<ToolDefinition>(), task: false, types: undefined };
  // `tools: "*"` (or `["*"]`) is every tool, as no list is: GitHub documents it for custom agents,
  // and Claude Code's own general-purpose agent is declared with it.
  if (!agent.tools || agent.tools.some((t) => t.trim() === "*")) return { tools: trimTools(available.filter((t) => !denied.picked.has(t))), task: !denied.task, unknown };
  // The configured servers its `mcpServers` names are part of its list (Claude Code: available to the agent).
  const allowed = matches([...agent.tools, ...(agent.mcpServers?.names ?? []).map((n) => `mcp__${n}`)], unknown);
  const task = allowed.task && !denied.task;
  return {
    tools: trimTools(available.filter((t) => allowed.picked.has(t) && !denied.picked.has(t))),
    task,
    ...(task && allowed.types ? { agentTypes: allowed.types } : {}),
    unknown,
  };
}

/** Claude Code's model aliases, for an Anthropic session. */
export const CLAUDE_MODEL_ALIASES: Readonly<Record<string, string>> = { sonnet: "claude-sonnet-5", opus: "claude-opus-5", haiku: "claude-haiku-5" };

/**
 * The model an agent runs on, for a session of this provider: `undefined` = the session's own.
 * Claude Code's aliases map to Anthropic models only on an Anthropic session (elsewhere there is
 * no "sonnet": the session's model is used); a model id is used when it fits the provider (a
 * `claude-*` id only on Anthropic, another id only elsewhere); a display name (Copilot's
 * "Claude Sonnet 4.5") is not an id: the session's model.
 */
export function agentModel(model: string | undefined, provider: string): { model?: string; note?: string } {
  if (!model || model === "inherit") return {};
  const anthropic = provider === "anthropic";
  const alias = CLAUDE_MODEL_ALIASES[model.toLowerCase()];
  if (alias) return anthropic ? { model: alias } : { note: `model "${model}" is a Claude model alias and this session's provider is ${provider}: the session's model is used` };
  if (/\s/.test(model)) return { note: `model "${model}" is a display name, not a model id: the session's model is used` };
  const claude = /^claude-/i.test(model);
  if (claude !== anthropic) return { note: `model "${model}" is not a model of this session's provider (${provider}): the session's model is used` };
  return { model };
}

/** `@agent-NAME` (Claude Code's mention) or `@NAME` of a known agent in a user message. */
export function mentionedAgents(text: string, agents: readonly AgentDefinition[]): AgentDefinition[] {
  const out: AgentDefinition[] = [];
  const byName = new Map(agents.map((a) => [a.name.toLowerCase(), a]));
  for (const m of text.matchAll(/(?:^|[\s(])@(agent-)?([A-Za-z0-9][A-Za-z0-9_.:-]*[A-Za-z0-9]|[A-Za-z0-9])/g)) {
    const a = byName.get(m[2]!.toLowerCase());
    if (a && !out.includes(a)) out.push(a);
  }
  return out;
}

/** The agent folders of a workspace: Claude Code's and Copilot's (and Copilot's older chat modes). */
export const WORKSPACE_AGENT_DIRS: ReadonlyArray<{ dir: string; format: AgentFormat; suffix: RegExp }> = [
  { dir: ".claude/agents", format: "claude", suffix: /\.md$/i },
  // Cursor's subagents (after Claude Code's: a name both define is reported, Claude Code's kept).
  { dir: ".cursor/agents", format: "cursor", suffix: /\.md$/i },
  { dir: ".github/agents", format: "copilot", suffix: /(\.agent)?\.md$/i },
  { dir: ".github/chatmodes", format: "copilot", suffix: /\.chatmode\.md$/i },
];

const MAX_AGENT_FILES = 500;
const MAX_AGENT_BYTES = 256 * 1024;

/** The stem of an agent file's name: `reviewer` of `reviewer.md`, `reviewer.agent.md`, `reviewer.chatmode.md`. */
export function agentStem(fileName: string): string {
  return fileName.replace(/(\.agent|\.chatmode)?\.md$/i, "");
}

/** The agent files of the workspace, read through the workspace's file system (Remote-SSH too). Claude Code's folder is read with its sub-folders. */
export async function workspaceAgentFiles(fs: WorkspaceFs, access?: FileAccessPolicy, userModeRules?: (slug: string) => Promise<ModeRule[]>): Promise<AgentFile[]> {
  const out: AgentFile[] = [];
  const decoder = new TextDecoder();
  const walk = async (rel: string, spec: (typeof WORKSPACE_AGENT_DIRS)[number], depth: number): Promise<void> => {
    let entries: Array<[string, string]>;
    try {
      entries = await fs.readDir(`${fs.root}/${rel}`);
    } catch {
      return;
    }
    for (const [name, type] of entries.sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (out.length >= MAX_AGENT_FILES) return;
      const path = `${rel}/${name}`;
      if (type === "directory" && spec.format === "claude" && depth < 3) await walk(path, spec, depth + 1);
      else if (type === "file" && spec.suffix.test(name) && !/^readme\.md$/i.test(name)) {
        try {
          const bytes = await fs.readFile(`${fs.root}/${path}`);
          if (bytes.byteLength > MAX_AGENT_BYTES) continue;
          out.push({ display: path, text: decoder.decode(bytes), origin: "project", format: spec.format, stem: agentStem(name), path: `${fs.root}/${path}` });
        } catch {
          // unreadable: not an agent
        }
      }
    }
  };
  for (const spec of WORKSPACE_AGENT_DIRS) await walk(spec.dir, spec, 0);
  // Roo Code's custom modes (.roomodes): each an agent (src/core/subagents/roo-modes.ts).
  const roo = await workspaceRooModes(fs, access, userModeRules);
  out.push(...roo.files);
  if (roo.problems.length) out.push({ display: ".roomodes", text: "", origin: "project", format: "claude", stem: ".roomodes", notes: roo.problems, skip: true });
  return out;
}

const MODE_RANK: Record<string, number> = { plan: 0, default: 1, acceptEdits: 2, bypassPermissions: 3 };
export type AgentMode = "plan" | "default" | "acceptEdits" | "bypassPermissions";

/**
 * The permission mode an agent's child runs in (Claude Code's `permissionMode`), never looser than
 * what the user allowed: a parent in bypassPermissions keeps it (Claude Code: the parent's bypass
 * takes precedence); a repository's agent (project) may only tighten the parent's mode — its
 * `bypassPermissions` or `acceptEdits` over a stricter parent is ignored with a note, as a
 * repository's settings may not loosen `defaultMode`; the user's own agent may set any mode (the
 * permission engine still applies disableBypassPermissionsMode, deny rules and Restricted Mode).
 * Plugins' agents never get here (the parser drops their permissionMode).
 */
export function agentPermissionMode(agent: Pick<AgentDefinition, "permissionMode" | "origin" | "source" | "name" | "readonly">, parent: string): { mode?: AgentMode; dontAsk?: true; note?: string } {
  // Cursor's readonly restricts the agent: plan mode whatever the session's (its bypass does not take precedence).
  if (agent.readonly) return parent === "plan" ? {} : { mode: "plan" };
  const wanted = agent.permissionMode;
  if (!wanted) return {};
  // Claude Code's dontAsk: what the rules allow runs, whatever would be asked is denied without asking.
  // It only tightens, so a repository's agent may set it too; the parent's bypass takes precedence.
  if (wanted === "dontAsk")
    return parent === "bypassPermissions" ? { note: `${agent.source}: the session is in bypassPermissions mode, which takes precedence over the agent's permissionMode "dontAsk"` } : { dontAsk: true };
  if (!(wanted in MODE_RANK))
    return { note: `${agent.source}: permissionMode "${wanted}" is not a mode Yoke has (default, acceptEdits, plan, dontAsk, bypassPermissions); the agent runs in the session's mode (${parent})` };
  if (parent === "bypassPermissions")
    return wanted === "bypassPermissions" ? {} : { note: `${agent.source}: the session is in bypassPermissions mode, which takes precedence over the agent's permissionMode "${wanted}"` };
  const looser = MODE_RANK[wanted]! > (MODE_RANK[parent] ?? 1);
  if (looser && agent.origin !== "user")
    return {
      note: `${agent.source}: permissionMode "${wanted}" is ignored: an agent from the ${agent.origin === "project" ? "repository" : agent.origin} may not loosen your permission mode (${parent}); the agent runs in ${parent} mode`,
    };
  return wanted === parent ? {} : { mode: wanted as AgentMode };
}

/**
 * The agent's permissionMode where it is stricter than `parent` (never a looser one): what a
 * prompt file running under the agent (src/core/custom-commands) is also held to.
 */
export function stricterAgentMode(agent: Pick<AgentDefinition, "permissionMode" | "origin" | "source" | "name" | "readonly">, parent: string): AgentMode | undefined {
  const { mode } = agentPermissionMode(agent, parent);
  return mode && MODE_RANK[mode]! < (MODE_RANK[parent] ?? 1) ? mode : undefined;
}
