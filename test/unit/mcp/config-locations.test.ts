/**
 * Where other tools keep MCP servers: ~/.claude.json (Claude Code's user scope `mcpServers`, local
 * scope `projects["<path>"].mcpServers`), ~/.cursor/mcp.json, the workspace's .cursor/mcp.json and
 * VS Code's user-profile mcp.json; their precedence against Yoke's own files. Real files.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseMcpConfig } from "../../../src/core/mcp/config";
import { loadMcpConfig, vscodeUserMcpJson } from "../../../src/node/mcp/config-files";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const env = { PATH: "/usr/bin" };

function folders(files: (ws: string) => Record<string, string>): { ws: string; home: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-mcp-where-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true });
  for (const [rel, text] of Object.entries(files(ws))) {
    const path = rel.startsWith("~/") ? join(home, rel.slice(2)) : join(ws, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return { ws, home };
}

const rows = (c: ReturnType<typeof loadMcpConfig>) => c.servers.map((s) => [s.name, s.source, s.workspace, s.transport === "stdio" ? s.command : s.url]);

describe("~/.claude.json", () => {
  it("user scope: top-level mcpServers; local scope: this project's entry only (a trailing slash or another project's entry does not count)", () => {
    const { ws, home } = folders((ws) => ({
      "~/.claude.json": JSON.stringify({
        numStartups: 3,
        mcpServers: { u: { command: "user-cmd" }, http: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${TOKEN:-none}" } } },
        projects: { [`${ws}/`]: { mcpServers: { local: { command: "local-cmd", args: ["--x"] } } }, "/other/project": { mcpServers: { other: { command: "no" } } } },
      }),
    }));
    const c = loadMcpConfig(ws, home, { env });
    expect(c.problems).toEqual([]);
    expect(rows(c)).toEqual([
      ["u", "claude-user", false, "user-cmd"],
      ["http", "claude-user", false, "https://mcp.example.com/mcp"],
      ["local", "claude-local", false, "local-cmd"],
    ]);
    expect(c.servers.every((s) => s.sourcePath === join(home, ".claude.json"))).toBe(true);
  });

  it("a broken ~/.claude.json is one problem (not one per scope); the other files still load", () => {
    const { ws, home } = folders(() => ({ "~/.claude.json": "{ not json", "~/.cursor/mcp.json": JSON.stringify({ mcpServers: { c: { command: "c" } } }) }));
    const c = loadMcpConfig(ws, home, { env });
    expect(c.problems).toHaveLength(1);
    expect(c.problems[0]!.message).toContain(join(home, ".claude.json"));
    expect(rows(c)).toEqual([["c", "cursor-user-mcp-json", false, "c"]]);
  });

  it("a project entry without mcpServers, or no projects at all: nothing, no problem", () => {
    const { ws, home } = folders((ws) => ({ "~/.claude.json": JSON.stringify({ projects: { [ws]: { allowedTools: [] } } }) }));
    expect(loadMcpConfig(ws, home, { env })).toEqual({ servers: [], problems: [] });
    expect(parseMcpConfig([{ kind: "claude-local", path: "/h/.claude.json", text: "{}", project: "/w" }], { workspaceFolder: "/w", env })).toEqual({ servers: [], problems: [] });
  });
});

describe("Cursor's files", () => {
  it("~/.cursor/mcp.json is the user's; the workspace's .cursor/mcp.json is the repository's (approval needed); JSONC with comments and trailing commas", () => {
    const { ws, home } = folders(() => ({
      "~/.cursor/mcp.json": `{\n  // mine\n  "mcpServers": { "mine": { "command": "mine-cmd" }, },\n}`,
      ".cursor/mcp.json": `{ "mcpServers": { "repo": { "url": "http://127.0.0.1:9/mcp" }, /* "old": { "command": "x" }, */ } }`,
    }));
    const c = loadMcpConfig(ws, home, { env });
    expect(c.problems).toEqual([]);
    expect(rows(c)).toEqual([
      ["mine", "cursor-user-mcp-json", false, "mine-cmd"],
      ["repo", "cursor-mcp-json", true, "http://127.0.0.1:9/mcp"],
    ]);
  });

  it("in the home folder, ~/.cursor/mcp.json is read once, as the user's", () => {
    const { home } = folders(() => ({ "~/.cursor/mcp.json": JSON.stringify({ mcpServers: { mine: { command: "m" } } }) }));
    expect(rows(loadMcpConfig(home, home, { env }))).toEqual([["mine", "cursor-user-mcp-json", false, "m"]]);
  });
});

describe("VS Code's user-profile mcp.json", () => {
  it("servers + inputs like .vscode/mcp.json, the user's own, under $XDG_CONFIG_HOME (or ~/.config) on Linux", () => {
    const { ws, home } = folders(() => ({
      "~/.config/Code/User/mcp.json": JSON.stringify({
        inputs: [{ type: "promptString", id: "key", description: "API key", password: true }],
        servers: { gh: { type: "http", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer ${input:key}" } } },
      }),
    }));
    const c = loadMcpConfig(ws, home, { env, input: (spec) => (spec.id === "key" && spec.password ? "k-1" : undefined) }, [], undefined, { platform: "linux" });
    expect(c.problems).toEqual([]);
    expect(c.servers).toEqual([
      expect.objectContaining({
        name: "gh",
        source: "vscode-user-mcp-json",
        workspace: false,
        headers: { Authorization: "Bearer k-1" },
        sourcePath: join(home, ".config", "Code", "User", "mcp.json"),
      }),
    ]);
  });

  it("the folder per platform and build: Code first, then Code - Insiders, then VSCodium, whichever has the file; portable installs; the extension host's own folder wins", () => {
    const { home } = folders(() => ({ "~/.config/VSCodium/User/mcp.json": "{}" }));
    expect(vscodeUserMcpJson(home, {}, "linux")).toBe(join(home, ".config", "VSCodium", "User", "mcp.json"));
    expect(vscodeUserMcpJson(home, { XDG_CONFIG_HOME: "/xdg" }, "linux")).toBe(join("/xdg", "Code", "User", "mcp.json"));
    expect(vscodeUserMcpJson(home, {}, "darwin")).toBe(join(home, "Library", "Application Support", "Code", "User", "mcp.json"));
    expect(vscodeUserMcpJson(home, { APPDATA: "/appdata" }, "win32")).toBe(join("/appdata", "Code", "User", "mcp.json"));
    expect(vscodeUserMcpJson(home, { VSCODE_PORTABLE: "/port" }, "linux")).toBe(join("/port", "user-data", "User", "mcp.json"));
    expect(vscodeUserMcpJson(home, {}, "linux", "/profile/User")).toBe(join("/profile/User", "mcp.json"));
  });
});

describe("precedence, lowest first: a later file's server of the same name replaces an earlier one", () => {
  it("~/.claude.json user < ~/.cursor/mcp.json < VS Code user < ~/.yoke/settings.json < .cursor/mcp.json < .vscode/mcp.json < .mcp.json < ~/.claude.json local < --settings", () => {
    const def = (tag: string, names: string[], key = "mcpServers") => JSON.stringify({ [key]: Object.fromEntries(names.map((n) => [n, { command: tag }])) });
    // Server sN is defined by the first N+1 files of the order: the last of them must win.
    const order = ["claude-user", "cursor-user", "vscode-user", "yoke-user", "cursor-ws", "vscode-ws", "dotmcp", "claude-local", "extra"];
    const names = (i: number) => order.slice(i).map((_, j) => `s${i + j}`);
    const { ws, home } = folders((ws) => ({
      "~/.claude.json": JSON.stringify({
        mcpServers: Object.fromEntries(names(0).map((n) => [n, { command: "claude-user" }])),
        projects: { [ws]: { mcpServers: Object.fromEntries(names(7).map((n) => [n, { command: "claude-local" }])) } },
      }),
      "~/.cursor/mcp.json": def("cursor-user", names(1)),
      "~/.config/Code/User/mcp.json": def("vscode-user", names(2), "servers"),
      "~/.yoke/settings.json": def("yoke-user", names(3)),
      ".cursor/mcp.json": def("cursor-ws", names(4)),
      ".vscode/mcp.json": def("vscode-ws", names(5), "servers"),
      ".mcp.json": def("dotmcp", names(6)),
      "extra.json": def("extra", names(8)),
    }));
    const c = loadMcpConfig(ws, home, { env }, [join(ws, "extra.json")], undefined, { platform: "linux" });
    expect(c.problems).toEqual([]);
    const winner = Object.fromEntries(c.servers.map((s) => [s.name, s.transport === "stdio" ? s.command : ""]));
    expect(order.map((_, i) => winner[`s${i}`])).toEqual(order);
  });
});

describe("the Copilot CLI's mcp-config.json and VS Code's settings.json `mcp` key (mcp21)", () => {
  it('$COPILOT_HOME/mcp-config.json wins over ~/.copilot; "local" runs a command; a "tools" list other than ["*"] is applied and said in a note', () => {
    const { ws, home } = folders(() => ({
      "~/.copilot/mcp-config.json": JSON.stringify({ mcpServers: { fromhome: { type: "local", command: "home-server" } } }),
      "~/elsewhere/mcp-config.json": JSON.stringify({
        mcpServers: {
          all: { type: "local", command: "srv", args: ["--x"], tools: ["*"] },
          some: { type: "stdio", command: "srv", tools: ["search", "read_file"] },
          remote: { type: "http", url: "https://mcp.example.com/mcp", headers: { "X-Key": "${API_KEY}" }, tools: ["*"] },
        },
      }),
    }));
    const plain = loadMcpConfig(ws, home, { env });
    expect(rows(plain)).toEqual([["fromhome", "copilot-user-mcp-json", false, "home-server"]]);
    const moved = loadMcpConfig(ws, home, { env: { ...env, COPILOT_HOME: join(home, "elsewhere"), API_KEY: "k" } });
    expect(rows(moved)).toEqual([
      ["all", "copilot-user-mcp-json", false, "srv"],
      ["some", "copilot-user-mcp-json", false, "srv"],
      ["remote", "copilot-user-mcp-json", false, "https://mcp.example.com/mcp"],
    ]);
    expect(moved.problems.map((p) => [p.server, p.loaded])).toEqual([["some", true]]);
    expect(moved.problems[0]!.message).toContain(`"tools": only "search", "read_file" of the server are offered to the model`);
    expect(moved.problems[0]!.message).toContain(`"allow": ["mcp__some__search","mcp__some__read_file"]`);
    // Applied (red team Y): the list is the server's onlyTools; ["*"] is all of them.
    expect(moved.servers.map((s) => [s.name, s.onlyTools])).toEqual([
      ["all", undefined],
      ["some", ["search", "read_file"]],
      ["remote", undefined],
    ]);
  });

  it("settings.json: servers under `mcp` with its inputs, below the mcp.json beside it; the workspace's is the repository's; a settings file without `mcp` is not read, even broken", () => {
    const { ws, home } = folders(() => ({
      "~/.config/Code/User/settings.json": `{ "editor.fontSize": 14, "mcp": { "inputs": [{ "id": "tok", "type": "promptString", "password": true }], "servers": { "both": { "command": "old" }, "tokened": { "command": "t", "env": { "TOKEN": "\${input:tok}" } } } } }`,
      "~/.config/Code/User/mcp.json": `{ "servers": { "both": { "command": "new" } } }`,
      ".vscode/settings.json": `{ "mcp": { "servers": { "repo": { "type": "stdio", "command": "repo-server" } } }, }`,
    }));
    const c = loadMcpConfig(ws, home, { env: { ...env, XDG_CONFIG_HOME: join(home, ".config") }, input: (spec) => (spec.id === "tok" ? "secret" : undefined) });
    expect(c.problems).toEqual([]);
    expect(rows(c)).toEqual([
      ["tokened", "vscode-user-settings", false, "t"],
      ["both", "vscode-user-mcp-json", false, "new"],
      ["repo", "vscode-settings", true, "repo-server"],
    ]);
    expect(c.servers.find((s) => s.name === "tokened")).toMatchObject({ env: { TOKEN: "secret" } });
    // A VS Code settings.json with no MCP servers is no MCP problem, whatever it holds.
    const other = folders(() => ({ ".vscode/settings.json": `{ "editor.tabSize": 2, oops }` }));
    expect(loadMcpConfig(other.ws, other.home, { env }).problems).toEqual([]);
  });
});
