// MCP servers defined where users keep them for other tools — ~/.claude.json (Claude Code's user
// and local scopes), ~/.cursor/mcp.json, the workspace's .cursor/mcp.json, VS Code's user mcp.json —
// read by the real CLI with HOME in a temporary folder, started as real stdio servers from the npm
// registry (@modelcontextprotocol/server-everything), called by a scripted model through `yoke run`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { pidsOf } from "../support/processes";
import { scriptedRunArgs } from "../support/scripted-run";
import { everythingArgv } from "../support/mcp-fixtures";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const server = (argv: string[]) => ({ command: argv[0], args: argv.slice(1) });

/** A workspace and a HOME of its own; files relative to the workspace, or to HOME with "~/". */
function workspace(files: (cwd: string) => Record<string, unknown>): { cwd: string; home: string; env: Record<string, string> } {
  const base = mkdtempSync(join(tmpdir(), "yoke-mcp-where-"));
  temps.push(base);
  const cwd = join(base, "ws");
  const home = join(base, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  for (const [rel, value] of Object.entries(files(cwd))) {
    const path = rel.startsWith("~/") ? join(home, rel.slice(2)) : join(cwd, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  }
  // VS Code's user folder on Linux is $XDG_CONFIG_HOME/Code/User: the test's, not the machine's.
  return { cwd, home, env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config") } };
}

type Row = { name: string; state: string; source: string; scope: string; workspace: boolean; tools: { name: string }[] };

describe("MCP servers from ~/.claude.json, ~/.cursor/mcp.json, .cursor/mcp.json and VS Code's user mcp.json", () => {
  const claudeProject = everythingArgv("claude-local");
  const claudeUser = everythingArgv("claude-user");
  const cursorUser = everythingArgv("cursor-user");
  const cursorRepo = everythingArgv("cursor-repo");
  const vscodeUser = everythingArgv("vscode-user");
  const setup = (withVsCode: boolean) =>
    workspace((cwd) => ({
      // Claude Code's ~/.claude.json: other state around the servers; this project's entry and another project's.
      "~/.claude.json": {
        numStartups: 12,
        mcpServers: withVsCode ? { claudeuser: server(claudeUser) } : {},
        projects: {
          [cwd]: { allowedTools: [], mcpServers: { claudeproj: server(claudeProject) }, hasTrustDialogAccepted: true },
          "/somewhere/else": { mcpServers: { otherproj: { command: "never-started" } } },
        },
      },
      "~/.cursor/mcp.json": `// Cursor's global file\n{ "mcpServers": { "cursoruser": ${JSON.stringify(server(cursorUser))}, }, }`,
      ".cursor/mcp.json": { mcpServers: { cursorrepo: server(cursorRepo) } },
      ...(withVsCode ? { "~/.config/Code/User/mcp.json": `{ "servers": { "vscodeuser": ${JSON.stringify({ type: "stdio", ...server(vscodeUser) })} }, "inputs": [] }` } : {}),
      "~/.yoke/settings.json": { permissions: { allow: ["mcp__claudeproj__echo", "mcp__cursoruser__get-sum", "mcp__cursorrepo"] } },
    }));

  it("yoke mcp list --json: each server with its source file and scope; the workspace's .cursor/mcp.json server waits for approval", async () => {
    const { cwd, home, env } = setup(true);
    const r = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { servers: Row[]; problems: unknown[] };
    expect(out.problems).toEqual([]);
    const rows = out.servers.map((s) => [s.name, s.state, s.source, s.scope, s.workspace]);
    expect(rows).toEqual([
      ["claudeuser", "running", join(home, ".claude.json"), "claude-user", false],
      ["cursoruser", "running", join(home, ".cursor", "mcp.json"), "cursor-user-mcp-json", false],
      ["vscodeuser", "running", join(home, ".config", "Code", "User", "mcp.json"), "vscode-user-mcp-json", false],
      ["cursorrepo", "not_approved", join(cwd, ".cursor", "mcp.json"), "cursor-mcp-json", true],
      ["claudeproj", "running", join(home, ".claude.json"), "claude-local", false],
    ]);
    expect(out.servers.find((s) => s.name === "claudeproj")!.tools.map((t) => t.name)).toContain("mcp__claudeproj__echo");
    expect(out.servers.find((s) => s.name === "cursorrepo")!.tools).toEqual([]);
    for (const argv of [claudeProject, claudeUser, cursorUser, cursorRepo, vscodeUser]) expect(pidsOf(argv)).toEqual([]);
  }, 120_000);

  it("yoke run: the model calls a server defined only in ~/.claude.json's project scope and one only in ~/.cursor/mcp.json; the .cursor/mcp.json server is not started without approval", async () => {
    const { cwd, home, env } = setup(false);
    const llm = await startScriptedLlmServer({
      script: [
        {
          toolCalls: [
            { name: "mcp__claudeproj__echo", input: { message: "from the project scope" } },
            { name: "mcp__cursoruser__get-sum", input: { a: 2, b: 40 } },
            { name: "mcp__cursorrepo__echo", input: { message: "should not run" } },
          ],
        },
        { text: "done" },
      ],
    });
    let requests: { body: Record<string, unknown> }[];
    try {
      const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions")), "use the tools"], { env });
      expect(r.code, r.stderr).toBe(0);
      requests = llm.requests;
    } finally {
      await llm.close();
    }
    const offered = ((requests[0]!.body.tools as { function: { name: string } }[]) ?? []).map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(["mcp__claudeproj__echo", "mcp__cursoruser__get-sum"]));
    expect(offered.filter((n) => n.startsWith("mcp__cursorrepo") || n.startsWith("mcp__otherproj"))).toEqual([]);
    const last = requests[requests.length - 1]!.body.messages as { role: string; content?: unknown }[];
    const results = last.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
    expect(results[0]).toBe("Echo: from the project scope");
    expect(results[1]).toContain("42");
    expect(results[2]).not.toContain("Echo:");
    for (const argv of [claudeProject, cursorUser, cursorRepo]) expect(pidsOf(argv)).toEqual([]);
  }, 120_000);
});

// mcp21: the Copilot CLI's ~/.copilot/mcp-config.json (VS Code's portable format) and VS Code's
// settings.json `mcp` key (user and workspace), each written as the tool's public docs show it.
describe("MCP servers from ~/.copilot/mcp-config.json and VS Code's settings.json `mcp` key", () => {
  const copilotUser = everythingArgv("copilot-user");
  const vscodeSettings = everythingArgv("vscode-settings-user");
  const repoSettings = everythingArgv("vscode-settings-repo");
  const setup = () =>
    workspace(() => ({
      // The Copilot CLI's docs: "type": "local", "tools": ["*"] (every tool), "env".
      "~/.copilot/mcp-config.json": { mcpServers: { copilotuser: { type: "local", ...server(copilotUser), tools: ["*"], env: {} } } },
      // VS Code's user settings.json before mcp.json: comments, other settings, `mcp.servers` and `mcp.inputs`.
      "~/.config/Code/User/settings.json": `{\n  // my editor\n  "editor.fontSize": 14,\n  "mcp": {\n    "inputs": [],\n    "servers": {\n      "vscodesettings": ${JSON.stringify({ type: "stdio", ...server(vscodeSettings) })},\n    },\n  },\n}\n`,
      ".vscode/settings.json": { "editor.tabSize": 2, mcp: { servers: { reposettings: { type: "stdio", ...server(repoSettings) } } } },
      "~/.yoke/settings.json": { permissions: { allow: ["mcp__copilotuser", "mcp__vscodesettings", "mcp__reposettings"] } },
    }));

  it("listed with their files and scopes (the workspace's waits for approval); once approved, the model calls all three in yoke run", async () => {
    const { cwd, home, env } = setup();
    const list = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env });
    expect(list.code, list.stderr).toBe(0);
    const out = JSON.parse(list.stdout) as { servers: Row[]; problems: unknown[] };
    expect(out.problems).toEqual([]);
    expect(out.servers.map((s) => [s.name, s.state, s.source, s.scope, s.workspace])).toEqual([
      ["copilotuser", "running", join(home, ".copilot", "mcp-config.json"), "copilot-user-mcp-json", false],
      ["vscodesettings", "running", join(home, ".config", "Code", "User", "settings.json"), "vscode-user-settings", false],
      ["reposettings", "not_approved", join(cwd, ".vscode", "settings.json"), "vscode-settings", true],
    ]);
    expect(pidsOf(repoSettings)).toEqual([]);
    const approve = await runCli(["mcp", "approve", "reposettings", "--cwd", cwd], { env });
    expect(approve.code, approve.stderr).toBe(0);
    const llm = await startScriptedLlmServer({
      script: [
        {
          toolCalls: [
            { name: "mcp__copilotuser__echo", input: { message: "copilot" } },
            { name: "mcp__vscodesettings__echo", input: { message: "settings" } },
            { name: "mcp__reposettings__echo", input: { message: "repository" } },
          ],
        },
        { text: "done" },
      ],
    });
    let requests: { body: Record<string, unknown> }[];
    try {
      const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions")), "use the tools"], { env });
      expect(r.code, r.stderr).toBe(0);
      requests = llm.requests;
    } finally {
      await llm.close();
    }
    const last = requests[requests.length - 1]!.body.messages as { role: string; content?: unknown }[];
    expect(last.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["Echo: copilot", "Echo: settings", "Echo: repository"]);
    for (const argv of [copilotUser, vscodeSettings, repoSettings]) expect(pidsOf(argv)).toEqual([]);
  }, 180_000);
});
