/**
 * .gitignore handling shared by list_files and the pure-JS search fallback: one level of rules
 * per folder (.gitignore, .ignore, .rgignore and .git/info/exclude), deeper levels win.
 */
import ignore, { type Ignore } from "ignore";
import { joinPath, relativePath, isInside } from "../paths";

/** Reads a text file; `undefined` when it does not exist or cannot be read. */
export type ReadText = (absPath: string) => Promise<string | undefined>;

const RULE_FILES = [".gitignore", ".ignore", ".rgignore"];

interface Level {
  dir: string;
  rules: Ignore;
}

/** Folder names every listing and search skips. */
export const ALWAYS_SKIPPED = new Set([".git"]);

export class IgnoreRules {
  private constructor(
    private readonly read: ReadText,
    private readonly levels: readonly Level[],
  ) {}

  static empty(read: ReadText): IgnoreRules {
    return new IgnoreRules(read, []);
  }

  /** Rules for `absDir`, loading every folder from `fromDir` (an ancestor or itself) down to it. */
  static async forDir(read: ReadText, fromDir: string, absDir: string): Promise<IgnoreRules> {
    let rules = IgnoreRules.empty(read);
    const chain: string[] = [fromDir];
    if (fromDir !== absDir && isInside(fromDir, absDir)) {
      let cur = fromDir;
      for (const seg of relativePath(fromDir, absDir).split("/")) {
        cur = joinPath(cur, seg);
        chain.push(cur);
      }
    }
    for (const dir of chain) rules = await rules.enter(dir);
    return rules;
  }

  /** The rules inside the sub-folder `absDir` (adds its own rule files, if any). */
  async enter(absDir: string): Promise<IgnoreRules> {
    const texts: string[] = [];
    for (const name of RULE_FILES) {
      const t = await this.read(joinPath(absDir, name));
      if (t !== undefined) texts.push(t);
    }
    const exclude = await this.read(joinPath(absDir, ".git/info/exclude"));
    if (exclude !== undefined) texts.unshift(exclude);
    if (texts.length === 0) return this;
    const rules = ignore({ allowRelativePaths: true }).add(texts.join("\n"));
    return new IgnoreRules(this.read, [...this.levels, { dir: absDir, rules }]);
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
