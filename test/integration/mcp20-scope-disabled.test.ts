// Issue 22, open from session 19: a higher scope's `"disabled": true` did not hide a lower scope's
// server of the same name. Claude Code's documented rule: when a name is defined in several scopes,
// the highest scope's entry is the whole definition (local > project > user); an entry that is off
// leaves the name off. Through the built CLI: `yoke mcp list` and a session with a real server.
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { EVERYTHING } from "../support/mcp-fixtures";
import { scriptedRunArgs } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

type Row = { name: string; state: string };
const list = async (cwd: string, home: string) => {
  const r = await runCli(["mcp", "list", "--json", "--cwd", cwd], { env: { HOME: home, XDG_CONFIG_HOME: undefined } });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { servers: Row[]; problems: { message: string }[] };
};

it("~/.claude.json's local scope turns off a server the project's .mcp.json defines: not listed, the reason said; the project's other server is", async () => {
  const { cwd, home } = createWorkspaceWithHome("yoke-mcp20-off-", {}, temps, { realpath: true });
  const def = { command: process.execPath, args: [EVERYTHING, "stdio"] };
  writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { github: def, other: def } }));
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ projects: { [cwd]: { mcpServers: { github: { ...def, disabled: true } } } } }));
  const out = await list(cwd, home);
  expect(out.servers.map((s) => s.name)).toEqual(["other"]);
  expect(out.problems.map((p) => p.message).join("\n")).toMatch(/MCP server "github": turned off here, so the server of that name in .*\.mcp\.json \(workspace-mcp-json\) is not started either/);
}, 60_000);

it("~/.yoke/settings.json turns off the person's ~/.claude.json user-scope server of that name: a session never starts it nor offers its tools; the control server is", async () => {
  const marker = `--yoke-test=mcp20-off-${process.pid}-${Date.now()}`;
  const { cwd, home } = createWorkspaceWithHome(
    "yoke-mcp20-off-",
    {
      "~/.claude.json": JSON.stringify({
        mcpServers: { github: { command: process.execPath, args: [EVERYTHING, "stdio", marker] }, kept: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      }),
      "~/.yoke/settings.json": JSON.stringify({ mcpServers: { github: { command: "unused", disabled: true } }, permissions: { allow: ["mcp__kept"] } }),
    },
    temps,
    { realpath: true },
  );
  const running = () =>
    readdirSync("/proc").filter((p) => {
      try {
        return /^\d+$/.test(p) && readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    });
  let seenDuring: string[] = ["not asked"];
  let n = 0;
  const llm = await startScriptedLlmServer({
    script: () => {
      seenDuring = running();
      return n++ === 0 ? { toolCalls: [{ name: "mcp__kept__echo", input: { message: "kept" } }] } : { text: "done" };
    },
  });
  try {
    const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions")), "go"], { env: { HOME: home, XDG_CONFIG_HOME: undefined } });
    expect(r.code, r.stderr).toBe(0);
    const names = ((llm.requests[0]!.body.tools as { function: { name: string } }[]) ?? []).map((t) => t.function.name);
    expect(names).toContain("mcp__kept__echo");
    expect(names.filter((x) => x.startsWith("mcp__github__"))).toEqual([]);
    expect(seenDuring).toEqual([]);
    const out = await list(cwd, home);
    expect(out.servers.map((s) => s.name)).toEqual(["kept"]);
  } finally {
    await llm.close();
  }
}, 120_000);
