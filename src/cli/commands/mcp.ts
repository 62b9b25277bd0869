/**
 * `yoke mcp list [--cwd DIR] [--json]`: the MCP servers this folder would get, where each is
 * defined, its state and its tools (approved servers are started to list them, then stopped).
 * `yoke mcp approve NAME [--deny] [--cwd DIR]`: remembers the user's answer for a workspace server,
 * as the approval question in VS Code does (keyed on its full definition).
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { printable, warn } from "../printable";
import { describeDefinition, describeServer, type McpServerConfig } from "../../core/mcp/config";
import { loadAgents, workspaceAgentFiles } from "../../core/subagents/agents";
import { createNodeWorkspaceFs } from "../../node/node-fs";
import { agentMcpSource } from "../../node/subagent-settings";
import { folderAgentFiles, globalRooModeFiles, userAgentFolders } from "../../node/custom-agents";
import { buildMcpTools, DEFAULT_MCP_BUDGET } from "../../core/mcp/extension";
import { assignServerParts } from "../../core/mcp/names";
import { createBuiltinTools } from "../../core/tools/builtin";
import { ApprovalStore } from "../../node/mcp/approvals";
import { createNodeMcp } from "../../node/mcp/setup";
import { parse, printJson, UsageError } from "../args";
import { printSignIn } from "../mcp-sign-in";
import { mcpAdd } from "./mcp-add";

const options = {
  cwd: { type: "string" },
  json: { type: "boolean" },
  deny: { type: "boolean" },
  settings: { type: "string", multiple: true },
  "client-secret": { type: "boolean" },
} as const;

export async function mcpCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  // Claude Code's `claude mcp add`, with its own flags (src/cli/commands/mcp-add.ts).
  if (sub === "add") return mcpAdd(rest, readClientSecret);
  const { values, positionals } = parse(rest, options);
  const cwd = resolve((values.cwd as string | undefined) ?? ".");
  if (sub === "list") return list(cwd, Boolean(values.json), values.settings as string[] | undefined);
  if (sub === "approve") {
    const name = positionals[0];
    if (!name) throw new UsageError("a server name is required: yoke mcp approve NAME");
    return approve(cwd, name, values.deny ? "deny" : "allow", Boolean(values.json));
  }
  if (sub === "login" || sub === "logout") {
    const name = positionals[0];
    if (!name) throw new UsageError(`a server name is required: yoke mcp ${sub} NAME`);
    return sub === "login" ? login(cwd, name, values.settings as string[] | undefined, Boolean(values["client-secret"])) : logout(cwd, name, values.settings as string[] | undefined);
  }
  if (sub === "restart") {
    // The CLI runs no session between commands: servers live as long as one \`yoke run\` (which
    // restarts a crashed server on its next use). What it offers instead is said here.
    throw new UsageError(
      "`yoke mcp restart` has nothing to restart: a server runs only while a `yoke run` or `yoke resume` runs, and a crashed one is started again on its next use (at most 3 times a session). " +
        "`yoke mcp list` starts the servers and shows each one's state and last error; `yoke mcp approve NAME [--deny]` answers a workspace server. In VS Code, the MCP servers view has Restart.",
    );
  }
  throw new UsageError(
    `unknown subcommand ${sub ? `"${sub}"` : "(none)"}: use \`yoke mcp list\`, \`yoke mcp add NAME COMMAND|URL\`, \`yoke mcp approve NAME [--deny]\`, \`yoke mcp login NAME\` or \`yoke mcp logout NAME\``,
  );
}

/**
 * `yoke mcp login NAME`: connects to a remote server and, when it asks for a sign-in (OAuth),
 * prints the authorization URL and waits for the browser's answer on 127.0.0.1 (terminal or not:
 * you asked for it). The tokens are kept in the system keychain (Secret Service) where one answers,
 * else in ~/.yoke/mcp-oauth.json (mode 0600), for later runs.
 */
/** Ctrl+C or SIGTERM quits at once (130, 143); the exit hook SIGKILLs the servers' process groups. Returns the undo. */
function quitOnSignals(): () => void {
  const onInt = () => process.exit(130);
  const onTerm = () => process.exit(143);
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return () => {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  };
}

/**
 * `--client-secret` (Claude Code's flag): the pre-registered client's secret, from MCP_CLIENT_SECRET
 * (Claude Code's variable, for scripts) or typed at a hidden prompt. Never an argument (every user
 * of the machine reads a process's arguments), never echoed, never logged.
 */
async function readClientSecret(name: string, url: string): Promise<string> {
  const fromEnv = process.env.MCP_CLIENT_SECRET;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const input = process.stdin;
  if (!input.isTTY) throw new UsageError(`--client-secret: set MCP_CLIENT_SECRET, or run \`yoke mcp login ${name} --client-secret\` in a terminal to type it`);
  process.stderr.write(`Client secret for the MCP server "${name}" (${url}) (not shown): `);
  return new Promise((resolveSecret, reject) => {
    let typed = "";
    input.setRawMode(true);
    input.resume();
    const done = (err?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off("data", onData);
      process.stderr.write("\n");
      if (err) reject(err);
      else resolveSecret(typed);
    };
    const onData = (b: Buffer) => {
      for (const ch of b.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done(typed ? undefined : new UsageError("no client secret was typed"));
        if (ch === "\u0003") return done(new UsageError("cancelled"));
        if (ch === "\u007f" || ch === "\b") typed = typed.slice(0, -1);
        else if (ch >= " ") typed += ch;
      }
    };
    input.on("data", onData);
  });
}

async function login(cwd: string, name: string, settings: string[] | undefined, askSecret = false): Promise<number> {
  const mcp = createNodeMcp({ cwd, trusted: true, extraSettings: settings, oauth: { authorize: (req) => printSignIn(req) } });
  const stopQuitting = quitOnSignals();
  try {
    if (askSecret) {
      await mcp.hub.setClientSecret(name, (c) => readClientSecret(name, c.url));
      process.stdout.write(`${name}: the client secret is kept in ${mcp.credentials.where}.\n`);
    }
    const s = await mcp.hub.login(name);
    process.stdout.write(`${name}: connected (${s.tools?.length ?? 0} tools); its sign-in, if it asked for one, is kept for the next runs in ${mcp.credentials.where}.\n`);
    return 0;
  } catch (err) {
    warn(`yoke: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    stopQuitting();
    await mcp.dispose();
  }
}

/** `yoke mcp logout NAME`: forgets the registration and tokens kept for a remote server. */
async function logout(cwd: string, name: string, settings: string[] | undefined): Promise<number> {
  const mcp = createNodeMcp({ cwd, trusted: true, extraSettings: settings });
  try {
    const had = await mcp.hub.signOut(name);
    process.stdout.write(had ? `${name}: signed out (its tokens and registration are forgotten).\n` : `${name}: nothing was kept for it.\n`);
    return 0;
  } finally {
    await mcp.dispose();
  }
}

async function list(cwd: string, json: boolean, settings: string[] | undefined): Promise<number> {
  const mcp = createNodeMcp({ cwd, trusted: true, extraSettings: settings });
  // Ctrl+C or SIGTERM while servers start: quit at once; the exit hook SIGKILLs their process groups.
  const stopQuitting = quitOnSignals();
  try {
    const catalog = await mcp.hub.catalog();
    const tools = buildMcpTools(
      catalog,
      mcp.hub,
      DEFAULT_MCP_BUDGET,
      createBuiltinTools().map((t) => t.name),
    );
    const parts = assignServerParts(catalog.map((s) => s.config.name));
    const rows = catalog.map((s) => ({
      name: s.config.name,
      transport: s.config.transport,
      target: describeServer(s.config),
      definition: describeDefinition(s.config),
      source: s.config.sourcePath,
      line: s.config.sourceLine ?? null,
      scope: s.config.source,
      workspace: s.config.workspace,
      state: s.state,
      detail: s.detail ?? null,
      lastError: s.lastError?.message ?? null,
      logs: s.logs ?? [],
      logLevel: s.config.logLevel ?? null,
      startMs: s.startMs ?? null,
      toolsFromCache: s.fromCache ?? false,
      tools: tools.filter((t) => t.group === `mcp:${parts.get(s.config.name)}`).map((t) => ({ name: t.name, deferred: t.deferred === true })),
    }));
    const agents = await agentServerRows(cwd);
    if (json)
      printJson({
        servers: rows.map(({ definition: _d, ...r }) => r),
        agents,
        problems: mcp.problems.map((p) => ({ server: p.server ?? null, source: p.sourcePath, message: p.message, loaded: p.loaded === true })),
      });
    else {
      const line = (text: string) => printable(text, { keepNewlines: false });
      if (rows.length === 0 && mcp.problems.length === 0)
        process.stdout.write(
          "No MCP servers are configured (.mcp.json, .vscode/mcp.json, .cursor/mcp.json, .yoke/settings.json, ~/.yoke/settings.json, ~/.claude.json, ~/.cursor/mcp.json, VS Code's user mcp.json).\n",
        );
      for (const r of rows) {
        // A repository names its servers and writes what they print: shown with control characters escaped (src/cli/printable.ts),
        // newlines too (`\n`), so each detail stays on its own line and no line can hide the next or pass for another server's.
        process.stdout.write(
          `${line(r.name)}  ${r.state}${r.detail ? ` — ${line(r.detail)}` : ""}\n  ${line(r.target)}\n  from ${line(r.source)}${r.line ? `:${r.line}` : ""}${r.scope === "claude-local" ? ` (project ${cwd})` : ""}\n`,
        );
        if (r.lastError && r.lastError !== r.detail) process.stdout.write(`  last error: ${line(r.lastError)}\n`);
        // What an approval approves: the environment and folder too (they decide what runs as much as the command line).
        if (r.state === "not_approved" && r.definition !== r.target) process.stdout.write(`  runs: ${line(r.definition)}\n`);
        if (r.state === "not_approved") process.stdout.write(`  approve: yoke mcp approve ${line(r.name)}   deny: yoke mcp approve ${line(r.name)} --deny\n`);
        if (r.logLevel) process.stdout.write(`  log level: ${r.logLevel} (logLevel in its definition)\n`);
        for (const l of r.logs.slice(-5)) process.stdout.write(`  log ${l.at.slice(11, 19)} ${l.level}: ${line(l.text)}\n`);
        if (r.tools.length) process.stdout.write(`  tools${r.toolsFromCache ? " (cached)" : ""}: ${r.tools.map((t) => line(t.name) + (t.deferred ? " (deferred)" : "")).join(", ")}\n`);
      }
      for (const a of agents) {
        process.stdout.write(`agent ${line(a.agent)} (${line(a.source)}): its own servers, started while it runs\n`);
        for (const r of a.servers) {
          process.stdout.write(`  ${line(r.name)}  ${r.state}${r.state === "own" ? " — your agent's: no approval needed" : ""}\n    ${line(r.definition)}\n`);
          if (r.state === "not_approved") process.stdout.write(`    approve: yoke mcp approve ${line(r.name)}   deny: yoke mcp approve ${line(r.name)} --deny\n`);
        }
        for (const m of a.problems) process.stdout.write(`  problem: ${line(m)}\n`);
      }
      // A note is about a key Yoke does not apply; its server loaded (it does not fail the listing).
      for (const p of mcp.problems) process.stdout.write(`${p.loaded ? "note" : "problem"}: ${printable(p.message)}\n`);
    }
    return mcp.problems.some((p) => !p.loaded) || rows.some((r) => r.state === "failed") ? 1 : 0;
  } finally {
    stopQuitting();
    await mcp.dispose();
  }
}

/**
 * The custom agents' own servers (inline `mcpServers` of the workspace's .claude/agents and your
 * ~/.claude/agents), listed with their agent without a running session: each server's definition
 * and whether it may start when the agent runs (a repository agent's needs your approval of that
 * definition, as .mcp.json's do; your own agent's are yours). Nothing is started.
 */
async function agentServerRows(
  cwd: string,
): Promise<Array<{ agent: string; source: string; servers: Array<{ name: string; transport: string; target: string; definition: string; workspace: boolean; state: string }>; problems: string[] }>> {
  const { agents } = loadAgents([...(await workspaceAgentFiles(createNodeWorkspaceFs(cwd))), ...folderAgentFiles(userAgentFolders()), ...(await globalRooModeFiles())]);
  const approvals = new ApprovalStore(join(homedir(), ".yoke", "mcp-approvals.json"));
  const out = [];
  for (const agent of agents) {
    if (!agent.mcpServers || !Object.keys(agent.mcpServers.inline).length) continue;
    const mcp = createNodeMcp({ cwd, trusted: true, sources: [agentMcpSource(cwd, agent)] });
    await mcp.dispose();
    const servers = mcp.servers.map((s) => {
      const answer = s.workspace ? approvals.get(cwd, s) : "allow";
      const state = !s.workspace ? "own" : answer === "allow" ? "approved" : answer === "deny" ? "declined" : "not_approved";
      return { name: s.name, transport: s.transport, target: describeServer(s), definition: describeDefinition(s), workspace: s.workspace, state };
    });
    out.push({ agent: agent.name, source: agent.source, servers, problems: mcp.problems.map((p) => p.message) });
  }
  return out;
}

/** The servers the workspace's custom agents define for themselves (approved like .mcp.json's, keyed on the definition). */
async function workspaceAgentServers(cwd: string): Promise<McpServerConfig[]> {
  const { agents } = loadAgents(await workspaceAgentFiles(createNodeWorkspaceFs(cwd)));
  const out: McpServerConfig[] = [];
  for (const agent of agents) {
    if (!agent.mcpServers || !Object.keys(agent.mcpServers.inline).length) continue;
    const mcp = createNodeMcp({ cwd, trusted: true, sources: [agentMcpSource(cwd, agent)] });
    await mcp.dispose();
    out.push(...mcp.servers);
  }
  return out;
}

async function approve(cwd: string, name: string, decision: "allow" | "deny", json: boolean): Promise<number> {
  const mcp = createNodeMcp({ cwd, trusted: true });
  await mcp.dispose();
  // The workspace's servers, then the repository's custom agents' own (`mcpServers` in .claude/agents).
  const agentServers = mcp.servers.some((s) => s.name === name) ? [] : await workspaceAgentServers(cwd);
  const server = mcp.servers.find((s) => s.name === name) ?? agentServers.find((s) => s.name === name);
  if (!server) {
    const known = [...mcp.servers, ...agentServers].map((s) => s.name);
    throw new UsageError(`no MCP server "${name}" is configured in ${cwd}${known.length ? ` (configured: ${known.join(", ")})` : ""}`);
  }
  new ApprovalStore(join(homedir(), ".yoke", "mcp-approvals.json")).set(cwd, server, decision);
  const text = `${decision === "allow" ? "Approved" : "Declined"} the MCP server "${name}" (${describeDefinition(server)}) for ${cwd}. It runs as you, outside Yoke's command sandbox. A changed definition asks again.`;
  if (json) printJson({ server: name, decision, workspace: cwd });
  else process.stdout.write(text + "\n");
  return 0;
}
