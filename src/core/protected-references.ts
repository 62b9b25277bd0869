/**
 * Files that a protected configuration makes run, found by reading it: direnv's `.envrc` sources
 * (`source_env`, `dotenv`, `source`, `.`, `use nix`…), mise's `_.source`/`_.file`/`path:` versions and
 * hooks, `.tool-versions`' `path:` versions, and, in a home folder that lies in a workspace, what the
 * shell's startup files source (`. ~/dotfiles/aliases.sh`). The configuration itself is protected
 * (protected-paths.ts); what it names stayed writable, and the person's next prompt or shell ran it
 * (session 21, protect21). One rule for the command sandbox (read-only mounts, plan.ts) and the gate
 * (a write asks, context.ts): both call protectedReferences with their own way to read files.
 *
 * Reading is bounded (REFERENCE_LIMITS) and never evaluates anything: a word the reader cannot
 * resolve (a variable it does not know, a command substitution, a glob) is left out — those stay
 * writable (docs/security.md, "Session 21: protect21").
 */
import { parse as parseIni } from "ini";
import { parse as parseYaml } from "yaml";
import { parseJsonc } from "./settings/jsonc";

/** A file or folder a protected configuration runs or loads, absolute. */
export interface ProtectedReference {
  path: string;
  kind: "file" | "dir";
  why: string;
  /**
   * The configuration read at a folder's top (`.npmrc`, `.envrc`, a home's `.bashrc`) that, directly or through
   * what it sources, names it; absent for a folder protected whole (CUT_WHY). A command started before that
   * configuration changed checks by its change time what it names now (session 24, bgprot24: named-later.ts).
   */
  source?: string;
}

/** How the caller reads: a file's text (at most `max` bytes; undefined when it is not a readable file) and a path's real path. */
export interface ReferenceReader {
  read(abs: string, max: number): string | undefined;
  real(abs: string): string | undefined;
  /** A folder's entry names (undefined: not a folder); without it only the fixed names are read. */
  list?(abs: string): string[] | undefined;
}

/** mise's configuration names found by listing a folder (`mise.<env>.toml`, `.mise.local.toml`, rtx's) and its `conf.d` folders. */
const MISE_NAME = /^\.?(mise|rtx)(\.[A-Za-z0-9_-]+)*\.toml$/i;
const MISE_CONF_D = [".config/mise/conf.d", ".mise/conf.d", "mise/conf.d"];

export const REFERENCE_LIMITS = { bytes: 1024 * 1024, files: 32, depth: 4, references: 256 } as const;

/**
 * Why a whole folder is protected when a configuration in it (or one it sources) was not read to its
 * end: longer than REFERENCE_LIMITS.bytes, sourcing deeper than REFERENCE_LIMITS.depth, more files
 * than REFERENCE_LIMITS.files or more references than REFERENCE_LIMITS.references. What the unread
 * part names is unknown, so a wrong guess must not leave it writable (session 22, gitcfg22: a
 * `source e.sh` after 64 KB of comments left e.sh writable).
 */
export const CUT_WHY =
  "a configuration that runs files (an .envrc, a mise configuration, a shell startup file or what it sources) in this folder is too long or sources too deep to be read to its end, so every file in the folder is protected: direnv, mise or the shell runs what the unread part names";

/** The reader is asked for one byte more than the bound: more than the bound in UTF-8 means the text was cut. */
const encoder = new TextEncoder();
const cutText = (text: string) => text.length > REFERENCE_LIMITS.bytes / 3 && encoder.encode(text).length > REFERENCE_LIMITS.bytes;

type SourceKind = "direnv" | "shell" | "mise" | "tool-versions" | "editor" | "package-manager";

/** The configurations read in each workspace folder (relative), with their kind. */
const WORKSPACE_SOURCES: ReadonlyArray<readonly [string, SourceKind]> = [
  [".envrc", "direnv"],
  [".tool-versions", "tool-versions"],
  ["mise.toml", "mise"],
  ["mise.local.toml", "mise"],
  [".mise.toml", "mise"],
  [".mise.local.toml", "mise"],
  [".mise/config.toml", "mise"],
  [".mise/config.local.toml", "mise"],
  [".config/mise.toml", "mise"],
  [".config/mise/config.toml", "mise"],
  [".config/mise/config.local.toml", "mise"],
  ["mise/config.toml", "mise"],
  [".vscode/settings.json", "editor"],
  [".yarnrc.yml", "package-manager"],
  [".yarnrc", "package-manager"],
  [".npmrc", "package-manager"],
  ["pnpm-workspace.yaml", "package-manager"],
];

/** A home's shell startup files (read where the home lies in a workspace folder). */
export const HOME_SHELL_SOURCES: readonly string[] = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".bash_aliases",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".zlogout",
  ".config/fish/config.fish",
];

const WHY: Record<SourceKind, string> = {
  direnv: "a file the folder's .envrc sources or loads, or a folder it puts on PATH: direnv runs it when the person's shell enters the folder",
  shell: "a file the person's shell startup files source: every new shell runs it",
  mise: "a file or folder the folder's mise configuration sources, loads or takes a tool from: mise runs it at the person's next prompt",
  "tool-versions": "a folder .tool-versions names as a tool's version (path:): mise and asdf run the programs in it at the person's next command",
  editor:
    "a file the folder's .vscode/settings.json names (eslint.options.overrideConfigFile, prettier.configPath, jest.jestCommandLine…): the person's editor loads or runs it when a file is opened or saved",
  "package-manager":
    "a program the folder's package manager configuration names (.yarnrc.yml's yarnPath and plugins, .npmrc's script-shell and node-options, pnpm-workspace.yaml's pnpmfile and scriptShell): yarn, npm or pnpm runs it at the person's next command in the folder",
};

/** Commands of bash and direnv's stdlib whose operands are files the shell runs or loads. */
const SOURCING = new Set(["source", ".", "source_env", "source_env_if_exists", "dotenv", "dotenv_if_exists", "source_url"]);
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "fish"]);
/** Commands that put a folder on the person's PATH (direnv). */
const PATH_ADDING = new Set(["PATH_add", "path_add"]);
/** Words that start a command inside a line (after them the next word is a command name). */
const LEADERS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "(", "time", "command", "builtin", "exec", "eval"]);

interface Found {
  path: string;
  kind: "file" | "dir";
  /** A shell file to read in turn (what it sources is run too). */
  follow: boolean;
  /** Named by a word outside the commands read above (shellRefs' any-word rule): left out when it is a folder. */
  mentioned?: boolean;
  /** Taken only when it is a file already (an assignment's value: `VIRTUAL_ENV=.venv` names the folder a venv is made in). */
  existing?: boolean;
  /** Not a reference: the reader left words out (MAX_MENTIONS), so the file counts as cut. */
  cut?: boolean;
}

/** At most this many any-word mentions are taken from one file; past it the file counts as cut (CUT_WHY). */
const MAX_MENTIONS = REFERENCE_LIMITS.references;
/** What a reader found past MAX_MENTIONS: the file's folder is protected whole. */
const CUT: Found = { path: "", kind: "dir", follow: false, cut: true };
/** direnv's commands whose operands are only watched, never run. */
const WATCHING = new Set(["watch_file", "watch_dir"]);

/** The package managers' configurations of a folder below a workspace folder's top, read for what they name (nested24). */
const NESTED_SOURCES = WORKSPACE_SOURCES.filter(([, kind]) => kind === "package-manager");

type Queued = { file: string; kind: SourceKind; dir: string; home: string; depth: number; top: string };

/**
 * The protected references of these workspace folders and of the homes among them (absolute, normalised paths).
 * `nested`: folders below them holding a package manager's configuration (a monorepo's `web/.npmrc`, which npm reads
 * for `npm test` in `web/`: its script-shell ran at the person's next npm command there, session 24, nested24): each
 * is read with REFERENCE_LIMITS of its own, so that many sub-projects do not make one another's folders read-only.
 */
export function protectedReferences(roots: readonly string[], homes: readonly string[], reader: ReferenceReader, nested: readonly string[] = []): ProtectedReference[] {
  const queue: Queued[] = [];
  const home0 = homes[0] ?? "";
  for (const root of roots) {
    const names = new Set(WORKSPACE_SOURCES.map(([rel]) => rel));
    for (const n of reader.list?.(root) ?? []) if (MISE_NAME.test(n)) names.add(n);
    for (const d of MISE_CONF_D) for (const n of reader.list?.(join(root, d)) ?? []) if (/\.toml$/i.test(n)) names.add(`${d}/${n}`);
    for (const rel of names) queue.push({ file: join(root, rel), kind: WORKSPACE_SOURCES.find(([r]) => r === rel)?.[1] ?? "mise", dir: root, home: home0, depth: 0, top: join(root, rel) });
  }
  for (const h of homes) for (const rel of HOME_SHELL_SOURCES) queue.push({ file: join(h, rel), kind: "shell", dir: h, home: h, depth: 0, top: join(h, rel) });
  const found = new Map(referencesFrom(queue, [...roots, ...homes], reader).map((r) => [r.path, r]));
  for (const dir of nested) {
    if (roots.includes(dir) || !roots.some((r) => dir.startsWith(r === "/" ? "/" : `${r}/`))) continue;
    const q: Queued[] = NESTED_SOURCES.map(([rel, kind]) => ({ file: join(dir, rel), kind, dir, home: home0, depth: 0, top: join(dir, rel) }));
    // The sub-project's own folder and those above it are not protected whole when a value names them.
    const whole = [...roots, ...homes, ...ancestorsBelow(dir, roots)];
    for (const r of referencesFrom(q, whole, reader)) if (!found.has(r.path) || found.get(r.path)!.why === CUT_WHY) found.set(r.path, r);
  }
  return [...found.values()];
}

/** `dir` and its folders up to (not including) the workspace folder holding it. */
function ancestorsBelow(dir: string, roots: readonly string[]): string[] {
  const out: string[] = [];
  for (let d = dir; d.length > 1 && !roots.includes(d); d = dirOf(d)) out.push(d);
  return out;
}

function referencesFrom(queue: Queued[], whole: readonly string[], reader: ReferenceReader): ProtectedReference[] {
  const out = new Map<string, ProtectedReference>();
  const read = new Set<string>();
  // A folder, workspace or home itself named (`PATH_add .`): the person put the whole folder on PATH;
  // protecting it would make the whole workspace read-only, so it is left out (docs/security.md).
  // Folders protected whole because what a configuration names could not all be read (CUT_WHY): the
  // folder its relative names resolve from (the workspace folder or home for the configurations read
  // there, a sourced file's own folder), or every workspace folder and home below a folder above them.
  // Kept apart from `out`, whose bound they must not meet.
  const cut = new Map<string, ProtectedReference>();
  const cutAt = (dir: string) => {
    const below = whole.filter((w) => w.startsWith(dir === "/" ? "/" : `${dir}/`));
    for (const path of [dir, ...below]) for (const p of new Set([path, reader.real(path) ?? path])) if (!cut.has(p)) cut.set(p, { path: p, kind: "dir", why: CUT_WHY });
  };
  let from = "";
  let top = "";
  const add = (path: string, kind: "file" | "dir", why: string) => {
    if (whole.some((w) => w === path || w.startsWith(path === "/" ? "/" : `${path}/`))) return;
    if (out.size >= REFERENCE_LIMITS.references) {
      if (!out.has(path)) cutAt(from);
      return;
    }
    for (const p of new Set([path, reader.real(path) ?? path])) if (!out.has(p)) out.set(p, { path: p, kind, why, source: top });
  };
  while (queue.length) {
    const src = queue.shift()!;
    if (read.has(src.file)) continue;
    // More files than the bound: the rest are not read (a sourced one is there or not), their folders are protected whole.
    if (read.size >= REFERENCE_LIMITS.files) {
      if (src.depth > 0 || reader.read(src.file, 1) !== undefined) cutAt(src.dir);
      continue;
    }
    const text = reader.read(src.file, REFERENCE_LIMITS.bytes + 1);
    if (text === undefined) continue;
    read.add(src.file);
    from = src.dir;
    top = src.top;
    // A startup file that is a link (`~/.bashrc -> dotfiles/bashrc`): its target is the file the shell runs.
    const real = reader.real(src.file);
    if (src.depth === 0 && real && real !== src.file) add(real, "file", WHY[src.kind]);
    const found = parsed(src, text);
    for (const f of found) {
      if (f.cut) {
        cutAt(src.dir);
        continue;
      }
      // A mentioned folder (`cd src`, `export PYTHONPATH=lib`) is not protected whole: only a file is.
      if (f.mentioned && reader.list?.(f.path) !== undefined) continue;
      if (f.existing && reader.read(f.path, REFERENCE_LIMITS.bytes + 1) === undefined) continue;
      add(f.path, f.kind, WHY[src.kind]);
      // What a sourced file sources in turn (direnv's stdlib is there too: source_env runs it under direnv).
      if (f.follow && src.depth + 1 < REFERENCE_LIMITS.depth)
        queue.push({
          file: f.path,
          kind: src.kind === "mise" ? "direnv" : src.kind === "shell" || src.kind === "package-manager" ? src.kind : "direnv",
          // npm takes a named configuration's relative paths from the folder it runs in, not the file's own.
          dir: src.kind === "package-manager" ? src.dir : dirOf(f.path),
          home: src.home,
          depth: src.depth + 1,
          top: src.top,
        });
      // Deeper than the bound: what it sources is not read, so its folder is protected whole (when it exists: nothing runs a missing file).
      else if (f.follow && reader.read(f.path, REFERENCE_LIMITS.bytes + 1) !== undefined) cutAt(dirOf(f.path));
    }
  }
  return [...out.values(), ...[...cut.values()].filter((c) => !out.has(c.path))];
}

/** What each file was last found to name, with the text it was read from (the same text: the same answer); at most PARSED_MAX. */
const parses = new Map<string, { text: string; found: Found[] }>();
const PARSED_MAX = 256;

function parsed(src: { file: string; kind: SourceKind; dir: string; home: string }, text: string): Found[] {
  const key = `${src.kind}\0${src.dir}\0${src.home}\0${src.file}`;
  const hit = parses.get(key);
  if (hit && hit.text === text) return hit.found;
  const found =
    src.kind === "tool-versions"
      ? toolVersions(text, src.dir, src.home)
      : src.kind === "mise"
        ? miseRefs(text, src.dir, src.file, src.home)
        : src.kind === "editor"
          ? editorRefs(text, src.dir, src.home)
          : src.kind === "package-manager"
            ? packageManagerRefs(text, src.file, src.dir, src.home)
            : shellRefs(text, src.dir, src.home, src.kind === "direnv");
  // Read only in part: what the rest names is unknown (CUT_WHY).
  if (cutText(text)) found.push(CUT);
  if (parses.size >= PARSED_MAX) parses.clear();
  parses.set(key, { text, found });
  return found;
}

/** protectedReferences with an asynchronous reader: reads what is asked for, then asks again, until nothing new is asked. */
export async function protectedReferencesAsync(
  roots: readonly string[],
  homes: readonly string[],
  read: (abs: string, max: number) => Promise<string | undefined>,
  real: (abs: string) => Promise<string | undefined>,
  list?: (abs: string) => Promise<string[] | undefined>,
  nested: readonly string[] = [],
): Promise<ProtectedReference[]> {
  const texts = new Map<string, string | undefined>();
  const reals = new Map<string, string | undefined>();
  const lists = new Map<string, string[] | undefined>();
  // One round per level of sourcing, and one more for the files looked at past the bound (CUT_WHY).
  for (let round = 0; round <= REFERENCE_LIMITS.depth + 3; round++) {
    const missing = new Set<string>();
    const missingLists = new Set<string>();
    const result = protectedReferences(
      roots,
      homes,
      {
        read: (abs) => {
          if (!texts.has(abs)) missing.add(abs);
          return texts.get(abs);
        },
        real: (abs) => {
          if (!reals.has(abs)) missing.add(abs);
          return reals.get(abs);
        },
        ...(list
          ? {
              list: (abs: string) => {
                if (!lists.has(abs)) missingLists.add(abs);
                return lists.get(abs);
              },
            }
          : {}),
      },
      nested,
    );
    if (missing.size === 0 && missingLists.size === 0) return result;
    await Promise.all([...missingLists].map(async (abs) => lists.set(abs, await list!(abs).catch(() => undefined))));
    await Promise.all(
      [...missing].map(async (abs) => {
        if (!texts.has(abs)) texts.set(abs, await read(abs, REFERENCE_LIMITS.bytes + 1).catch(() => undefined));
        if (!reals.has(abs)) reals.set(abs, await real(abs).catch(() => undefined));
      }),
    );
  }
  return protectedReferences(roots, homes, { read: (abs) => texts.get(abs), real: (abs) => reals.get(abs), list: (abs) => lists.get(abs) }, nested);
}

/** `.tool-versions`: `TOOL VERSION…` lines; a `path:DIR` version is a folder whose programs run. */
function toolVersions(text: string, dir: string, home: string): Found[] {
  const out: Found[] = [];
  for (const line of text.split(/\r?\n/)) {
    const words = line.replace(/#.*$/, "").trim().split(/\s+/).slice(1);
    for (const w of words) {
      const m = /^path:(.+)$/.exec(w);
      const p = m ? resolveWord(m[1]!, dir, home, new Map()) : undefined;
      if (p) out.push({ path: p, kind: "dir", follow: false });
    }
  }
  return out;
}

/**
 * Settings keys whose values no editor loads or runs: VS Code's own file, search and editor
 * settings, and Yoke's own (its verification command runs through the gate, in the sandbox).
 * Values under any other key count (an unknown extension's key: a wrong guess only protects more).
 */
// Save workbench.externalBrowser: a program VS Code runs to open a link (red team C).
const INERT_EDITOR_KEYS = /^(?!workbench\.externalBrowser$)(yoke|files|search|editor|workbench|explorer|breadcrumbs|outline|problems|diffEditor|window|zenMode|accessibility|chat)\./;

/**
 * VS Code's folder settings (JSONC): every string value's words shaped like a file (a folder or an
 * extension), as shellRefs' any-word rule takes them — the ESLint extension loads
 * `eslint.options.overrideConfigFile`, Prettier's `prettier.configPath`, the Jest extension runs
 * `jest.jestCommandLine` (red team X) — except under keys nothing loads or runs (INERT_EDITOR_KEYS:
 * `"yoke.verification": {"command": "test -f src/count.ts"}` made src/count.ts ask in every mode).
 * Keys are not values; a folder so named is left out. A text that does not parse is read whole.
 */
function editorRefs(text: string, dir: string, home: string): Found[] {
  const values: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === "string") values.push(v);
    else if (Array.isArray(v)) for (const x of v) collect(x);
    else if (v && typeof v === "object") for (const x of Object.values(v)) collect(x);
  };
  const settings = (o: Record<string, unknown>): void => {
    for (const [key, v] of Object.entries(o)) {
      // "[typescript]": language-specific settings, the same keys one level down.
      if (/^\[.*\]$/.test(key) && v && typeof v === "object" && !Array.isArray(v)) settings(v as Record<string, unknown>);
      else if (!INERT_EDITOR_KEYS.test(key)) collect(v);
    }
  };
  const parsed = parseJsonc(text);
  if (parsed.ok && parsed.value && typeof parsed.value === "object" && !Array.isArray(parsed.value)) settings(parsed.value as Record<string, unknown>);
  else for (const m of text.matchAll(/"((?:[^"\\\n]|\\.)*)"(\s*:)?/g)) if (!m[2]) values.push(m[1]!.replace(/\\(.)/g, "$1"));
  const out: Found[] = [];
  for (const value of values) {
    for (const token of value.split(/[\s=]+/)) {
      if (!token || token.startsWith("-") || /(^|\/)node_modules(\/|$)/.test(token) || token.endsWith("/")) continue;
      if (!/\/|\.[A-Za-z0-9_-]+$/.test(token) || /^[a-z][a-z0-9+.-]*:/i.test(token)) continue;
      const p = resolveWord(token.replace(/^\$\{workspaceFolder\}/, dir), dir, home, new Map());
      if (p && out.length >= MAX_MENTIONS) return [...out, CUT];
      if (p) out.push({ path: p, kind: "file", follow: false, mentioned: true });
    }
  }
  return out;
}

/**
 * The settings of package managers whose values are programs or scripts they run (or load into every
 * Node process they start): yarn runs `yarnPath` in place of itself and loads `plugins`; npm and pnpm
 * run scripts with `script-shell`, start Node with `node-options` (`--require ./x.js`), pnpm loads
 * `pnpmfile`. The configuration is protected (protected-paths.ts); the file it names was writable and
 * the person's next `yarn` (or `npm test`, `pnpm install`) on the host ran it (session 23, red team A).
 * Keys in npm's, yarn's (kebab-case) and pnpm's (camelCase) spellings; a value's words shaped like a
 * file are taken (options and URLs are not). A text that does not parse is read line by line.
 */
/** Keys naming another npm configuration file, read in turn (a committed `.npmrc`'s `userconfig=./u.npmrc` made npm read u.npmrc's node-options). */
const PM_CONFIG_KEYS = ["userconfig", "globalconfig"];
const PM_KEYS = new Set(
  [
    "yarnPath",
    "yarn-path",
    "plugins",
    "injectEnvironmentFiles",
    "script-shell",
    "scriptShell",
    "shell",
    "git",
    "node-options",
    "nodeOptions",
    "pnpmfile",
    "global-pnpmfile",
    "globalPnpmfile",
    "onload-script",
    "init-module",
    "node-gyp",
    ...PM_CONFIG_KEYS,
  ].map((k) => k.toLowerCase()),
);
function packageManagerRefs(text: string, file: string, dir: string, home: string): Found[] {
  const values: Array<{ text: string; config: boolean }> = [];
  const isConfig = (k: string) => PM_CONFIG_KEYS.includes(k.toLowerCase());
  const collect = (v: unknown, config: boolean): void => {
    if (typeof v === "string") values.push({ text: v, config });
    else if (Array.isArray(v)) for (const x of v) collect(x, config);
    else if (v && typeof v === "object") for (const x of Object.values(v)) collect(x, config);
  };
  const keyed = (o: unknown): void => {
    if (!o || typeof o !== "object" || Array.isArray(o)) return;
    for (const [raw, v] of Object.entries(o)) {
      const k = raw.replace(/^["']|["']$/g, "");
      if (PM_KEYS.has(k.toLowerCase())) collect(v, isConfig(k));
    }
  };
  const name = file.slice(file.lastIndexOf("/") + 1);
  let read = false;
  try {
    if (name.endsWith(".yml") || name.endsWith(".yaml")) keyed(parseYaml(text, { strict: false, uniqueKeys: false, maxAliasCount: 100 }));
    else if (name === ".npmrc") keyed(parseIni(text));
    else throw new Error("line by line");
    read = true;
  } catch {
    // yarn 1's `.yarnrc` (`yarn-path "./x.js"`), or a text the parser refused: `KEY VALUE`, `KEY=VALUE`, `KEY: VALUE` lines.
  }
  if (!read)
    for (const line of text.split(/\r?\n/)) {
      const m = /^\s*(?:-\s*)?["']?([A-Za-z][A-Za-z0-9_-]*)["']?\s*[:= ]\s*(.*)$/.exec(line);
      if (m && PM_KEYS.has(m[1]!.toLowerCase())) values.push({ text: m[2]!, config: isConfig(m[1]!) });
    }
  const out: Found[] = [];
  for (const { text: value, config } of values) {
    for (const raw of value.split(/[\s=,]+/)) {
      const token = raw.replace(/^["'[]+|["'\]]+$/g, "");
      if (!token || token.startsWith("-") || token.endsWith("/") || /^[a-z][a-z0-9+.-]*:/i.test(token)) continue;
      if (!/\/|\.[A-Za-z0-9_-]+$/.test(token)) continue;
      const p = resolveWord(token, dir, home, new Map());
      if (p && out.length >= MAX_MENTIONS) return [...out, CUT];
      if (p) out.push({ path: p, kind: "file", follow: config, mentioned: true });
    }
  }
  return out;
}

/**
 * mise's TOML, read line by line (no TOML parser is a dependency; what this misses stays writable):
 * string values of `_.source`, `_.file`, `source`, `file`, `env_file`, `dotenv` keys (arrays and
 * inline tables too, over several lines) are files; `_.path` and `env_path` folders on PATH; any
 * `path:DIR` version a folder; in `[hooks]`, a word of a hook's command that names a file.
 * `{{config_root}}` is the project folder. A relative path is taken from the project folder and the file's own folder both.
 */
function miseRefs(text: string, root: string, file: string, home: string): Found[] {
  const out: Found[] = [];
  const fileDir = dirOf(file);
  const bases = [...new Set([root, fileDir])];
  const vars = new Map<string, string>();
  let section = "";
  let open: { kind: "file" | "dir" | "hook"; depth: number } | undefined;
  const take = (value: string, kind: "file" | "dir" | "hook") => {
    const v = value.replace(/\{\{\s*config_root\s*\}\}/g, root).replace(/\{\{\s*env\.HOME\s*\}\}/g, home);
    if (kind === "hook") {
      for (const f of shellRefs(v, root, home, false)) out.push(f);
      return;
    }
    const m = /^path:(.+)$/.exec(v);
    for (const base of bases) {
      const p = resolveWord(m ? m[1]! : v, base, home, vars);
      if (p) out.push({ path: p, kind: m ? "dir" : kind, follow: !m && kind === "file" });
    }
  };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s+/, "");
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header && !open) {
      section = header[1]!.replace(/["']/g, "");
      continue;
    }
    const strings = [...line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2]!));
    // Any `path:DIR` version, wherever it stands.
    for (const s of strings) if (/^path:./.test(s)) take(s, "dir");
    let kind = open?.kind;
    if (!open) {
      const key = /^([A-Za-z0-9_."-]+)\s*=/.exec(line)?.[1]?.replace(/"/g, "");
      const last = key?.split(".").pop() ?? "";
      if (key && (key === "_.path" || key.endsWith("._.path") || last === "env_path")) kind = "dir";
      else if (key && ["source", "file", "env_file", "dotenv"].includes(last)) kind = "file";
      else if (key && /^hooks(\.|$)/.test(section)) kind = "hook";
    }
    if (!kind) continue;
    // Inline tables (`_.source = { path = "x.sh" }`) and arrays over several lines.
    for (const s of strings) if (!/^path:/.test(s)) take(s, kind);
    const depth = (open?.depth ?? 0) + count(line, "[") + count(line, "{") - count(line, "]") - count(line, "}");
    open = depth > 0 ? { kind, depth } : undefined;
  }
  return out;
}

/**
 * A shell file (bash, zsh, fish; direnv's `.envrc` and what it sources): the operands of `source`,
 * `.`, `source_env[_if_exists]`, `dotenv[_if_exists]`; a script run by path or by `bash FILE`;
 * `use nix`/`use flake`'s files; `PATH_add DIR` folders (not below node_modules: package managers
 * write `.bin` there). Words are resolved with `~`, `$HOME`, `$PWD` and the file's own simple
 * assignments (`NVM_DIR="$HOME/.nvm"`); anything else with `$`, a backquote or a glob is left out.
 */
function shellRefs(text: string, dir: string, home: string, direnv: boolean): Found[] {
  const out: Found[] = [];
  const vars = new Map<string, string>([["PWD", dir]]);
  if (home) vars.set("HOME", home);
  let mentions = 0;
  // A backslash-newline joins two lines (`source \⏎ env/x.sh`: red team X).
  for (const raw of text.replace(/\\\r?\n/g, "").split(/\r?\n/)) {
    const words = shellWords(raw);
    // Any word shaped like a file (with a folder or an extension) is taken as one the file may run:
    // `export X=$(python3 tools/env.py)`, `env bash d.sh`, `cat s.sh | bash`, `load o.sh` with a function,
    // `for f in a.sh; do . "$f"; done` — the commands above are only the forms this reader names
    // (red team X). Wrong, it only makes a write ask. Not watch_file's operands, nor node_modules.
    let command: string | undefined;
    for (const w of words) {
      if (w.op) {
        command = undefined;
        continue;
      }
      const first = command === undefined;
      command ??= w.text;
      if (WATCHING.has(command)) continue;
      const assigned = /^[A-Za-z_][A-Za-z0-9_]*=([\s\S]*)$/.exec(w.text);
      if (assigned && first) command = undefined;
      for (const token of assigned ? assigned[1]!.split(/[\s:=]+/) : [w.text]) {
        if (!token || token.startsWith("-") || /\s/.test(token) || /(^|\/)node_modules(\/|$)/.test(token)) continue;
        if (!(assigned ? /\.[A-Za-z0-9_-]+$/ : /\/|\.[A-Za-z0-9_-]+$/).test(token) || token.endsWith("/")) continue;
        const p = resolveWord(token, dir, home, vars);
        if (p && mentions++ >= MAX_MENTIONS) return [...out, CUT];
        if (p) out.push({ path: p, kind: "file", follow: false, mentioned: true, ...(assigned ? { existing: true } : {}) });
      }
    }
    let start = true;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if (w.op) {
        start = true;
        continue;
      }
      if (!start) continue;
      if (LEADERS.has(w.text) && !w.quoted) continue;
      const assign = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(w.text);
      if (assign || ((w.text === "export" || w.text === "local" || w.text === "declare" || w.text === "readonly" || w.text === "set") && !w.quoted)) {
        // `export NAME=value` / `NAME=value`: kept for later words; a prefix assignment keeps the command after it.
        const list = assign ? [w] : [];
        for (let j = i + 1; j < words.length && !words[j]!.op; j++) list.push(words[j]!);
        for (const a of list) {
          const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(a.text);
          if (!m) continue;
          const v = m[2] === "" ? "" : resolveValue(m[2]!, vars, home);
          if (v !== undefined) vars.set(m[1]!, v);
          else vars.delete(m[1]!);
        }
        if (!assign) start = false;
        continue;
      }
      start = false;
      const cmd = w.text.replace(/^\\/, "");
      const args = [];
      for (let j = i + 1; j < words.length && !words[j]!.op; j++) args.push(words[j]!.text);
      // Options, and process substitutions or redirections (`source <(kubectl completion bash)`), are no files.
      const operands = args.filter((a) => !/^[-<>]/.test(a));
      const at = (word: string, kind: "file" | "dir", follow: boolean) => {
        const p = resolveWord(word, dir, home, vars);
        if (p) out.push({ path: p, kind, follow });
      };
      if (SOURCING.has(cmd)) {
        // `source FILE ARGS…`: the first operand; direnv's commands take several.
        const named = cmd === "source" || cmd === "." ? operands.slice(0, 1) : operands;
        // direnv's `dotenv` without an operand loads the folder's `.env`.
        for (const o of named.length === 0 && cmd.startsWith("dotenv") ? [".env"] : named) at(o, "file", !cmd.startsWith("dotenv"));
      } else if (SHELLS.has(cmd)) {
        if (!args.some((a) => /^-[A-Za-z]*c/.test(a)) && operands[0]) at(operands[0], "file", true);
      } else if (direnv && (cmd === "use" || cmd === "use_nix" || cmd === "use_flake")) {
        const what = cmd === "use" ? operands[0] : cmd.slice(4);
        const rest = cmd === "use" ? operands.slice(1) : operands;
        if (what === "nix") for (const f of rest.length ? rest : ["shell.nix", "default.nix"]) at(f, "file", false);
        if (what === "flake") for (const f of ["flake.nix", "flake.lock"]) at(f, "file", false);
      } else if (PATH_ADDING.has(cmd)) {
        for (const o of operands) if (!/(^|\/)node_modules(\/|$)/.test(o)) at(o, "dir", false);
      } else if (cmd.includes("/") && !cmd.startsWith("/usr/") && !cmd.startsWith("/bin/")) {
        at(cmd, "file", true);
      }
    }
  }
  return out;
}

/** A line's words and control operators, quotes removed (a quoted word is marked); a comment ends it. */
function shellWords(line: string): Array<{ text: string; op: boolean; quoted: boolean }> {
  const out: Array<{ text: string; op: boolean; quoted: boolean }> = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === " " || c === "\t") {
      i++;
      continue;
    }
    if (c === "#") break;
    const op = /^(&&|\|\||;;|[;&|()])/.exec(line.slice(i));
    if (op) {
      out.push({ text: op[1]!, op: true, quoted: false });
      i += op[1]!.length;
      continue;
    }
    let text = "";
    let quoted = false;
    while (i < line.length && !/[\s;&|()]/.test(line[i]!)) {
      const d = line[i]!;
      if (d === "'" || d === '"') {
        quoted = true;
        const end = line.indexOf(d, i + 1);
        const body = line.slice(i + 1, end < 0 ? line.length : end);
        // Single quotes keep `$` literal: marked so that resolution leaves the word out rather than expanding it.
        text += d === "'" ? body.replace(/\$/g, "\uE000") : body;
        i = end < 0 ? line.length : end + 1;
      } else if (d === "\\" && i + 1 < line.length) {
        text += line[i + 1] === "." && text === "" ? "\\." : line[i + 1];
        i += 2;
      } else {
        text += d;
        i++;
      }
    }
    out.push({ text, op: false, quoted });
  }
  return out;
}

/** A value with `~`, `$NAME`, `${NAME}` of known variables written out; undefined when anything else is left. */
function resolveValue(value: string, vars: Map<string, string>, home: string): string | undefined {
  let v = value;
  if (v === "~" || v.startsWith("~/")) {
    // No home among the folders read: a path there is outside them (nothing to protect).
    if (!home) return undefined;
    v = home + v.slice(1);
  }
  v = v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (all, a: string | undefined, b: string | undefined) => vars.get((a ?? b)!) ?? "\uE001");
  return /[\uE000\uE001$`*?[]/.test(v) ? undefined : v;
}

/** A word naming a path, absolute and normalised (relative to `dir`), or undefined when it cannot be told. */
function resolveWord(word: string, dir: string, home: string, vars: Map<string, string>): string | undefined {
  if (!word || word.length > 4096) return undefined;
  const v = resolveValue(word, vars, home);
  if (!v || /^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return undefined;
  return normalize(v.startsWith("/") ? v : `${dir}/${v}`);
}

function normalize(p: string): string {
  const out: string[] = [];
  for (const s of p.split("/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") out.pop();
    else out.push(s);
  }
  return `/${out.join("/")}`;
}

function join(dir: string, rel: string): string {
  return normalize(`${dir}/${rel}`);
}

function dirOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

function count(s: string, ch: string): number {
  let n = 0;
  let q: string | undefined;
  for (const c of s) {
    if (q) {
      if (c === q) q = undefined;
    } else if (c === '"' || c === "'") q = c;
    else if (c === "#") break;
    else if (c === ch) n++;
  }
  return n;
}
