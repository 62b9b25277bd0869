/**
 * Roo Code's custom modes (`.roomodes` at the workspace root, YAML or JSON: `customModes: [...]`, or a mapping keyed by slug)
 * as Yoke custom agents. Each mode is an agent named by its `slug`:
 * - `whenToUse` (else `description`, else the first sentence of `roleDefinition`) is what the model
 *   picks it by;
 * - its system prompt is `roleDefinition`, then `customInstructions`, then the mode's own rules —
 *   `~/.roo/rules-{slug}/` and `.roo/rules-{slug}/` (each file, in name order) or, when neither has
 *   one, `.roorules-{slug}`, else its legacy name `.clinerules-{slug}` (modeRules);
 * - its tools come from `groups`: `read` → Read, Grep, Glob; `edit` → Edit, Write; `command` →
 *   Bash; TodoWrite always (Roo's todo list is in every mode). `browser` and `mcp` have no Yoke
 *   tool set (reported). An edit group's `fileRegex` limits the files the agent may edit
 *   (`editPaths`, enforced by edit-paths.ts; read with a bound on its work, file-regex.ts), and the
 *   agent is told so.
 */
import { parseDocument } from "yaml";
import { flowDepth, MAX_FLOW_DEPTH } from "../guidance/frontmatter";
import { readWorkspaceText } from "../guidance/loader";
import { isRooRuleFile } from "../guidance/roo-files";
import type { FileAccessPolicy, WorkspaceFs } from "../ports";
import { boundedFileRegex, fileRegexLabel, type FileRegex } from "./file-regex";

/** An agent file as the agents reader takes it (AgentFile of agents.ts, which imports this file). */
export interface RooAgentFile {
  display: string;
  text: string;
  origin: "project" | "user";
  format: "claude";
  stem: string;
  path?: string;
  notes?: string[];
  editPaths?: FileRegex[];
}

const GROUP_TOOLS: Record<string, string[]> = { read: ["Read", "Grep", "Glob"], edit: ["Edit", "Write"], command: ["Bash"] };
const SLUG_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const MAX_RULE_BYTES = 64 * 1024;

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);

/** The first sentence of a role definition (the description when the mode gives no whenToUse). */
function firstSentence(text: string): string {
  const m = /^[\s\S]*?[.!?](\s|$)/.exec(text);
  return (m ? m[0] : text).trim().replace(/\s+/g, " ");
}

export interface RooModeInput {
  /** `.roomodes` as read. */
  text: string;
  /** Shown in problems (`.roomodes`). */
  display: string;
  path?: string;
  /** Whose modes: the workspace's `.roomodes` ("project", the default) or Roo's global custom_modes file ("user"). */
  origin?: "project" | "user";
  /** The mode's own rules (`.roo/rules-{slug}/…`), in order, with where each came from; a file that may not be read, with why. */
  rules(slug: string): Promise<ModeRule[]>;
}

/**
 * The modes of `customModes`: Roo Code's list, or a mapping keyed by slug (each entry's own `slug`,
 * else its key) — the same modes either way. [index, mode, key] each; undefined: neither shape.
 */
function modeEntries(v: unknown): Array<[number, unknown, string | undefined]> | undefined {
  if (Array.isArray(v)) return v.map((m, i) => [i, m, undefined]);
  if (v && typeof v === "object") return Object.entries(v as Record<string, unknown>).map(([k, m], i) => [i, m, k]);
  return undefined;
}

/**
 * One entry of a mode's `groups`, in each shape Roo Code accepts: `"read"`, the tuple
 * `["edit", {fileRegex, description}]`, and the object `{group: "edit", options: {fileRegex, description}}`.
 */
function groupEntry(g: unknown): [string, Record<string, unknown>] {
  const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  if (Array.isArray(g)) return [String(g[0]), obj(g[1])];
  if (g && typeof g === "object" && typeof (g as { group?: unknown }).group === "string") return [(g as { group: string }).group, obj((g as { options?: unknown }).options)];
  return [typeof g === "string" ? g : JSON.stringify(g), {}];
}

/** Every custom mode of a `.roomodes` file as an agent file (Claude Code's shape), with what could not be applied. */
export async function rooModeAgentFiles(input: RooModeInput): Promise<{ files: RooAgentFile[]; problems: string[] }> {
  const problems: string[] = [];
  // Deeply nested [ ] / { } take the YAML parser seconds (red team J 24, frontmatter.ts flowDepth): not read.
  if (flowDepth(input.text) > MAX_FLOW_DEPTH) return { files: [], problems: [`${input.display}:1: not read as modes: its [ ] or { } are nested more than ${MAX_FLOW_DEPTH} deep`] };
  const doc = parseDocument(input.text, { prettyErrors: false });
  if (doc.errors.length) return { files: [], problems: [`${input.display}:${doc.errors[0]!.linePos?.[0]?.line ?? 1}: not valid YAML or JSON: ${doc.errors[0]!.message.split("\n")[0]}`] };
  // The yaml library refuses an alias bomb (a few lines that expand into millions of nodes) with an
  // exception: a problem of this file, never a failure of every agent (red team 22-merged).
  let data: unknown;
  try {
    data = doc.toJS() as unknown;
  } catch (err) {
    return { files: [], problems: [`${input.display}:1: not read as modes: ${err instanceof Error ? err.message : String(err)}`] };
  }
  const listed = data && typeof data === "object" ? (data as { customModes?: unknown }).customModes : undefined;
  const modes = modeEntries(listed);
  if (!modes) return { files: [], problems: [`${input.display}:1: no customModes list: Roo Code reads its modes from "customModes"`] };
  const files: RooAgentFile[] = [];
  for (const [i, raw, key] of modes) {
    const m = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
    const slug = str(m.slug) ?? key;
    const where = `${input.display}:1: customModes${key === undefined ? `[${i}]` : `.${key}`}${slug ? ` (${slug})` : ""}`;
    if (!slug || !SLUG_RE.test(slug)) {
      problems.push(`${where}: a mode needs a slug of letters, digits, - and _; skipped`);
      continue;
    }
    const role = str(m.roleDefinition);
    if (!role) {
      problems.push(`${where}: a mode needs a roleDefinition; skipped`);
      continue;
    }
    // Where the mode starts in the file (its slug's line), for `path:line: message` problems.
    const slugLine = input.text.split(/\r?\n/).findIndex((l) => l.includes(slug) && /slug/.test(l)) + 1 || 1;
    const notes: string[] = [];
    const note = (message: string) => notes.push(`${input.display}:${slugLine}: mode "${slug}": ${message}`);
    const tools = new Set<string>(["TodoWrite"]);
    const editLimits: FileRegex[] = [];
    let unlimitedEdit = false;
    const groups = Array.isArray(m.groups) ? m.groups : [];
    for (const g of groups) {
      const [name, opts] = groupEntry(g);
      const mapped = GROUP_TOOLS[name];
      if (!mapped) {
        note(`not applied: the "${name}" group${name === "browser" ? " (Yoke has no browser tool)" : name === "mcp" ? " (name the MCP tools in a Claude Code agent instead)" : ""}`);
        continue;
      }
      mapped.forEach((t) => tools.add(t));
      const re = str(opts.fileRegex);
      if (name === "edit") {
        if (!re) unlimitedEdit = true;
        else {
          const limit = boundedFileRegex(re, str(opts.description));
          editLimits.push(limit);
          if ("problem" in limit) note(`the edit group's fileRegex ${re} is refused: ${limit.problem}; the mode may edit no file with it`);
        }
      }
    }
    const rules: Array<{ display: string; text: string }> = [];
    for (const r of await input.rules(slug)) {
      if ("problem" in r) note(`${r.display}: ${r.problem}`);
      else rules.push(r);
    }
    const body = [
      role,
      str(m.customInstructions),
      editLimits.length && !unlimitedEdit ? `Edit only files whose path matches ${editLimits.map(fileRegexLabel).join(" or ")}; other edits are refused.` : undefined,
      ...rules.map((r) => `Rules of this mode (${r.display}):\n${r.text.trim()}`),
    ]
      .filter(Boolean)
      .join("\n\n");
    const description = str(m.whenToUse) ?? str(m.description) ?? firstSentence(role);
    // Written as Claude Code's agent file (JSON strings are valid YAML), so it is read as every other agent is.
    const text = ["---", `name: ${JSON.stringify(slug)}`, `description: ${JSON.stringify(description)}`, `tools: ${JSON.stringify([...tools].join(", "))}`, "---", body, ""].join("\n");
    files.push({
      display: `${input.display} (mode ${slug})`,
      text,
      origin: input.origin ?? "project",
      format: "claude",
      stem: slug,
      ...(input.path ? { path: input.path } : {}),
      ...(notes.length ? { notes } : {}),
      ...(editLimits.length && !unlimitedEdit ? { editPaths: editLimits } : {}),
    });
  }
  return { files, problems };
}

/** One rule file of a mode as read: its text, or why it was not read. */
export type ModeRule = { display: string; text: string } | { display: string; problem: string };

/**
 * A mode's rules as Roo Code gathers them (its custom instructions for a mode): the files of
 * `~/.roo/rules-{slug}/` (the user's, `user`), then of the project's `.roo/rules-{slug}/` — each
 * folder read with its sub-folders, in name order; only when neither has a file, the project's
 * single `.roorules-{slug}`, else (empty or absent) the legacy `.clinerules-{slug}` — Roo's
 * addCustomInstructions order. The same for a `.roomodes` mode and a global one.
 */
export async function modeRules(slug: string, user: ((slug: string) => Promise<ModeRule[]>) | undefined, project: ProjectModeRules | undefined): Promise<ModeRule[]> {
  const out = [...((await user?.(slug)) ?? []), ...((await project?.folder(slug)) ?? [])];
  if (out.some((r) => "text" in r) || !project) return out;
  const single = await project.single(slug);
  return single ? [...out, single] : out;
}

/** The project's side of a mode's rules: `.roo/rules-{slug}/` and the single `.roorules-{slug}` (or `.clinerules-{slug}`). */
export interface ProjectModeRules {
  folder(slug: string): Promise<ModeRule[]>;
  single(slug: string): Promise<ModeRule | undefined>;
}

const MAX_RULE_FILES = 200;

/**
 * The project's rules of a mode through the workspace's file system, read as guidance is
 * (readWorkspaceText): inside the workspace, never a secret or a Read-denied file, no link followed
 * after the check (red team 22-merged: `.roorules-rev -> /proc/self/environ` put the provider key
 * into the request). A script (`#!`) is not a rule.
 */
export function projectModeRules(fs: WorkspaceFs, access?: FileAccessPolicy): ProjectModeRules {
  const read = (rel: string) => readBounded(fs, rel, access);
  return {
    async folder(slug) {
      const out: ModeRule[] = [];
      const walk = async (dir: string, depth: number): Promise<void> => {
        const entries: Array<[string, string]> = await fs.readDir(`${fs.root}/${dir}`).catch(() => []);
        for (const [name, type] of entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
          if (out.length >= MAX_RULE_FILES) return;
          if (type === "directory" && depth < 4) await walk(`${dir}/${name}`, depth + 1);
          if ((type !== "file" && type !== "symlink") || !isRooRuleFile(name)) continue;
          const t = await read(`${dir}/${name}`);
          if (t === undefined) continue;
          if (typeof t !== "string") out.push({ display: `${dir}/${name}`, problem: t.problem });
          else if (!t.startsWith("#!")) out.push({ display: `${dir}/${name}`, text: t });
        }
      };
      await walk(`.roo/rules-${slug}`, 0);
      return out;
    },
    async single(slug) {
      // Roo's order: `.roorules-{slug}`, else (empty or absent) its legacy name `.clinerules-{slug}`.
      for (const name of [`.roorules-${slug}`, `.clinerules-${slug}`]) {
        const t = await read(name);
        if (t === undefined || (typeof t === "string" && !t.trim())) continue;
        return typeof t === "string" ? { display: name, text: t } : { display: name, problem: t.problem };
      }
      return undefined;
    },
  };
}

async function readBounded(fs: WorkspaceFs, rel: string, access?: FileAccessPolicy): Promise<string | { problem: string } | undefined> {
  const path = `${fs.root}/${rel}`;
  const st = await fs.stat(path).catch(() => undefined);
  if (st && st.type === "file" && st.size > MAX_RULE_BYTES) return { problem: `not read: larger than ${MAX_RULE_BYTES / 1024} KB` };
  const text = await readWorkspaceText(fs, path, access).catch((err: unknown) => ({ problem: `not read: ${err instanceof Error ? err.message : String(err)}` }));
  return typeof text === "string" && text.length > MAX_RULE_BYTES ? { problem: `not read: larger than ${MAX_RULE_BYTES / 1024} KB` } : text;
}

/**
 * The workspace's `.roomodes` (if any) through its file system: its modes as agent files, and the
 * problems. Its files reach the model unasked (an agent's system prompt), so they are read as
 * guidance is (projectModeRules). A mode's rules: the user's `~/.roo/rules-{slug}/` (`userRules`,
 * from the host) and the project's (modeRules).
 */
export async function workspaceRooModes(fs: WorkspaceFs, access?: FileAccessPolicy, userRules?: (slug: string) => Promise<ModeRule[]>): Promise<{ files: RooAgentFile[]; problems: string[] }> {
  const text = await readBounded(fs, ".roomodes", access);
  if (text === undefined) return { files: [], problems: [] };
  if (typeof text !== "string") return { files: [], problems: [`.roomodes:1: ${text.problem}`] };
  const project = projectModeRules(fs, access);
  return rooModeAgentFiles({
    text,
    display: ".roomodes",
    path: `${fs.root}/.roomodes`,
    rules: (slug) => modeRules(slug, userRules, project),
  });
}
