/**
 * Custom sub-agents on Node: the user's (`~/.claude/agents/`, with sub-folders, as Claude Code
 * reads them) and the enabled plugins' `agents/` folders; the workspace's own folders are read
 * through the workspace file system by the core (workspaceAgentFiles), so Remote-SSH works.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, relative, sep } from "node:path";
import type { AgentFile, AgentOrigin } from "../core/subagents/agents";
import { agentStem } from "../core/subagents/agents";
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
