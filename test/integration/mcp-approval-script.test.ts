// A workspace MCP server's approval covers the workspace files its command line names
// (`node server.cjs`): the person approved the script as it was. Before, only the command line was
// approved, so a script rewritten after the approval (by the agent, by a pull) ran at the next
// start on the host, outside any sandbox (red team Y, session 21). Real CLI, real stdio server.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, repoRoot, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

type Row = { name: string; state: string; detail?: string };

describe("a workspace MCP server's approval covers the scripts its command line names", () => {
  it("a rewritten script is not started until approved again; other workspace files and user servers are untouched", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-mcp-script-"));
    temps.push(base);
    const cwd = join(base, "ws");
    const home = join(base, "home");
    mkdirSync(join(cwd, "tools"), { recursive: true });
    mkdirSync(home, { recursive: true });
    const marker = join(base, "planted-ran");
    const probe = join(repoRoot, "test/support/mcp-probe-server.cjs");
    writeFileSync(join(cwd, "tools", "server.cjs"), `require(${JSON.stringify(probe)});\n`);
    writeFileSync(join(cwd, "README.md"), "notes\n");
    mkdirSync(join(home, ".yoke"), { recursive: true });
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ permissions: { allow: ["mcp__local"] } }));
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { local: { command: "node", args: ["tools/server.cjs", `approval-script-${process.pid}`] } } }));
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const list = async (): Promise<Row> => {
      const r = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { servers: Row[] }).servers.find((s) => s.name === "local")!;
    };

    // What the model got back from one call of the server's tool in a real `yoke run`.
    let round = 0;
    const call = async (): Promise<string> => {
      const llm = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "mcp__local__lines", input: { n: 1 } }] }, { text: "done" }] });
      try {
        const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, `sessions-${round++}`)), "use the tool"], { env });
        expect(r.code, r.stderr).toBe(0);
        const last = llm.requests[llm.requests.length - 1]!.body.messages as { role: string; content?: unknown }[];
        return String(last.find((m) => m.role === "tool")?.content ?? "");
      } finally {
        await llm.close();
      }
    };

    expect((await list()).state).toBe("not_approved");
    const approve = await runCli(["mcp", "approve", "local", "--cwd", cwd], { env });
    expect(approve.code, approve.stderr).toBe(0);
    expect(await call()).toMatch(/^line 1 of 1:/);
    // A file the command line does not name changes nothing.
    appendFileSync(join(cwd, "README.md"), "more\n");
    expect(await call()).toMatch(/^line 1 of 1:/);

    // The script is rewritten after the approval: the new code is not run, and the person is told why.
    writeFileSync(join(cwd, "tools", "server.cjs"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\nrequire(${JSON.stringify(probe)});\n`);
    const changed = await list();
    expect(changed.state).toBe("not_approved");
    expect(changed.detail).toMatch(/workspace files it runs changed/);
    expect(await call()).not.toMatch(/line 1 of 1/);
    expect(existsSync(marker), "the rewritten script ran before being approved again").toBe(false);

    // Approved again as it is now, it runs.
    expect((await runCli(["mcp", "approve", "local", "--cwd", cwd], { env })).code).toBe(0);
    expect(await call()).toMatch(/^line 1 of 1:/);
    expect(existsSync(marker)).toBe(true);

    // Red team Z: the script rewritten in the session itself, after the start's check and before the
    // server's first use (its tools come from the cache: it starts at the first call), is not started.
    const late = join(base, "late-ran");
    const llm = await startScriptedLlmServer({
      script: [
        { toolCalls: [{ name: "read_file", input: { path: "tools/server.cjs" } }] },
        {
          toolCalls: [{ name: "write_file", input: { path: "tools/server.cjs", content: `require("node:fs").writeFileSync(${JSON.stringify(late)}, "ran");\nrequire(${JSON.stringify(probe)});\n` } }],
        },
        { toolCalls: [{ name: "mcp__local__lines", input: { n: 1 } }] },
        { text: "done" },
      ],
    });
    try {
      const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions-late")), "--permission-mode", "acceptEdits", "use the tool"], { env });
      expect(r.code, r.stderr).toBe(0);
      const last = llm.requests[llm.requests.length - 1]!.body.messages as { role: string; content?: unknown }[];
      const results = last.filter((m) => m.role === "tool").map((m) => String(m.content));
      expect(results[1]).not.toMatch(/refused|error|denied/i);
      expect(results[2]).toMatch(/workspace files it runs changed/);
    } finally {
      await llm.close();
    }
    expect(existsSync(late), "a script rewritten during the session ran at the server's first use").toBe(false);
  }, 120_000);
});
