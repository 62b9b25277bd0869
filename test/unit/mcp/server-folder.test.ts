// Where a stdio MCP server starts (src/node/mcp/server-folder.ts): the person's own servers never in
// the workspace unless their definition says so; the workspace's (approved) servers in the workspace.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseMcpConfig, relativePathsOf, type McpSourceFile } from "../../../src/core/mcp/config";
import { neutralServerFolder, stdioServerFolder } from "../../../src/node/mcp/server-folder";
import { sandboxWritablePaths } from "../../../src/node/commands/sandbox/paths";

const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-server-folder-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const home = join(base, "home");
const ws = join(base, "projects", "app");
mkdirSync(home, { recursive: true });
mkdirSync(ws, { recursive: true });

describe("stdioServerFolder", () => {
  it("starts a server you defined (no cwd) in your home folder, not the workspace", () => {
    expect(stdioServerFolder({ workspace: false }, ws, home, [ws])).toBe(home);
  });
  it("starts a server the workspace defined (approved) in the workspace, as before", () => {
    expect(stdioServerFolder({ workspace: true }, ws, home, [ws])).toBe(ws);
  });
  it("keeps a cwd the definition names: absolute (${workspaceFolder} expanded) or relative to the workspace", () => {
    expect(stdioServerFolder({ workspace: false, cwd: ws }, ws, home, [ws])).toBe(ws);
    expect(stdioServerFolder({ workspace: false, cwd: "tools" }, ws, home, [ws])).toBe(join(ws, "tools"));
    expect(stdioServerFolder({ workspace: true, cwd: "/srv" }, ws, home, [ws])).toBe("/srv");
  });
  it("never picks a folder inside any workspace folder (another root, an added folder)", () => {
    const other = join(base, "other");
    mkdirSync(other, { recursive: true });
    expect(stdioServerFolder({ workspace: false }, ws, home, [ws, other])).toBe(home);
    // The home opened as the workspace, or a workspace holding the home: the file system's root.
    expect(stdioServerFolder({ workspace: false }, home, home, [home])).toBe("/");
    expect(stdioServerFolder({ workspace: false }, ws, home, [ws, base])).toBe("/");
  });
  it("sees through a link: a home that is a link into the workspace is the workspace", () => {
    const linkHome = join(base, "linkhome");
    symlinkSync(ws, linkHome);
    expect(neutralServerFolder(linkHome, [ws])).toBe("/");
    // …and a workspace opened through a link to the home.
    const linkWs = join(base, "linkws");
    symlinkSync(home, linkWs);
    expect(neutralServerFolder(home, [linkWs])).toBe("/");
  });
  it("counts the sandbox settings' rw paths, `~` expanded as the sandbox expands it, and not ro ones (home20)", () => {
    const rw = sandboxWritablePaths(
      [
        { path: "~", mode: "rw" },
        { path: join(base, "projects"), mode: "ro" },
      ],
      home,
    );
    expect(rw).toEqual([home]);
    expect(neutralServerFolder(home, [ws, ...rw])).toBe("/");
    expect(neutralServerFolder(home, [ws, ...sandboxWritablePaths([{ path: "~", mode: "ro" }], home)])).toBe(home);
    // A folder holding the home, given by its absolute path.
    expect(neutralServerFolder(home, [ws, ...sandboxWritablePaths([{ path: base, mode: "rw" }], home)])).toBe("/");
  });
  it("a home that does not exist (HOME unset or gone) gives the root, not a folder a spawn fails in", () => {
    expect(neutralServerFolder(join(base, "no-such-home"), [ws])).toBe("/");
  });
  it("a sibling whose name starts like the home's is not the home", () => {
    const sibling = `${home}2`;
    mkdirSync(sibling, { recursive: true });
    expect(neutralServerFolder(home, [sibling])).toBe(home);
    expect(neutralServerFolder(sibling, [home])).toBe(sibling);
  });
});

describe("the note on a server of yours that names relative paths", () => {
  const ctx = { workspaceFolder: "/ws/proj", home: "/home/u", env: {} as Record<string, string | undefined> };
  const parse = (kind: McpSourceFile["kind"], servers: Record<string, unknown>) => parseMcpConfig([{ kind, path: `/cfg/${kind}.json`, text: JSON.stringify({ mcpServers: servers }) }], ctx);

  it("names the relative words of the command line", () => {
    expect(relativePathsOf("node", ["./server.js"])).toEqual(["./server.js"]);
    expect(relativePathsOf("uvx", ["mcp-server-git", "--repository", "."])).toEqual(["."]);
    expect(relativePathsOf("python", ["tools/mcp.py", "--root=../data"])).toEqual(["tools/mcp.py", "--root=../data"]);
    expect(relativePathsOf("./bin/server", [])).toEqual(["./bin/server"]);
    expect(relativePathsOf("npx", ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/ws/proj"])).toEqual([]);
    expect(relativePathsOf("deno", ["run", "-A", "npm:some-server", "jsr:@x/y"])).toEqual([]);
    expect(relativePathsOf("node", ["/opt/mcp/index.js", "C:\\mcp\\index.js"])).toEqual([]);
  });

  it("is said (server loaded) for your own server without a cwd, with what to write; never for the workspace's or one with a cwd", () => {
    const own = parse("user-settings", { git: { command: "uvx", args: ["mcp-server-git", "--repository", "."] } });
    expect(own.servers.map((s) => s.name)).toEqual(["git"]);
    expect(own.problems).toHaveLength(1);
    expect(own.problems[0]).toMatchObject({ server: "git", loaded: true });
    expect(own.problems[0]!.message).toContain('MCP server "git": starts in your home folder, not the workspace');
    expect(own.problems[0]!.message).toContain('so "." is read from there; to start it in the workspace add "cwd": "${workspaceFolder}"');
    expect(parse("claude-user", { s: { command: "node", args: ["./a.js", "./b.js"] } }).problems[0]!.message).toContain('so "./a.js", "./b.js" are read from there');
    expect(parse("workspace-mcp-json", { git: { command: "uvx", args: ["mcp-server-git", "--repository", "."] } }).problems).toEqual([]);
    expect(parse("user-settings", { git: { command: "uvx", args: ["mcp-server-git", "--repository", "."], cwd: "${workspaceFolder}" } }).problems).toEqual([]);
    expect(parse("user-settings", { fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "${workspaceFolder}"] } }).problems).toEqual([]);
  });
});
