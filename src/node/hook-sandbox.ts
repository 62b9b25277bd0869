/**
 * Hooks run confined: in the sandbox backend the session's commands use (bwrap, firejail,
 * sandbox-exec), with the mount plan commands get (src/node/commands/sandbox/plan.ts) — the
 * workspace writable but its protected paths (.git's allow-list, .vscode, .yoke, .claude…), every
 * home hidden, the paths the permission rules deny hidden, the network as commands have it —
 * because what a hook processes was written by the agent: a formatter hook runs `prettier`, which
 * loads a `prettier.config.cjs` the model wrote (red team round 10).
 *
 * What differs from a command: the hook's own files stay readable (the scripts its command line
 * names, `~/.claude/hooks/validate.py`, with their folder; the session's transcript it is given),
 * stdin, stdout and stderr are separate pipes as on the host, and no program a deny rule names is
 * masked (those rules are about the agent's commands; a hook is the user's program).
 */
import { closeSync, openSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { NetworkMode } from "../core/commands/types";
import { networkFor } from "../core/commands/network";
import type { QuarantinedPath } from "../core/commands/types";
import { withClosedFds } from "./commands/fd-hygiene";
import { sweepGuards } from "./commands/quarantine";
import { homeFolders } from "./commands/sandbox/host";
import { isWithin, real } from "./commands/sandbox/paths";
import { execFormPaths, hookLinePaths, hookShellParser, type HookLine } from "./hook-words";
import { SandboxUnavailableError, type GuardedPath, type SandboxBackend, type SandboxPath, type SandboxProtection } from "./commands/sandbox/types";
import { sandboxFromSettings, type SandboxSettings } from "./commands/session-runner";
import { HOME_SECRETS } from "./commands/sandbox/plan";
import { PLUGIN_STORES, pluginStoreSecrets, secretsBelow } from "./commands/sandbox/clone-secrets";

export interface HookSandboxOptions {
  workspace: string;
  /** The user's `sandbox` settings (the session's commands use the same). */
  settings: SandboxSettings;
  /** Folder for what a hook created at a protected path (`<session>.commands/quarantine/hN`). */
  quarantineDir: string;
  /** What the permission rules hide and keep read-only (the gate's view); read before each hook. */
  protection?: () => Promise<SandboxProtection>;
  /** Files hooks are given that may be in a hidden folder (the transcript): readable. */
  readable?: () => string[];
  home?: string;
  /** The workspace is read-only for hooks. */
  readOnly?: boolean;
  /** The sandbox settings could not be read (a malformed ~/.yoke/settings.json): nothing confined runs. */
  problem?: string;
}

/** One hook's launch inside the sandbox. */
export interface ConfinedLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  backend: string;
  /** What the confinement means, for a hook that failed ("the home folder is hidden, the network is off"). */
  confinement: string;
  /** After the hook ended: moves what it created at protected paths to quarantine. */
  finish(): QuarantinedPath[];
}

export interface HookSandbox {
  /** The backend's name ("bwrap"), or undefined before the first hook. */
  readonly name: string | undefined;
  /**
   * The launch of `argv` confined, or why it cannot be (no sandbox on this machine, a malformed
   * setting). A backend of "none" (the user chose no sandbox for commands) gives `host: true`.
   */
  prepare(
    argv: string[],
    req: { command: string; args?: string[]; cwd: string; env: Record<string, string>; fromUser?: boolean },
  ): Promise<ConfinedLaunch | { unavailable: string } | { host: string }>;
}

/** Components never exposed for a hook's script path: the last component of each credential path commands never see. */
const SECRET_PARTS = new Set(HOME_SECRETS.map((p) => basename(p)));

function kind(p: string): "file" | "dir" | undefined {
  try {
    const st = statSync(p);
    return st.isDirectory() ? "dir" : st.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}

/** The hooks folders a script's neighbours may be exposed with (its helpers, its `lib/`): below each home, and Claude Code's config folder. */
export function hookFolders(homes: readonly string[], env: Record<string, string | undefined>): string[] {
  const out: string[] = [];
  for (const h of homes) out.push(join(h, ".claude", "hooks"), join(h, ".yoke", "hooks"));
  if (env.CLAUDE_CONFIG_DIR && isAbsolute(env.CLAUDE_CONFIG_DIR)) out.push(join(resolve(env.CLAUDE_CONFIG_DIR), "hooks"));
  // A plugin's own folder (its hooks run with CLAUDE_PLUGIN_ROOT), when it is below a home's plugin folder.
  const root = env.CLAUDE_PLUGIN_ROOT && isAbsolute(env.CLAUDE_PLUGIN_ROOT) ? resolve(env.CLAUDE_PLUGIN_ROOT) : undefined;
  if (root && homes.some((h) => PLUGIN_FOLDERS.some((f) => isWithin(root, join(h, f)) && root !== join(h, f)))) out.push(root);
  return out;
}

/** Is `p` inside a git folder below `root` (a clone's `.git/config` may hold a token in a remote's URL)? */
function inClone(p: string, root: string): boolean {
  return p
    .slice(root.length + 1)
    .split("/")
    .includes(".git");
}

/** Does `dir` hold a home, or a credential path of one (a folder the sandbox must never expose whole)? */
function holdsSecrets(dir: string, homes: readonly string[]): boolean {
  return homes.some((h) => isWithin(h, dir) || HOME_SECRETS.some((s) => isWithin(join(h, s), dir)));
}

/**
 * The paths a hook's command line names that the sandbox would hide, to keep readable — the least
 * that lets the hook run. A file named by its absolute path (after `~`, `$HOME`, `$CLAUDE_PROJECT_DIR`…)
 * inside a hidden home or a private temporary folder: that file only; a file or folder inside a
 * dedicated hooks folder (`~/.claude/hooks`, `~/.yoke/hooks`, `$CLAUDE_CONFIG_DIR/hooks`, the
 * plugin's own `$CLAUDE_PLUGIN_ROOT`): that whole folder, so the script finds its helpers and `lib/`.
 * Any other folder (`~/.local/share`, `~/.config`, `/run/user/1000`): nothing. Never credentials
 * (`.ssh`, `.aws`, `.local/share/keyrings`…), a folder holding them, a home, or the workspace (visible already).
 */
export function hookReadablePaths(paths: readonly string[], env: Record<string, string | undefined>, homes: readonly string[], visible: readonly string[] = []): string[] {
  const out = new Set<string>();
  const hiddenRoots = [...homes, ...PRIVATE_ROOTS];
  const folders = hookFolders(homes, env);
  const rootOf = (p: string) => hiddenRoots.filter((h) => isWithin(p, h) && p !== h).sort((x, y) => y.length - x.length)[0];
  const secretIn = (p: string, root: string) =>
    p
      .slice(root.length + 1)
      .split("/")
      .some((c) => SECRET_PARTS.has(c));
  // A clone's `.git` and a plugin store's marketplace lists hold tokens (clone-secrets.ts): never exposed.
  const stored = homes.flatMap(pluginStoreSecrets);
  /** May `p` (a real path) be exposed? */
  const exposable = (p: string, dir: boolean) => {
    if (visible.some((v) => isWithin(p, v))) return false;
    const root = rootOf(p);
    if (!root || secretIn(p, root) || inClone(p, root) || stored.some((s) => isWithin(p, s))) return false;
    return !dir || !holdsSecrets(p, homes);
  };
  for (const abs of paths) {
    // A path in the workspace is the agent's to replace: a link it plants there (scripts/fmt.sh
    // → ~/.config/app/token) must not make its target readable (red team round 13).
    if (visible.some((v) => isWithin(abs, v))) continue;
    const k = kind(abs);
    if (!k) continue;
    const rp = real(abs);
    const root = rootOf(abs);
    if (root && (secretIn(abs, root) || inClone(abs, root))) continue;
    const folder = folders.filter((f) => isWithin(abs, f) || isWithin(rp, f)).sort((x, y) => y.length - x.length)[0];
    if (folder) {
      const rf = real(folder);
      if (exposable(rf, true)) out.add(rf);
      continue;
    }
    // Outside a hooks folder: a file itself, never a folder.
    if (k === "file" && exposable(rp, false)) out.add(rp);
  }
  return [...out];
}

const PRIVATE_ROOTS = ["/tmp", "/var/tmp", "/dev/shm", "/run"];
/** Where plugins are installed, below a home: the only home paths a hook not of the user's own settings keeps readable. */
const PLUGIN_FOLDERS = PLUGIN_STORES;
/**
 * Files a login shell, git, the desktop, Claude Code or Yoke run or read instructions from later
 * (settings with hooks, hook scripts, plugins, commands, agents): never made writable for a hook.
 */
const STARTUP =
  /^\.(bash|zsh|profile|login|logout|gitconfig|config\/(git|fish|autostart|systemd)|local\/bin|xprofile|xinitrc|pam_environment|claude\.json|mcp\.json|(claude|yoke)\/(settings[^/]*\.json|hooks|plugins|commands|agents|skills|output-styles|keybindings|[^/]*\.md$))/;

/**
 * The files a hook's command line writes (`>> ~/.claude/bash-command-log.txt`, `| tee -a /tmp/hooks.log`)
 * that the sandbox would hide: kept writable for a hook of the user's own settings, so a logger's lines reach the real file (created
 * empty first when only its folder exists, as the redirection would have). Not a home's startup
 * files, what Claude Code or Yoke read hooks and instructions from, credentials, or a folder; nothing in the workspace (writable already).
 */
export function hookWrittenFiles(paths: readonly string[], homes: readonly string[], visible: readonly string[] = []): string[] {
  const out = new Set<string>();
  for (const abs of paths) {
    // In the workspace (writable already): never followed through a link the agent planted there.
    if (visible.some((v) => isWithin(abs, v))) continue;
    const at = real(dirname(abs));
    const p = join(at, basename(abs));
    if (visible.some((v) => isWithin(p, v))) continue;
    const root = [...homes, ...PRIVATE_ROOTS].filter((h) => isWithin(p, h) && p !== h).sort((x, y) => y.length - x.length)[0];
    if (!root) continue;
    const rel = p.slice(root.length + 1);
    if (rel.split("/").some((c) => SECRET_PARTS.has(c)) || (homes.includes(root) && STARTUP.test(rel))) continue;
    const k = kind(p);
    if (k === "dir") continue;
    if (!k) {
      if (kind(at) !== "dir") continue;
      try {
        closeSync(openSync(p, "a"));
      } catch {
        continue;
      }
    }
    if (kind(p) === "file") out.add(p);
  }
  return [...out];
}

/** What a confined hook cannot do, in a few words. */
function confinementText(backend: string, network: NetworkMode, readOnly: boolean): string {
  return (
    `it ran confined, in the ${backend} sandbox the session's commands use: the home folder is hidden (but for the hook's own script folder and your toolchains), ` +
    `${readOnly ? "the workspace is read-only" : "outside the workspace nothing is writable, and the workspace's protected paths (.git, .vscode, .claude…) are read-only"}, ` +
    `the network is ${network}, and the desktop session's sockets (D-Bus, notify-send) are not reachable`
  );
}

/** How to run a hook on the host, for messages. */
export const HOOK_OPT_OUT =
  'To run it outside the sandbox, add "sandbox": false to the hook in your own settings (~/.yoke/settings.json or ~/.claude/settings.json), or set "sandbox": {"hooks": "off"} in ~/.yoke/settings.json for every hook; a repository\'s settings cannot do either';

export function createHookSandbox(opts: HookSandboxOptions): HookSandbox {
  const home = opts.home ?? process.env.HOME ?? "/";
  const backends = new Map<string, SandboxBackend>();
  let protection: SandboxProtection = { hide: [], readOnly: [] };
  let name: string | undefined;
  let next = 1;
  const backendFor = (extra: SandboxPath[]): SandboxBackend => {
    const key = JSON.stringify(extra);
    let b = backends.get(key);
    if (!b) {
      b = sandboxFromSettings(opts.workspace, { ...opts.settings, paths: [...(opts.settings.paths ?? []), ...extra] }, () => protection);
      if (backends.size > 32) backends.clear();
      backends.set(key, b);
    }
    return b;
  };
  return {
    get name() {
      return name;
    },
    async prepare(argv, req) {
      if (opts.problem) return { unavailable: opts.problem };
      const env = { ...process.env, ...req.env } as Record<string, string | undefined>;
      const homes = homeFolders(home).map(real);
      const visible = [...new Set([real(opts.workspace), resolve(opts.workspace), ...(req.env.CLAUDE_PROJECT_DIR ? [resolve(req.env.CLAUDE_PROJECT_DIR)] : [])])];
      // What the command line names, read as bash reads it (the gate's parser; hook-words.ts).
      let cmdLine: HookLine = { paths: [], unknown: [] };
      if (req.args) cmdLine = execFormPaths([req.command, ...req.args]);
      else {
        try {
          cmdLine = hookLinePaths(await hookShellParser(), req.command, { env: { HOME: home, ...env }, cwd: req.cwd, home: env.HOME ?? home });
        } catch {
          // No parser: the line names nothing (the hook sees only what every hook sees).
        }
      }
      // Only a hook of the user's own settings: a repository's hook line could name any file of the home.
      const written = req.fromUser
        ? hookWrittenFiles(
            cmdLine.paths.filter((p) => p.written).map((p) => p.path),
            homes,
            visible,
          )
        : [];
      // A repository's hook (or a plugin's) names what it likes: of the home, only what a plugin
      // brings stays readable for it (red team round 13: `cat ~/.bash_history` in a committed hook).
      const named = hookReadablePaths(
        cmdLine.paths.map((p) => p.path),
        env,
        homes,
        visible,
      );
      const readable = [
        ...(req.fromUser ? named : named.filter((p) => homes.some((h) => PLUGIN_FOLDERS.some((f) => isWithin(p, join(h, f)) && p !== join(h, f))))),
        ...(opts.readable?.() ?? []),
      ].filter((p) => !written.includes(p));
      const extra: SandboxPath[] = [...[...new Set(readable)].sort().map((path) => ({ path, mode: "ro" as const })), ...written.sort().map((path) => ({ path, mode: "rw" as const }))];
      let backend: SandboxBackend;
      try {
        backend = backendFor(extra);
      } catch (err) {
        if (err instanceof SandboxUnavailableError) return { unavailable: err.message };
        throw err;
      }
      name = backend.name;
      if (backend.name === "none") return { host: 'the sandbox backend is "none" (your choice for commands), so hooks run without one too' };
      if (backend.name === "docker") return { unavailable: "the docker backend cannot give a hook its input on stdin; choose bwrap or firejail for hooks" };
      try {
        const p = opts.protection ? await opts.protection() : { hide: [], readOnly: [] };
        // A deny rule on a program is about the agent's commands: a hook (the user's program) may start it.
        // Credentials stay hidden also below what is exposed (a toolchain folder on PATH: ~/.cargo/credentials.toml).
        // So do a clone's `.git` and credential files inside an exposed folder (a plugin root that is a marketplace clone, a hooks folder kept in git), and the plugin stores' (clone-secrets.ts).
        const clones = readable.filter((r) => kind(r) === "dir").flatMap(secretsBelow);
        protection = { hide: [...p.hide, ...homes.flatMap((h) => [...HOME_SECRETS.map((s) => join(h, s)), ...pluginStoreSecrets(h)]), ...clones], readOnly: p.readOnly };
      } catch {
        // the last view stays
      }
      const network = networkFor(req.args ? [req.command, ...req.args].join(" ") : req.command, {
        network: opts.settings.network ?? "off",
        networkCommands: opts.settings.networkCommands ?? [],
        networkToggle: backend.networkToggle,
      });
      const id = `h${next++}`;
      const wrapped = backend.wrap({ argv, cwd: req.cwd, network, id, ...(opts.readOnly ? { confine: { readOnly: true } } : {}) });
      const guards: readonly GuardedPath[] = wrapped.guards ?? [];
      const line = withClosedFds(wrapped);
      return {
        file: line.file,
        args: line.args,
        env: { ...(wrapped.env ?? {}), YOKE_SANDBOX: backend.name },
        backend: backend.name,
        confinement: confinementText(backend.name, network, opts.readOnly === true),
        finish: () => (guards.length ? sweepGuards(guards, join(opts.quarantineDir, id), new Set(), true) : []),
      };
    },
  };
}

/** A line for each protected path a hook created, as the quarantine left it. */
export function quarantineLines(list: readonly QuarantinedPath[]): string[] {
  return list.map((q) =>
    q.movedTo
      ? `yoke: the hook created ${basename(q.path)} (${q.path}), a protected path; it was moved to ${q.movedTo}`
      : `yoke: the hook created ${q.path}, a protected path, and it could NOT be moved away: check it`,
  );
}
