/**
 * Issue 22's held-out configuration files: config files in the shapes people keep (Claude Code's
 * `.mcp.json` and `~/.claude.json`, VS Code's `.vscode/mcp.json` and profile `mcp.json`, Cursor's
 * `.cursor/mcp.json` and `~/.cursor/mcp.json`, Yoke's settings, and entries copied from Cline or
 * Kiro READMEs), each written to real files and loaded the way `yoke mcp list` and a session load
 * them. Each case says what its own tool does with it: the same servers, the same environment, the
 * same variables substituted; what Yoke does not apply is a `path:line: …` note or problem, never
 * dropped in silence.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { definitionKey, describeDefinition, type McpConfig, type McpRemoteServer, type McpServerConfig } from "../../../src/core/mcp/config";
import { loadMcpConfig } from "../../../src/node/mcp/config-files";
import { inputFromEnv } from "../../../src/node/mcp/setup";
import { windowsOnlyHint } from "../../../src/node/mcp/stdio-transport";

const root = mkdtempSync(join(tmpdir(), "yoke-mcp-corpus-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The environment the loads see (the CLI's `${input:id}` answers come from YOKE_MCP_INPUT_<ID>). */
const ENV: Record<string, string> = {
  PATH: "/usr/bin:/bin",
  GITHUB_PAT: "ghp_example",
  LINEAR_TOKEN: "lin_tok",
  DB_URL: "postgres://localhost/app",
  YOKE_MCP_INPUT_API_TOKEN: "from-input",
  YOKE_MCP_INPUT_REGION: "eu-west-1",
  EMPTY_ONE: "",
};

let n = 0;
/** Writes the files (`~/` = the home folder, else the workspace) and loads them. */
function load(files: Record<string, string>, env: Record<string, string> = ENV): { c: McpConfig; ws: string; home: string; at(rel: string): string } {
  const dir = join(root, `case-${++n}`);
  const ws = join(dir, "my-project");
  const home = join(dir, "home");
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true });
  const at = (rel: string) => (rel.startsWith("~/") ? join(home, rel.slice(2)) : join(ws, rel));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(at(rel)), { recursive: true });
    writeFileSync(at(rel), text.replaceAll("@WS@", ws).replaceAll("@HOME@", home));
  }
  const c = loadMcpConfig(ws, home, { env, input: inputFromEnv(env) }, [], undefined, { env, platform: "linux" });
  return { c, ws, home, at };
}

const byName = (c: McpConfig) => Object.fromEntries(c.servers.map((s) => [s.name, s])) as Record<string, McpServerConfig>;
const messages = (c: McpConfig) => c.problems.map((p) => p.message);

describe("Claude Code's .mcp.json (project scope) as people write it", () => {
  it("1. npx stdio servers, one with a path argument and an env block", () => {
    const { c } = load({
      ".mcp.json": `{
  "mcpServers": {
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "./docs"]
    },
    "notes": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-memory"],
      "env": { "MEMORY_FILE_PATH": "./.notes/memory.json" }
    }
  }
}
`,
    });
    expect(c.problems).toEqual([]);
    expect(byName(c).files).toMatchObject({ transport: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "./docs"], workspace: true, sourceLine: 3 });
    expect(byName(c).notes).toMatchObject({ env: { MEMORY_FILE_PATH: "./.notes/memory.json" }, sourceLine: 7 });
  });

  it("2. an http server with a bearer token from ${VAR}; 3. an sse one with ${VAR:-default}", () => {
    const { c } = load({
      ".mcp.json": JSON.stringify(
        {
          mcpServers: {
            gh: { type: "http", url: "https://api.example.com/mcp/", headers: { Authorization: "Bearer ${GITHUB_PAT}" } },
            legacy: { type: "sse", url: "${LEGACY_BASE:-http://127.0.0.1:8931}/sse" },
          },
        },
        null,
        2,
      ),
    });
    expect(c.problems).toEqual([]);
    expect(byName(c).gh).toMatchObject({ transport: "http", fallbackToSse: true, headers: { Authorization: "Bearer ghp_example" } });
    expect(byName(c).legacy).toMatchObject({ transport: "sse", url: "http://127.0.0.1:8931/sse", fallbackToSse: false });
  });

  it("4. env values written as numbers, booleans and null (Claude Code and VS Code take them as text; null leaves the variable out)", () => {
    const { c } = load({ ".mcp.json": `{"mcpServers":{"n":{"command":"node","args":["srv.js", 3000],"env":{"PORT":3000,"DEBUG":true,"GONE":null}}}}` });
    expect(c.problems).toEqual([]);
    expect(byName(c).n).toMatchObject({ args: ["srv.js", "3000"], env: { PORT: "3000", DEBUG: "true" } });
    expect((byName(c).n as { env: Record<string, string> }).env).not.toHaveProperty("GONE");
  });

  it("5. a Windows `cmd /c npx` entry loads as written; where there is no cmd, its failure says what to write instead", () => {
    const { c } = load({ ".mcp.json": `{ "mcpServers": { "win": { "command": "cmd", "args": ["/c", "npx", "-y", "some-mcp-server@latest"] } } }` });
    expect(byName(c).win).toMatchObject({ command: "cmd", args: ["/c", "npx", "-y", "some-mcp-server@latest"] });
    expect(windowsOnlyHint("cmd", ["/c", "npx", "-y", "some-mcp-server@latest"], "linux")).toBe(
      ' (`cmd /c` is Windows\'s shell; here write "command": "npx", "args": ["-y","some-mcp-server@latest"])',
    );
    expect(windowsOnlyHint("cmd", ["/c", "npx"], "win32")).toBe("");
    expect(windowsOnlyHint("node", ["/c"], "linux")).toBe("");
  });

  it("6. uvx and 7. docker servers, the token passed by name", () => {
    const { c } = load({
      ".mcp.json": JSON.stringify({
        mcpServers: {
          git: { command: "uvx", args: ["mcp-server-git", "--repository", "."] },
          gh: { command: "docker", args: ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/example/github-mcp-server"], env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_PAT}" } },
        },
      }),
    });
    expect(c.problems).toEqual([]);
    expect(byName(c).git).toMatchObject({ command: "uvx", args: ["mcp-server-git", "--repository", "."] });
    expect(byName(c).gh).toMatchObject({ command: "docker", env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_example" } });
  });

  it("8. Cline/Kiro style entries: `disabled: true` leaves the server out, `disabled: false` + an empty `autoApprove` load with no note", () => {
    const { c } = load({
      ".mcp.json": `{
  "mcpServers": {
    "on": { "command": "uvx", "args": ["some-docs-server@latest"], "env": { "FASTMCP_LOG_LEVEL": "ERROR" }, "disabled": false, "autoApprove": [] },
    "off": { "command": "uvx", "args": ["other-server"], "disabled": true, "autoApprove": [] }
  }
}`,
    });
    expect(c.servers.map((s) => s.name)).toEqual(["on"]);
    expect(c.problems).toEqual([]);
  });

  it("9. `autoApprove` naming tools: loaded, with a note at its line giving the permission rule that does it in Yoke", () => {
    const { c, at } = load({
      ".mcp.json": `{
  "mcpServers": {
    "jira": {
      "command": "node",
      "args": ["./tools/jira-server/index.js"],
      "autoApprove": ["search_issues", "get issue"]
    }
  }
}`,
    });
    expect(c.servers.map((s) => s.name)).toEqual(["jira"]);
    expect(c.problems).toEqual([
      {
        server: "jira",
        sourcePath: at(".mcp.json"),
        loaded: true,
        message: `${at(".mcp.json")}:3: MCP server "jira": "autoApprove" is not applied: Yoke asks before MCP tools by its permission rules; to run them without asking, allow them in your own settings: "permissions": { "allow": ["mcp__jira__search_issues","mcp__jira__get_issue"] }`,
      },
    ]);
  });

  it("10. `timeout: 60` (Cline counts seconds): kept as milliseconds, with a note saying so", () => {
    const { c, at } = load({ ".mcp.json": `{"mcpServers":{\n"slow":{"command":"node","args":["s.js"],"timeout":60}}}` });
    expect(byName(c).slow!.timeoutMs).toBe(60);
    expect(messages(c)).toEqual([`${at(".mcp.json")}:2: MCP server "slow": "timeout" is in milliseconds: 60 ms bounds each call (Cline's "timeout" counts seconds: write 60000 for 60 s)`]);
  });

  it('11. `"type": "streamableHttp"` (Cline) and 12. `"streamable-http"`: streamable HTTP without the SSE fall back', () => {
    const { c } = load({
      ".mcp.json": JSON.stringify({ mcpServers: { a: { type: "streamableHttp", url: "http://localhost:8000/mcp" }, b: { type: "streamable-http", url: "http://localhost:8001/mcp" } } }),
    });
    expect(c.problems).toEqual([]);
    expect(byName(c).a).toMatchObject({ transport: "http", fallbackToSse: false });
    expect(byName(c).b).toMatchObject({ transport: "http", fallbackToSse: false });
  });

  it("13. VS Code's `\"servers\"` written in .mcp.json: Claude Code reads none of them, and Yoke says why at the key's line", () => {
    const { c, at } = load({ ".mcp.json": `{\n  "servers": {\n    "x": { "command": "node" }\n  }\n}` });
    expect(c.servers).toEqual([]);
    expect(messages(c)).toEqual([`${at(".mcp.json")}:2: "servers" is VS Code's key (.vscode/mcp.json); this file's servers are read from "mcpServers": none loaded from it`]);
  });

  it("14. comments, a commented-out entry after a trailing comma, and trailing commas", () => {
    const { c } = load({
      ".mcp.json": `{
  // project servers
  "mcpServers": {
    "a": { "command": "node", "args": ["a.js",], },
    // "b": { "command": "node", "args": ["b.js"] },
  },
}`,
    });
    expect(c.problems).toEqual([]);
    expect(c.servers.map((s) => s.name)).toEqual(["a"]);
  });

  it("15. a syntax error: the file's line and column, nothing of it loaded, other files still load", () => {
    const { c, at } = load({
      ".mcp.json": `{\n  "mcpServers": {\n    "a": { "command": "node" }\n    "b": { "command": "node" }\n  }\n}`,
      "~/.cursor/mcp.json": `{"mcpServers":{"mine":{"command":"mine"}}}`,
    });
    expect(c.servers.map((s) => s.name)).toEqual(["mine"]);
    expect(messages(c)).toEqual([`${at(".mcp.json")}:4:5: not valid JSON: unexpected "\\"b\\"" (a comma was expected)`]);
  });

  it("16. an unset variable without a default: that server only, at its line (Claude Code refuses it too)", () => {
    const { c, at } = load({ ".mcp.json": `{"mcpServers":{\n"ok":{"command":"node"},\n"needs":{"type":"http","url":"https://mcp.example.com","headers":{"X-Key":"\${NOT_SET_ANYWHERE}"}}}}` });
    expect(c.servers.map((s) => s.name)).toEqual(["ok"]);
    expect(messages(c)).toEqual([`${at(".mcp.json")}:3: MCP server "needs": the environment variable NOT_SET_ANYWHERE is not set (\${NOT_SET_ANYWHERE})`]);
  });
});

describe("VS Code's .vscode/mcp.json and profile mcp.json", () => {
  it("17. a password input in a header and 18. a pickString input in args (the CLI answers from YOKE_MCP_INPUT_<ID>)", () => {
    const { c } = load({
      ".vscode/mcp.json": `{
  "inputs": [
    { "type": "promptString", "id": "api-token", "description": "API token", "password": true },
    { "type": "pickString", "id": "region", "description": "Region", "options": ["us-east-1", "eu-west-1"], "default": "us-east-1" }
  ],
  "servers": {
    "svc": { "type": "http", "url": "https://svc.example.com/mcp", "headers": { "Authorization": "Bearer \${input:api-token}" } },
    "cloud": { "type": "stdio", "command": "npx", "args": ["-y", "cloud-mcp", "--region", "\${input:region}"] }
  }
}`,
    });
    expect(c.problems).toEqual([]);
    expect(byName(c).svc).toMatchObject({ headers: { Authorization: "Bearer from-input" }, workspace: true, source: "vscode-mcp-json" });
    expect(byName(c).cloud).toMatchObject({ args: ["-y", "cloud-mcp", "--region", "eu-west-1"] });
  });

  it("19. a `dev` block and ${workspaceFolder} in command, args and cwd: substituted; `dev` is a note", () => {
    const { c, ws, at } = load({
      ".vscode/mcp.json": `{
  "servers": {
    "local": {
      "type": "stdio",
      "command": "\${workspaceFolder}/.venv/bin/python",
      "args": ["\${workspaceFolder}/mcp_server/server.py"],
      "cwd": "\${workspaceFolder}",
      "env": { "PYTHONUTF8": "1" },
      "dev": { "watch": "mcp_server/**/*.py", "debug": { "type": "debugpy" } }
    }
  }
}`,
    });
    expect(byName(c).local).toMatchObject({ command: `${ws}/.venv/bin/python`, args: [`${ws}/mcp_server/server.py`], cwd: ws, env: { PYTHONUTF8: "1" } });
    expect(c.problems).toEqual([
      expect.objectContaining({
        loaded: true,
        message: expect.stringMatching(new RegExp(`^${at(".vscode/mcp.json").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:3: MCP server "local": "dev" is not used`)),
      }),
    ]);
  });

  it("20. `envFile` at ${workspaceFolder}/.env: its variables under `env` (env wins)", () => {
    const { c } = load({
      ".env": "# local secrets\nAPI_KEY=abc123\nexport REGION=eu\nMODE='from file'\n",
      ".vscode/mcp.json": `{"servers":{"e":{"command":"node","args":["s.js"],"envFile":"\${workspaceFolder}/.env","env":{"MODE":"from env"}}}}`,
    });
    expect(c.problems).toEqual([]);
    expect((byName(c).e as { env: Record<string, string> }).env).toEqual({ API_KEY: "abc123", REGION: "eu", MODE: "from env" });
  });

  it("21. an sse server with ${env:X} in a header", () => {
    const { c } = load({ ".vscode/mcp.json": `{"servers":{"lin":{"type":"sse","url":"https://mcp.example.org/sse","headers":{"Authorization":"Bearer \${env:LINEAR_TOKEN}"}}}}` });
    expect(byName(c).lin).toMatchObject({ transport: "sse", headers: { Authorization: "Bearer lin_tok" } });
  });

  it('22. `"sandboxEnabled": true`: not started (Yoke has no sandbox for MCP servers), said at its line', () => {
    const { c, at } = load({ ".vscode/mcp.json": `{\n "servers": {\n  "boxed": { "command": "npx", "args": ["-y", "x"], "sandboxEnabled": true }\n }\n}` });
    expect(c.servers).toEqual([]);
    expect(messages(c)).toEqual([
      `${at(".vscode/mcp.json")}:3: MCP server "boxed": "sandboxEnabled": true asks for VS Code's MCP sandbox; Yoke runs MCP servers outside any sandbox (docs/mcp.md), so it is not started: remove the key to run it unconfined`,
    ]);
  });

  it("23. ${userHome} and ${pathSeparator} in args", () => {
    const { c, home } = load({ ".vscode/mcp.json": `{"servers":{"h":{"command":"node","args":["\${userHome}\${pathSeparator}mcp\${/}server.js"]}}}` });
    expect(byName(c).h).toMatchObject({ args: [`${home}/mcp/server.js`] });
  });

  it("24. ${input:id} with no `inputs` entry: that server's problem", () => {
    const { c, at } = load({ ".vscode/mcp.json": `{"servers":{"k":{"command":"node","env":{"K":"\${input:missing-key}"}}}}` });
    expect(c.servers).toEqual([]);
    expect(messages(c)).toEqual([`${at(".vscode/mcp.json")}:1: MCP server "k": \${input:missing-key} names no entry of "inputs"`]);
  });

  it("25. gallery entries (`gallery`, `version`, `description`) load with no note", () => {
    const { c } = load({
      "~/.config/Code/User/mcp.json": `{"servers":{"io.example/server":{"type":"stdio","command":"npx","args":["example-server@1.2.0"],"gallery":"https://api.mcp.example/v0","version":"1.2.0","description":"An example"}},"inputs":[]}`,
    });
    expect(c.problems).toEqual([]);
    expect(byName(c)["io.example/server"]).toMatchObject({ source: "vscode-user-mcp-json", workspace: false });
  });

  it("26. VS Code's ${env:X} of an unset variable is empty there; Yoke refuses the server instead (never an empty token)", () => {
    const { c, at } = load({ ".vscode/mcp.json": `{"servers":{"t":{"type":"http","url":"https://x.example/mcp","headers":{"Authorization":"Bearer \${env:NO_SUCH_TOKEN}"}}}}` });
    expect(c.servers).toEqual([]);
    expect(messages(c)).toEqual([`${at(".vscode/mcp.json")}:1: MCP server "t": the environment variable NO_SUCH_TOKEN is not set (\${env:NO_SUCH_TOKEN})`]);
  });
});

describe("Cursor's files", () => {
  it("27. .cursor/mcp.json: a url with no type (streamable HTTP, SSE fall back) and ${env:} headers; the repository's (approval needed)", () => {
    const { c } = load({ ".cursor/mcp.json": `{"mcpServers":{"db":{"url":"https://studio.example.com/api/mcp","headers":{"Authorization":"Bearer \${env:GITHUB_PAT}"}}}}` });
    expect(byName(c).db).toMatchObject({ transport: "http", fallbackToSse: true, workspace: true, source: "cursor-mcp-json", headers: { Authorization: "Bearer ghp_example" } });
  });

  it("28. ${workspaceFolderBasename} and a Cursor `auth` block (a note: Claude Code's `oauth` is what Yoke reads)", () => {
    const { c } = load({
      ".cursor/mcp.json": `{"mcpServers":{"p":{"command":"node","args":["srv.js","--project","\${workspaceFolderBasename}"]},"o":{"url":"https://o.example/mcp","auth":{"CLIENT_ID":"abc","scopes":["read"]}}}}`,
    });
    expect(byName(c).p).toMatchObject({ args: ["srv.js", "--project", "my-project"] });
    expect(byName(c).o).toMatchObject({ transport: "http" });
    expect(messages(c)).toEqual([expect.stringContaining('MCP server "o": "auth" is not applied (Cursor\'s key): write Claude Code\'s "oauth": { "clientId", "callbackPort", "scopes" }')]);
  });

  it("29. ~/.cursor/mcp.json is your own (no approval)", () => {
    const { c } = load({ "~/.cursor/mcp.json": `{"mcpServers":{"mine":{"command":"npx","args":["-y","mcp-remote","https://x.example/sse"]}}}` });
    expect(byName(c).mine).toMatchObject({ workspace: false, source: "cursor-user-mcp-json" });
  });
});

describe("~/.claude.json (user and local scopes)", () => {
  it("30. user-scope mcpServers and this project's entry (written with a trailing slash); another project's entry is not read", () => {
    const { c, at } = load({
      "~/.claude.json": `{
  "numStartups": 12,
  "mcpServers": {
    "everywhere": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-sequential-thinking"], "env": {} }
  },
  "projects": {
    "/somewhere/else": { "mcpServers": { "other": { "command": "no" } } },
    "@WS@/": {
      "allowedTools": [],
      "mcpServers": {
        "mine-here": { "type": "http", "url": "http://127.0.0.1:9000/mcp" }
      }
    }
  }
}`,
    });
    expect(c.problems).toEqual([]);
    expect(c.servers.map((s) => [s.name, s.source, s.workspace, s.sourceLine])).toEqual([
      ["everywhere", "claude-user", false, 4],
      ["mine-here", "claude-local", false, 11],
    ]);
    expect(c.servers[0]!.sourcePath).toBe(at("~/.claude.json"));
  });

  it("31. the local scope beats the project's .mcp.json, which beats the user scope (Claude Code's order)", () => {
    const { c } = load({
      "~/.claude.json": JSON.stringify({ mcpServers: { s: { command: "user" }, u: { command: "user-only" } }, projects: { "@WS@": { mcpServers: { s: { command: "local" } } } } }),
      ".mcp.json": JSON.stringify({ mcpServers: { s: { command: "project" }, u: { command: "project-u" } } }),
    });
    expect(byName(c).s).toMatchObject({ command: "local", source: "claude-local" });
    expect(byName(c).u).toMatchObject({ command: "project-u", source: "workspace-mcp-json" });
  });
});

describe("Yoke's settings and keys that belong to other transports or tools", () => {
  it("32. ~/.yoke/settings.json with startOnSessionStart", () => {
    const { c } = load({ "~/.yoke/settings.json": `{ "mcpServers": { "early": { "command": "node", "args": ["s.js"], "startOnSessionStart": true } } }` });
    expect(byName(c).early).toMatchObject({ startAtSessionStart: true, workspace: false, source: "user-settings" });
  });

  it("33. `env` on a url server and 34. `headers` on a command server: loaded, each key a note", () => {
    const { c } = load({ ".mcp.json": `{"mcpServers":{\n"r":{"type":"http","url":"https://r.example/mcp","env":{"A":"1"}},\n"l":{"command":"node","headers":{"X":"1"}}}}` });
    expect(c.servers.map((s) => s.name)).toEqual(["r", "l"]);
    expect(messages(c)).toEqual([
      expect.stringMatching(/:2: MCP server "r": "env" is not used: it applies to servers that run a command, and this one is reached by URL$/),
      expect.stringMatching(/:3: MCP server "l": "headers" is not used: it applies to HTTP and SSE servers, and this one runs a command$/),
    ]);
  });

  it("35. another tool's key Yoke does not know (Gemini CLI's `trust`): a note, the server loads", () => {
    const { c } = load({ ".mcp.json": `{"mcpServers":{"g":{"command":"node","trust":true}}}` });
    expect(byName(c).g).toBeDefined();
    expect(messages(c)).toEqual([expect.stringMatching(/:1: MCP server "g": "trust" is not a key Yoke reads \(ignored\)$/)]);
  });

  it("35b. Claude Code's `headersHelper` and `oauth` (session 21): read, part of what is approved, no note; a secret in the file is not read", () => {
    const { c } = load({
      ".mcp.json": `{"mcpServers":{"h":{"type":"http","url":"https://h.example/mcp","headersHelper":"/opt/bin/get-headers.sh","oauth":{"clientId":"yoke-app","callbackPort":8080,"scopes":"read write","authServerMetadataUrl":"https://auth.example/.well-known/openid-configuration","clientSecret":"s3cr3t"}}}}`,
    });
    const h = byName(c).h as McpRemoteServer;
    expect(h).toMatchObject({
      headersHelper: "/opt/bin/get-headers.sh",
      oauth: { clientId: "yoke-app", callbackPort: 8080, scopes: "read write", authServerMetadataUrl: "https://auth.example/.well-known/openid-configuration" },
    });
    expect(JSON.stringify(h)).not.toContain("s3cr3t");
    expect(messages(c)).toEqual([expect.stringMatching(/MCP server "h": "oauth.clientSecret" is not read from a file .*yoke mcp login NAME --client-secret/)]);
    expect(describeDefinition(h)).toContain(`running the command "/opt/bin/get-headers.sh" on your machine at each connection for its headers`);
    expect(describeDefinition(h)).toContain("signing in through the authorization server described at https://auth.example/.well-known/openid-configuration");
    // The helper is part of the approved definition: another helper asks again.
    expect(definitionKey(h)).not.toBe(definitionKey({ ...h, headersHelper: "/opt/bin/other.sh" }));
    // A server without them keeps the key an earlier approval was given under.
    const { headersHelper: _h, oauth: _o, ...bare } = h;
    expect(definitionKey(bare)).toBe(JSON.stringify({ name: "h", transport: "http", url: "https://h.example/mcp", headers: {} }));
  });

  it("35d. a `headersHelper` is taken as written: `${VAR}` is left to its shell (never put into its command line or the approval by Yoke)", () => {
    const { c } = load({ ".mcp.json": `{"mcpServers":{"h":{"type":"http","url":"https://h.example/mcp","headersHelper":"get-token --for \${GITHUB_PAT}"}}}` });
    const h = byName(c).h as McpRemoteServer;
    expect(h.headersHelper).toBe("get-token --for ${GITHUB_PAT}");
    expect(describeDefinition(h)).not.toContain("ghp_example");
  });

  it("35c. bad `headersHelper` / `oauth` values: that server's problem, said clearly", () => {
    const { c } = load({
      ".mcp.json": `{"mcpServers":{"a":{"url":"https://a.example/mcp","headersHelper":42},"b":{"url":"https://b.example/mcp","oauth":{"callbackPort":70000}},"d":{"url":"https://d.example/mcp","oauth":{"authServerMetadataUrl":"http://auth.example/meta"}},"e":{"command":"node","headersHelper":"x"}}}`,
    });
    expect(c.servers.map((s) => s.name)).toEqual(["e"]);
    const m = messages(c).join("\n");
    expect(m).toContain(`MCP server "a": "headersHelper" must be a command (a string)`);
    expect(m).toContain(`MCP server "b": "oauth.callbackPort" must be a port number (1-65535)`);
    expect(m).toContain(`MCP server "d": "oauth.authServerMetadataUrl" must use https (http only on a loopback host)`);
    expect(m).toContain(`MCP server "e": "headersHelper" is not used: it applies to HTTP and SSE servers`);
  });

  it("36. a missing envFile: that server's problem at its line", () => {
    const { c, at } = load({ ".vscode/mcp.json": `{"servers":{\n"e":{"command":"node","envFile":".env.local"}}}` });
    expect(c.servers).toEqual([]);
    expect(messages(c)).toEqual([`${at(".vscode/mcp.json")}:2: MCP server "e": its envFile ${at(".vscode/.env.local")} does not exist`]);
  });

  it('37. Cline\'s older `"transportType": "sse"` is read as `type`', () => {
    const { c } = load({ ".mcp.json": `{"mcpServers":{"s":{"transportType":"sse","url":"http://127.0.0.1:3001/sse"}}}` });
    expect(c.problems).toEqual([]);
    expect(byName(c).s).toMatchObject({ transport: "sse" });
  });

  it("38. a `websocket` type: that server's problem, naming the types there are", () => {
    const { c } = load({ ".mcp.json": `{"mcpServers":{"w":{"type":"websocket","url":"ws://127.0.0.1:9/"}}}` });
    expect(c.servers).toEqual([]);
    expect(messages(c)).toEqual([expect.stringMatching(/:1: MCP server "w": unknown "type": "websocket" \(use "stdio", "http" or "sse"\)$/)]);
  });

  it("39. a set-but-empty variable with a default takes the default (Claude Code's ${VAR:-default})", () => {
    const { c } = load({ ".mcp.json": `{"mcpServers":{"d":{"command":"node","env":{"LEVEL":"\${EMPTY_ONE:-info}"}}}}` });
    expect(byName(c).d).toMatchObject({ env: { LEVEL: "info" } });
  });

  it("40. every file at once: one list, each server from its own file, in precedence order", () => {
    const { c } = load({
      "~/.claude.json": `{"mcpServers":{"a":{"command":"a"}}}`,
      "~/.cursor/mcp.json": `{"mcpServers":{"b":{"command":"b"}}}`,
      "~/.config/Code/User/mcp.json": `{"servers":{"c":{"command":"c"}}}`,
      "~/.yoke/settings.json": `{"mcpServers":{"d":{"command":"d"}}}`,
      ".yoke/settings.json": `{"mcpServers":{"e":{"command":"e"}}}`,
      ".cursor/mcp.json": `{"mcpServers":{"f":{"command":"f"}}}`,
      ".vscode/mcp.json": `{"servers":{"g":{"command":"g"}}}`,
      ".mcp.json": `{"mcpServers":{"h":{"command":"h"}}}`,
    });
    expect(c.problems).toEqual([]);
    expect(c.servers.map((s) => [s.name, s.source, s.workspace])).toEqual([
      ["a", "claude-user", false],
      ["b", "cursor-user-mcp-json", false],
      ["c", "vscode-user-mcp-json", false],
      ["d", "user-settings", false],
      ["e", "workspace-settings", true],
      ["f", "cursor-mcp-json", true],
      ["g", "vscode-mcp-json", true],
      ["h", "workspace-mcp-json", true],
    ]);
  });
});
