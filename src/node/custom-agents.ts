/**
 * Custom sub-agents on Node: the user's (`~/.claude/agents/`, with sub-folders, as Claude Code
 * reads them) and the enabled plugins' `agents/` folders; the workspace's own folders are read
 * through the workspace file system by the core (workspaceAgentFiles), so Remote-SSH works.
 */
import { accessSync, constants as fsConstants, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir, platform as osPlatform } from "node:os";
import { basename, join, relative, sep } from "node:path";
import { ROO_EXTENSION, type RooStorage } from "./roo-storage";
import type { AgentFile, AgentFormat, AgentOrigin } from "../core/subagents/agents";
import { agentStem } from "../core/subagents/agents";
import { modeRules, rooModeAgentFiles, type ModeRule, type ProjectModeRules } from "../core/subagents/roo-modes";
import { parseJsonc } from "../core/settings/jsonc";
import { isRooRuleFile } from "../core/guidance/roo-files";
import { readOwnedFile } from "./owned-file";

const MAX_FILES = 500;
const MAX_BYTES = 256 * 1024;

/** A folder (or single file) of agents from somewhere other than the workspace. */
export interface AgentFolder {
  path: string;
  origin: AgentOrigin;
  /** How its files are shown: `~/.claude/agents`, `plugin review@tools: agents`. */
  label: string;
  /** A plugin's name: its agents are named `plugin:agent`. */
  namespace?: string;
  /** Whose format its files are in (default Claude Code's): `~/.cursor/agents` is Cursor's. */
  format?: AgentFormat;
}

function mdFiles(path: string, depth = 0, out: string[] = []): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    return out;
  }
  if (st.isFile()) {
    if (/\.md$/i.test(path)) out.push(path);
    return out;
  }
  if (!st.isDirectory()) return out;
  let names: string[];
  try {
    names = readdirSync(path).sort();
  } catch {
    return out;
  }
  for (const n of names) {
    if (out.length >= MAX_FILES) break;
    if (/^readme\.md$/i.test(n)) continue;
    const abs = join(path, n);
    let s;
    try {
      s = statSync(abs);
    } catch {
      continue;
    }
    if (s.isDirectory() && depth < 3) mdFiles(abs, depth + 1, out);
    else if (s.isFile() && /\.md$/i.test(n)) out.push(abs);
  }
  return out;
}

/** The agent files of these folders (Claude Code's format). */
export function folderAgentFiles(folders: readonly AgentFolder[]): AgentFile[] {
  const out: AgentFile[] = [];
  for (const f of folders) {
    for (const abs of mdFiles(f.path)) {
      try {
        if (statSync(abs).size > MAX_BYTES) continue;
        const rel = relative(f.path, abs).split(sep).join("/");
        // A plugin's agent file must stay inside the plugin's folder (its body is a system prompt nobody is asked about).
        const text = f.origin === "plugin" ? readOwnedFile(abs, f.path, homedir()) : readFileSync(abs, "utf8");
        if (text === undefined) continue;
        out.push({
          display: rel ? `${f.label}/${rel}` : f.label,
          text,
          origin: f.origin,
          format: f.format ?? "claude",
          stem: agentStem(basename(abs)),
          path: abs,
          ...(f.namespace ? { namespace: f.namespace } : {}),
        });
      } catch {
        // unreadable: not an agent
      }
    }
  }
  return out;
}

/** The user's agent folder (Claude Code's). */
export function userAgentFolders(home = homedir()): AgentFolder[] {
  return [
    { path: join(home, ".claude", "agents"), origin: "user", label: "~/.claude/agents" },
    // Cursor's user subagents.
    { path: join(home, ".cursor", "agents"), origin: "user", label: "~/.cursor/agents", format: "cursor" },
  ];
}

export { ROO_EXTENSION, rooStorageBeside, type RooStorage } from "./roo-storage";
/** VS Code builds whose user data Roo may keep its settings in. */
const VSCODE_BUILDS = ["Code", "Code - Insiders", "VSCodium"];

/**
 * Roo Code's storage base as Roo picks it: the custom storage path when it is set and Roo could
 * write there (Roo makes the folder and tries a write, and falls back to its global storage
 * otherwise — read-only here: an existing folder this user may write to), else the default.
 */
function rooBase(defaultPath: string, custom: string | undefined): string {
  if (!custom?.trim()) return defaultPath;
  try {
    if (statSync(custom).isDirectory()) {
      accessSync(custom, fsConstants.W_OK);
      return custom;
    }
  } catch {
    // not usable: Roo falls back to its global storage
  }
  return defaultPath;
}

/** `roo-cline.customStoragePath` from a VS Code user settings.json (the CLI: no VS Code to ask). */
function customStorageIn(settingsJson: string): string | undefined {
  try {
    const r = parseJsonc(readFileSync(settingsJson, "utf8"));
    const v = r.ok && r.value && typeof r.value === "object" ? (r.value as Record<string, unknown>)["roo-cline.customStoragePath"] : undefined;
    return typeof v === "string" && v.trim() ? v : undefined;
  } catch {
    return undefined;
  }
}

export interface RooModesOptions {
  home?: string;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  /** The running VS Code's Roo storage (the extension host): only it is read. */
  storage?: RooStorage;
}

/**
 * Where Roo Code keeps its global custom modes: `settings/custom_modes.yaml` (older versions:
 * `custom_modes.json`) in its storage base (rooBase). The extension host knows the running VS
 * Code's (`storage`): only that one. The CLI looks where each VS Code build keeps it —
 * `~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline` on Linux ($XDG_CONFIG_HOME when
 * set), `~/Library/Application Support/Code/User/globalStorage/…` on macOS,
 * `%APPDATA%\Code\User\globalStorage\…` on Windows, Insiders and VSCodium the same under their
 * own names — each with the `roo-cline.customStoragePath` of that build's user settings.json.
 */
export function rooGlobalModesCandidates(opts: RooModesOptions = {}): string[] {
  const home = opts.home ?? homedir();
  const env = opts.env ?? process.env;
  const plat = opts.platform ?? osPlatform();
  const bases: string[] = [];
  if (opts.storage?.globalStorage || opts.storage?.customStoragePath) {
    const def = opts.storage.globalStorage;
    const base = def ? rooBase(def, opts.storage.customStoragePath) : opts.storage.customStoragePath!;
    bases.push(base);
  } else {
    const root = plat === "darwin" ? join(home, "Library", "Application Support") : plat === "win32" ? env.APPDATA || join(home, "AppData", "Roaming") : env.XDG_CONFIG_HOME || join(home, ".config");
    for (const b of VSCODE_BUILDS) {
      const user = join(root, b, "User");
      bases.push(rooBase(join(user, "globalStorage", ROO_EXTENSION), customStorageIn(join(user, "settings.json"))));
    }
  }
  const out: string[] = [];
  for (const d of bases) for (const f of ["custom_modes.yaml", "custom_modes.json"]) out.push(join(d, "settings", f));
  return [...new Set(out)];
}

const tilde = (abs: string, home: string) => (abs.startsWith(home + sep) ? `~/${relative(home, abs).split(sep).join("/")}` : abs);

/** The files of `dir` and its sub-folders (bounded), in name order, as Roo reads a rules folder. */
function ruleFilesIn(dir: string, depth = 0, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const n of names) {
    if (out.length >= MAX_FILES) break;
    const f = join(dir, n);
    let st;
    try {
      st = statSync(f);
    } catch {
      continue;
    }
    if (st.isDirectory() && depth < 4) ruleFilesIn(f, depth + 1, out);
    else if (st.isFile() && isRooRuleFile(n)) out.push(f);
  }
  return out;
}

/** A mode's rules in `~/.roo/rules-{slug}/` (Roo's global rules folder for the mode). */
export function userModeRules(home = homedir()): (slug: string) => Promise<ModeRule[]> {
  return async (slug) => {
    const rules: ModeRule[] = [];
    for (const f of ruleFilesIn(join(home, ".roo", `rules-${slug}`))) {
      try {
        if (statSync(f).size > MAX_BYTES) rules.push({ display: tilde(f, home), problem: `not read: larger than ${MAX_BYTES / 1024} KB` });
        else {
          const text = readFileSync(f, "utf8");
          if (!text.startsWith("#!")) rules.push({ display: tilde(f, home), text });
        }
      } catch {
        // unreadable: left out
      }
    }
    return rules;
  };
}

/**
 * Roo Code's global custom modes (within one storage base, the YAML file, else the JSON one) as the
 * user's agents: a project's `.roomodes` mode of the same slug wins (Roo's order: project, then
 * global), as a project agent wins over a user agent. Each mode's rules are Roo's for a mode
 * (modeRules): `~/.roo/rules-{slug}/`, then the project's `.roo/rules-{slug}/` (read through the
 * workspace, as guidance is), else the project's `.roorules-{slug}`.
 */
export async function globalRooModeFiles(opts: RooModesOptions & { project?: ProjectModeRules } = {}): Promise<AgentFile[]> {
  const home = opts.home ?? homedir();
  const out: AgentFile[] = [];
  const doneDirs = new Set<string>();
  for (const abs of rooGlobalModesCandidates({ ...opts, home })) {
    const dir = join(abs, "..");
    if (doneDirs.has(dir)) continue;
    let text: string;
    try {
      if (statSync(abs).size > MAX_BYTES) {
        out.push({
          display: tilde(abs, home),
          text: "",
          origin: "user",
          format: "claude",
          stem: basename(abs),
          notes: [`${tilde(abs, home)}:1: not read: larger than ${MAX_BYTES / 1024} KB`],
          skip: true,
        });
        doneDirs.add(dir);
        continue;
      }
      text = readFileSync(abs, "utf8");
    } catch {
      continue;
    }
    doneDirs.add(dir);
    const display = tilde(abs, home);
    const user = userModeRules(home);
    const { files, problems } = await rooModeAgentFiles({ text, display, path: abs, origin: "user", rules: (slug) => modeRules(slug, user, opts.project) });
    out.push(...files);
    if (problems.length) out.push({ display, text: "", origin: "user", format: "claude", stem: basename(abs), notes: problems, skip: true });
  }
  return out;
}
