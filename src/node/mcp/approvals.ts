/**
 * Which workspace-defined MCP servers may start: Yoke's remembered approvals (keyed on the
 * workspace and the server's full definition, so a changed command or URL asks again) and
 * Claude Code's `enableAllProjectMcpServers` / `enabledMcpjsonServers` / `disabledMcpjsonServers`
 * for `.mcp.json` servers, read where Claude Code keeps them.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { definitionKey, parseJsonc, type McpServerConfig } from "../../core/mcp/config";

export type Approval = "allow" | "deny";

interface StoredApproval {
  server: string;
  workspace: string;
  decision: Approval;
  at: string;
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v = parseJsonc(readFileSync(path, "utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function names(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** What Claude Code's settings say about one `.mcp.json` server. */
export interface ClaudeMcpChoice {
  decision: Approval;
  /** Where it was said, for the user. */
  where: string;
}

/**
 * Claude Code's choices for project (`.mcp.json`) servers. Read from ~/.claude/settings.json,
 * the workspace's .claude/settings.local.json (where Claude Code writes approvals), the project's
 * entry in ~/.claude.json, and — for `disabledMcpjsonServers` only — the committed
 * .claude/settings.json: a repository may turn its own servers off, never approve them.
 */
export function claudeMcpChoices(cwd: string, home: string): (server: string) => ClaudeMcpChoice | undefined {
  const root = resolve(cwd);
  const full: { where: string; value: Record<string, unknown> | undefined }[] = [
    { where: join(home, ".claude", "settings.json"), value: readJson(join(home, ".claude", "settings.json")) },
    { where: join(root, ".claude", "settings.local.json"), value: readJson(join(root, ".claude", "settings.local.json")) },
  ];
  const claudeJson = readJson(join(home, ".claude.json"));
  const projects = claudeJson?.projects;
  if (projects && typeof projects === "object") {
    const entry = (projects as Record<string, unknown>)[root];
    if (entry && typeof entry === "object") full.push({ where: `${join(home, ".claude.json")} (project ${root})`, value: entry as Record<string, unknown> });
  }
  const committed = { where: join(root, ".claude", "settings.json"), value: readJson(join(root, ".claude", "settings.json")) };
  return (server) => {
    // A "disabled" anywhere wins over an "enabled" (as in Claude Code).
    for (const s of [...full, committed]) if (names(s.value?.disabledMcpjsonServers).includes(server)) return { decision: "deny", where: s.where };
    for (const s of full) if (names(s.value?.enabledMcpjsonServers).includes(server)) return { decision: "allow", where: s.where };
    for (const s of full) if (s.value?.enableAllProjectMcpServers === true) return { decision: "allow", where: s.where };
    return undefined;
  };
}

/** Remembered approvals in Yoke's storage (~/.yoke/mcp-approvals.json). */
export class ApprovalStore {
  constructor(private readonly file: string) {}

  static key(workspace: string, server: McpServerConfig): string {
    return createHash("sha256")
      .update(`${resolve(workspace)}\n${definitionKey(server)}`)
      .digest("hex");
  }

  private read(): Record<string, StoredApproval> {
    const v = readJson(this.file)?.approvals;
    return v && typeof v === "object" ? (v as Record<string, StoredApproval>) : {};
  }

  get(workspace: string, server: McpServerConfig): Approval | undefined {
    const e = this.read()[ApprovalStore.key(workspace, server)];
    return e?.decision === "allow" || e?.decision === "deny" ? e.decision : undefined;
  }

  set(workspace: string, server: McpServerConfig, decision: Approval): void {
    const approvals = this.read();
    approvals[ApprovalStore.key(workspace, server)] = { server: server.name, workspace: resolve(workspace), decision, at: new Date().toISOString() };
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ approvals }, null, 1), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
