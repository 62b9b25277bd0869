/** Builds the agent session's ports for the command line: Node file system, ripgrep, JSONL logs. */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentSessionOptions } from "../core/loop/agent-session";
import { readInstructions } from "../core/loop/instructions";
import { silentLogger } from "../core/ports";
import type { PermissionMode } from "../core/loop/types";
import { createProvider } from "../core/providers/create";
import { parseLog } from "../core/session/session-log";
import { createBuiltinTools } from "../core/tools/builtin";
import { createNodeWorkspaceFs } from "../node/node-fs";
import { createRipgrepSearcher } from "../node/ripgrep-searcher";
import { createFileSessionStore } from "../node/session-store";
import { UsageError } from "./args";
import { createTerminalApprover } from "./approver";
import { providerConfigFromFlags } from "./provider-config";
import { createNodeServices } from "../node/agent-services";

export interface CliSessionFlags {
  cwd: string;
  provider?: string;
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  permissionMode?: PermissionMode;
  sessionDir?: string;
  maxTurns?: number;
  stream?: boolean;
  /** Extra settings files (highest priority). */
  settings?: string[];
  json: boolean;
}

/** Default session folder: one per workspace under ~/.yoke/sessions. */
export function defaultSessionDir(cwd: string): string {
  const slug = resolve(cwd).replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+/, "");
  return join(homedir(), ".yoke", "sessions", slug || "root");
}

export async function buildCliSession(flags: CliSessionFlags, resumeId?: string): Promise<{ options: AgentSessionOptions; sessionDir: string }> {
  if (!existsSync(flags.cwd)) throw new UsageError(`--cwd ${flags.cwd}: no such folder`);
  const sessionDir = resolve(flags.sessionDir ?? defaultSessionDir(flags.cwd));
  const store = createFileSessionStore(sessionDir);
  let providerFlags = { provider: flags.provider, baseUrl: flags.baseUrl, model: flags.model, apiKeyEnv: flags.apiKeyEnv, stream: flags.stream };
  let label: string | undefined;
  if (resumeId) {
    if (!store.exists(resumeId)) throw new UsageError(`no session "${resumeId}" in ${sessionDir} (see \`yoke sessions --session-dir ${sessionDir}\`)`);
    const start = parseLog(store.read(resumeId)).events.find((e) => e.type === "session_start");
    if (start?.type === "session_start" && !flags.provider) {
      providerFlags = { ...providerFlags, provider: start.provider, model: flags.model ?? start.model, baseUrl: flags.baseUrl ?? start.baseUrl };
      label = start.label;
    }
  }
  const config = await providerConfigFromFlags(providerFlags);
  const fs = createNodeWorkspaceFs(flags.cwd);
  const node = createNodeServices({ cwd: flags.cwd, sessionDir, trusted: true, extraSettings: flags.settings });
  const permissionMode = flags.permissionMode ?? (await node.gate.defaultMode());
  for (const p of await node.gate.problems()) process.stderr.write(`yoke: settings: ${p.message}\n`);
  const search = createRipgrepSearcher();
  return {
    sessionDir,
    options: {
      store,
      provider: createProvider(config),
      providerLabel: label,
      baseUrl: config.baseUrl,
      tools: createBuiltinTools(),
      services: (session) => ({ fs, search, log: silentLogger, access: node.access, ...node.commands(session) }),
      approver: createTerminalApprover(),
      ...node.sessionOptions,
      permissionMode,
      trusted: true,
      instructions: await readInstructions(fs),
      platform: process.platform,
      maxTurns: flags.maxTurns,
    },
  };
}
