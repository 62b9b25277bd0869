/**
 * Other agents' ignore files, read as deny rules (issue 23): Cursor's `.cursorignore`, Cline's
 * `.clineignore`, Roo Code's `.rooignore` and Gemini CLI's `.geminiignore`. Each tool blocks its own file tools (reads, edits,
 * listings, searches) on the paths its file lists (Roo and Cline also the file-reading commands
 * naming one); Yoke denies Read and Edit of those paths through the permission engine, so the file
 * tools, the content tools' results (list_files, grep, glob) and `@file` mentions are refused, the
 * denial naming the file and line. Commands are held to what each tool holds its own to: Cline's and
 * Roo's ignored paths may not be read by a command that names them (as their file-reading command
 * checks refuse); Cursor's terminal is not governed by .cursorignore, and neither are Yoke's commands
 * under it (an ignored `dist/` stays runnable: `node dist/cli.js`). A secret needs a Read deny rule. A repository's ignore file
 * only ever adds restrictions.
 *
 * Matching is gitignore's, with the `ignore` package: patterns relative to the file's folder,
 * `!` negation within one file, case folded (stricter on a case-sensitive disk). Files never
 * un-ignore each other's paths: a path any file ignores is denied. Cursor's `.cursorindexingignore`
 * only keeps files out of Cursor's index (they stay readable): it is listed, never enforced; so is
 * Windsurf's `.codeiumignore` (its docs: the files Windsurf's indexing ignores). Which folders' files
 * are read is each tool's: Cursor documents the workspace's `.cursorignore` (and, with "Hierarchical
 * Cursor Ignore", off by default, those of the folders above it; Yoke always reads those, the stricter
 * reading); Cline, Roo Code and Gemini CLI (`.geminiignore`) the workspace root's only. None documents
 * a file in a sub-folder, so a sub-folder's file is not read, by those tools or by Yoke. Gemini Code
 * Assist's `.aiexclude` (any folder, for what is at or below it) is not read (see docs/permissions.md).
 */
import ignore, { type Ignore } from "ignore";
import { dirnameOf, normalizeAbs, relativeTo } from "./posix-path";
import type { PermissionRule, SettingsSourceInfo } from "./types";

export interface AgentIgnoreFormat {
  /** The file's name. */
  name: string;
  /** Whose it is. */
  tool: string;
  /** It restricts what the agent may read and change (false: indexing only). */
  restricts: boolean;
  /** Cursor's "Hierarchical Cursor Ignore": the folders above the workspace are searched too. */
  ancestors: boolean;
  /** Cline's `!include FILE` lines add the patterns of another file. */
  includes: boolean;
  /** The tool also refuses its file-reading commands that name an ignored path (Cline, Roo Code); Cursor's terminal is not governed. */
  commands: boolean;
}

export const AGENT_IGNORE_FORMATS: readonly AgentIgnoreFormat[] = [
  { name: ".cursorignore", tool: "Cursor", restricts: true, ancestors: true, includes: false, commands: false },
  { name: ".clineignore", tool: "Cline", restricts: true, ancestors: false, includes: true, commands: true },
  { name: ".rooignore", tool: "Roo Code", restricts: true, ancestors: false, includes: false, commands: true },
  // Gemini CLI's `.geminiignore` (its docs: in the project's root, gitignore syntax with `!`; its file tools and `@` leave
  // out what it lists; its shell is not governed).
  { name: ".geminiignore", tool: "Gemini CLI", restricts: true, ancestors: false, includes: false, commands: false },
  { name: ".cursorindexingignore", tool: "Cursor", restricts: false, ancestors: false, includes: false, commands: false },
  // Windsurf documents `.codeiumignore` (repository root) as what its indexing skips, not as a limit on Cascade's tools.
  { name: ".codeiumignore", tool: "Windsurf", restricts: false, ancestors: false, includes: false, commands: false },
];

export interface IgnorePattern {
  /** As written (trimmed of the line break). */
  pattern: string;
  /** 1-based line in `from`. */
  line: number;
  /** The file the line is in (the ignore file, or a file it `!include`s). */
  from: string;
  negative: boolean;
}

export interface AgentIgnoreFile {
  format: AgentIgnoreFormat;
  /** Absolute path of the ignore file. */
  path: string;
  /** Its folder: patterns are relative to it. */
  dir: string;
  patterns: IgnorePattern[];
  /** Lines that could not be used (an `!include` of a missing file), `from:line`. */
  problems: Array<{ path: string; line: number; message: string }>;
  /** The path's rule: the pattern that ignores it (the last to match), or undefined. */
  test(abs: string): IgnorePattern | undefined;
}

/** Reads a text file; undefined when it is missing or not a readable file. */
export type ReadIgnoreText = (abs: string) => Promise<string | undefined>;

const MAX_BYTES = 1_000_000;

/** The folders whose ignore files apply to a workspace folder: itself, and for Cursor every folder above it. */
function foldersFor(root: string, format: AgentIgnoreFormat): string[] {
  const out = [normalizeAbs(root)];
  if (!format.ancestors) return out;
  for (let d = out[0]!; d !== "/";) {
    d = dirnameOf(d);
    out.push(d);
  }
  return out;
}

function joinAbs(dir: string, name: string): string {
  return normalizeAbs(name.startsWith("/") ? name : `${dir === "/" ? "" : dir}/${name}`);
}

/** Parses one ignore file's text (with Cline's `!include` lines read through `read`). */
export async function parseAgentIgnoreFile(format: AgentIgnoreFormat, path: string, text: string, read: ReadIgnoreText): Promise<AgentIgnoreFile> {
  const dir = dirnameOf(path);
  const patterns: IgnorePattern[] = [];
  const problems: AgentIgnoreFile["problems"] = [];
  const addLines = (body: string, from: string) => {
    body.split(/\r?\n/).forEach((raw, i) => {
      const t = raw.trim();
      if (t === "" || t.startsWith("#")) return;
      patterns.push({ pattern: raw.replace(/^\s+/, ""), line: i + 1, from, negative: raw.replace(/^\s+/, "").startsWith("!") });
    });
  };
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const inc = format.includes ? /^\s*!include\s+(.+?)\s*$/.exec(raw) : null;
    if (!inc) {
      const t = raw.trim();
      if (t !== "" && !t.startsWith("#")) patterns.push({ pattern: raw.replace(/^\s+/, ""), line: i + 1, from: path, negative: t.startsWith("!") });
      continue;
    }
    // Cline reads the named file relative to the workspace folder (the ignore file's own folder) and
    // goes on without it when it cannot be read.
    const target = joinAbs(dir, inc[1]!);
    const body = await read(target).catch(() => undefined);
    if (body === undefined) problems.push({ path, line: i + 1, message: `!include ${inc[1]!}: ${target} cannot be read; its patterns are not used` });
    else addLines(body.slice(0, MAX_BYTES), target);
  }
  const matcher: Ignore = ignore({ allowRelativePaths: true });
  patterns.forEach((p, i) => matcher.add({ pattern: p.pattern, mark: String(i) }));
  // Every rule of the file asks for the same path's verdict (agentIgnoreRules): one answer per path.
  const memo = new Map<string, IgnorePattern | undefined>();
  const test = (abs: string): IgnorePattern | undefined => {
    if (memo.has(abs)) return memo.get(abs);
    const found = testNow(abs);
    if (memo.size >= 4096) memo.delete(memo.keys().next().value!);
    memo.set(abs, found);
    return found;
  };
  const testNow = (abs: string): IgnorePattern | undefined => {
    const rel = relativeTo(normalizeAbs(abs), dir);
    if (rel === undefined || rel === "") return undefined;
    // A path is tested as a file and as a folder: `secrets/` denies the folder `secrets` itself (a
    // listing or search of it), which gitignore only knows when it is told the path is a folder.
    for (const candidate of [rel, `${rel}/`]) {
      let r;
      try {
        r = matcher.test(candidate);
      } catch {
        return undefined;
      }
      if (r.ignored && r.rule?.mark !== undefined) return patterns[Number(r.rule.mark)];
    }
    return undefined;
  };
  return { format, path, dir, patterns, problems, test };
}

/**
 * The agents' ignore files of the workspace folders `roots` (absolute): each folder's own, and for
 * Cursor the folders above it. Each file once.
 */
export async function loadAgentIgnoreFiles(roots: readonly string[], read: ReadIgnoreText): Promise<AgentIgnoreFile[]> {
  const out: AgentIgnoreFile[] = [];
  const seen = new Set<string>();
  for (const format of AGENT_IGNORE_FORMATS) {
    for (const root of roots) {
      for (const dir of foldersFor(root, format)) {
        const path = joinAbs(dir, format.name);
        if (seen.has(path)) continue;
        seen.add(path);
        const text = await read(path).catch(() => undefined);
        if (text === undefined) continue;
        out.push(await parseAgentIgnoreFile(format, path, text.slice(0, MAX_BYTES), read));
      }
    }
  }
  return out;
}

/** How a path in messages names an ignore file: relative to the workspace when inside it. */
function shown(path: string, cwd: string): string {
  return relativeTo(path, cwd) || path;
}

/**
 * A specifier covering at least what the pattern ignores, for the checks of paths only partly known
 * (a `$X` argument, a recursive read): gitignore's anchoring in Claude Code's syntax, absolute from
 * the ignore file's folder. Negations are not part of it: those checks may only ask more.
 */
function coveringSpecifier(dir: string, pattern: string): string {
  let body = pattern.trim().replace(/\\(.)/g, "$1");
  const folder = body.endsWith("/");
  body = body.replace(/\/+$/, "");
  const anchored = body.includes("/");
  body = body.replace(/^\/+/, "");
  const base = dir === "/" ? "" : dir.slice(1);
  const prefix = base ? `//${base}/` : "//";
  return `${prefix}${anchored ? "" : "**/"}${body}${folder ? "/" : ""}`;
}

/**
 * Deny rules from the restricting ignore files: one Read and one Edit rule per pattern that ignores
 * (a Read deny rule also covers Glob and Grep; Edit covers Write). A rule matches a path exactly when
 * its own line is the one that decides the file's verdict (`PermissionRule.ignoreFile`).
 */
export function agentIgnoreRules(files: readonly AgentIgnoreFile[], cwd: string): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (const file of files) {
    if (!file.format.restricts) continue;
    for (const p of file.patterns) {
      if (p.negative) continue;
      const source: SettingsSourceInfo = {
        kind: "ignore-file",
        label: `${shown(p.from, cwd)}:${p.line}${p.from === file.path ? "" : ` (included by ${shown(file.path, cwd)})`}, ${file.format.tool}'s ignore file`,
        path: file.path,
        baseDir: file.dir,
        checkedIn: true,
      };
      const matches = (abs: string) => file.test(abs) === p;
      for (const tool of ["Read", "Edit"])
        rules.push({
          raw: p.pattern.trim(),
          tool,
          specifier: coveringSpecifier(file.dir, p.pattern),
          list: "deny",
          source,
          ignoreFile: matches,
          ...(tool === "Read" && file.format.commands ? { ignoreFileCommands: true } : {}),
        });
    }
  }
  return rules;
}
