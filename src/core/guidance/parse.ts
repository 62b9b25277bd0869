/** One file → one guidance entry (or a problem), for each format the loader reads. */
import { globMatcher } from "../glob";
import { baseName, dirName } from "../paths";
import { descriptionText, firstParagraph, frontmatterTrue, keyLine, parseFrontmatter, stringList, toolRules } from "./frontmatter";
import { stripBlockComments } from "./html-comments";
import type { Activation, GuidanceEntry, GuidanceKind, GuidanceMatch, GuidanceOrigin, GuidanceProblem, LessonStatus } from "./types";
import { EFFORT_LEVELS, type Effort } from "../providers/types";
import { frontmatterHooks } from "../hooks/frontmatter";

export interface FileInput {
  path: string;
  source: string;
  origin: GuidanceOrigin;
  text: string;
  /** A plugin's skill: the plugin's name (the skill is `PLUGIN:NAME`) and its installed folder. */
  plugin?: { namespace: string; root?: string };
}

export interface Parsed {
  entry?: GuidanceEntry;
  problems: GuidanceProblem[];
  /** Not guidance for this agent (listed as excluded, never sent): why. */
  excluded?: string;
}

const STATUSES: readonly LessonStatus[] = ["active", "automated", "deprecated", "archived"];
const PRIORITY_WORDS: Record<string, number> = { critical: 2, high: 1.5, normal: 1, medium: 1, low: 0.5 };
/** Longest text kept of one entry; more is cut with a visible note. */
export const MAX_ENTRY_CHARS = 20_000;

const emptyMatch = (): GuidanceMatch => ({ keywords: [], patterns: [], tools: [], globs: [] });

function entry(kind: GuidanceKind, f: FileInput, name: string, body: string, activation: Activation, extra: Partial<GuidanceEntry> = {}): GuidanceEntry {
  return {
    id: `${kind}:${f.source}`,
    name,
    kind,
    source: f.source,
    origin: f.origin,
    path: f.path,
    body: bounded(body.trim()),
    activation,
    status: "active",
    priority: 1,
    match: emptyMatch(),
    ...extra,
  };
}

export function bounded(text: string): string {
  return text.length > MAX_ENTRY_CHARS ? `${text.slice(0, MAX_ENTRY_CHARS)}\n[truncated: the file has ${text.length} characters; read it for the rest]` : text;
}

/**
 * A Cursor rule's name: its file's, or — for Cursor's folder rules, `.cursor/rules/NAME/RULE.md` —
 * its folder's (every such file is called RULE.md; named after the file, all were "RULE").
 */
function cursorRuleName(path: string): string | undefined {
  if (baseName(path).toLowerCase() !== "rule.md") return undefined;
  const folder = baseName(dirName(path));
  return folder && folder !== "rules" ? folder : undefined;
}

function stem(path: string): string {
  return baseName(path).replace(/(\.instructions)?\.(md|mdc|markdown|txt)$/i, "");
}

function heading(body: string): string | undefined {
  return /^#{1,3}\s+(.+?)\s*#*\s*$/m.exec(body)?.[1];
}

function text(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

/** A gptme-format lesson: `match: {keywords, patterns, tools, globs}`, `status`, `priority`. */
export function parseLesson(f: FileInput): Parsed {
  const fm = parseFrontmatter(f.text);
  const problems: GuidanceProblem[] = [];
  if (fm.problem) return { problems: [{ path: f.path, ...fm.problem }] };
  const d = fm.data;
  const m = (d.match && typeof d.match === "object" && !Array.isArray(d.match) ? d.match : {}) as Record<string, unknown>;
  if (d.match !== undefined && (typeof d.match !== "object" || Array.isArray(d.match) || d.match === null))
    problems.push({ path: f.path, line: keyLine(f.text, "match"), message: "`match` must be a mapping with keywords, patterns, tools or globs" });
  const match: GuidanceMatch = {
    keywords: stringList(m.keywords ?? d.keywords),
    patterns: stringList(m.patterns ?? d.patterns, false),
    tools: stringList(m.tools ?? d.tools),
    globs: stringList(m.globs ?? m.files ?? d.globs),
  };
  for (const p of match.patterns) {
    const err = regexError(p);
    if (err) problems.push({ path: f.path, line: keyLine(f.text, "patterns"), message: `pattern ${JSON.stringify(p)} is not a valid regular expression: ${err}` });
  }
  match.patterns = match.patterns.filter((p) => !regexError(p));
  let status: LessonStatus = "active";
  if (d.status !== undefined) {
    if (typeof d.status === "string" && (STATUSES as readonly string[]).includes(d.status)) status = d.status as LessonStatus;
    else problems.push({ path: f.path, line: keyLine(f.text, "status"), message: `status ${JSON.stringify(d.status)} is not one of ${STATUSES.join(", ")}; taken as active` });
  }
  const priority = priorityOf(d.priority);
  if (priority === undefined)
    problems.push({ path: f.path, line: keyLine(f.text, "priority"), message: `priority ${JSON.stringify(d.priority)} is not a number or one of ${Object.keys(PRIORITY_WORDS).join(", ")}` });
  const title = heading(fm.body);
  const name = text(d.name) ?? stem(f.path);
  if (!fm.body.trim()) problems.push({ path: f.path, line: fm.bodyLine, message: "the lesson has no text after its frontmatter" });
  const none = !match.keywords.length && !match.patterns.length && !match.tools.length && !match.globs.length;
  if (none && status === "active") problems.push({ path: f.path, line: 1, message: "the lesson has no match (keywords, patterns, tools or globs): it can only be pinned" });
  return { entry: entry("lesson", f, name, fm.body, none ? "manual" : "match", { title, description: text(d.description) ?? title, status, priority: priority ?? 1, match }), problems };
}

function priorityOf(v: unknown): number | undefined {
  if (v === undefined || v === null) return 1;
  if (typeof v === "number" && Number.isFinite(v)) return Math.max(0, v);
  if (typeof v === "string" && Object.hasOwn(PRIORITY_WORDS, v.toLowerCase())) return PRIORITY_WORDS[v.toLowerCase()];
  return undefined;
}

export function regexError(p: string): string | undefined {
  try {
    new RegExp(stripInlineFlags(p));
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message.replace(/^Invalid regular expression: /, "") : String(err);
  }
}

/** `(?i)` at the start (Python style) is dropped: patterns match case-insensitively anyway. */
export function stripInlineFlags(p: string): string {
  return p.replace(/^\(\?[imsx]+\)/, "");
}

/** An Anthropic SKILL.md: `name`, `description`, optional `paths` globs, `disable-model-invocation` (then manual: only `@name`). */
export function parseSkill(f: FileInput, files: string[] = []): Parsed {
  const fm = parseFrontmatter(f.text);
  if (fm.problem) return { problems: [{ path: f.path, ...fm.problem }] };
  const problems: GuidanceProblem[] = [];
  const folder = baseName(dirName(f.path));
  // A plugin's skill is `PLUGIN:NAME`, as Claude Code names it: a project or personal skill of the same name does not hide it.
  const name = `${f.plugin ? `${f.plugin.namespace}:` : ""}${text(fm.data.name) ?? folder}`;
  if (!text(fm.data.name)) problems.push({ path: f.path, line: 1, message: `the skill has no \`name\` in its frontmatter; called "${folder}" after its folder` });
  // Claude Code: "If omitted, uses the first paragraph of markdown content." Its `when_to_use` (trigger
  // phrases, example requests) is appended to the description in the skill listing: the model chooses by both.
  // A number or boolean (`description: 42`) is its text, as Claude Code reads it (descriptionText).
  const given = [descriptionText(fm.data.description), text(fm.data.when_to_use)].filter(Boolean).join(" ") || undefined;
  const description = given ?? firstParagraph(fm.body);
  if (!given)
    problems.push({
      path: f.path,
      line: 1,
      message: description
        ? "the skill has no `description`: the model is told its first paragraph instead (as Claude Code does)"
        : "the skill has no `description` and no text: the model is told only its name",
    });
  const globs = stringList(fm.data.paths);
  // Claude Code's `disable-model-invocation: true`: the model is not told of it and cannot load it; only the user invokes it.
  const userOnly = frontmatterTrue(fm.data["disable-model-invocation"]);
  const allowed = toolRules(fm.data["allowed-tools"]);
  const fork = text(fm.data.context) === "fork";
  const effort = effortLevel(fm.data.effort);
  // Claude Code's `model` (an alias, a model name, or `inherit`: the session's own, so nothing to switch).
  const model = text(fm.data.model) && text(fm.data.model)!.toLowerCase() !== "inherit" ? text(fm.data.model) : undefined;
  if (fm.data.effort !== undefined && fm.data.effort !== null && fm.data.effort !== "" && !effort)
    problems.push({
      path: f.path,
      line: keyLine(f.text, "effort"),
      message: `not applied: "effort: ${String(fm.data.effort)}" is not one of low, medium, high, xhigh, max: the skill runs at the model's default effort`,
    });
  // Claude Code's `hooks`: registered when the skill is loaded, for the rest of the session (a forked skill's: its sub-agent's run).
  const hooks = frontmatterHooks(fm.data.hooks, f.plugin ? "plugin" : f.origin === "workspace" ? "project" : "user", "skill", f.path, (message) =>
    problems.push({ path: f.path, line: keyLine(f.text, "hooks"), message }),
  );
  return {
    entry: entry("skill", f, name, skillText(fm.body, dirName(f.path), f.plugin?.root), userOnly ? "manual" : "requested", {
      description,
      title: heading(fm.body),
      match: { ...emptyMatch(), globs },
      dir: dirName(f.path),
      files,
      // Claude Code's `context: fork` (with `agent`): loaded, the skill runs in a sub-agent, at its
      // `effort`. An inline skill's `effort` holds from its load to the end of the turn.
      // `model` likewise: the sub-agent's model, or an inline skill's model from its load to the end of the turn.
      ...(fork
        ? { fork: { ...(text(fm.data.agent) ? { agent: text(fm.data.agent)! } : {}), ...(effort ? { effort } : {}), ...(model ? { model } : {}) } }
        : { ...(effort ? { effort } : {}), ...(model ? { model } : {}) }),
      ...(hooks ? { hooks } : {}),
      ...(allowed.length ? { allowedTools: allowed } : {}),
      ...(f.plugin?.root ? { pluginRoot: f.plugin.root } : {}),
    }),
    problems,
  };
}

/** Claude Code's substitutions in a skill's text: `${CLAUDE_SKILL_DIR}` (its folder) and, in a plugin's, `${CLAUDE_PLUGIN_ROOT}`. */
function skillText(body: string, dir: string, pluginRoot: string | undefined): string {
  const withDir = body.replace(/\$\{CLAUDE_SKILL_DIR\}/g, () => dir);
  return pluginRoot ? withDir.replace(/\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT\b/g, () => pluginRoot) : withDir;
}

export type RuleFormat = "mdc" | "instructions" | "always" | "cline" | "claude" | "windsurf" | "kiro" | "kiro-spec";

/**
 * A rule. Cursor .mdc: alwaysApply → always; globs → auto-attached; a description alone →
 * agent-requested; nothing → manual. Copilot .instructions.md: applyTo globs (`**` = always).
 * Cline/Roo rule files: always unless `paths` globs say where. Claude Code `.claude/rules/*.md`:
 * `paths` globs → when a matching file is touched, none → always. Windsurf `.windsurf/rules/*.md`:
 * `trigger` always_on → always, glob → auto-attached, model_decision → requested (with or without a
 * description), manual → manual; Antigravity's `.agents/rules` (`.agent/rules`) are read the same way. Kiro
 * `.kiro/steering/*.md`: `inclusion` always (or none) → always, fileMatch + `fileMatchPattern` → auto-attached,
 * auto + `description` → requested (named by its `name`), manual → manual. The rest (.cursorrules, .windsurfrules,
 * copilot-instructions.md, .roorules): always. `dir`: a nested rule folder's project (its globs
 * are relative to it, and it applies only to files under it).
 */
export function parseRule(f: FileInput, format: RuleFormat, dir?: string): Parsed {
  const fm = parseFrontmatter(f.text);
  if (fm.problem) return { problems: [{ path: f.path, ...fm.problem }] };
  const d = fm.data;
  const problems: GuidanceProblem[] = [];
  const description = text(d.description);
  const name =
    format === "kiro-spec"
      ? `spec:${baseName(dirName(f.path))}`
      : ((format === "kiro" && text(d.inclusion)?.toLowerCase() === "auto" ? text(d.name) : undefined) ??
        (format === "mdc" ? cursorRuleName(f.path) : undefined) ??
        (stem(f.path) || baseName(f.path)));
  let activation: Activation = "always";
  let globs: string[] = [];
  if (format === "mdc") {
    globs = stringList(d.globs);
    const always = d.alwaysApply;
    // Only the boolean `true` makes a rule always-on: Cursor reads `alwaysApply: "true"` (a quoted
    // string) as not always applied, so the rule falls to its globs, its description or manual.
    if (typeof always === "string" && always.trim().toLowerCase() === "true")
      problems.push({
        path: f.path,
        line: keyLine(f.text, "alwaysApply"),
        message: `alwaysApply is the string "${always}", not the boolean true: Cursor does not apply it always, and neither does Yoke (write alwaysApply: true, unquoted)`,
      });
    else if (always !== undefined && always !== null && typeof always !== "boolean" && always !== "false")
      problems.push({ path: f.path, line: keyLine(f.text, "alwaysApply"), message: `alwaysApply ${JSON.stringify(always)} is not true or false` });
    activation = always === true ? "always" : globs.length ? "glob" : description ? "requested" : "manual";
  } else if (format === "instructions") {
    // Copilot's `excludeAgent`: a file kept from its coding agent (`coding-agent`, since renamed
    // `cloud-agent`) is code review's only; Yoke is a coding agent, so it is not Yoke's either.
    const kept = stringList(d.excludeAgent).map((a) => a.trim().toLowerCase());
    const from = kept.find((a) => a === "coding-agent" || a === "cloud-agent");
    if (from)
      return {
        problems: [],
        excluded: `excludeAgent: ${from} — Copilot keeps this file from its coding agent (it is for code review); Yoke is a coding agent: never sent`,
      };
    globs = stringList(d.applyTo);
    activation = globs.some((g) => g === "**" || g === "**/*" || g === "*") ? "always" : globs.length ? "glob" : description ? "requested" : "manual";
  } else if (format === "cline") {
    globs = stringList(d.paths ?? d.globs);
    activation = globs.length ? "glob" : "always";
  } else if (format === "claude") {
    globs = stringList(d.paths);
    activation = globs.length ? "glob" : "always";
  } else if (format === "windsurf") {
    // Windsurf `.windsurf/rules/*.md`: `trigger` always_on | glob (+ `globs`) | model_decision (+
    // `description`) | manual (@name) — the same activations Cursor's rules get.
    globs = stringList(d.globs);
    const trigger = text(d.trigger)?.toLowerCase();
    const at = (message: string) => problems.push({ path: f.path, line: keyLine(f.text, "trigger") ?? 1, message });
    if (trigger === "always_on") activation = "always";
    else if (trigger === "glob") {
      activation = globs.length ? "glob" : "manual";
      if (!globs.length) at("trigger: glob without globs: it applies only when named with @");
    } else if (trigger === "model_decision") {
      // Windsurf lists every model_decision rule to Cascade, which decides whether to read it: without
      // a description it is listed by its name (or its first heading), still the model's to choose.
      activation = "requested";
    } else {
      activation = "manual";
      if (trigger !== "manual")
        at(
          trigger
            ? `trigger "${trigger}" is not always_on, glob, model_decision or manual: it applies only when named with @`
            : "no trigger: it applies only when named with @ (set trigger: always_on to apply it always)",
        );
    }
  } else if (format === "kiro-spec") {
    // A Kiro spec's file (`.kiro/specs/NAME/requirements.md`, `bugfix.md`, `design.md`, `tasks.md`):
    // Kiro gives a spec to its agent when the person works in it (opens it, runs one of its tasks, or
    // names it with `#spec`), never to every request. Here: manual, all of a spec's files named
    // together as `@spec:NAME`.
    activation = "manual";
  } else if (format === "kiro") {
    // Kiro steering: `inclusion` always (the default) | fileMatch (+ `fileMatchPattern`, one glob or a
    // list) | manual (`#name` in Kiro's chat, `@name` here) | auto (+ `name`, `description`: Kiro
    // includes it when the request matches the description — the model chooses, as with Cursor's
    // agent-requested rules).
    const inclusion = text(d.inclusion);
    const at = (message: string) => problems.push({ path: f.path, line: keyLine(f.text, "inclusion") ?? 1, message });
    const mode = inclusion?.toLowerCase();
    if (mode === undefined || mode === "always") activation = "always";
    else if (mode === "filematch") {
      globs = stringList(d.fileMatchPattern);
      activation = globs.length ? "glob" : "manual";
      if (!globs.length) at("inclusion: fileMatch without a fileMatchPattern: it applies only when named with @");
    } else if (mode === "auto") {
      activation = description ? "requested" : "manual";
      if (!description) at("inclusion: auto without a description: the model cannot choose it, so it applies only when named with @");
    } else {
      activation = "manual";
      if (mode !== "manual") at(`inclusion "${inclusion}" is not always, fileMatch, auto or manual: it applies only when named with @`);
    }
  }
  if (!fm.body.trim()) problems.push({ path: f.path, line: fm.bodyLine, message: "the rule is empty" });
  for (const g of globs.filter(unmatchableGlob))
    problems.push({ path: f.path, line: ["globs", "applyTo", "paths", "fileMatchPattern"].map((k) => keyLine(f.text, k)).find((n) => n > 1) ?? 1, message: unmatchableGlobMessage(g) });
  globs = globs.filter((g) => !unmatchableGlob(g));
  // Claude Code's rules are memory: its block-level HTML comments never reach the model.
  const body = format === "claude" ? stripBlockComments(fm.body) : fm.body;
  return { entry: entry("rule", f, name, body, activation, { description: description ?? heading(body), match: { ...emptyMatch(), globs }, dir }), problems };
}

/**
 * A glob Yoke cannot match in bounded time: globs are matched without backtracking (src/core/glob),
 * so `*a*a*a*a*X` or `+(*a)X` are fine; only what picomatch passes through as regular-expression
 * syntax the bounded matcher does not read (a back-reference `\\1`, an octal escape) is left out —
 * matched by JavaScript's engine it could hold the session for hours (red team 22-merged).
 */
export function unmatchableGlob(glob: string): boolean {
  try {
    return globTester(glob) === undefined;
  } catch {
    return true;
  }
}

export function unmatchableGlobMessage(glob: string): string {
  return `glob ${JSON.stringify(glob)} not used: it passes regular-expression syntax (a back-reference or octal escape such as \\1) that Yoke does not match, to keep every match fast (write it as a plain glob)`;
}

/** A matcher for a guidance glob (relative path; no `/`: any folder), or undefined when it cannot be matched in bounded time. */
export function globTester(glob: string): ((rel: string) => boolean) | undefined {
  const g = glob.replace(/^\.\//, "").replace(/^\//, "");
  return globMatcher(g, { dot: true, basename: !g.includes("/") });
}

/** Project memory (AGENTS.md, CLAUDE.md…): no frontmatter expected; a leading one is dropped. */
export function parseMemory(f: FileInput, activation: Activation, dir: string, body?: string): Parsed {
  const fm = parseFrontmatter(f.text);
  const problems: GuidanceProblem[] = fm.problem ? [{ path: f.path, ...fm.problem }] : [];
  return { entry: entry("memory", f, f.source, body ?? (fm.problem ? f.text : fm.body), activation, { dir }), problems };
}

/** Claude Code's `effort`, when it is one of its levels (any case). */
function effortLevel(v: unknown): Effort | undefined {
  const e = typeof v === "string" ? v.trim().toLowerCase() : "";
  return (EFFORT_LEVELS as readonly string[]).includes(e) ? (e as Effort) : undefined;
}
