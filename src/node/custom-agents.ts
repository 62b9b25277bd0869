/**
 * Custom sub-agents on Node: the user's (`~/.claude/agents/`, with sub-folders, as Claude Code
 * reads them) and the enabled plugins' `agents/` folders; the workspace's own folders are read
 * through the workspace file system by the core (workspaceAgentFiles), so Remote-SSH works.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { homedir, platform as osPlatform } from "node:os";
import { basename, join, relative, sep } from "node:path";
import type { AgentFile, AgentOrigin } from "../core/subagents/agents";
import { agentStem } from "../core/subagents/agents";
import { rooModeAgentFiles } from "../core/subagents/roo-modes";
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
          format: "claude",
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
  return [{ path: join(home, ".claude", "agents"), origin: "user", label: "~/.claude/agents" }];
}

/** Roo Code's extension id: its global storage folder in VS Code's user data. */
const ROO_EXTENSION = "rooveterinaryinc.roo-cline";
/** VS Code builds whose user data Roo may keep its settings in. */
const VSCODE_BUILDS = ["Code", "Code - Insiders", "VSCodium"];

/**
 * Where Roo Code keeps its global custom modes: `settings/custom_modes.yaml` (older versions:
 * `custom_modes.json`) in its VS Code global storage folder — `~/.config/Code/User/globalStorage/
 * rooveterinaryinc.roo-cline` on Linux ($XDG_CONFIG_HOME when set), `~/Library/Application
 * Support/Code/User/globalStorage/…` on macOS, `%APPDATA%\Code\User\globalStorage\…` on
 * Windows; Insiders and VSCodium the same under their own names. `userData` (the panel: the
 * running VS Code's user data folder) is looked in first.
 */
export function rooGlobalModesCandidates(opts: { home?: string; platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv; userData?: string } = {}): string[] {
  const home = opts.home ?? homedir();
  const env = opts.env ?? process.env;
  const plat = opts.platform ?? osPlatform();
  const base = plat === "darwin" ? join(home, "Library", "Application Support") : plat === "win32" ? env.APPDATA || join(home, "AppData", "Roaming") : env.XDG_CONFIG_HOME || join(home, ".config");
  const dataDirs = [...(opts.userData ? [opts.userData] : []), ...VSCODE_BUILDS.map((b) => join(base, b))];
  const out: string[] = [];
  for (const d of dataDirs) for (const f of ["custom_modes.yaml", "custom_modes.json"]) out.push(join(d, "User", "globalStorage", ROO_EXTENSION, "settings", f));
  return [...new Set(out)];
}

const tilde = (abs: string, home: string) => (abs.startsWith(home + sep) ? `~/${relative(home, abs).split(sep).join("/")}` : abs);

/**
 * Roo Code's global custom modes (every VS Code build's file found; within one, the YAML file, else
 * the JSON one) as the user's agents: a project's `.roomodes` mode of the same slug wins (Roo's
 * order: project, then global), as a project agent wins over a user agent. Each global mode's rules
 * are `~/.roo/rules-{slug}/` (Roo's global rules folder for the mode).
 */
export async function globalRooModeFiles(opts: { home?: string; platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv; userData?: string } = {}): Promise<AgentFile[]> {
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
    const { files, problems } = await rooModeAgentFiles({
      text,
      display,
      path: abs,
      origin: "user",
      rules: async (slug) => {
        const rulesDir = join(home, ".roo", `rules-${slug}`);
        let names: string[];
        try {
          names = readdirSync(rulesDir).sort();
        } catch {
          return [];
        }
        const rules: Array<{ display: string; text: string } | { display: string; problem: string }> = [];
        for (const n of names) {
          if (!/\.(md|mdc|txt)$/i.test(n)) continue;
          const f = join(rulesDir, n);
          try {
            if (!statSync(f).isFile()) continue;
            if (statSync(f).size > MAX_BYTES) rules.push({ display: tilde(f, home), problem: `not read: larger than ${MAX_BYTES / 1024} KB` });
            else rules.push({ display: tilde(f, home), text: readFileSync(f, "utf8") });
          } catch {
            // unreadable: left out
          }
        }
        return rules;
      },
    });
    out.push(...files);
    if (problems.length) out.push({ display, text: "", origin: "user", format: "claude", stem: basename(abs), notes: problems, skip: true });
  }
  return out;
}
