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
import { basename, dirname, join, resolve } from "node:path";
import type { NetworkMode } from "../core/commands/types";
import { networkFor } from "../core/commands/network";
import type { QuarantinedPath } from "../core/commands/types";
import { withClosedFds } from "./commands/fd-hygiene";
import { sweepGuards } from "./commands/quarantine";
import { homeFolders } from "./commands/sandbox/host";
import { expandHome, isWithin, real } from "./commands/sandbox/paths";
import { SandboxUnavailableError, type GuardedPath, type SandboxBackend, type SandboxPath, type SandboxProtection } from "./commands/sandbox/types";
import { sandboxFromSettings, type SandboxSettings } from "./commands/session-runner";
import { HOME_SECRETS } from "./commands/sandbox/plan";

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

/** A shell word, and whether the command writes it (the target of `>`, `>>`, `&>`, or a file `tee` is given). */
export interface ShellToken {
  word: string;
  written: boolean;
}

/** Shell words of a command line (quotes and backslashes resolved, operators split off): enough to find the paths it names. */
export function shellTokens(line: string): ShellToken[] {
  const out: ShellToken[] = [];
  let cur = "";
  let has = false;
  let quote: "'" | '"' | undefined;
  let redirect = false;
  let tee = false;
  const push = () => {
    if (has || cur) {
      const written = redirect || (tee && !cur.startsWith("-"));
      out.push({ word: cur, written });
      if (cur === "tee") tee = true;
      redirect = false;
    }
    cur = "";
    has = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === "\\" && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (c === ">") {
      // A descriptor number before it (`2>`) is not a word; `>&1` duplicates a descriptor, no file.
      if (/^\d+$/.test(cur)) cur = "";
      push();
      while (line[i + 1] === ">" || line[i + 1] === "|") i++;
      if (line[i + 1] === "&") {
        i++;
        redirect = !/[\d-]/.test(line[i + 1] ?? "");
      } else redirect = true;
    } else if (/[\s;&|()<`]/.test(c)) {
      if (c === "&" && line[i + 1] === ">") {
        push();
        continue;
      }
      push();
      if (!/[ \t]/.test(c)) tee = false;
    } else {
      cur += c;
      has = true;
    }
  }
  push();
  return out;
}

/** Shell words of a command line (see shellTokens). */
export function shellWords(line: string): string[] {
  return shellTokens(line).map((t) => t.word);
}

/** `$VAR`, `${VAR}` and a leading `~` of a word, from `env` (others left as they are). */
function expandWord(w: string, env: Record<string, string | undefined>, home: string): string {
  const v = w.replace(/\$\{(\w+)\}|\$(\w+)/g, (m, a: string | undefined, b: string | undefined) => env[(a ?? b)!] ?? m);
  return expandHome(v, home);
}

function kind(p: string): "file" | "dir" | undefined {
  try {
    const st = statSync(p);
    return st.isDirectory() ? "dir" : st.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The paths a hook's command line names that the sandbox would hide, to keep readable: each
 * existing file or folder named by an absolute path (after `~`, `$HOME`, `$CLAUDE_PROJECT_DIR`…)
 * inside a hidden home or a private temporary folder. A script two or more levels below a home
 * (`~/.claude/hooks/x.py`) brings its folder (its helpers, its `lib/`); one directly in a home
 * brings itself only. Credentials (`.ssh`, `.aws`, …) and a home itself never.
 */
export function hookReadablePaths(words: readonly string[], env: Record<string, string | undefined>, home: string, homes: readonly string[], visible: readonly string[] = []): string[] {
  const out = new Set<string>();
  const hiddenRoots = [...homes, ...PRIVATE_ROOTS];
  for (const raw of words) {
    for (const part of [raw, ...(raw.includes("=") ? [raw.slice(raw.indexOf("=") + 1)] : [])]) {
      const w = expandWord(part, env, home);
      if (!w.startsWith("/")) continue;
      const abs = resolve(w);
      // A path in the workspace is the agent's to replace: a link it plants there (scripts/fmt.sh
      // → ~/.config/app/token) must not make its target readable (red team round 13).
      if (visible.some((v) => isWithin(abs, v))) continue;
      const k = kind(abs);
      if (!k) continue;
      for (const p of new Set([abs, real(abs)])) {
        // The workspace is visible (and writable) already: a log file the hook appends to stays so.
        if (visible.some((v) => isWithin(p, v))) continue;
        const root = hiddenRoots.filter((h) => isWithin(p, h) && p !== h).sort((x, y) => y.length - x.length)[0];
        if (!root) continue;
        const rel = p.slice(root.length + 1).split("/");
        if (rel.some((c) => SECRET_PARTS.has(c))) continue;
        const isHome = homes.includes(root);
        if (k === "file") out.add(isHome && rel.length >= 3 ? dirname(p) : p);
        else if (!isHome || rel.length >= 2) out.add(p);
      }
    }
  }
  return [...out];
}

const PRIVATE_ROOTS = ["/tmp", "/var/tmp", "/dev/shm", "/run"];
/** Where plugins are installed, below a home: the only home paths a hook not of the user's own settings keeps readable. */
const PLUGIN_FOLDERS = [".yoke/plugins", ".claude/plugins"];
/** Files a login shell, git or the desktop runs later: never made writable for a hook. */
const STARTUP = /^\.(bash|zsh|profile|login|logout|gitconfig|config\/(git|fish|autostart|systemd)|local\/bin|xprofile|xinitrc|pam_environment)/;

/**
 * The files a hook's command line writes (`>> ~/.claude/bash-command-log.txt`, `| tee -a /tmp/hooks.log`)
 * that the sandbox would hide: kept writable for a hook of the user's own settings, so a logger's lines reach the real file (created
 * empty first when only its folder exists, as the redirection would have). Not a home's startup
 * files, credentials, or a folder; nothing in the workspace (writable already).
 */
export function hookWrittenFiles(tokens: readonly ShellToken[], env: Record<string, string | undefined>, home: string, homes: readonly string[], visible: readonly string[] = []): string[] {
  const out = new Set<string>();
  for (const t of tokens) {
    if (!t.written) continue;
    const w = expandWord(t.word, env, home);
    if (!w.startsWith("/")) continue;
    const abs = resolve(w);
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
      const tokens = req.args ? [req.command, ...req.args].map((word) => ({ word, written: false })) : shellTokens(req.command);
      const visible = [...new Set([real(opts.workspace), resolve(opts.workspace), ...(req.env.CLAUDE_PROJECT_DIR ? [resolve(req.env.CLAUDE_PROJECT_DIR)] : [])])];
      // Only a hook of the user's own settings: a repository's hook line could name any file of the home.
      const written = req.fromUser ? hookWrittenFiles(tokens, env, home, homes, visible) : [];
      // A repository's hook (or a plugin's) names what it likes: of the home, only what a plugin
      // brings stays readable for it (red team round 13: `cat ~/.bash_history` in a committed hook).
      const named = hookReadablePaths(
        tokens.map((t) => t.word),
        env,
        home,
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
        protection = { hide: p.hide, readOnly: p.readOnly };
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
