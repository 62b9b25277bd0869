/**
 * The one loader: every lesson, skill, rule and project-memory file of the workspace (through
 * WorkspaceFs, so Remote-SSH, WSL and containers work) and of the user and the built-in lessons
 * (through the GuidanceFiles port). Unreadable or malformed files are problems, never skipped silently.
 */
import { baseName, dirName, displayPath, folderOf, isInside, joinPath, normalizePath, relativePath, workspaceFolders } from "../paths";
import { isPathChanged, type FileAccessPolicy, type GlobResult, type Searcher, type WorkspaceFs } from "../ports";
import { secretToRead } from "../permissions/sensitive";
import { createFsSearcher } from "../tools/fs-searcher";
import { parseFrontmatter } from "./frontmatter";
import { MEMORY_NAMES, NESTED_GUIDANCE_GLOBS, NESTED_RULE_FOLDERS, RULE_FILES_GLOB, RULE_MD_FILES_GLOB, WINDSURF_RULE_FILES_GLOB } from "./nested-globs";
import { parseLesson, parseMemory, parseRule, parseSkill, type FileInput, type Parsed, type RuleFormat } from "./parse";
import type { ExcludedFile, GuidanceEntry, GuidanceFiles, GuidanceProblem, GuidanceSet, RuleAbove } from "./types";
import { stripBlockComments } from "./html-comments";
import { applyWindsurfLimits } from "./windsurf-limits";
import { isRooRuleFile } from "./roo-files";

/** Skill folders of a workspace: Yoke's, Claude Code's, the open standard's, Copilot's, Cursor's and Codex's. */
export const SKILL_DIRS = [".yoke/skills", ".claude/skills", ".agents/skills", ".github/skills", ".cursor/skills", ".codex/skills"];
export const LESSON_DIR = ".yoke/lessons";
export { MEMORY_NAMES };
/** Only at the root of a workspace folder. */
const ROOT_ONLY_MEMORY = ["CLAUDE.local.md", ".claude/CLAUDE.md"];
const MAX_FILES_PER_DIR = 500;
const MAX_DEPTH = 6;
const MAX_IMPORT_DEPTH = 5;
const SKIP_DIRS = new Set(["node_modules", ".git", "dist", "out", "build", "target", "vendor", "__pycache__", ".venv", "venv"]);
/** Nested AGENTS.md/CLAUDE.md files listed at most per workspace folder, and how long the search for them may take. */
export const MAX_NESTED_MEMORY = 10_000;
export const NESTED_MEMORY_TIME_MS = 60_000;

export interface LoadOptions {
  fs: WorkspaceFs;
  files?: GuidanceFiles;
  /** Also walk the workspace for nested AGENTS.md/CLAUDE.md (listing everything; a session finds them as files are touched). */
  nestedMemory?: boolean;
  /** Read deny rules: a CLAUDE.md import of a denied file is refused (a problem). */
  access?: FileAccessPolicy;
  /** Finds nested memory files (ripgrep in both hosts); default: the JS searcher over `fs`. */
  search?: Searcher;
}

const decoder = new TextDecoder();

/** Why a workspace guidance file was not read (a problem shown to the user). */
class NotRead extends Error {}

const realRoots = new WeakMap<WorkspaceFs, Promise<string[]>>();

/** The workspace roots, as given and resolved (a root under a symlinked folder). */
function rootsOf(fs: WorkspaceFs): Promise<string[]> {
  let p = realRoots.get(fs);
  if (!p) {
    p = Promise.all(
      workspaceFolders(fs).map(async (f) => {
        const real = await fs.realPath(f.root).catch(() => undefined);
        return [normalizePath(f.root), ...(real ? [normalizePath(real)] : [])];
      }),
    ).then((r) => r.flat());
    realRoots.set(fs, p);
  }
  return p;
}

/**
 * A workspace file's text; undefined when absent or not a file. Reading guidance is reading: the
 * path is resolved in full (a symlinked file, or a symlinked folder on the way — CLAUDE.md ->
 * AGENTS.md is common, `.cursor -> ~/.ssh` is an attack) and must stay inside the workspace, and
 * neither the path nor what it resolves to may be covered by a Read deny rule. Otherwise NotRead,
 * with the reason.
 */
async function readReal(fs: WorkspaceFs, path: string, access?: FileAccessPolicy): Promise<{ text: string; real: string } | undefined> {
  const st = await fs.stat(path).catch(() => undefined);
  if (!st) return undefined;
  const resolved = await fs.realPath(path).catch(() => undefined);
  if (!resolved) return undefined;
  const real = normalizePath(resolved);
  if (!(await rootsOf(fs)).some((r) => isInside(r, real))) throw new NotRead(`not read: it resolves to ${real}, outside the workspace`);
  const target = real;
  // A path that is its own real path has no link on the way: the first look already saw the file.
  const seen = real === normalizePath(path) ? st : await fs.stat(target).catch(() => undefined);
  if (seen?.type !== "file") return undefined;
  for (const p of new Set([path, real])) {
    const denied = await access?.deniedBy("Read", p).catch(() => null);
    if (denied) throw new NotRead(`not read: reading it is denied by ${denied}`);
    // Nobody is asked about guidance reads, so a secret (read_file asks for one) is never one.
    const secret = secretToRead(p);
    if (secret) throw new NotRead(`not read: it is a secret (${secret}); guidance never brings one into the conversation`);
  }
  // The file that was checked, and no other: opened without following links and verified to be
  // `real` (WorkspaceFs.readChecked, as the file tools read). Reading `target` by name would follow
  // a link a running command swaps in after the checks (red team 21-host: a folder's CLAUDE.md
  // flipped to a link to a Read-denied .env was loaded as that folder's memory).
  try {
    const read = await fs.readChecked(await checkedPathOf(fs, real));
    return { text: decoder.decode(read.data), real };
  } catch (err) {
    if (isPathChanged(err)) throw new NotRead(`not read: it changed while it was being read (${err.detail}); guidance never follows a link that appears after its check`);
    throw err;
  }
}

/**
 * A workspace file that goes to the model unasked (guidance, a Roo mode's rules), read as guidance
 * is (readReal): resolved in full and inside the workspace, never a secret or a Read-denied file,
 * read by descriptor without following a link. Its text; undefined when absent or not a file;
 * `{ problem }` saying why it was not read.
 */
export async function readWorkspaceText(fs: WorkspaceFs, path: string, access?: FileAccessPolicy): Promise<string | { problem: string } | undefined> {
  try {
    return (await readReal(fs, path, access))?.text;
  } catch (err) {
    if (err instanceof NotRead) return { problem: err.message };
    throw err;
  }
}

/** `real` (a resolved path inside a workspace folder) under that folder's root as configured: the form WorkspaceFs.readChecked verifies. */
async function checkedPathOf(fs: WorkspaceFs, real: string): Promise<string> {
  for (const f of workspaceFolders(fs)) {
    const root = normalizePath(f.root);
    if (isInside(root, real)) return real;
    const resolved = await fs.realPath(root).catch(() => undefined);
    const realRoot = resolved ? normalizePath(resolved) : undefined;
    if (realRoot && isInside(realRoot, real)) return real === realRoot ? root : joinPath(root, relativePath(realRoot, real));
  }
  return real;
}

async function entriesOf(fs: WorkspaceFs, dir: string): Promise<Array<[string, string]>> {
  const real = await linkedFolder(fs, dir);
  const st = real ? { type: "directory" } : await fs.stat(dir).catch(() => undefined);
  if (st?.type !== "directory") return [];
  const list = await fs.readDir(real ?? dir).catch(() => []);
  return list.slice(0, MAX_FILES_PER_DIR).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The real folder a symbolic link at `path` leads to, when it is a folder inside the workspace — a
 * rules or skills folder linked from a shared one (`.cursor/rules -> ../.ai/rules`,
 * `.claude/skills/x -> ../../skills/x`), which Cursor and Claude Code read through the link. A link
 * leading outside the workspace (or to nothing) is not followed.
 */
async function linkedFolder(fs: WorkspaceFs, path: string): Promise<string | undefined> {
  if ((await fs.stat(path).catch(() => undefined))?.type !== "symlink") return undefined;
  const resolved = await fs.realPath(path).catch(() => undefined);
  if (!resolved) return undefined;
  const real = normalizePath(resolved);
  if (!(await rootsOf(fs)).some((r) => isInside(r, real))) return undefined;
  return (await fs.stat(real).catch(() => undefined))?.type === "directory" ? real : undefined;
}

/** Files under `dir` (recursive, bounded), absolute, sorted; a linked folder inside the workspace is walked once. */
async function walk(fs: WorkspaceFs, dir: string, accept: (name: string) => boolean, depth = 0, visited = new Set<string>()): Promise<string[]> {
  const out: string[] = [];
  for (const [name, type] of await entriesOf(fs, dir)) {
    const abs = joinPath(dir, name);
    const linked = type === "symlink" && depth < MAX_DEPTH ? await linkedFolder(fs, abs) : undefined;
    if (linked) {
      if (visited.has(linked)) continue;
      visited.add(linked);
      out.push(...(await walk(fs, abs, accept, depth + 1, visited)));
    } else if (type === "directory" && depth < MAX_DEPTH) out.push(...(await walk(fs, abs, accept, depth + 1, visited)));
    // A symlinked file is taken too: readReal reads it only if it resolves inside the workspace.
    else if ((type === "file" || type === "symlink") && accept(name)) out.push(abs);
  }
  return out;
}

/** How much in force a rule's activation puts it: one file read as two rules is kept as the stronger. */
const STRENGTH: Record<string, number> = { always: 4, folder: 3, glob: 2, requested: 1, manual: 0, match: 0 };

class Collector {
  readonly entries: GuidanceEntry[] = [];
  readonly problems: GuidanceProblem[] = [];
  readonly excluded: ExcludedFile[] = [];
  private readonly seen = new Set<string>();
  /** Where each file's entry is kept, by its real path. */
  private readonly seenReal = new Map<string, number>();
  /** Memory entries kept, by folder and text (a lookup, not a scan: a thousand nested files were a million comparisons). */
  private readonly memoryText = new Set<string>();

  add(p: Parsed): void {
    this.problems.push(...p.problems);
    // One file reached by two names (a symlinked rules folder, .clinerules -> .roo/rules): once — as
    // the rule that puts it most in force, when two tools' folders give it different activations
    // (`.cursor/rules -> .ai/rules` and `.github/instructions/x.instructions.md -> ../../.ai/rules/x.md`:
    // Copilot's applyTo "**" is always on, the same file as a Cursor rule only manual).
    const real = p.entry?.realPath;
    if (real && p.entry!.kind !== "memory") {
      const at = this.seenReal.get(real);
      if (at !== undefined) {
        const kept = this.entries[at]!;
        if (kept.kind === "rule" && p.entry!.kind === "rule" && STRENGTH[p.entry!.activation] > STRENGTH[kept.activation] && !this.seen.has(p.entry!.id)) {
          this.seen.delete(kept.id);
          this.seen.add(p.entry!.id);
          this.entries[at] = p.entry!;
        }
        return;
      }
      if (!this.seen.has(p.entry!.id)) this.seenReal.set(real, this.entries.length);
    }
    // CLAUDE.md is often a symlink to (or a copy of) AGENTS.md: the same text once.
    const text = p.entry?.kind === "memory" ? `${p.entry.dir}\0${p.entry.body}` : undefined;
    if (text !== undefined && this.memoryText.has(text)) return;
    if (p.entry && !this.seen.has(p.entry.id)) {
      this.seen.add(p.entry.id);
      this.entries.push(p.entry);
      if (text !== undefined) this.memoryText.add(text);
    }
  }

  fail(path: string, err: unknown): void {
    this.problems.push({ path, message: err instanceof NotRead ? err.message : `could not be read: ${err instanceof Error ? err.message : String(err)}` });
  }
}

/** Loads everything. Order: built-in, user, workspace (a later entry with the same name wins at matching time). */
export async function loadGuidance(opts: LoadOptions): Promise<GuidanceSet> {
  const c = new Collector();
  const { fs } = opts;
  const home = opts.files?.home;
  // In a git work tree, git's index answers where nested memory and rules are without a walk;
  // asked first, so git reads its index while the rest loads.
  const search = opts.nestedMemory ? (opts.search ?? createFsSearcher(fs)) : undefined;
  const trackedIn = new Map(
    workspaceFolders(fs).map((f) => {
      const root = normalizePath(f.root);
      return [root, search?.tracked?.({ path: root, globs: [...NESTED_GUIDANCE_GLOBS], maxResults: MAX_NESTED_MEMORY, timeLimitMs: NESTED_MEMORY_TIME_MS }).catch(() => undefined)];
    }),
  );
  const userFiles = await (opts.files?.list() ?? Promise.resolve([])).catch((err: unknown) => {
    c.fail("(user and built-in guidance)", err);
    return [];
  });
  for (const f of userFiles) {
    if (f.problem) {
      c.problems.push({ path: f.path, message: f.problem });
      continue;
    }
    const input: FileInput = {
      path: f.path,
      source: f.display,
      origin: f.origin,
      text: f.text,
      ...(f.namespace ? { plugin: { namespace: f.namespace, ...(f.pluginRoot ? { root: f.pluginRoot } : {}) } } : {}),
    };
    if (f.role === "lesson") c.add(parseLesson(input));
    else if (f.role === "skill") c.add(parseSkill(input, f.files ?? []));
    else if (f.role === "rule") c.add(withReal(parseRule(input, f.format === "claude" || f.format === "kiro" ? f.format : "always"), f.path, f.display.replace(/\/[^/]*$/, "")));
    else c.add(await memoryWithImports(input, "always", dirName(f.path), { fs, files: opts.files, home, access: opts.access }));
  }
  const userRoo: UserRoo = {
    rules: userFiles.some((f) => !f.problem && f.format === "roo" && f.display.startsWith("~/.roo/rules/")),
    code: userFiles.some((f) => !f.problem && f.format === "roo" && f.display.startsWith(`~/.roo/rules-${ROO_MODE}/`)),
  };
  for (const folder of workspaceFolders(fs)) {
    const root = normalizePath(folder.root);
    const file = async (abs: string, parse: (f: FileInput) => Parsed | Promise<Parsed>) => {
      try {
        const read = await readReal(fs, abs, opts.access);
        if (read === undefined) return;
        c.add(withReal(await parse({ path: abs, source: displayPath(fs, abs), origin: "workspace", text: read.text }), read.real));
      } catch (err) {
        c.fail(abs, err);
      }
    };
    // Project memory at the root.
    for (const name of [...MEMORY_NAMES, ...ROOT_ONLY_MEMORY]) await file(joinPath(root, name), (f) => memoryWithImports(f, "always", root, { fs, files: opts.files, home, access: opts.access }));
    // Lessons.
    for (const abs of await walk(fs, joinPath(root, LESSON_DIR), isLessonFile)) await file(abs, parseLesson);
    // Skills: one folder per skill with a SKILL.md.
    for (const dir of SKILL_DIRS) {
      for (const [name, type] of await entriesOf(fs, joinPath(root, dir))) {
        const skillDir = joinPath(root, dir, name);
        if (type !== "directory" && !(type === "symlink" && (await linkedFolder(fs, skillDir)))) continue;
        const skillFile = joinPath(skillDir, "SKILL.md");
        const neighbours = (await walk(fs, skillDir, () => true)).map((p) => p.slice(skillDir.length + 1)).filter((p) => p !== "SKILL.md");
        await file(skillFile, (f) => parseSkill(f, neighbours));
      }
    }
    // Rules.
    for (const p of await loadRuleFiles(fs, root, root, opts.access, c.excluded, userRoo)) c.add(p);
    // Windsurf's rules of the folders above this one, up to the git repository's top (Windsurf's discovery).
    const above = await (opts.files?.rulesAbove?.(root) ?? Promise.resolve([])).catch((err: unknown) => {
      c.fail(`${root}/..`, err);
      return [];
    });
    // A folder opened through a link: the rules' globs see its files by their real paths (linked).
    const realRoot = above.length
      ? await fs.realPath(root).then(
          (p) => (p ? normalizePath(p) : root),
          () => root,
        )
      : root;
    const linked = realRoot !== root ? { root, real: realRoot } : undefined;
    for (const r of above) c.add(await ruleAbove(r, opts.access, c.excluded, linked));
    if (search) {
      const tracked = await trackedIn.get(root);
      const nested = nestedDirs(
        fs,
        root,
        tracked ?? (await search.glob({ pattern: `**/{${MEMORY_NAMES.join(",")}}`, path: root, order: "path", maxResults: MAX_NESTED_MEMORY, timeLimitMs: NESTED_MEMORY_TIME_MS })),
      );
      // Read 32 folders at a time (one after another, a thousand files take a thousand round trips
      // through the event loop: seconds on a loaded machine), added in path order.
      for (const got of await inOrder(nested.dirs, 32, (dir) => loadFolderMemory(fs, dir, opts.files, opts.access))) for (const p of got) c.add(p);
      const rulePaths = tracked
        ? tracked.paths
        : (
            await Promise.all(
              [RULE_FILES_GLOB, RULE_MD_FILES_GLOB, WINDSURF_RULE_FILES_GLOB].map((pattern) =>
                search.glob({ pattern, path: root, order: "path", maxResults: MAX_NESTED_MEMORY, timeLimitMs: NESTED_MEMORY_TIME_MS }).catch(() => ({ paths: [] as string[] })),
              ),
            )
          ).flatMap((r) => r.paths);
      for (const dir of nestedRuleDirs(root, rulePaths)) for (const p of await loadFolderRules(fs, dir, opts.access)) c.add(p);
      if (nested.problem) c.problems.push(nested.problem);
    }
  }
  // Windsurf's own limits on its rule files (6,000 characters each, 12,000 with the global rules).
  return { entries: applyWindsurfLimits(c.entries, c.excluded), problems: c.problems, excluded: c.excluded };
}

function withReal(p: Parsed, real: string, collection?: string): Parsed {
  if (p.entry) {
    p.entry.realPath = real;
    if (!p.entry.includes) p.entry.includes = [real];
    if (collection !== undefined && p.entry.kind === "rule") p.entry.collection = collection;
    if (p.entry.parts?.[0]) p.entry.parts[0].path = real;
  }
  return p;
}

/**
 * A Windsurf rule of a folder above the workspace folder (GuidanceFiles.rulesAbove): the
 * repository's, so read as the workspace's rules are — never a Read-denied file or a secret, a script
 * left out — and scoped to its folder (its globs relative to it), which holds the whole workspace
 * folder: an always-on one is in force from the first request.
 */
async function ruleAbove(r: RuleAbove, access: FileAccessPolicy | undefined, excluded: ExcludedFile[], linked?: { root: string; real: string }): Promise<Parsed> {
  if (r.problem) return { problems: [{ path: r.path, message: r.problem }] };
  for (const p of new Set([r.path, r.real])) {
    const denied = await access?.deniedBy("Read", p).catch(() => null);
    if (denied) return { problems: [{ path: r.path, message: `not read: reading it is denied by ${denied}` }] };
    const secret = secretToRead(p);
    if (secret) return { problems: [{ path: r.path, message: `not read: it is a secret (${secret}); guidance never brings one into the conversation` }] };
  }
  if (isScript(r.text)) {
    excluded.push({ path: r.path, source: r.display, why: "an executable script (it starts with #!) or a binary file, not a rule: never sent to the model" });
    return { problems: [] };
  }
  const collection = r.display.replace(/\/\.windsurf\/rules\/.*$/, "/.windsurf/rules");
  const p = withReal(parseRule({ path: r.path, source: r.display, origin: "workspace", text: r.text }, "windsurf", r.dir), r.real, collection);
  if (p.entry) p.entry.above = true;
  if (p.entry && linked) p.entry.linked = linked;
  return p;
}

/** A script (`#!`) or a binary file (a NUL byte) found among rules: never text for the model. */
const isScript = (text: string) => text.startsWith("#!") || text.includes("\0");

/** Whether the user's own Roo folders (`~/.roo/rules/`, `~/.roo/rules-code/`) have a file: then Roo reads no single-file fallback of the project. */
interface UserRoo {
  rules: boolean;
  code: boolean;
}

/** The Roo mode Yoke's sessions run as: Roo's `code` mode is its default, full-tool mode, which is what a Yoke session is. */
export const ROO_MODE = "code";

/**
 * Every rule file of one folder: the root of a workspace folder, or (nested) a sub-project with its
 * own `.cursor/rules` or `.windsurf/rules`. Cline's `.clinerules/workflows/` (commands) and `.clinerules/hooks/` (hook
 * scripts) are not rules; neither is any file starting with `#!` or holding a NUL byte. Roo: `.roo/rules/` (or the
 * `.roorules` file when that folder has none), and the rules of Roo's code mode only.
 */
async function loadRuleFiles(fs: WorkspaceFs, root: string, dir: string, access: FileAccessPolicy | undefined, excluded: ExcludedFile[], roo?: UserRoo): Promise<Parsed[]> {
  const out: Parsed[] = [];
  const nested = dir !== root;
  const file = async (abs: string, format: RuleFormat, collection: string) => {
    try {
      const read = await readReal(fs, abs, access);
      if (read === undefined) return;
      if (isScript(read.text)) {
        excluded.push({ path: abs, source: displayPath(fs, abs), why: "an executable script (it starts with #!) or a binary file, not a rule: never sent to the model" });
        return;
      }
      const parsed = parseRule({ path: abs, source: displayPath(fs, abs), origin: "workspace", text: read.text }, format, nested ? dir : undefined);
      if (parsed.excluded) {
        excluded.push({ path: abs, source: displayPath(fs, abs), why: parsed.excluded });
        return;
      }
      out.push(withReal(parsed, read.real, collection));
    } catch (err) {
      out.push({ problems: [{ path: abs, message: err instanceof NotRead ? err.message : `could not be read: ${err instanceof Error ? err.message : String(err)}` }] });
    }
  };
  const coll = (rel: string) => displayPath(fs, joinPath(dir, rel));
  // Cursor: `.cursor/rules/**/*.mdc` and `.md` ("Cursor supports .md and .mdc extensions"), the same frontmatter.
  for (const abs of await walk(fs, joinPath(dir, ".cursor/rules"), (n) => /\.mdc?$/i.test(n))) await file(abs, "mdc", coll(".cursor/rules"));
  // Windsurf: `.windsurf/rules/*.md` say how with `trigger` (found in every sub-folder too, as Windsurf finds them).
  for (const abs of await walk(fs, joinPath(dir, ".windsurf/rules"), (n) => /\.md$/i.test(n))) await file(abs, "windsurf", coll(".windsurf/rules"));
  if (nested) return out;
  for (const abs of await walk(fs, joinPath(dir, ".github/instructions"), (n) => n.endsWith(".instructions.md"))) await file(abs, "instructions", coll(".github/instructions"));
  // Kiro: `.kiro/steering/*.md` (the folder itself, as Kiro lists it), each with its `inclusion`.
  for (const [name, type] of await entriesOf(fs, joinPath(dir, ".kiro/steering")))
    if ((type === "file" || type === "symlink") && /\.md$/i.test(name)) await file(joinPath(dir, ".kiro/steering", name), "kiro", coll(".kiro/steering"));
  // Kiro's specs: `.kiro/specs/NAME/` with requirements.md (or bugfix.md), design.md and tasks.md, all named `@spec:NAME`.
  for (const [spec, type] of await entriesOf(fs, joinPath(dir, ".kiro/specs")))
    if (type === "directory")
      for (const f of ["requirements.md", "bugfix.md", "design.md", "tasks.md"])
        if ((await fs.stat(joinPath(dir, ".kiro/specs", spec, f)).catch(() => undefined))?.type === "file") await file(joinPath(dir, ".kiro/specs", spec, f), "kiro-spec", coll(".kiro/specs"));
  // Google Antigravity: `.agents/rules/*.md`, or the older `.agent/rules/` when there is no `.agents/rules`
  // (Antigravity reads the plural folder first and the singular only without it), with Windsurf's
  // `trigger` frontmatter: always_on, glob (+ globs), model_decision (+ description), manual (@name).
  const antigravity = (await fs.stat(joinPath(dir, ".agents/rules")).catch(() => undefined))?.type === "directory" ? ".agents/rules" : ".agent/rules";
  for (const abs of await walk(fs, joinPath(dir, antigravity), (n) => /\.md$/i.test(n))) await file(abs, "windsurf", coll(antigravity));
  await file(joinPath(dir, ".github/copilot-instructions.md"), "always", coll(".github/copilot-instructions.md"));
  await file(joinPath(dir, ".cursorrules"), "always", coll(".cursorrules"));
  // Windsurf's legacy single file (at the root only): always on.
  await file(joinPath(dir, ".windsurfrules"), "always", coll(".windsurfrules"));
  for (const abs of await walk(fs, joinPath(dir, ".claude/rules"), (n) => /\.md$/i.test(n))) await file(abs, "claude", coll(".claude/rules"));
  const cline = joinPath(dir, ".clinerules");
  const clineType = (await fs.stat(cline).catch(() => undefined))?.type;
  if (clineType === "file") await file(cline, "always", coll(".clinerules"));
  else if (clineType === "directory") {
    for (const [name, type] of await entriesOf(fs, cline)) {
      const abs = joinPath(cline, name);
      if (type === "directory" && (name === "workflows" || name === "hooks")) {
        const what = name === "workflows" ? "a Cline workflow (a command the user runs with /name), not a rule" : "a Cline hook (a script run at an event), not a rule";
        for (const f of await walk(fs, abs, () => true)) excluded.push({ path: f, source: displayPath(fs, f), why: what });
        continue;
      }
      const files = type === "directory" ? await walk(fs, abs, isRuleText) : (type === "file" || type === "symlink") && isRuleText(name) ? [abs] : [];
      for (const f of files) await file(f, "cline", coll(".clinerules"));
    }
  }
  // Roo Code (its custom instructions): `.roo/rules/` — the user's `~/.roo/rules/` and the project's —
  // when either has a file, else the first of `.roorules` and `.clinerules` that has text; the same
  // for the code mode's rules: `.roo/rules-code/` (the user's and the project's), else `.roorules-code`,
  // else the legacy `.clinerules-code`. (`.clinerules` itself is Cline's rules too, read above.)
  for (const [folder, singles, userHas] of [
    [".roo/rules", [".roorules", ".clinerules"], roo?.rules ?? false],
    [`.roo/rules-${ROO_MODE}`, [`.roorules-${ROO_MODE}`, `.clinerules-${ROO_MODE}`], roo?.code ?? false],
  ] as const) {
    const files = await walk(fs, joinPath(dir, folder), isRooRuleFile);
    for (const f of files) await file(f, "cline", coll(folder));
    let used = files.length > 0 || userHas;
    for (const single of singles) {
      const abs = joinPath(dir, single);
      if ((await fs.stat(abs).catch(() => undefined))?.type !== "file") continue;
      if (single === ".clinerules") break; // Cline's own file: read as Cline's rules above, whatever Roo does
      if (used) {
        const where = files.length ? `the project's ${folder}/ has files` : userHas ? `yours, ~/${folder}/, has files` : `${singles[0]} comes first and is used`;
        excluded.push({ path: abs, source: displayPath(fs, abs), why: `Roo Code reads ${single} only when no ${folder}/ folder has a file and no file before it has text; ${where}: not sent` });
        continue;
      }
      const before = out.length;
      await file(abs, "always", coll(single));
      used = out.slice(before).some((p) => p.entry && p.entry.body.trim());
    }
  }
  for (const [name, type] of await entriesOf(fs, joinPath(dir, ".roo"))) {
    const mode = /^rules-(.+)$/.exec(name)?.[1];
    if (type !== "directory" || !mode || mode === ROO_MODE) continue;
    for (const f of await walk(fs, joinPath(dir, ".roo", name), isRooRuleFile))
      excluded.push({
        path: f,
        source: displayPath(fs, f),
        why: `a rule of Roo's "${mode}" mode, not of the session (which follows Roo's "${ROO_MODE}" mode rules); when .roomodes defines "${mode}", it is part of that mode's agent`,
      });
  }
  for (const [name, type] of await entriesOf(fs, dir)) {
    const mode = /^\.(?:roorules|clinerules)-(.+)$/.exec(name)?.[1];
    if (type === "file" && mode && mode !== ROO_MODE)
      excluded.push({
        path: joinPath(dir, name),
        source: displayPath(fs, joinPath(dir, name)),
        why: `a rule of Roo's "${mode}" mode, not of the session (which follows Roo's "${ROO_MODE}" mode rules); when .roomodes defines "${mode}", it is part of that mode's agent`,
      });
  }
  return out;
}

/** A sub-project's own `.cursor/rules` and `.windsurf/rules` (nested rules): they apply to files under `dir`. */
export async function loadFolderRules(fs: WorkspaceFs, dir: string, access?: FileAccessPolicy): Promise<Parsed[]> {
  const folder = folderOf(fs, dir);
  if (!folder) return [];
  return loadRuleFiles(fs, normalizePath(folder.root), dir, access, []);
}

/** Folders below a root with a `.cursor/rules` or `.windsurf/rules` folder of their own (for listing; a session finds them as files are touched). */
/** `fn` over `items`, at most `limit` at a time; the results in the items' order. */
async function inOrder<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function nestedRuleDirs(root: string, paths: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const p of paths) {
    const n = normalizePath(p);
    const i = Math.max(...NESTED_RULE_FOLDERS.map((f) => n.lastIndexOf(f)));
    if (i <= root.length) continue;
    const dir = n.slice(0, i);
    if (
      !isInside(root, dir) ||
      dir
        .slice(root.length + 1)
        .split("/")
        .some((x) => x.startsWith(".") || SKIP_DIRS.has(x))
    )
      continue;
    dirs.add(dir);
  }
  return [...dirs];
}

const isLessonFile = (name: string) => /\.md$/i.test(name) && !/^readme\.md$/i.test(name);
const isRuleText = (name: string) => /\.(md|mdc|txt)$/i.test(name) || !name.includes(".");

/**
 * Folders below a root holding AGENTS.md or CLAUDE.md, in path order, from one search of the file
 * names: git's index in a work tree (no walk; untracked files are not in it), else ripgrep's file
 * listing (which honours .gitignore), never a walk of the tree in JS; build, vendor
 * and dot folders are left out as a session's nested discovery would never reach them by a tool.
 * When the search stops early, a problem says exactly which folders were not searched.
 */
function nestedDirs(fs: WorkspaceFs, root: string, res: GlobResult): { dirs: string[]; problem?: GuidanceProblem } {
  const dirs = new Set<string>();
  for (const file of res.paths) {
    if (!MEMORY_NAMES.includes(baseName(normalizePath(file)))) continue; // git's answer holds the rule files too
    const dir = dirName(normalizePath(file));
    if (dir === root || !isInside(root, dir)) continue;
    const segments = dir.slice(root.length + 1).split("/");
    if (segments.some((n) => n.startsWith(".") || SKIP_DIRS.has(n))) continue;
    dirs.add(dir);
  }
  if (!res.stopped) return { dirs: [...dirs] };
  const last = res.paths.length ? displayPath(fs, normalizePath(res.paths[res.paths.length - 1]!)) : undefined;
  const why = res.stopped === "time" ? `the search stopped at its time limit of ${NESTED_MEMORY_TIME_MS / 1000} s` : `the search stopped at ${MAX_NESTED_MEMORY} files`;
  const unsearched = last ? `files after ${last} (in path order) were not searched` : "it had found none, and the folders it had not reached were not searched";
  return { dirs: [...dirs], problem: { path: root, message: `nested AGENTS.md/CLAUDE.md not all listed: ${why}; ${unsearched}` } };
}

/** AGENTS.md and CLAUDE.md of one folder below a root, as `folder` memory for that folder. */
export async function loadFolderMemory(fs: WorkspaceFs, dir: string, files?: GuidanceFiles, access?: FileAccessPolicy): Promise<Parsed[]> {
  const out: Parsed[] = [];
  for (const name of MEMORY_NAMES) {
    const abs = joinPath(dir, name);
    try {
      const read = await readReal(fs, abs, access);
      if (read === undefined) continue;
      const p = withReal(
        await memoryWithImports({ path: abs, source: displayPath(fs, abs), origin: "workspace", text: read.text }, "folder", dir, { fs, files, home: files?.home, access }),
        read.real,
      );
      if (p.entry && out.some((o) => o.entry?.body === p.entry!.body)) continue; // CLAUDE.md -> AGENTS.md
      out.push(p);
    } catch (err) {
      out.push({ problems: [{ path: abs, message: err instanceof NotRead ? err.message : `could not be read: ${err instanceof Error ? err.message : String(err)}` }] });
    }
  }
  return out;
}

/** Folders from the workspace folder's root (excluded) down to the folder of `file`, nearest first. */
export function foldersDownTo(fs: WorkspaceFs, file: string): string[] {
  const folder = folderOf(fs, file);
  if (!folder) return [];
  const root = normalizePath(folder.root);
  const out: string[] = [];
  for (let d = dirName(file); d !== root && isInside(root, d) && d !== dirName(d); d = dirName(d)) out.push(d);
  return out;
}

interface ImportEnv {
  fs: WorkspaceFs;
  files?: GuidanceFiles;
  home?: string;
  access?: FileAccessPolicy;
}

/** A memory file; a CLAUDE.md's `@path` imports (relative, recursive, bounded, cycle-safe) are appended after its text. */
async function memoryWithImports(f: FileInput, activation: "always" | "folder", dir: string, env: ImportEnv): Promise<Parsed> {
  if (!/CLAUDE(\.local)?\.md$/.test(f.path)) return parseMemory(f, activation, dir);
  const problems: GuidanceProblem[] = [];
  const seen = new Set<string>([f.path]);
  // Claude Code leaves block-level HTML comments out (an import inside one is not followed either).
  const body = stripBlockComments(parseFrontmatter(f.text).body);
  const blocks: Array<{ path: string; text: string }> = [];
  const includes: string[] = [];
  const imported = await expandImports(body, f.path, env, 1, seen, problems, blocks, includes);
  const parsed = parseMemory(f, activation, dir, imported);
  if (parsed.entry && blocks.length) {
    parsed.entry.parts = [{ path: f.path, text: body.trimEnd() }, ...blocks];
    parsed.entry.includes = [f.path, ...includes];
  }
  return { entry: parsed.entry, problems: [...parsed.problems, ...problems] };
}

const IMPORT = /(^|[\s(])@((?:~\/|\.{1,2}\/|\/)?[\w.\-/]*[\w/])/g;

/**
 * The text with its imports appended. `blocks` gets one block per imported file at any depth, in
 * reading order, with its own text only (and the real path of the file it came from); `includes`
 * the real path of every file imported at any depth.
 */
async function expandImports(
  text: string,
  from: string,
  env: ImportEnv,
  depth: number,
  seen: Set<string>,
  problems: GuidanceProblem[],
  blocks: Array<{ path: string; text: string }> = [],
  includes: string[] = [],
): Promise<string> {
  const parts = [text.trimEnd()];
  const lines = text.split("\n");
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const plain = line.replace(/`[^`]*`/g, "");
    for (const m of plain.matchAll(IMPORT)) {
      const spec = m[2]!;
      if (!spec.includes("/") && !/\.\w+$/.test(spec)) continue; // a mention (@someone), not a path
      const target = spec.startsWith("~/") ? (env.home ? joinPath(env.home, spec.slice(2)) : undefined) : spec.startsWith("/") ? normalizePath(spec) : joinPath(dirName(from), spec);
      if (!target) continue;
      if (seen.has(target)) continue; // a cycle, or imported already
      seen.add(target);
      if (depth > MAX_IMPORT_DEPTH) {
        problems.push({ path: from, line: i + 1, message: `@${spec} not imported: imports are followed ${MAX_IMPORT_DEPTH} levels deep` });
        continue;
      }
      const inside = !!folderOf(env.fs, target);
      // A workspace file may import only workspace files (a repository must not pull ~/.ssh into the prompt), and not what a Read deny rule covers.
      if (!inside && folderOf(env.fs, from)) {
        problems.push({ path: from, line: i + 1, message: `@${spec} not imported: a workspace file may import only files inside the workspace` });
        continue;
      }
      const denied = inside ? await env.access?.deniedBy("Read", target).catch(() => null) : null;
      if (denied) {
        problems.push({ path: from, line: i + 1, message: `@${spec} not imported: reading it is denied by ${denied}` });
        continue;
      }
      let content: string | undefined;
      let real = target;
      try {
        if (inside) {
          const read = await readReal(env.fs, target, env.access);
          content = read?.text;
          if (read) real = read.real;
        } else content = await env.files?.read?.(target);
      } catch (err) {
        problems.push({ path: from, line: i + 1, message: err instanceof NotRead ? `@${spec} ${err.message}` : `@${spec} could not be read: ${err instanceof Error ? err.message : String(err)}` });
        continue;
      }
      if (content === undefined) {
        problems.push({ path: from, line: i + 1, message: `@${spec}: no such file (${target})` });
        continue;
      }
      includes.push(real);
      const own = stripBlockComments(parseFrontmatter(content).body);
      const header = `\n--- imported from ${folderOf(env.fs, target) ? displayPath(env.fs, target) : target} (@${spec}) ---\n`;
      // Each imported file is a part of its own, at whatever depth, in reading order: one already
      // sent in the session (AGENTS.md, sent as itself when CLAUDE.md imports it) is named instead
      // of repeated, and the files IT imports still arrive (Claude Code follows AGENTS.md's imports).
      blocks.push({ path: real, text: `${header}${own.trim()}` });
      const nested = await expandImports(own, target, env, depth + 1, seen, problems, blocks, includes);
      parts.push(`${header}${nested.trim()}`);
    }
  }
  return parts.join("\n");
}
