/**
 * .gitignore handling shared by list_files and the pure-JS search fallback: one level of rules
 * per folder (.gitignore, .ignore, .rgignore and .git/info/exclude), deeper levels win.
 */
import ignore, { type Ignore } from "ignore";
import { joinPath, relativePath, isInside } from "../paths";

/** Where rule files come from. */
export interface RuleSource {
  /** A text file's content; `undefined` when it is missing, not a file or unreadable. */
  read(absPath: string): Promise<string | undefined>;
  /** Does anything (file or folder) exist at the path? */
  exists(absPath: string): Promise<boolean>;
}

const RULE_FILES = [".gitignore", ".ignore", ".rgignore"];

interface Level {
  dir: string;
  rules: Ignore;
}

/** Does this one rule line ignore any of the given folder paths (relative, ending in "/")? */
function ignoresAny(line: string, dirs: readonly string[]): boolean {
  const t = line.trim();
  if (!t || t.startsWith("#") || t.startsWith("!")) return false;
  const one = ignore({ allowRelativePaths: true }).add(line);
  return dirs.some((d) => one.ignores(d));
}

function isRepoRoot(src: RuleSource, dir: string): Promise<boolean> {
  return src.exists(joinPath(dir, ".git"));
}

export class IgnoreRules {
  private constructor(
    private readonly src: RuleSource,
    private readonly levels: readonly Level[],
  ) {}

  static empty(src: RuleSource): IgnoreRules {
    return new IgnoreRules(src, []);
  }

  /**
   * Rules for searching in `absDir`, loading every folder from `fromDir` (an ancestor or itself)
   * down to it, as ripgrep does: a folder holding `.git` starts afresh (rules above a repository
   * do not apply inside it), and rules that would ignore `absDir` itself or a folder above it are
   * dropped (the folder searched is never ignored, only what is inside it).
   */
  static async forDir(src: RuleSource, fromDir: string, absDir: string): Promise<IgnoreRules> {
    let rules = IgnoreRules.empty(src);
    const chain: string[] = [fromDir];
    if (fromDir !== absDir && isInside(fromDir, absDir)) {
      let cur = fromDir;
      for (const seg of relativePath(fromDir, absDir).split("/")) {
        cur = joinPath(cur, seg);
        chain.push(cur);
      }
    }
    for (const dir of chain) {
      if (dir !== fromDir && (await isRepoRoot(src, dir))) rules = IgnoreRules.empty(src);
      const below = chain.filter((d) => d !== dir && isInside(dir, d)).map((d) => `${relativePath(dir, d)}/`);
      rules = await rules.enter(dir, below);
    }
    return rules;
  }

  /** The rules inside the sub-folder `absDir` (adds its own rule files, if any). */
  async enter(absDir: string, protect: readonly string[] = []): Promise<IgnoreRules> {
    const texts: string[] = [];
    const exclude = await this.src.read(joinPath(absDir, ".git/info/exclude"));
    if (exclude !== undefined) texts.push(exclude);
    for (const name of RULE_FILES) {
      const t = await this.src.read(joinPath(absDir, name));
      if (t !== undefined) texts.push(t);
    }
    if (texts.length === 0) return this;
    let lines = texts.join("\n").split(/\r?\n/);
    if (protect.length) lines = lines.filter((line) => !ignoresAny(line, protect));
    const rules = ignore({ allowRelativePaths: true }).add(lines);
    return new IgnoreRules(this.src, [...this.levels, { dir: absDir, rules }]);
  }

  /** Is the entry at `absPath` ignored? Deeper rule files override shallower ones. */
  ignores(absPath: string, isDir: boolean): boolean {
    let ignored = false;
    for (const level of this.levels) {
      if (absPath === level.dir || !isInside(level.dir, absPath)) continue;
      const rel = relativePath(level.dir, absPath) + (isDir ? "/" : "");
      const r = level.rules.test(rel);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored;
  }
}
