/**
 * Claude Code plugins in Yoke: marketplaces (`.claude-plugin/marketplace.json`, from a local folder
 * or a git repository, cloned with real git), installed plugins (copied under
 * `~/.yoke/plugins/cache/<marketplace>/<plugin>/`) and which are enabled (`enabledPlugins` in
 * `~/.yoke/settings.json`, `"name@marketplace": true|false`, as Claude Code keeps it in its
 * settings). State files: `~/.yoke/plugins/known_marketplaces.json`, `installed_plugins.json`,
 * `approvals.json`.
 *
 * Trust: a plugin's agents, skills and commands are text for the model; its hooks and MCP servers
 * are programs, so they run only once the user approved that plugin as installed (the approval is
 * keyed on a digest of every file of the plugin: an updated plugin asks again), and its hooks may
 * block, never allow (like a repository's). A workspace's settings may enable or disable plugins
 * the user installed only in a trusted folder, and never install anything.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  cpSync,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
// The ESM build: the UMD build requires its modules dynamically, which no bundle can follow (src/core/settings/jsonc.ts).
import { applyEdits, modify } from "jsonc-parser/lib/esm/main.js";
import { parseJsonc } from "../../core/settings/jsonc";
import { entryComponents, MARKETPLACE_ENTRY_FILE, readPluginFolder, type PluginFolder } from "./manifest";
import { hostProgram } from "../host-programs";
import { localSettingsFiles } from "../settings/files";

export type MarketplaceSource = { source: "directory"; path: string } | { source: "git"; url: string; ref?: string };

export interface KnownMarketplace {
  source: MarketplaceSource;
  /** Where its marketplace.json is read from (the folder, or the clone). */
  installLocation: string;
  addedAt: string;
}

export interface InstalledPlugin {
  installPath: string;
  version?: string;
  installedAt: string;
}

export interface MarketplaceEntry {
  name: string;
  description?: string;
  version?: string;
  source: unknown;
  /** The entry's own component fields (`commands`, `agents`, `skills`, `hooks`, `mcpServers`) and `strict: false`, when it has any. */
  components?: Record<string, unknown>;
}

export interface Marketplace {
  name: string;
  root: string;
  plugins: MarketplaceEntry[];
  pluginRoot?: string;
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export class PluginError extends Error {}

export function pluginsDir(home: string): string {
  return join(home, ".yoke", "plugins");
}

function readJsonFile(path: string): unknown {
  try {
    const parsed = parseJsonc(readFileSync(path, "utf8"));
    return parsed.ok ? parsed.value : undefined;
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function writeJsonFile(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 2) + "\n", { mode: 0o600 });
  renameSync(tmp, path);
}

export function knownMarketplaces(home: string): Record<string, KnownMarketplace> {
  const v = readJsonFile(join(pluginsDir(home), "known_marketplaces.json"));
  return isObject(v) ? (v as Record<string, KnownMarketplace>) : {};
}

export function installedPlugins(home: string): Record<string, InstalledPlugin> {
  const v = readJsonFile(join(pluginsDir(home), "installed_plugins.json"));
  return isObject(v) && isObject(v.plugins) ? (v.plugins as Record<string, InstalledPlugin>) : {};
}

function saveInstalled(home: string, plugins: Record<string, InstalledPlugin>): void {
  writeJsonFile(join(pluginsDir(home), "installed_plugins.json"), { version: 1, plugins });
}

/** Runs real git with nothing of the caller's or the repository's configuration able to run a program, and no prompt. */
function git(args: string[], cwd?: string): void {
  try {
    execFileSync(hostProgram("git"), ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "protocol.ext.allow=never", ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1" },
      timeout: 300_000,
    });
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    throw new PluginError(`git ${args.filter((a) => a !== "--quiet").join(" ")} failed: ${(e.stderr?.toString() || e.message).trim().split("\n").slice(-2).join(" ")}`);
  }
}

/** A clone of `url` (at `ref`, a branch or tag, or `sha`, a commit) in `dest`. */
function cloneInto(url: string, dest: string, ref?: string, sha?: string): void {
  git(["clone", "--quiet", ...(sha ? [] : ["--depth", "1"]), ...(ref ? ["--branch", ref] : []), "--", url, dest]);
  if (sha) git(["checkout", "--quiet", sha], dest);
}

const looksLikeGitUrl = (s: string) => /^(https?|file|ssh|git):\/\//i.test(s) || /^[\w.-]+@[\w.-]+:/.test(s) || /\.git\/?$/.test(s);

/**
 * The git URL of a marketplace entry's object `source`: `github` (`repo: owner/repo`), `url` / `git`
 * (`url`), `git-subdir` (`url`, or `repo`). A `url` written as GitHub's `owner/repo` — as Anthropic's
 * community marketplace writes its git-subdir entries (`"url": "42Crunch-AI/claude-plugins"`) — is
 * that GitHub repository (before, git was handed `owner/repo` as a folder relative to Yoke's working
 * folder). A `url` that is neither a git URL nor `owner/repo` (a local path, `../x`) is not one:
 * undefined.
 */
export function pluginSourceUrl(src: Record<string, unknown>): string | undefined {
  const shorthand = (s: string) => (/^[\w.-]+\/[\w.-]+$/.test(s) && !/^\.\.?\//.test(s) ? `https://github.com/${s.replace(/\.git$/, "")}.git` : undefined);
  // Only a URL with a scheme (or git's user@host:path) is handed to git as written: a bare `x/y.git` or `y.git` is a
  // path relative to Yoke's working folder to git, so it goes through the shorthand (`owner/repo.git` is GitHub's) or is refused.
  const isUrl = (u: string) => /^(https?|file|ssh|git):\/\//i.test(u) || /^[\w.-]+@[\w.-]+:/.test(u);
  const fromUrl = (u: unknown) => (typeof u === "string" ? (isUrl(u) ? u : shorthand(u)) : undefined);
  if (src.source === "github") return typeof src.repo === "string" ? shorthand(src.repo) : undefined;
  if (src.source === "url" || src.source === "git") return fromUrl(src.url);
  if (src.source === "git-subdir") return fromUrl(src.url) ?? (typeof src.repo === "string" ? shorthand(src.repo) : undefined);
  return undefined;
}

/** What `yoke plugins marketplace add SPEC` means: a local folder (or its marketplace.json), a git URL, or GitHub's owner/repo. */
export function marketplaceSource(spec: string, cwd: string): MarketplaceSource {
  const local = resolve(cwd, spec);
  if (!looksLikeGitUrl(spec) && existsSync(local)) {
    let dir = local;
    if (statSync(local).isFile()) dir = dirname(local).endsWith(".claude-plugin") ? dirname(dirname(local)) : dirname(local);
    return { source: "directory", path: dir };
  }
  if (looksLikeGitUrl(spec)) return { source: "git", url: spec };
  if (/^[\w.-]+\/[\w.-]+$/.test(spec)) return { source: "git", url: `https://github.com/${spec}.git` };
  throw new PluginError(`${spec}: no such folder, and not a git URL (https://…, file://…, git@host:…) or GitHub owner/repo`);
}

/** Reads `.claude-plugin/marketplace.json` of a marketplace folder. */
export function readMarketplace(root: string): Marketplace {
  const path = join(root, ".claude-plugin", "marketplace.json");
  if (!existsSync(path)) throw new PluginError(`${root} has no .claude-plugin/marketplace.json, so it is not a plugin marketplace`);
  const parsed = parseJsonc(readFileSync(path, "utf8"));
  if (!parsed.ok) throw new PluginError(`${path}:${parsed.line}:${parsed.column}: invalid JSON (${parsed.message})`);
  const v = parsed.value;
  if (!isObject(v) || typeof v.name !== "string" || !Array.isArray(v.plugins)) throw new PluginError(`${path}: a marketplace needs "name" and "plugins" (a list)`);
  if (!NAME_RE.test(v.name)) throw new PluginError(`${path}: the marketplace name ${JSON.stringify(v.name)} must be letters, digits, . _ -`);
  const plugins: MarketplaceEntry[] = [];
  for (const p of v.plugins) {
    if (!isObject(p) || typeof p.name !== "string" || p.source === undefined) continue;
    const components = entryComponents(p);
    plugins.push({
      name: p.name,
      source: p.source,
      ...(typeof p.description === "string" ? { description: p.description } : {}),
      ...(typeof p.version === "string" ? { version: p.version } : {}),
      ...(components ? { components } : {}),
    });
  }
  const meta = isObject(v.metadata) ? v.metadata : {};
  return { name: v.name, root, plugins, ...(typeof meta.pluginRoot === "string" ? { pluginRoot: meta.pluginRoot } : {}) };
}

/** Adds (or refreshes) a marketplace; a git one is cloned under ~/.yoke/plugins/marketplaces/. */
export function addMarketplace(home: string, source: MarketplaceSource): Marketplace {
  const dir = pluginsDir(home);
  let market: Marketplace;
  let location: string;
  if (source.source === "directory") {
    market = readMarketplace(source.path);
    location = source.path;
  } else {
    mkdirSync(join(dir, "marketplaces"), { recursive: true });
    const tmp = mkdtempSync(join(dir, "marketplaces", ".clone-"));
    try {
      cloneInto(source.url, join(tmp, "repo"), source.ref);
      const probe = readMarketplace(join(tmp, "repo"));
      location = join(dir, "marketplaces", probe.name);
      rmSync(location, { recursive: true, force: true });
      renameSync(join(tmp, "repo"), location);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    market = readMarketplace(location);
  }
  const known = knownMarketplaces(home);
  const before = known[market.name];
  if (before && JSON.stringify(before.source) !== JSON.stringify(source) && before.installLocation !== location) {
    throw new PluginError(`a marketplace named "${market.name}" is already added from ${describeSource(before.source)}; remove it first (yoke plugins marketplace remove ${market.name})`);
  }
  known[market.name] = { source, installLocation: location, addedAt: new Date().toISOString() };
  writeJsonFile(join(dir, "known_marketplaces.json"), known);
  return market;
}

export function removeMarketplace(home: string, name: string): void {
  const known = knownMarketplaces(home);
  const m = known[name];
  if (!m) throw new PluginError(`no marketplace named "${name}" (yoke plugins list shows them)`);
  if (m.source.source === "git") rmSync(m.installLocation, { recursive: true, force: true });
  delete known[name];
  writeJsonFile(join(pluginsDir(home), "known_marketplaces.json"), known);
}

export function describeSource(s: MarketplaceSource): string {
  return s.source === "directory" ? s.path : s.url;
}

/** A marketplace's `extraKnownMarketplaces` entry (Claude Code's settings) as a source Yoke can add. */
export function settingsMarketplaceSource(v: unknown, baseDir: string): MarketplaceSource | undefined {
  const s = isObject(v) && isObject(v.source) ? v.source : undefined;
  if (!s) return undefined;
  if (s.source === "github" && typeof s.repo === "string") return { source: "git", url: `https://github.com/${s.repo}.git`, ...(typeof s.ref === "string" ? { ref: s.ref } : {}) };
  if ((s.source === "git" || s.source === "url") && typeof s.url === "string" && looksLikeGitUrl(s.url)) return { source: "git", url: s.url, ...(typeof s.ref === "string" ? { ref: s.ref } : {}) };
  if (s.source === "directory" && typeof s.path === "string") return { source: "directory", path: resolve(baseDir, s.path) };
  return undefined;
}

const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/**
 * Copies a plugin folder (without .git) to `dest`. The folder is taken at its real path, which must
 * stay inside `within` (the marketplace's folder, or the clone): red team J 24 — a plugin folder
 * `plugins/x -> /home/me/.ssh` (or a relative link, copied verbatim and so read from the store) passed
 * the check on the path as written, was installed as a link to that folder, and the entry's
 * components were written into it (`.claude-plugin/yoke-marketplace-entry.json`). Links inside the
 * plugin are copied as they are; its readers take only files that stay inside it (owned-file.ts).
 */
function copyPlugin(name: string, from: string, within: string, dest: string): void {
  let real: string;
  try {
    real = realpathSync(from);
  } catch {
    throw new PluginError(`plugin "${name}": its folder ${from} does not exist`);
  }
  if (!inside(real, realpathSync(within))) throw new PluginError(`plugin "${name}": its folder ${from} leads to ${real}, outside the marketplace; not installed`);
  if (!statSync(real).isDirectory()) throw new PluginError(`plugin "${name}": its folder ${from} does not exist`);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dirname(dest), { recursive: true });
  cpSync(real, dest, { recursive: true, filter: (src) => !/(^|[\\/])\.git$/.test(src), verbatimSymlinks: true });
}

/** Installs NAME@MARKETPLACE: copies (or clones) the plugin into Yoke's cache and enables it. */
export function installPlugin(home: string, id: string, settingsMarkets: Record<string, MarketplaceSource> = {}): { id: string; folder: PluginFolder } {
  const [name, marketName] = splitId(id);
  if (!marketName) throw new PluginError(`name the marketplace too: yoke plugins install ${name}@MARKETPLACE (yoke plugins list shows them)`);
  let known = knownMarketplaces(home)[marketName];
  if (!known && settingsMarkets[marketName]) {
    addMarketplace(home, settingsMarkets[marketName]);
    known = knownMarketplaces(home)[marketName];
  }
  if (!known) throw new PluginError(`no marketplace named "${marketName}": add it first (yoke plugins marketplace add PATH|URL)`);
  const market = readMarketplace(known.installLocation);
  const entry = market.plugins.find((p) => p.name === name);
  if (!entry) throw new PluginError(`marketplace "${marketName}" has no plugin "${name}" (it has: ${market.plugins.map((p) => p.name).join(", ") || "none"})`);
  if (!NAME_RE.test(name)) throw new PluginError(`the plugin name ${JSON.stringify(name)} must be letters, digits, . _ -`);
  const dest = join(pluginsDir(home), "cache", marketName, name);
  const src = entry.source;
  if (typeof src === "string") {
    const base = market.pluginRoot && !src.startsWith("./") && !src.startsWith("../") ? resolve(market.root, market.pluginRoot) : market.root;
    const from = resolve(base, src);
    const rel = relative(market.root, from);
    if (rel.startsWith("..") || isAbsolute(rel)) throw new PluginError(`plugin "${name}": its source ${JSON.stringify(src)} leaves the marketplace folder`);
    if (!existsSync(from) || !statSync(from).isDirectory()) throw new PluginError(`plugin "${name}": its folder ${from} does not exist`);
    copyPlugin(name, from, market.root, dest);
  } else if (isObject(src)) {
    const url = pluginSourceUrl(src);
    if (!url) throw new PluginError(`plugin "${name}": its source ${JSON.stringify(src)} is not one Yoke installs (a relative folder, github, url or git-subdir)`);
    mkdirSync(pluginsDir(home), { recursive: true });
    const tmp = mkdtempSync(join(pluginsDir(home), ".clone-"));
    try {
      cloneInto(url, join(tmp, "repo"), typeof src.ref === "string" ? src.ref : undefined, typeof src.sha === "string" ? src.sha : undefined);
      let from = join(tmp, "repo");
      if (typeof src.path === "string") {
        from = resolve(from, src.path);
        const rel = relative(join(tmp, "repo"), from);
        if (rel.startsWith("..") || isAbsolute(rel)) throw new PluginError(`plugin "${name}": its path ${JSON.stringify(src.path)} leaves the repository`);
      }
      copyPlugin(name, from, join(tmp, "repo"), dest);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  } else throw new PluginError(`plugin "${name}": "source" must be a relative folder or an object`);
  // The marketplace entry's components, kept inside the installed copy (the approval digest covers them); never one the plugin shipped.
  // A `.claude-plugin` that is a link (copied as a link) or a file would take that write elsewhere — into another installed
  // plugin's folder, whose definition would then hold this entry's hooks and servers (red team 18): refused, nothing written.
  const meta = lstatSync(join(dest, ".claude-plugin"), { throwIfNoEntry: false });
  if (meta && !meta.isDirectory()) {
    rmSync(dest, { recursive: true, force: true });
    throw new PluginError(
      `plugin "${name}": its .claude-plugin is ${meta.isSymbolicLink() ? "a link" : "not a folder"}; Yoke installs only a plugin whose .claude-plugin is a folder of its own (not installed)`,
    );
  }
  const entryFile = join(dest, MARKETPLACE_ENTRY_FILE);
  rmSync(entryFile, { force: true });
  if (entry.components) {
    mkdirSync(dirname(entryFile), { recursive: true });
    writeFileSync(entryFile, `${JSON.stringify(entry.components, null, 2)}\n`);
  }
  const folder = readPluginFolder(dest, name);
  const key = `${name}@${marketName}`;
  const installed = installedPlugins(home);
  installed[key] = { installPath: dest, ...(folder.manifest.version ? { version: folder.manifest.version } : {}), installedAt: new Date().toISOString() };
  saveInstalled(home, installed);
  setUserEnabled(home, key, true);
  return { id: key, folder };
}

function splitId(id: string): [string, string | undefined] {
  const at = id.lastIndexOf("@");
  return at > 0 ? [id.slice(0, at), id.slice(at + 1)] : [id, undefined];
}

/** The installed plugin `NAME` or `NAME@MARKETPLACE` names (its full id), or a refusal. */
export function resolveInstalled(home: string, nameOrId: string): string {
  const installed = installedPlugins(home);
  if (installed[nameOrId]) return nameOrId;
  const matches = Object.keys(installed).filter((k) => splitId(k)[0] === nameOrId);
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new PluginError(`"${nameOrId}" is installed from several marketplaces (${matches.join(", ")}): name one`);
  throw new PluginError(`no installed plugin "${nameOrId}" (yoke plugins list shows them)`);
}

/** Sets `enabledPlugins[id]` in ~/.yoke/settings.json (undefined: removes it), keeping the file's other keys and comments. */
export function setUserEnabled(home: string, id: string, value: boolean | undefined): void {
  const path = join(home, ".yoke", "settings.json");
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (text.trim()) {
    const parsed = parseJsonc(text);
    if (!parsed.ok) throw new PluginError(`${path}:${parsed.line}:${parsed.column}: invalid JSON (${parsed.message}); fix it first`);
  } else text = "{}\n";
  const edits = modify(text, ["enabledPlugins", id], value, { formattingOptions: { insertSpaces: true, tabSize: 2 } });
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, applyEdits(text, edits));
}

export function removePlugin(home: string, id: string): void {
  const installed = installedPlugins(home);
  const p = installed[id];
  if (p) rmSync(p.installPath, { recursive: true, force: true });
  delete installed[id];
  saveInstalled(home, installed);
  setUserEnabled(home, id, undefined);
  const approvals = readApprovals(home);
  delete approvals[id];
  writeJsonFile(join(pluginsDir(home), "approvals.json"), approvals);
}

// --- which plugins are in force ---

interface SettingsRead {
  path: string;
  user: boolean;
  value: Record<string, unknown>;
}

/** The settings files that may say `enabledPlugins` / `extraKnownMarketplaces`, lowest priority first (the workspace's only when trusted). */
function settingsFiles(home: string, cwd: string | undefined, trusted: boolean): SettingsRead[] {
  const files: Array<[string, boolean]> = [
    [join(home, ".claude", "settings.json"), true],
    [join(home, ".yoke", "settings.json"), true],
  ];
  if (cwd && trusted) {
    for (const f of [".claude/settings.json", ".yoke/settings.json", ".claude/settings.local.json", ".yoke/settings.local.json"]) files.push([join(cwd, f), false]);
    // In an agent's worktree, the person's workspace's local files too (the one list every settings reader takes).
    for (const f of localSettingsFiles({ cwd, home })?.files ?? []) files.push([f.path!, false]);
  }
  const out: SettingsRead[] = [];
  for (const [path, user] of files) {
    const v = readJsonFile(path);
    if (isObject(v)) out.push({ path, user, value: v });
  }
  return out;
}

/** `enabledPlugins` of every settings file, later files winning: id → enabled, and who said so. */
export function enabledState(home: string, cwd: string | undefined, trusted: boolean): Map<string, { enabled: boolean; where: string }> {
  const state = new Map<string, { enabled: boolean; where: string }>();
  for (const f of settingsFiles(home, cwd, trusted)) {
    const ep = f.value.enabledPlugins;
    if (!isObject(ep)) continue;
    for (const [id, on] of Object.entries(ep)) if (typeof on === "boolean") state.set(id, { enabled: on, where: f.path });
  }
  return state;
}

/** `extraKnownMarketplaces` of the settings files: marketplaces the user (or, in a trusted folder, the project) names. */
export function settingsMarketplaces(home: string, cwd: string | undefined, trusted: boolean): Record<string, MarketplaceSource> {
  const out: Record<string, MarketplaceSource> = {};
  for (const f of settingsFiles(home, cwd, trusted)) {
    const m = f.value.extraKnownMarketplaces;
    if (!isObject(m)) continue;
    for (const [name, v] of Object.entries(m)) {
      const s = settingsMarketplaceSource(v, f.user ? home : (cwd ?? home));
      if (s) out[name] = s;
    }
  }
  return out;
}

export interface ActivePlugin {
  id: string;
  folder: PluginFolder;
  /** The user approved this plugin's hooks and MCP servers, as it is installed now. */
  approved: boolean;
  /** It has hooks or MCP servers (which need the approval). */
  runsPrograms: boolean;
}

/** The installed plugins that are enabled for the folder `cwd`. */
export function activePlugins(home: string, cwd: string | undefined, trusted: boolean): ActivePlugin[] {
  const installed = installedPlugins(home);
  // None installed (most users): none active, whatever the settings say — their files are not read
  // (a session asks this about eight times before its first request).
  if (Object.keys(installed).length === 0) return [];
  const state = enabledState(home, cwd, trusted);
  const approvals = readApprovals(home);
  const out: ActivePlugin[] = [];
  for (const [id, p] of Object.entries(installed).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!state.get(id)?.enabled || !existsSync(p.installPath)) continue;
    const folder = readPluginFolder(p.installPath, splitId(id)[0]);
    const runsPrograms = folder.components.hooks !== undefined || folder.components.mcpServers !== undefined;
    let digest: string | undefined;
    try {
      digest = runsPrograms ? pluginDigest(p.installPath) : undefined;
    } catch {
      digest = undefined; // too large to approve (pluginDigest): its hooks and servers do not run
    }
    out.push({ id, folder, runsPrograms, approved: runsPrograms && digest !== undefined && approvals[id]?.digest === digest });
  }
  return out;
}

// --- approval of a plugin's hooks and MCP servers ---

interface StoredPluginApproval {
  digest: string;
  at: string;
}

/** The stored approvals (id → digest), for listings. */
export function readApprovalsPublic(home: string): Record<string, StoredPluginApproval> {
  return readApprovals(home);
}

function readApprovals(home: string): Record<string, StoredPluginApproval> {
  const v = readJsonFile(join(pluginsDir(home), "approvals.json"));
  return isObject(v) ? (v as Record<string, StoredPluginApproval>) : {};
}

/**
 * A digest of every file of the plugin (names and bytes): any change to it means a new approval.
 * Each entry is written as its kind, the length of its name, the name, and for a file the length
 * of its bytes then the bytes, so no file's tail can pose as the next entry (red team round 9: a
 * file ending in `hooks/hooks.json\0<hooks>` hashed like that text split off into a new hooks
 * file, keeping the approval of a version without the hook). "v2": approvals of the earlier
 * encoding do not match, so such plugins are asked about once more.
 */
/** A plugin walked past this many entries or bytes (links followed) is not approved: see pluginDigest. */
const DIGEST_MAX_ENTRIES = 100_000;
const DIGEST_MAX_BYTES = 512 * 1024 * 1024;
/** The kernel's own files: a link into them is named by its target, never read (`/proc/kmsg` blocks a reader). */
const KERNEL_FILES = /^\/(proc|sys)(\/|$)/;
/** /dev: its devices are named, never read; a file or folder there (`/dev/shm`, writable by anyone) is read like any other. */
const DEVICE_FOLDER = /^\/dev(\/|$)/;

export function pluginDigest(root: string): string {
  const h = createHash("sha256");
  let entries = 0;
  let bytesRead = 0;
  const tooLarge = (): never => {
    throw new PluginError(
      `the plugin at ${root} is too large to approve (more than ${DIGEST_MAX_ENTRIES} entries or ${DIGEST_MAX_BYTES / 1024 / 1024} MB, links followed): its hooks and MCP servers are not run`,
    );
  };
  h.update("yoke-plugin-digest-v2\0");
  const num = (n: number) => h.update(`${n}:`);
  // Red team J 24: a folder reached again through a link (`a -> .`) is named, not walked again, and an
  // entry that cannot be read (a link loop, EACCES) is named with its error: before, `stat` threw
  // ELOOP and every session and `yoke plugins` failed while such a plugin was enabled.
  const walked = new Map<string, string>();
  const realOf = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return undefined;
    }
  };
  const failed = (name: Buffer, err: unknown) => {
    const code = String((err as { code?: unknown }).code ?? "error");
    h.update("e");
    num(name.length);
    h.update(name);
    h.update(`${code}\0`);
  };
  // `realDir`: `dir`'s real path, so that an entry that is no link costs no realpath of its own (a
  // chain of 1,900 folders took minutes: each entry's realpath walked the whole path).
  const walk = (dir: string, realDir: string | undefined) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const n of names) {
      if (n === ".git") continue;
      const abs = join(dir, n);
      const name = Buffer.from(relative(root, abs), "utf8");
      let st;
      try {
        st = statSync(abs, { throwIfNoEntry: false });
      } catch (err) {
        failed(name, err);
        continue;
      }
      if (!st) continue;
      if (++entries > DIGEST_MAX_ENTRIES) tooLarge();
      // A link into /proc or /sys, or to a device, is named by where it leads, not read or walked (red
      // team J 24: `/proc/kmsg` blocked every session start as root; a link to `/` read the whole file
      // system, now also bounded above). A file in /dev/shm is read: anyone can rewrite it.
      let link = true;
      try {
        link = lstatSync(abs).isSymbolicLink();
      } catch {
        // read below as it is found
      }
      const real = !link && realDir !== undefined ? join(realDir, n) : realOf(abs);
      if (real !== undefined && (KERNEL_FILES.test(real) || (DEVICE_FOLDER.test(real) && !st.isFile() && !st.isDirectory()))) {
        const target = Buffer.from(real, "utf8");
        h.update("k");
        num(name.length);
        h.update(name);
        num(target.length);
        h.update(target);
        continue;
      }
      h.update(st.isDirectory() ? "d" : st.isFile() ? "f" : "o");
      num(name.length);
      h.update(name);
      if (st.isDirectory()) {
        const seen = real === undefined ? undefined : walked.get(real);
        if (seen !== undefined) {
          const first = Buffer.from(seen, "utf8");
          h.update("s");
          num(first.length);
          h.update(first);
          continue;
        }
        if (real !== undefined) walked.set(real, name.toString("utf8"));
        walk(abs, real);
      } else if (st.isFile()) {
        let bytes: Buffer;
        try {
          bytes = readRegular(abs, DIGEST_MAX_BYTES - bytesRead);
        } catch (err) {
          if (err instanceof PluginError) throw err;
          failed(name, err);
          continue;
        }
        bytesRead += bytes.length;
        num(bytes.length);
        h.update(bytes);
      }
    }
  };
  const top = realOf(root);
  if (top !== undefined) walked.set(top, "");
  walk(root, top);
  return h.digest("hex");
}

/**
 * A regular file's bytes, read through a descriptor opened without blocking and never past the size
 * it has when opened (a FIFO or a device under a file's name cannot hold the digest), nor past
 * `budget` (a PluginError then: pluginDigest's bound).
 */
function readRegular(path: string, budget: number): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return Buffer.alloc(0);
    if (st.size > budget)
      throw new PluginError(`the plugin file ${path} puts the plugin over the size that can be approved (${DIGEST_MAX_BYTES / 1024 / 1024} MB): its hooks and MCP servers are not run`);
    const out = Buffer.alloc(st.size);
    let done = 0;
    while (done < st.size) {
      const n = readSync(fd, out, done, st.size - done, null);
      if (n <= 0) break;
      done += n;
    }
    return out.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

export function approvePlugin(home: string, id: string, allow: boolean): void {
  const installed = installedPlugins(home)[id];
  if (!installed) throw new PluginError(`no installed plugin "${id}"`);
  const approvals = readApprovals(home);
  if (allow) approvals[id] = { digest: pluginDigest(installed.installPath), at: new Date().toISOString() };
  else delete approvals[id];
  writeJsonFile(join(pluginsDir(home), "approvals.json"), approvals);
}
