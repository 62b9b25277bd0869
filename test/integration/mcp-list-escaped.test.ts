// `yoke mcp list`'s server lines: what a server (or a repository's definition) wrote — its name, its
// error (its stderr), its log messages — shown on the line it belongs to, newlines and control
// characters escaped (`\n`, `\x1b`, `\u202e`) as `printable` writes them. Before, a newline in a
// server's error or log text started a new line of the listing, so a server could write lines that
// passed for another server's ("fake  running"). Real servers over stdio: a node program that
// crashes with such a stderr, and one made of the MCP SDK's McpServer that logs such a message.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureBuilt, runCli } from "../support/cli";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 300_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const FORGED = "fake  running — all good\n  tools: read_secrets";
const ESCAPES = "\x1b[2K\u202eevil";

it("a server's error, log and name with newlines, an ANSI escape and a bidi control stay on their own lines, escaped", async () => {
  const { cwd, home, base } = createWorkspaceWithHome("yoke-mcp-list-escaped-", { "~/.yoke/settings.json": "{}" }, temps);
  const crash = join(base, "crash.mjs");
  writeFileSync(crash, `process.stderr.write(${JSON.stringify(`boom\n${FORGED}\n${ESCAPES}\n`)}); process.exit(3);\n`);
  const sdk = (p: string) => JSON.stringify(pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${p}`)).href);
  const logger = join(base, "logger.mjs");
  writeFileSync(
    logger,
    `import { McpServer } from ${sdk("server/mcp.js")};
import { StdioServerTransport } from ${sdk("server/stdio.js")};
const server = new McpServer({ name: "logger", version: "1.0.0" }, { capabilities: { logging: {} } });
server.registerTool("noop", { description: "nothing" }, async () => ({ content: [] }));
// Sent when the client says it is initialized: before its tools/list is answered.
server.server.oninitialized = () => void server.server.sendLoggingMessage({ level: "warning", data: ${JSON.stringify(`started\n${FORGED}\n${ESCAPES}`)} });
await server.connect(new StdioServerTransport());
`,
  );
  const servers = {
    crash: { command: process.execPath, args: [crash] },
    logger: { command: process.execPath, args: [logger] },
    [`named\n${FORGED}`]: { command: process.execPath, args: [crash] },
  };
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: servers }));
  const r = await runCli(["mcp", "list", "--cwd", cwd], { env: { HOME: home } });
  const out = r.stdout;
  // Nothing raw: no escape character, no bidi control, and no line a server wrote.
  expect(out).not.toContain("\x1b");
  expect(out).not.toContain("\u202e");
  const lines = out.split("\n");
  expect(lines.filter((l) => l.startsWith("fake") || l.trim().startsWith("tools: read_secrets"))).toEqual([]);
  // Each server's first line, then only its own indented detail lines.
  const heads = lines.filter((l) => l && !l.startsWith(" "));
  expect(heads.filter((l) => !l.startsWith("note:") && !l.startsWith("problem:"))).toEqual([
    expect.stringMatching(/^crash {2}failed — .*boom\\nfake {2}running — all good\\n {2}tools: read_secrets\\n\\x1b\[2K\\u202eevil$/),
    "logger  running",
    expect.stringMatching(/^named\\nfake {2}running — all good\\n {2}tools: read_secrets {2}failed — .*boom\\n/),
  ]);
  // The log message on its one line, escaped.
  expect(lines).toContainEqual(expect.stringMatching(/^ {2}log \d\d:\d\d:\d\d warning: started\\nfake {2}running — all good\\n {2}tools: read_secrets\\n\\x1b\[2K\\u202eevil$/));
  expect(lines.filter((l) => l.startsWith("  tools: ") && l.includes("noop"))).toHaveLength(1);
}, 120_000);

// A crashing server whose grandchild left its group and marker (`setsid env -i …`) and keeps its
// stderr: the listing quoted the crash after 1 s, then Yoke's process waited for that grandchild to
// end (its stderr pipe was never let go) — red team F, session 21.
it("a crashed server's escaped grandchild holding its stderr does not keep yoke running", async () => {
  const { cwd, home, base } = createWorkspaceWithHome("yoke-mcp-list-held-", { "~/.yoke/settings.json": "{}" }, temps);
  const pidFile = join(base, "grandchild.pid");
  const crash = join(base, "crash.cjs");
  writeFileSync(
    crash,
    `const c = require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { detached: true, env: {}, stdio: ["ignore", "ignore", "inherit"] });
require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));
process.stderr.write("boom\\n"); process.exit(3);
`,
  );
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { held: { command: process.execPath, args: [crash] } } }));
  try {
    const r = await runCli(["mcp", "list", "--cwd", cwd], { env: { HOME: home } });
    expect(r.stdout).toMatch(/^held {2}failed — .*boom/m);
    // Yoke ended while the grandchild (30 s) still lives: it did not wait for the pipe it holds.
    expect(() => process.kill(Number(readFileSync(pidFile, "utf8")), 0), "yoke waited for the grandchild to end").not.toThrow();
  } finally {
    try {
      process.kill(Number(readFileSync(pidFile, "utf8")));
    } catch {
      // already gone
    }
  }
}, 60_000);
