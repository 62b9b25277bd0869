/**
 * npm's settings that name a program it runs (`editor` for `npm edit` and `npm config edit`, `shell` and
 * `script-shell` for `npm explore`), read from npm's configuration layers as npm reads them (npm 11,
 * @npmcli/config): `npm_config_*` variables (names in any case, `_` for `-`), the project's `.npmrc`, the
 * user's (`--userconfig` on the line, `npm_config_userconfig`, `~/.npmrc`), the global one, and the
 * defaults (`$EDITOR`, `$VISUAL`, `vi`; `$SHELL`, `sh`). Every value any layer gives is returned, not only
 * the one npm picks: more programs than run, never fewer (the layers npm would pick between depend on the
 * environment the command runs in and on folders Yoke does not walk as npm does).
 *
 * A `.npmrc` is read with npm's own `ini` package (the version npm 11 ships), keys and values then through
 * npm's `${NAME}` replacement — no copy of its rules here (red team F, session 18, found a key class in the
 * copy that was). Anything this reader is not sure of (a file it cannot read, a value that is no text, a
 * `${…}` whose variable is not set) is returned as a reason instead, and the command asks where a deny rule exists, as before. The
 * reasons name the file and the setting, never a value (a `.npmrc` may be a link to a secret).
 */

import { parse as parseIni } from "ini";

/** Reads a small text file: undefined when it does not exist, null when it exists but cannot be read. */
export type ReadText = (absPath: string) => Promise<string | null | undefined>;

export interface NpmConfigSources {
  readText: ReadText;
  /** The environment commands run with (the host's). */
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  /** npm's global configuration files (`$PREFIX/etc/npmrc`, npm's own `npmrc`), absolute. */
  globalFiles: readonly string[];
  /** The physical path of a folder (links resolved), undefined when it cannot be resolved. */
  realPath?: (absPath: string) => Promise<string | undefined>;
}

export interface NpmSettingValues {
  /** Every value of each setting asked for, from every layer (defaults included). */
  values: Record<string, string[]>;
  /** Why some layer's value is not known. */
  unknown: string[];
  /**
   * The variables the values depend on besides `npm_config_*`: npm's own (`EDITOR`, `VISUAL`, `SHELL`,
   * `HOME`, `PREFIX`, `DESTDIR`) and every `${NAME}` a file read names. A command line that sets one of
   * them (`PREFIX=dir npm edit x`, `export USER=…; npm edit x` under `editor=${USER}`) makes npm read other
   * values than these (red team F, session 18).
   */
  variables: string[];
}

/** The variables npm's configuration reads itself (@npmcli/config: homedir, the global prefix, the defaults). */
export const NPM_CONFIG_VARIABLES = ["EDITOR", "VISUAL", "SHELL", "HOME", "PREFIX", "DESTDIR"] as const;

/** A setting's name as npm compares names: lower case, `_` as `-`. */
const norm = (key: string): string => key.trim().toLowerCase().replace(/_/g, "-");

/**
 * `${NAME}` and `${NAME?}` (not after an odd number of backslashes) as @npmcli/config's envReplace: the
 * variable's value; an unset `${NAME?}` is empty, an unset `${NAME}` stays as written.
 */
function envReplace(text: string, env: NpmConfigSources["env"]): { text: string; unset: boolean } {
  let unset = false;
  const out = text.replace(/(?<!\\)(\\*)\$\{([^${}?]+)(\?)?\}/g, (whole, slashes: string, name: string, optional: string | undefined) => {
    if (slashes.length % 2 === 1) return whole.slice((slashes.length + 1) / 2);
    const v = env[name];
    if (v === undefined && !optional) unset = true;
    return `${slashes.slice(slashes.length / 2)}${v ?? (optional ? "" : `\${${name}}`)}`;
  });
  return { text: out, unset };
}

/** The variables a text names as `${NAME}` (whatever npm then makes of it). */
function variablesNamed(text: string): string[] {
  return [...text.matchAll(/\$\{([^${}?]+)\??\}/g)].map((m) => m[1]!);
}

/**
 * The values of a `.npmrc`'s text for the given keys, read as npm 11 reads the file: `ini.parse` (the `ini`
 * package npm ships — quoted and escaped keys and values, comments, sections, `key[]` arrays, the last of
 * duplicate keys), then each top-level key and each string value through npm's `${VAR}` replacement
 * (@npmcli/config's loadObject and parseField). Keys are compared as npm compares them (exactly: `EDITOR=`
 * in a file is no setting of npm's). An array value gives each element and the text npm prints for it.
 * `unknown`: a value of such a key that is no text (a section by that name), or that names an unset
 * variable without `?` (npm would hand `${NAME}` on as written; a shell it runs would expand it).
 */
export function parseNpmrc(text: string, keys: ReadonlySet<string>, env: NpmConfigSources["env"]): { values: Map<string, string[]>; unknown: string[]; variables: string[] } {
  const values = new Map<string, string[]>();
  const unknown: string[] = [];
  const named = new Set<string>();
  const add = (k: string, v: string) => {
    const list = values.get(k) ?? [];
    if (!list.includes(v)) list.push(v);
    values.set(k, list);
  };
  const take = (key: string, value: string) => {
    for (const name of variablesNamed(value)) named.add(name);
    const expanded = envReplace(value.trim(), env);
    if (expanded.unset) unknown.push(`its ${key} value names a variable Yoke does not know`);
    else if (expanded.text.trim()) add(key, expanded.text.trim());
  };
  // npm sets its settings in the order of the parsed object's keys: a later key naming the same setting
  // (`${K}=…` then `editor=…`) replaces the earlier one's value.
  const last = new Map<string, unknown>();
  for (const [rawKey, value] of Object.entries(parseIni(text) as Record<string, unknown>)) {
    // npm replaces variables in keys too (`${K}=…` is its editor when K=editor); the line may set them.
    for (const name of variablesNamed(rawKey)) named.add(name);
    const key = envReplace(rawKey, env).text;
    if (keys.has(key)) last.set(key, value);
  }
  for (const [key, value] of last) {
    if (typeof value === "string") take(key, value);
    else if (Array.isArray(value)) {
      // npm keeps an array for a text setting (`editor[]=a`) as ini gave it (no `${…}` replaced):
      // `npm config get` prints it joined with `,`. Its items are read too.
      const items = value.map((v) => (v === null || v === undefined ? "" : String(v)));
      for (const v of [items.join(","), ...items]) {
        for (const name of variablesNamed(v)) named.add(name);
        if (v.trim()) add(key, v.trim());
      }
    } else if (value !== null && typeof value === "object") unknown.push(`its ${key} value is not a string`);
    // true, false, null: no program.
  }
  return { values, unknown, variables: [...named] };
}

/** The folder's ancestors, itself first. */
function ancestors(dir: string): string[] {
  const out: string[] = [];
  let d = dir.replace(/\/+$/, "") || "/";
  for (;;) {
    out.push(d);
    if (d === "/") return out;
    d = d.slice(0, d.lastIndexOf("/")) || "/";
  }
}

/** `~/x` and relative paths as npm resolves them (against the folder npm runs in). */
function resolvePath(p: string, cwd: string, home: string): string {
  if (p === "~" || p.startsWith("~/")) return `${home.replace(/\/+$/, "")}${p.slice(1)}`;
  if (p.startsWith("/")) return p;
  return `${cwd.replace(/\/+$/, "")}/${p}`;
}

/**
 * Every value of `settings` npm may use for a command run in `cwd`. `lineUserconfig`: `--userconfig FILE`
 * from the command line. `assigned`: variables the command line sets for npm (`EDITOR=… npm edit x`).
 */
export async function npmSettingValues(
  settings: readonly string[],
  cwd: string,
  src: NpmConfigSources,
  opts: { lineUserconfig?: string; assigned?: Readonly<Record<string, string>> } = {},
): Promise<NpmSettingValues> {
  // npm starts in the physical folder (process.cwd()): it looks for its project, and resolves relative
  // paths (`--userconfig ../u.rc`), from there — `cd link && npm edit x` read the `.npmrc` above the link's
  // target (red team F, session 18). Both folders are read when they differ.
  const real = await src.realPath?.(cwd).catch(() => undefined);
  const logical = await settingValuesIn(settings, cwd, src, opts);
  if (!real || real === cwd) return logical;
  const physical = await settingValuesIn(settings, real, src, opts);
  const values: Record<string, string[]> = {};
  for (const s of Object.keys(logical.values)) values[s] = [...new Set([...logical.values[s]!, ...(physical.values[s] ?? [])])];
  return { values, unknown: [...new Set([...logical.unknown, ...physical.unknown])], variables: [...new Set([...logical.variables, ...physical.variables])] };
}

async function settingValuesIn(
  settings: readonly string[],
  cwd: string,
  src: NpmConfigSources,
  opts: { lineUserconfig?: string; assigned?: Readonly<Record<string, string>> },
): Promise<NpmSettingValues> {
  const env: Record<string, string | undefined> = { ...src.env, ...opts.assigned };
  // userconfig, globalconfig and prefix change which files are read: their values are read from every layer too.
  const keys = new Set([...settings.map(norm), "userconfig", "globalconfig", "prefix"]);
  const values: Record<string, string[]> = Object.fromEntries(settings.map((s) => [norm(s), [] as string[]]));
  const unknown: string[] = [];
  const variables = new Set<string>(NPM_CONFIG_VARIABLES);
  const found = new Map<string, string[]>();
  const take = (k: string, v: string) => {
    const list = found.get(k) ?? [];
    if (!list.includes(v)) list.push(v);
    found.set(k, list);
  };
  // Environment: npm_config_NAME in any case.
  for (const [name, v] of Object.entries(env)) {
    const m = /^npm_config_(.+)$/i.exec(name);
    if (!m || v === undefined) continue;
    const k = norm(m[1]!);
    if (keys.has(k) && v.trim()) take(k, v.trim());
  }
  const read = async (file: string, what: string) => {
    // A per-process file (`--userconfig /dev/stdin`, `/proc/self/fd/N`) is npm's own input, not the one
    // Yoke would open (red team F, session 18: the real npm reads the piped text as its user configuration).
    if (/^\/(dev|proc)\//.test(file) && file !== "/dev/null") {
      unknown.push(`npm reads ${what} ${file}, a file of its own process Yoke cannot read`);
      return;
    }
    const text = await src.readText(file);
    if (text === undefined) return;
    if (text === null) {
      unknown.push(`npm reads ${what} ${file}, which Yoke cannot read`);
      return;
    }
    const parsed = parseNpmrc(text, keys, env);
    for (const why of parsed.unknown) unknown.push(`${what} ${file}: ${why}`);
    for (const name of parsed.variables) variables.add(name);
    for (const [k, list] of parsed.values) for (const v of list) take(k, v);
  };
  // The project's .npmrc: npm's project folder is the nearest one up with a package.json or node_modules
  // (or a workspace root above it); every folder up to the root is read.
  for (const d of ancestors(cwd)) await read(`${d === "/" ? "" : d}/.npmrc`, "the project configuration");
  // The user's: the command line's, npm_config_userconfig's, any userconfig a file read so far names, ~/.npmrc.
  const userFiles = new Set<string>();
  if (opts.lineUserconfig !== undefined) userFiles.add(resolvePath(opts.lineUserconfig, cwd, src.home));
  for (const u of found.get("userconfig") ?? []) userFiles.add(resolvePath(u, cwd, src.home));
  userFiles.add(resolvePath("~/.npmrc", cwd, src.home));
  for (const f of userFiles) await read(f, "the user configuration");
  // Global: the default files, any globalconfig, `PREFIX/etc/npmrc` for any prefix — npm's global prefix is
  // `$PREFIX` when set, and `$DESTDIR` is put before it (@npmcli/config's loadGlobalPrefix).
  const globalFiles = new Set(src.globalFiles);
  if (env.PREFIX?.trim()) globalFiles.add(`${resolvePath(env.PREFIX.trim(), cwd, src.home).replace(/\/+$/, "")}/etc/npmrc`);
  if (env.DESTDIR) for (const f of [...globalFiles]) globalFiles.add(resolvePath(`${env.DESTDIR.replace(/\/+$/, "")}/${f.replace(/^\/+/, "")}`, cwd, src.home));
  for (const g of found.get("globalconfig") ?? []) globalFiles.add(resolvePath(g, cwd, src.home));
  for (const p of found.get("prefix") ?? []) globalFiles.add(`${resolvePath(p, cwd, src.home).replace(/\/+$/, "")}/etc/npmrc`);
  for (const f of globalFiles) await read(f, "the global configuration");
  for (const s of Object.keys(values)) values[s]!.push(...(found.get(s) ?? []));
  // Defaults (npm's definitions): editor $EDITOR, $VISUAL or vi; shell $SHELL or sh.
  const defaults: Record<string, Array<string | undefined>> = { editor: [env.EDITOR, env.VISUAL, "vi"], shell: [env.SHELL, "sh"] };
  for (const s of Object.keys(values)) for (const d of defaults[s] ?? []) if (d?.trim() && !values[s]!.includes(d.trim())) values[s]!.push(d.trim());
  return { values, unknown: [...new Set(unknown)], variables: [...variables] };
}
