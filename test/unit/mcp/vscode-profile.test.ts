// VS Code's user-profile mcp.json as the extension host finds it: the window's profile folder from
// the extension's global storage folder (the default profile's User/, a named profile's
// User/profiles/<id>/), read as the user's own servers (origin user: no approval, also in a
// workspace that is not trusted). Real files, the real config loading of a session (createNodeMcp).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { vscodeUserDirOf } from "../../../src/node/mcp/config-files";
import { createNodeMcp } from "../../../src/node/mcp/setup";

const dir = mkdtempSync(join(tmpdir(), "yoke-vscode-profile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("vscodeUserDirOf", () => {
  it("the default profile's User folder, a named profile's own folder; anything else: unknown", () => {
    expect(vscodeUserDirOf("/home/u/.config/Code/User/globalStorage/yoke-dev.yoke")).toBe("/home/u/.config/Code/User");
    expect(vscodeUserDirOf("/home/u/.config/Code/User/profiles/-6e1a2b3c/globalStorage/yoke-dev.yoke")).toBe("/home/u/.config/Code/User/profiles/-6e1a2b3c");
    expect(vscodeUserDirOf("/home/u/.vscode-server/data/User/globalStorage/yoke-dev.yoke")).toBe("/home/u/.vscode-server/data/User");
    expect(vscodeUserDirOf("/somewhere/else/yoke-dev.yoke")).toBeUndefined();
  });
});

describe("a session's servers from the window's profile mcp.json", () => {
  it("a named profile's mcp.json is read (not the default profile's), as the user's own", async () => {
    const user = join(dir, "Code", "User");
    const profile = join(user, "profiles", "abc123");
    mkdirSync(join(profile, "globalStorage", "yoke-dev.yoke"), { recursive: true });
    writeFileSync(join(user, "mcp.json"), JSON.stringify({ servers: { fromDefault: { type: "stdio", command: "default-server" } } }));
    writeFileSync(
      join(profile, "mcp.json"),
      `// the work profile's servers (JSONC, as VS Code writes it)
      { "servers": { "fromProfile": { "type": "stdio", "command": "profile-server", "args": ["--x"], }, "remote": { "type": "http", "url": "https://mcp.example.com/mcp" } }, "inputs": [] }`,
    );
    const ws = join(dir, "ws");
    const home = join(dir, "home");
    mkdirSync(ws, { recursive: true });
    mkdirSync(home, { recursive: true });
    const mcp = createNodeMcp({ cwd: ws, home, trusted: false, env: { PATH: "/usr/bin" }, vscodeUserDir: vscodeUserDirOf(join(profile, "globalStorage", "yoke-dev.yoke")) });
    try {
      expect(mcp.problems).toEqual([]);
      const rows = mcp.servers.map((s) => [s.name, s.source, s.workspace, s.sourcePath]);
      expect(rows).toEqual([
        ["fromProfile", "vscode-user-mcp-json", false, join(profile, "mcp.json")],
        ["remote", "vscode-user-mcp-json", false, join(profile, "mcp.json")],
      ]);
      // The user's own: offered in a workspace that is not trusted, no approval asked.
      const status = await mcp.hub.catalog();
      expect(status.map((s) => [s.config.name, s.state])).not.toContainEqual(["fromProfile", "untrusted"]);
      expect(status.map((s) => s.state)).not.toContain("not_approved");
    } finally {
      await mcp.dispose();
    }
  }, 60_000);
});
