/**
 * MCP's settings files come from the one settings reader (src/node/settings): a session hands MCP
 * the texts the reader read, so the files are not read again, and a server's origin is the one the
 * reader gives its file. Real files, a real git repository, the real reader.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadMcpConfig } from "../../../src/node/mcp/config-files";
import { readSessionSettings } from "../../../src/node/session-settings";
import { readSettings } from "../../../src/node/settings/reader";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const env = { PATH: "/usr/bin" };
const servers = (...names: string[]) => ({ mcpServers: Object.fromEntries(names.map((n) => [n, { command: `${n}-server` }])) });

function folders(): { ws: string; home: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-mcp-files-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  mkdirSync(join(home, ".yoke"), { recursive: true });
  mkdirSync(join(ws, ".yoke"), { recursive: true });
  return { ws, home, dir };
}

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], { cwd, stdio: "ignore" });
}

describe("MCP definitions from the settings reader's files", () => {
  it("a session's MCP takes the texts the reader read (the files are not read again); the repository's file defines workspace servers, the user's and --settings files the user's", async () => {
    const { ws, home, dir } = folders();
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify(servers("mine")));
    writeFileSync(join(ws, ".yoke", "settings.json"), `// the team's servers\n${JSON.stringify(servers("team"))}`);
    writeFileSync(join(ws, ".mcp.json"), JSON.stringify(servers("dotmcp")));
    const extra = join(dir, "ci-settings.json");
    writeFileSync(extra, JSON.stringify(servers("ci")));
    git(ws, "init", "-q");
    git(ws, "add", ".yoke/settings.json", ".mcp.json");
    git(ws, "commit", "-qm", "settings");

    const s = await readSessionSettings({ cwd: ws, home, sessionDir: join(dir, "sessions"), trusted: true, extraFiles: [extra] });
    // After the reader read them, the settings files change on disk: a second read would see "changed".
    for (const f of [join(home, ".yoke", "settings.json"), join(ws, ".yoke", "settings.json"), extra]) writeFileSync(f, JSON.stringify(servers("changed")));

    const fromReader = loadMcpConfig(ws, home, { env }, [], s.settingsFiles);
    expect(fromReader.problems).toEqual([]);
    expect(fromReader.servers.map((x) => [x.name, x.source, x.workspace, x.sourcePath])).toEqual([
      ["mine", "user-settings", false, join(home, ".yoke", "settings.json")],
      ["team", "workspace-settings", true, join(ws, ".yoke", "settings.json")],
      ["dotmcp", "workspace-mcp-json", true, join(ws, ".mcp.json")],
      ["ci", "extra", false, extra],
    ]);
    // The same files read by MCP alone (`yoke mcp list`): what is on disk now ("changed", defined in the
    // user's file, then in the repository's, last in the --settings file, which wins).
    const own = loadMcpConfig(ws, home, { env }, [extra]);
    expect(own.servers.map((x) => [x.name, x.source, x.workspace])).toEqual([
      ["dotmcp", "workspace-mcp-json", true],
      ["changed", "extra", false],
    ]);
  });

  it("in the home folder the workspace's .yoke/settings.json is the user's own file: its servers are the user's, defined once", async () => {
    const { home } = folders();
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify(servers("mine")));
    const r = await readSettings({ cwd: home, home, managedDir: null });
    for (const config of [loadMcpConfig(home, home, { env }, [], r.files), loadMcpConfig(home, home, { env })]) {
      expect(config.servers.map((x) => [x.name, x.source, x.workspace])).toEqual([["mine", "user-settings", false]]);
    }
  });

  it("reads MCP's own files with the settings reader's read: a byte order mark is not an error; a folder where the file should be is not a server", () => {
    const { ws, home } = folders();
    writeFileSync(join(ws, ".mcp.json"), `\ufeff${JSON.stringify(servers("bom"))}`);
    mkdirSync(join(ws, ".vscode", "mcp.json"), { recursive: true });
    const config = loadMcpConfig(ws, home, { env });
    expect(config.problems).toEqual([]);
    expect(config.servers.map((x) => x.name)).toEqual(["bom"]);
  });

  it("envFile: relative to the file that defines the server, merged under env; a missing or invalid one is that server's problem", () => {
    const { ws, home } = folders();
    mkdirSync(join(ws, "conf"), { recursive: true });
    writeFileSync(join(ws, "conf", "srv.env"), '# comment\nexport TOKEN="a b"\nMULTI="one\ntwo"\nKEEP=file\n');
    writeFileSync(join(ws, "bad.env"), "TOKEN=1\nthis is not a variable\n");
    writeFileSync(
      join(ws, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          good: { command: "srv", envFile: "conf/srv.env", env: { KEEP: "env wins" } },
          missing: { command: "srv", envFile: "nope.env" },
          invalid: { command: "srv", envFile: "${workspaceFolder}/bad.env" },
          typed: { command: "srv", envFile: 3 },
        },
      }),
    );
    const config = loadMcpConfig(ws, home, { env });
    const good = config.servers.find((x) => x.name === "good")!;
    expect(good.transport === "stdio" && good.env).toEqual({ TOKEN: "a b", MULTI: "one\ntwo", KEEP: "env wins" });
    expect(good.transport === "stdio" && good.envFile).toBe(join(ws, "conf", "srv.env"));
    expect(config.servers.map((x) => x.name)).toEqual(["good"]);
    expect(config.problems.map((p) => p.message)).toEqual([
      `${join(ws, ".mcp.json")}:1: MCP server "typed": "envFile" must be a path (a string)`,
      `${join(ws, ".mcp.json")}:1: MCP server "missing": its envFile ${join(ws, "nope.env")} does not exist`,
      `${join(ws, ".mcp.json")}:1: MCP server "invalid": its envFile ${join(ws, "bad.env")} is not valid: line 2 is not KEY=VALUE`,
    ]);
  });

  it("src/node/mcp/config-files.ts has no file reading of its own (it uses the settings reader's)", () => {
    const text = readFileSync(join(__dirname, "../../../src/node/mcp/config-files.ts"), "utf8");
    expect(text).not.toMatch(/from\s+["'](node:)?fs(\/promises)?["']/);
    expect(text).toMatch(/readSettingsText/);
  });
});
