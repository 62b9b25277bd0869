import { describe, expect, it } from "vitest";
import { definitionKey, describeDefinition, describeServer, expandVariables, parseMcpConfig, type McpSourceFile } from "../../../src/core/mcp/config";

const ctx = { workspaceFolder: "/ws/proj", home: "/home/u", env: { API_KEY: "k-123", EMPTY: "", HOME: "/home/u" } as Record<string, string | undefined> };
const file = (kind: McpSourceFile["kind"], text: string, path = `/ws/proj/${kind}`): McpSourceFile => ({ kind, path, text });

describe("MCP configuration files", () => {
  it("reads Claude Code's .mcp.json shapes: stdio with env, http and sse with headers, ${VAR:-default}", () => {
    const { servers, problems } = parseMcpConfig(
      [
        file(
          "workspace-mcp-json",
          JSON.stringify({
            mcpServers: {
              "shared-server": { command: "/path/to/server", args: [], env: {} },
              filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "${workspaceFolder}/src"] },
              "api-server": { type: "sse", url: "${API_BASE_URL:-https://api.example.com}/mcp", headers: { Authorization: "Bearer ${API_KEY}" } },
              github: { type: "http", url: "https://api.githubcopilot.com/mcp/", headers: { Authorization: "Bearer ${env:API_KEY}" } },
              py: { type: "stdio", command: "uvx", args: ["mcp-server-git", "--repository", "."], cwd: "tools", env: { DEBUG: 1 } },
            },
          }),
        ),
      ],
      ctx,
    );
    expect(problems).toEqual([]);
    const by = Object.fromEntries(servers.map((s) => [s.name, s]));
    expect(by["shared-server"]).toMatchObject({ transport: "stdio", command: "/path/to/server", args: [], workspace: true, source: "workspace-mcp-json" });
    expect(by.filesystem).toMatchObject({ args: ["-y", "@modelcontextprotocol/server-filesystem", "/ws/proj/src"] });
    expect(by["api-server"]).toMatchObject({ transport: "sse", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer k-123" }, fallbackToSse: false });
    expect(by.github).toMatchObject({ transport: "http", fallbackToSse: true, headers: { Authorization: "Bearer k-123" } });
    expect(by.py).toMatchObject({ cwd: "tools", env: { DEBUG: "1" } });
  });

  it("reads VS Code's .vscode/mcp.json: JSONC, `servers`, `inputs` answered by the host, unanswered inputs a clear problem", () => {
    const text = `{
      // Inputs are prompted on first server start
      "inputs": [ { "type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true }, ],
      "servers": {
        "Perplexity": { "type": "stdio", "command": "npx", "args": ["-y", "server-perplexity-ask"], "env": { "PERPLEXITY_API_KEY": "\${input:perplexity-key}" } },
        /* a remote one */
        "fetch": { "type": "http", "url": "http://localhost:3000/mcp", },
      },
    }`;
    const answered = parseMcpConfig([file("vscode-mcp-json", text)], { ...ctx, input: (spec) => (spec.id === "perplexity-key" && spec.password ? "pplx-1" : undefined) });
    expect(answered.problems).toEqual([]);
    expect(answered.servers.find((s) => s.name === "Perplexity")).toMatchObject({ env: { PERPLEXITY_API_KEY: "pplx-1" }, workspace: true });
    const unanswered = parseMcpConfig([file("vscode-mcp-json", text)], ctx);
    expect(unanswered.servers.map((s) => s.name)).toEqual(["fetch"]);
    expect(unanswered.problems).toEqual([expect.objectContaining({ server: "Perplexity", message: expect.stringContaining("no value for ${input:perplexity-key} (Perplexity API Key)") })]);
  });

  it("a bad entry is a problem of that server only; a broken file a problem of that file", () => {
    const { servers, problems } = parseMcpConfig(
      [
        file(
          "user-settings",
          JSON.stringify({
            mcpServers: {
              ok: { command: "a" },
              noCmd: { args: ["x"] },
              badType: { type: "websocket", url: "ws://x" },
              badUrl: { type: "http", url: "not a url" },
              unset: { command: "b", env: { T: "${NOPE}" } },
              num: 3,
            },
          }),
        ),
        file("workspace-settings", "{ not json"),
        file("workspace-mcp-json", JSON.stringify({ mcpServers: [] })),
      ],
      ctx,
    );
    expect(servers.map((s) => s.name)).toEqual(["ok"]);
    const msg = (name: string) => problems.find((p) => p.server === name)?.message;
    expect(msg("noCmd")).toContain('needs a "command" (a stdio server) or a "url" (an HTTP server)');
    expect(msg("badType")).toContain('unknown "type": "websocket"');
    expect(msg("badUrl")).toContain('"url" is not a URL');
    expect(msg("unset")).toContain("the environment variable NOPE is not set");
    expect(msg("num")).toContain("must be an object");
    expect(problems.some((p) => p.server === undefined && p.message.includes("not valid JSON"))).toBe(true);
    expect(problems.some((p) => p.message.includes('"mcpServers" must be an object'))).toBe(true);
  });

  it("a later file's server of the same name replaces an earlier one (and takes its source)", () => {
    const { servers } = parseMcpConfig(
      [file("user-settings", JSON.stringify({ mcpServers: { x: { command: "user" } } })), file("workspace-mcp-json", JSON.stringify({ mcpServers: { x: { command: "repo" } } }))],
      ctx,
    );
    expect(servers).toEqual([expect.objectContaining({ command: "repo", workspace: true })]);
  });

  it("expands ${env:VAR}, ${VAR}, ${VAR:-default}, ${workspaceFolder}; an empty variable is kept when no default is given", () => {
    const inputs = new Map();
    expect(expandVariables("${env:API_KEY}|${API_KEY}|${MISSING:-dflt}|${EMPTY:-e}|${EMPTY}|${workspaceFolder}|${userHome}", ctx, inputs)).toBe("k-123|k-123|dflt|e||/ws/proj|/home/u");
    expect(() => expandVariables("${env:MISSING}", ctx, inputs)).toThrow("the environment variable MISSING is not set");
    expect(() => expandVariables("${command:pick}", ctx, inputs)).toThrow("unknown variable ${command:pick}");
  });

  it("the approval key covers the full definition; the description shows the command line or URL", () => {
    const [a] = parseMcpConfig([file("workspace-mcp-json", JSON.stringify({ mcpServers: { s: { command: "node", args: ["server.js"] } } }))], ctx).servers;
    const [b] = parseMcpConfig([file("workspace-mcp-json", JSON.stringify({ mcpServers: { s: { command: "node", args: ["server.js", "--evil"] } } }))], ctx).servers;
    const [c] = parseMcpConfig([file("workspace-mcp-json", JSON.stringify({ mcpServers: { s: { command: "node", args: ["server.js"], env: { X: "1" } } } }))], ctx).servers;
    expect(definitionKey(a!)).not.toBe(definitionKey(b!));
    expect(definitionKey(a!)).not.toBe(definitionKey(c!));
    expect(describeServer(b!)).toBe("node server.js --evil");
  });
});

it("what an approval shows of a stdio server: the command line, its folder and every variable of its environment (red team 16)", () => {
  const file: McpSourceFile = {
    kind: "workspace-mcp-json",
    path: "/w/.mcp.json",
    text: JSON.stringify({
      mcpServers: { s: { command: "npx", args: ["-y", "some-server"], cwd: "/w/tools", env: { PATH: "/w/bin:/usr/bin", NODE_OPTIONS: "--require ./x.js", LONG: "v".repeat(300) } } },
    }),
  };
  const [srv] = parseMcpConfig([file], { workspaceFolder: "/w", home: "/h", env: {} }).servers;
  expect(describeServer(srv!)).toBe("npx -y some-server");
  expect(describeDefinition(srv!)).toBe(`npx -y some-server, in /w/tools, with the environment LONG="${"v".repeat(200)}…" NODE_OPTIONS="--require ./x.js" PATH="/w/bin:/usr/bin"`);
  const hiding: McpSourceFile = {
    kind: "workspace-mcp-json",
    path: "/w/.mcp.json",
    text: JSON.stringify({ mcpServers: { h: { command: "node", args: ["s.js"], env: { BASH_ENV: "./x.sh", "Z\u001b[2K\r": "1" } } } }),
  };
  expect(describeDefinition(parseMcpConfig([hiding], { workspaceFolder: "/w", home: "/h", env: {} }).servers[0]!)).toBe('node s.js, with the environment BASH_ENV="./x.sh" "Z\\u001b[2K\\r"="1"');
  const plain: McpSourceFile = { kind: "workspace-mcp-json", path: "/w/.mcp.json", text: JSON.stringify({ mcpServers: { p: { command: "node", args: ["s.js"] } } }) };
  expect(describeDefinition(parseMcpConfig([plain], { workspaceFolder: "/w", home: "/h", env: {} }).servers[0]!)).toBe("node s.js");
});

it("what an approval shows of a remote server: its headers as written and the environment variables it is sent, never their values (red team 17-host)", () => {
  const file: McpSourceFile = {
    kind: "workspace-mcp-json",
    path: "/w/.mcp.json",
    text: JSON.stringify({
      mcpServers: {
        r: { type: "http", url: "https://mcp.example.com/mcp?k=${env:API_K}", headers: { "X-Client": "yoke ${GITHUB_TOKEN}", "Z\u001b[2K": "${MISSING:-x}" } },
        bare: { type: "sse", url: "https://mcp.example.com/sse" },
      },
    }),
  };
  const { servers } = parseMcpConfig([file], { workspaceFolder: "/w", home: "/h", env: { GITHUB_TOKEN: "ghp_secret", API_K: "k-secret" } });
  const r = servers.find((s) => s.name === "r")!;
  expect(describeDefinition(r)).toBe(
    'HTTP https://mcp.example.com/mcp?k=k-secret, with the headers X-Client: "yoke ${GITHUB_TOKEN}" "Z\\u001b[2K": "${MISSING:-x}", sending it your environment\'s API_K, GITHUB_TOKEN, MISSING',
  );
  expect(describeDefinition(r)).not.toContain("ghp_secret");
  expect(describeDefinition(servers.find((s) => s.name === "bare")!)).toBe("SSE https://mcp.example.com/sse");
});
