/**
 * Credentials a git clone keeps where a confined program may be shown them: a plugin marketplace
 * cloned with a token (`https://x-access-token:TOKEN@github.com/…`, the URL private marketplaces are
 * added with) keeps the token in the clone's `.git/config`, and the plugin stores' marketplace
 * lists (`known_marketplaces.json`) record the URL as it was given. Hooks keep plugin folders
 * readable (a plugin's hooks run from its own folder; a repository's hook may name a plugin's
 * file), and a workspace that is a home shows the home to commands — in both, these stay hidden
 * (red team 17-host: a repository's SessionStart hook printed the token of
 * `~/.claude/plugins/marketplaces/NAME/.git/config` into the model's context).
 *
 * Found by a bounded walk: `.git` entries (a folder, or a `gitdir:` file) and credential files
 * (`.git-credentials`, `.netrc`) below a folder, never descending into `.git` or `node_modules`.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Where plugins are kept below a home: Claude Code's store and Yoke's. */
export const PLUGIN_STORES = [".claude/plugins", ".yoke/plugins"];

/** File names in a plugin store's top folder that record marketplace URLs as given (with a token, if it had one). */
const STORE_LISTS = ["known_marketplaces.json"];

/** Names below a clone that hold credentials. */
const SECRET_NAMES = new Set([".git", ".git-credentials", ".netrc"]);

/** How deep below a folder the walk looks (a store's `cache/<marketplace>/<plugin>/<version>/.git` is 5). */
const MAX_DEPTH = 6;
/** Folders the walk reads at most, per folder walked. */
const MAX_FOLDERS = 4000;

/** Every `.git` entry and credential file below `dir` (not `dir` itself), to `MAX_DEPTH`, reading at most `MAX_FOLDERS` folders. */
export function secretsBelow(dir: string): string[] {
  const out: string[] = [];
  let budget = MAX_FOLDERS;
  const walk = (d: string, depth: number): void => {
    if (budget-- <= 0) return;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (SECRET_NAMES.has(e.name)) out.push(p);
      else if (e.isDirectory() && e.name !== "node_modules" && depth < MAX_DEPTH) walk(p, depth + 1);
    }
  };
  walk(dir, 1);
  return out;
}

const cache = new Map<string, { at: number; list: string[] }>();
/** How long a home's list is reused (each command and hook launch asks). */
const TTL_MS = 2_000;

/** The plugin stores' credentials below `home`: the marketplace lists, and every clone's `.git` and credential files. */
export function pluginStoreSecrets(home: string): string[] {
  const hit = cache.get(home);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.list;
  const list = PLUGIN_STORES.flatMap((s) => [...STORE_LISTS.map((n) => join(home, s, n)), ...secretsBelow(join(home, s))]);
  if (cache.size > 16) cache.clear();
  cache.set(home, { at: Date.now(), list });
  return list;
}
