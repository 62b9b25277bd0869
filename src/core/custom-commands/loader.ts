/**
 * Reads custom slash commands from folders of command files, each in its own tool's format:
 * - Claude Code `.claude/commands/**\/*.md` (and `~/.claude/commands`, plugins' `commands/`): the
 *   name is the file name; a sub-folder is a namespace shown as `(project:frontend)`, and
 *   `/frontend:component` names the command too. Frontmatter: description, argument-hint,
 *   allowed-tools, model, disable-model-invocation.
 * - Copilot `.github/prompts/*.prompt.md`: the name is `name` or the file name without `.prompt.md`;
 *   frontmatter description, mode, model, tools, argument-hint.
 * - Cline `.clinerules/workflows/*.md`: invoked as `/name.md` (as Cline does), and `/name`.
 * - Roo Code `.roo/commands/*.md`: the file name; frontmatter description, argument-hint.
 * - Cursor `.cursor/commands/*.md` and Windsurf workflows `.windsurf/workflows/*.md`: the file name;
 *   the text is sent with what follows `/name` (frontmatter description, if any).
 * - Claude Code skills (`.claude/skills/NAME/SKILL.md`): `/NAME` runs the skill's text as a command
 *   (Claude Code merged commands into skills), before a command file of the same name.
 * Sources come highest priority first: a project command overrides a user command of the same name
 * (Claude Code's rule); a name two formats claim is reported, the first keeps it.
 */
import { descriptionText, firstParagraph, frontmatterTrue, keyLine, normalizeText, parseFrontmatter, stringList, toolRules } from "../guidance/frontmatter";
import { frontmatterHooks } from "../hooks/frontmatter";
import { joinPath } from "../paths";
import type { HookGroupConfig } from "../permissions/types";
import { EFFORT_LEVELS, type Effort } from "../providers/types";
import type { CommandFiles, CommandFormat, CommandProblem, CommandSource, CustomCommand, LoadedCommands } from "./types";

const MAX_FILES_PER_SOURCE = 500;
const MAX_FILE_BYTES = 256 * 1024;

/** Which files of a source are commands, and the name and namespace of each. */
function commandName(format: CommandFormat, rel: string, layout?: "skills"): { name: string; namespace?: string } | undefined {
  const parts = rel.split("/");
  const file = parts[parts.length - 1]!;
  if (layout === "skills") return parts.length === 2 && file === "SKILL.md" ? { name: parts[0]! } : undefined;
  switch (format) {
    case "claude": {
      if (!file.endsWith(".md") || file === ".md") return undefined;
      const ns = parts.slice(0, -1).join(":");
      return { name: file.slice(0, -3), ...(ns ? { namespace: ns } : {}) };
    }
    case "copilot":
      return file.endsWith(".prompt.md") && file !== ".prompt.md" ? { name: file.slice(0, -".prompt.md".length) } : undefined;
    case "codex":
      // Codex's custom prompts: the top-level Markdown files of its prompts folder, run as /prompts:NAME.
      return parts.length === 1 && file.endsWith(".md") && file !== ".md" ? { name: `prompts:${file.slice(0, -3)}` } : undefined;
    case "cline":
    case "roo":
    case "cursor":
    case "windsurf":
      // Flat folders: only the top level holds commands.
      return parts.length === 1 && file.endsWith(".md") && file !== ".md" ? { name: file.slice(0, -3) } : undefined;
  }
}

function text(v: unknown): string | undefined {
  if (typeof v === "string") return v.trim() || undefined;
  if (typeof v === "number") return String(v);
  return undefined;
}

/**
 * `argument-hint` as the author wrote it. Unquoted brackets make YAML read a list —
 * `argument-hint: [message]`, `argument-hint: ["run all tests", "test login page"]` — which Claude
 * Code still shows (it renders the list's text); so is it here: the value's own text from the file
 * when it sits on the key's line, else the items in brackets.
 */
function hintText(v: unknown, raw: string): string | undefined {
  if (!Array.isArray(v)) return text(v);
  const line = /^argument-hint[ \t]*:[ \t]*(\[.*\])[ \t]*$/m.exec(normalizeText(raw).split(/\n(?:---|\.\.\.)[ \t]*(?:\n|$)/)[0] ?? "");
  if (line) return line[1]!.trim();
  const items = v.map((x) => (typeof x === "string" || typeof x === "number" ? String(x).trim() : "")).filter(Boolean);
  return items.length ? items.map((x) => `[${x}]`).join(" ") : undefined;
}

/** Claude's `arguments`: `[issue, branch]` or `issue branch`; names as `$name` can be written. */
function argNames(v: unknown): string[] {
  const raw = Array.isArray(v) ? v.map(String) : typeof v === "string" ? v.split(/[\s,]+/) : [];
  return raw.map((n) => n.trim().replace(/^\$/, "")).filter((n) => /^[A-Za-z_][\w-]*$/.test(n));
}

const bool = frontmatterTrue;

/**
 * Claude Code command and skill keys with an effect Yoke does not give them: each is a note on the
 * file ("not applied: …"), never silently ignored. (`context: fork` and `agent` are applied: the
 * command runs in a sub-agent, CustomCommand.fork; `hooks` hold from the run for the rest of the session, `effort` for the run.)
 */
const CLAUDE_NOT_APPLIED: Record<string, (v: unknown) => string | undefined> = {
  context: (v) => (text(v) && text(v) !== "fork" && text(v) !== "inherit" ? `"context: ${text(v)}" (Claude Code knows only "fork"): the command runs in this conversation` : undefined),
};

/** Claude Code's `effort`: one of its levels, or a note saying the file's value is not one. */
function effortOf(v: unknown, at: (message: string) => void): Effort | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const e = String(v).trim().toLowerCase();
  if ((EFFORT_LEVELS as readonly string[]).includes(e)) return e as Effort;
  at(`not applied: "effort: ${String(v)}" is not one of ${EFFORT_LEVELS.join(", ")}: the run uses the model's default effort`);
  return undefined;
}

/** Claude Code's `hooks` of a command or skill (hooks/frontmatter.ts: a repository's may block, never allow; a plugin's do not run). */
function commandHooks(raw: unknown, source: CommandSource, display: string, at: (message: string) => void): HookGroupConfig[] | undefined {
  const owner = source.origin.startsWith("plugin") ? "plugin" : source.origin === "project" ? "project" : "user";
  return frontmatterHooks(raw, owner, source.layout === "skills" ? "skill" : "command", display, at);
}

/** One command file, or a problem (and notes on keys not applied). */
export function parseCommandFile(source: CommandSource, rel: string, raw: string): { command?: CustomCommand; problem?: CommandProblem; notes?: CommandProblem[] } {
  const found = commandName(source.format, rel, source.layout);
  if (!found) return {};
  const ns = [source.namespace, found.namespace].filter(Boolean).join(":");
  const named = { name: found.name, ...(ns ? { namespace: ns } : {}) };
  const path = joinPath(source.dir, rel);
  const fm = parseFrontmatter(raw);
  if (fm.problem) return { problem: { path, line: fm.problem.line, message: fm.problem.message } };
  const d = fm.data;
  let name = named.name;
  // A skill: its frontmatter name; `user-invocable: false` keeps it out of the / commands (the model may still load it).
  if (source.layout === "skills") {
    if (d["user-invocable"] === false || d["user-invocable"] === "false") return {};
    if (text(d.name)) name = text(d.name)!;
  }
  const aliases: string[] = [];
  if (source.format === "copilot" && text(d.name)) name = text(d.name)!.replace(/^\//, "");
  if (source.format === "cline") {
    aliases.push(name);
    name = `${name}.md`;
  }
  if (named.namespace) aliases.push(`${named.namespace}:${name}`);
  if (/\s/.test(name)) return { problem: { path, message: `the command name "${name}" has spaces, so it cannot be typed after /` } };
  const allowed = source.format === "claude" ? toolRules(d["allowed-tools"]) : [];
  const tools = source.format === "copilot" ? stringList(d.tools) : [];
  const argumentNames = source.format === "claude" ? argNames(d.arguments) : [];
  const notes: CommandProblem[] = [];
  if (source.format === "claude")
    for (const [key, why] of Object.entries(CLAUDE_NOT_APPLIED)) {
      const message = d[key] === undefined || d[key] === null ? undefined : why(d[key]);
      if (message) notes.push({ path, line: keyLine(raw, key), message: `not applied: ${message}` });
    }
  const effort = source.format === "claude" ? effortOf(d.effort, (message) => notes.push({ path, line: keyLine(raw, "effort"), message })) : undefined;
  const hooks = source.format === "claude" ? commandHooks(d.hooks, source, path, (message) => notes.push({ path, line: keyLine(raw, "hooks"), message })) : undefined;
  if (source.format === "claude" && text(d.agent) && text(d.context) !== "fork")
    notes.push({
      path,
      line: keyLine(raw, "agent"),
      message: `not applied: "agent: ${text(d.agent)}" is the sub-agent a command runs as with "context: fork", which this file does not set: it runs in this conversation`,
    });
  return {
    ...(notes.length ? { notes } : {}),
    command: {
      name,
      aliases,
      format: source.format,
      origin: source.origin,
      ...(named.namespace ? { namespace: named.namespace } : {}),
      path,
      // Claude Code (commands and skills): without a description, the first paragraph of the body is its description.
      ...(descriptionText(d.description)
        ? { description: descriptionText(d.description) }
        : source.format === "claude" && firstParagraph(fm.body)
          ? { description: firstParagraph(fm.body), descriptionFromBody: true }
          : {}),
      ...(hintText(d["argument-hint"], raw) ? { argumentHint: hintText(d["argument-hint"], raw) } : {}),
      ...(argumentNames.length ? { argumentNames } : {}),
      allowedTools: allowed.map((t) => t.trim()).filter(Boolean),
      ...(source.format === "claude" || source.format === "copilot" ? (text(d.model) ? { model: text(d.model) } : {}) : {}),
      disableModelInvocation: bool(d["disable-model-invocation"]),
      ...(source.format === "claude" && text(d.context) === "fork" ? { fork: text(d.agent) ? { agent: text(d.agent)! } : {} } : {}),
      ...(effort ? { effort } : {}),
      ...(hooks ? { hooks } : {}),
      ...(source.format === "copilot" && text(d.mode ?? d.agent) ? { mode: text(d.mode ?? d.agent) } : {}),
      ...(tools.length ? { tools } : {}),
      ...(source.pluginRoot ? { pluginRoot: source.pluginRoot } : {}),
      body: withPluginRoot(withSkillDir(fm.body.replace(/^\n+/, "").replace(/\s+$/, ""), source.layout ? path.slice(0, path.lastIndexOf("/")) : undefined), source.pluginRoot),
    },
  };
}

/** `${CLAUDE_PLUGIN_ROOT}` (and `$CLAUDE_PLUGIN_ROOT`) in a plugin's command or skill: the plugin's folder. */
function withPluginRoot(body: string, root: string | undefined): string {
  return root ? body.replace(/\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT\b/g, () => root) : body;
}

/** `${CLAUDE_SKILL_DIR}` in a skill run as a command: the skill's folder. */
function withSkillDir(body: string, dir: string | undefined): string {
  return dir ? body.replace(/\$\{CLAUDE_SKILL_DIR\}/g, dir) : body;
}

/** Every command of these sources (highest priority first), with the problems found. */
export async function loadCustomCommands(files: CommandFiles, sources: readonly CommandSource[]): Promise<LoadedCommands> {
  const commands: CustomCommand[] = [];
  const problems: CommandProblem[] = [];
  for (const source of sources) {
    let rels: string[];
    try {
      rels = source.files ? [...source.files] : (await files.list(source.dir)).sort();
    } catch (err) {
      problems.push({ path: source.dir, message: `cannot list the folder: ${err instanceof Error ? err.message : String(err)}` });
      continue;
    }
    if (rels.length > MAX_FILES_PER_SOURCE) {
      problems.push({ path: source.dir, message: `${rels.length} files; only the first ${MAX_FILES_PER_SOURCE} are read` });
      rels = rels.slice(0, MAX_FILES_PER_SOURCE);
    }
    for (const rel of rels) {
      if (!commandName(source.format, rel, source.layout)) continue;
      const path = joinPath(source.dir, rel);
      const raw = await files.read(path).catch((err: unknown) => (err instanceof Error ? err : undefined));
      if (raw === undefined || raw instanceof Error) {
        problems.push({ path, message: raw instanceof Error ? raw.message : "cannot be read" });
        continue;
      }
      if (raw.length > MAX_FILE_BYTES) {
        problems.push({ path, message: `larger than ${MAX_FILE_BYTES / 1024} KB; not used as a command` });
        continue;
      }
      const r = parseCommandFile(source, rel, raw);
      if (r.problem) problems.push(r.problem);
      if (r.notes) problems.push(...r.notes);
      if (r.command) commands.push(r.command);
    }
  }
  return { commands: settle(commands, problems), problems };
}

/**
 * Who owns each name: the first command (highest priority source) keeps it; an alias never takes a command's name. The same format from a
 * lower source is overridden silently (a project command over a user one, as Claude Code does);
 * another format claiming the name is a problem.
 */
function settle(all: CustomCommand[], problems: CommandProblem[]): CustomCommand[] {
  const owner = new Map<string, CustomCommand>();
  const kept: CustomCommand[] = [];
  for (const c of all) {
    const first = owner.get(c.name);
    if (first) {
      if (first.format !== c.format) {
        problems.push({ path: c.path, message: `/${c.name} is also defined by ${first.path} (${first.format}, ${first.origin}), which is used; rename one of them` });
      } else if (first.origin === c.origin) {
        // Two Claude commands of one source in different sub-folders: each keeps its namespaced name.
        if (!c.aliases.length) problems.push({ path: c.path, message: `/${c.name} is also defined by ${first.path}, which is used` });
        else {
          const alias = c.aliases.find((a) => !owner.has(a));
          if (alias) {
            owner.set(alias, c);
            kept.push({ ...c, name: alias, aliases: [] });
            problems.push({ path: c.path, message: `/${c.name} is also defined by ${first.path}; this one runs as /${alias}` });
          }
        }
      }
      continue;
    }
    owner.set(c.name, c);
    kept.push(c);
  }
  // Aliases (`/release` for Cline's `/release.md`, `/frontend:component`) only where no command has that name.
  return kept.map((c) => {
    const aliases = c.aliases.filter((a) => !owner.has(a));
    for (const a of aliases) owner.set(a, c);
    return { ...c, aliases };
  });
}

/** The command a name runs (its name or an alias). */
export function findCommand(commands: readonly CustomCommand[], name: string): CustomCommand | undefined {
  return commands.find((c) => c.name === name) ?? commands.find((c) => c.aliases.includes(name));
}

/** How the composer and `/help`-style listings describe where a command comes from: `(project:frontend)`. */
export function originLabel(c: CustomCommand): string {
  return `(${c.origin}${c.namespace ? `:${c.namespace.replace(/:/g, "/")}` : ""})`;
}
