/**
 * The guidance port on Node (the CLI and the extension host, which runs where the home folder is,
 * also in Remote-SSH): the built-in lessons shipped with Yoke and the user's own lessons, skills
 * and memory files under the home folder.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { addKnownFrontmatter } from "../core/guidance/frontmatter";
import { isRooRuleFile } from "../core/guidance/roo-files";
import type { GuidanceFile, GuidanceFiles, RuleAbove } from "../core/guidance/types";
import { NotOwnedFile, readOwnedFile } from "./owned-file";

const MAX_DEPTH = 6;
const MAX_FILES = 2000;

export interface NodeGuidanceOptions {
  home?: string;
  /** The built-in lessons folder (default: `lessons/` of the installed package). */
  builtinDir?: string | null;
  /** More skill folders (each holding skill folders with a SKILL.md): the enabled plugins' `skills/`. */
  skillDirs?: SkillFolder[];
}

const posix = (p: string) => p.split(sep).join("/");

/** A folder of skills from elsewhere: a plugin's (`label` says which; `namespace`: the plugin's name, its skills are `PLUGIN:NAME`; `root`: its installed folder). */
export interface SkillFolder {
  dir: string;
  label: string;
  namespace?: string;
  root?: string;
}

/**
 * The built-in lessons' front matter, parsed when Yoke was built (esbuild.mjs writes
 * dist/lessons-frontmatter.json next to the bundles): given to the front matter parser once, so
 * a session whose only front matter is the built-in lessons' does not run the YAML parser. Run
 * from source there is no such file, and every lesson is parsed.
 */
let knownRead = false;
function readKnownFrontmatter(): void {
  if (knownRead) return;
  knownRead = true;
  try {
    addKnownFrontmatter(JSON.parse(readFileSync(join(__dirname, "lessons-frontmatter.json"), "utf8")) as Record<string, unknown>);
  } catch {
    // Parsed when read.
  }
}

/** The `lessons/` folder that ships with Yoke: next to dist/ in the package, or at the repository root when run from source. */
export function builtinLessonsDir(): string | undefined {
  for (const dir of [join(__dirname, "..", "lessons"), join(__dirname, "..", "..", "lessons")]) {
    if (existsSync(join(dir, "README.md")) && statSync(dir).isDirectory()) return dir;
  }
  return undefined;
}

function walk(dir: string, accept: (name: string) => boolean, depth = 0, out: string[] = []): string[] {
  let list: import("node:fs").Dirent[];
  try {
    list = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const d of list.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (out.length >= MAX_FILES) break;
    const abs = join(dir, d.name);
    if (d.isDirectory() && depth < MAX_DEPTH) walk(abs, accept, depth + 1, out);
    else if (d.isFile() && accept(d.name)) out.push(abs);
  }
  return out;
}

function read(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? readFileSync(path, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

const isLesson = (n: string) => /\.md$/i.test(n) && !/^readme\.md$/i.test(n);

export function createNodeGuidanceFiles(opts: NodeGuidanceOptions = {}): GuidanceFiles {
  const home = opts.home ?? homedir();
  const builtin = opts.builtinDir === null ? undefined : (opts.builtinDir ?? builtinLessonsDir());
  if (builtin) readKnownFrontmatter();
  const tilde = (abs: string) => `~/${posix(relative(home, abs))}`;
  return {
    home: posix(home),
    async read(path) {
      return read(path);
    },
    async rulesAbove(root) {
      return windsurfRulesAbove(root, home);
    },
    async list() {
      const out: GuidanceFile[] = [];
      // `owner`: a plugin's folder, which its files must not leave (a link out of it is a problem, not a read).
      const add = (
        abs: string,
        origin: GuidanceFile["origin"],
        role: GuidanceFile["role"],
        display: string,
        files?: string[],
        format?: GuidanceFile["format"],
        owner?: string,
        plugin?: { namespace?: string; root?: string },
      ) => {
        let text: string | undefined;
        try {
          text = owner ? readOwnedFile(abs, owner, home) : read(abs);
        } catch (err) {
          if (!(err instanceof NotOwnedFile)) throw err;
          out.push({ path: posix(abs), text: "", origin, role, display, problem: err.message });
          return;
        }
        if (text !== undefined)
          out.push({
            path: posix(abs),
            text,
            origin,
            role,
            display,
            ...(files ? { files } : {}),
            ...(format ? { format } : {}),
            ...(plugin?.namespace ? { namespace: plugin.namespace, ...(plugin.root ? { pluginRoot: posix(plugin.root) } : {}) } : {}),
          });
      };
      if (builtin) for (const abs of walk(builtin, isLesson)) add(abs, "builtin", "lesson", `lessons/${posix(relative(builtin, abs))}`);
      for (const abs of walk(join(home, ".yoke", "lessons"), isLesson)) add(abs, "user", "lesson", tilde(abs));
      const skillRoots = [
        { dir: join(home, ".claude", "skills"), label: undefined as string | undefined },
        { dir: join(home, ".yoke", "skills"), label: undefined as string | undefined },
        // The user's skills of the tools that read the same SKILL.md (Cursor, Codex, the open standard's folder).
        { dir: join(home, ".cursor", "skills"), label: undefined as string | undefined },
        { dir: join(home, ".codex", "skills"), label: undefined as string | undefined },
        { dir: join(home, ".agents", "skills"), label: undefined as string | undefined },
        ...(opts.skillDirs ?? []),
      ];
      for (const root of skillRoots) {
        const { dir: skills, label } = root;
        const plugin = "namespace" in root ? { namespace: root.namespace, root: root.root } : undefined;
        // A plugin may point at one skill folder itself (its SKILL.md right there).
        if (label && existsSync(join(skills, "SKILL.md"))) {
          const files = walk(skills, () => true)
            .map((f) => posix(relative(skills, f)))
            .filter((f) => f !== "SKILL.md");
          add(join(skills, "SKILL.md"), "user", "skill", `${label}/SKILL.md`, files, undefined, skills, plugin);
          continue;
        }
        let dirs: string[];
        try {
          dirs = readdirSync(skills, { withFileTypes: true })
            .filter((d) => d.isDirectory())
            .map((d) => d.name)
            .sort();
        } catch {
          continue;
        }
        for (const d of dirs) {
          const dir = join(skills, d);
          const files = walk(dir, () => true)
            .map((f) => posix(relative(dir, f)))
            .filter((f) => f !== "SKILL.md");
          add(join(dir, "SKILL.md"), "user", "skill", label ? `${label}/${d}/SKILL.md` : tilde(join(dir, "SKILL.md")), files, undefined, label ? skills : undefined, plugin);
        }
      }
      add(join(home, ".claude", "CLAUDE.md"), "user", "memory", "~/.claude/CLAUDE.md");
      // The user's own rules: Claude Code's ~/.claude/rules (`paths:` globs), Roo's ~/.roo/rules and its code mode's (see ROO_MODE).
      for (const abs of walk(join(home, ".claude", "rules"), (n) => /\.md$/i.test(n))) add(abs, "user", "rule", tilde(abs), undefined, "claude");
      for (const dir of [join(home, ".roo", "rules"), join(home, ".roo", "rules-code")]) for (const abs of walk(dir, isRooRuleFile)) add(abs, "user", "rule", tilde(abs), undefined, "roo");
      // Kiro's global steering (~/.kiro/steering/*.md, each with its `inclusion`).
      let kiro: string[] = [];
      try {
        kiro = readdirSync(join(home, ".kiro", "steering"), { withFileTypes: true })
          .filter((d) => (d.isFile() || d.isSymbolicLink()) && /\.md$/i.test(d.name))
          .map((d) => d.name)
          .sort();
      } catch {
        // no such folder
      }
      for (const n of kiro) add(join(home, ".kiro", "steering", n), "user", "rule", `~/.kiro/steering/${n}`, undefined, "kiro");
      // Windsurf's global rules (always on in every workspace).
      add(join(home, ".codeium", "windsurf", "memories", "global_rules.md"), "user", "rule", "~/.codeium/windsurf/memories/global_rules.md");
      add(join(home, ".yoke", "AGENTS.md"), "user", "memory", "~/.yoke/AGENTS.md");
      return out;
    },
  };
}

/** Largest rule file read above the workspace (Windsurf truncates a rule at a few thousand characters). */
const MAX_RULE_BYTES = 64 * 1024;

/**
 * The top of the git repository `dir` is in, found as git finds it (the nearest folder up with a
 * `.git` folder or file); undefined outside a repository.
 */
export function gitTopOf(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return d;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * Windsurf's `.windsurf/rules/**\/*.md` of the folders above `root` up to its repository's top
 * (the repository's top first). Each is read as a plugin's file is (readOwnedFile): a regular file
 * whose real path stays inside the repository, never a secret; a file that is not is a problem.
 */
export function windsurfRulesAbove(root: string, home: string = homedir()): RuleAbove[] {
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    return [];
  }
  const top = gitTopOf(real);
  if (!top || top === real) return [];
  const dirs: string[] = [];
  for (let d = dirname(real); ; d = dirname(d)) {
    dirs.unshift(d);
    if (d === top || dirname(d) === d) break;
  }
  const out: RuleAbove[] = [];
  for (const dir of dirs) {
    for (const abs of walk(join(dir, ".windsurf", "rules"), (n) => /\.md$/i.test(n))) {
      const display = posix(relative(real, abs));
      const base = { path: posix(abs), dir: posix(dir), display };
      try {
        if (statSync(abs).size > MAX_RULE_BYTES) {
          out.push({ ...base, real: posix(abs), text: "", problem: `not read: larger than ${MAX_RULE_BYTES / 1024} KB` });
          continue;
        }
        const text = readOwnedFile(abs, top, home);
        if (text !== undefined) out.push({ ...base, real: posix(realpathSync(abs)), text });
      } catch (err) {
        out.push({ ...base, real: posix(abs), text: "", problem: err instanceof NotOwnedFile ? err.message : `could not be read: ${err instanceof Error ? err.message : String(err)}` });
      }
    }
  }
  return out;
}
