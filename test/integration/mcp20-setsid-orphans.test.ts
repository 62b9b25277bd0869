// Issue 22 ("nothing orphaned"), open from session 19: a stdio MCP server's process that leaves its
// process group (util-linux `setsid -f`, as daemons do) survived Yoke stopping the server's group.
// Each start now carries a random marker in its environment and a stop ends every process of the
// same uid carrying it (src/node/mcp/processes.ts). A real tiny SDK server that forks a setsid
// grandchild as it starts; the process table checked after a crash (restart), the end of the
// session, SIGTERM and SIGINT of `yoke run`, as root and as the unprivileged user.
import { spawn } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest } from "../../src/demo/types";
import { cliPath, ensureBuilt, type CliResult } from "../support/cli";
import { chownTree, identities, spawnAs, type Identity } from "../support/identities";
import { uniqueTestArg } from "../support/mcp-fixtures";
import { pidsOf } from "../support/processes";
import { scriptedRunArgs } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

const SERVER = join(__dirname, "../support/mcp-setsid-server.cjs");
const sleeperArgv = (t: string) => [process.execPath, "-e", "setInterval(() => {}, 1 << 30)", `sleeper${t}`];

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  // Whatever a failing case left running (this test run's tags only).
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (cmd.includes("--yoke-test=") && cmd.includes(`-${process.pid}-`)) process.kill(Number(name), "SIGKILL");
    } catch {
      // gone
    }
  }
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function workspace(t: string, who: Identity) {
  const settings = { mcpServers: { s: { command: process.execPath, args: [SERVER, t], startOnSessionStart: true } }, permissions: { allow: ["mcp__s"] } };
  const w = createWorkspaceWithHome("yoke-mcp20-setsid-", { "~/.yoke/settings.json": JSON.stringify(settings) }, temps);
  chmodSync(w.base, 0o755);
  chownTree(w.base, who);
  return w;
}

function startCli(who: Identity, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: ["pipe", "pipe", "pipe"], ...spawnAs(who, env) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  child.stdin.end();
  const result = new Promise<CliResult>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return Object.assign(child, { result });
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** The grandchild left the server's group and session (what made it an orphan before). */
function leftTheGroup(sleeper: number, server: number): boolean {
  const fields = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const [s, g] = [fields(sleeper), fields(server)];
  return s[2] !== g[2] && s[3] !== g[3]; // pgrp, session
}

describe.each(identities().list)("a server's setsid grandchild does not outlive it, as $label", (who) => {
  it("a crash (the restart gets a new marker) and the end of the session: the grandchild of each start is gone", async () => {
    const t = uniqueTestArg("end");
    const w = workspace(t, who);
    const seen: { first: number[]; afterCrash: number[]; restarted: number[] } = { first: [], afterCrash: [], restarted: [] };
    let left = false;
    const turns: (() => Promise<ScriptedTurn>)[] = [
      async () => {
        await until(() => pidsOf(sleeperArgv(t)).length === 1, 20_000);
        seen.first = pidsOf(sleeperArgv(t));
        const server = pidsOf([process.execPath, SERVER, t]);
        left = seen.first.length === 1 && server.length === 1 && leftTheGroup(seen.first[0]!, server[0]!);
        return { toolCalls: [{ name: "mcp__s__crash", input: {} }] };
      },
      async () => {
        await until(() => pidsOf(sleeperArgv(t)).length === 0, 10_000);
        seen.afterCrash = pidsOf(sleeperArgv(t));
        return { toolCalls: [{ name: "mcp__s__ping", input: {} }] };
      },
      async () => {
        await until(() => pidsOf(sleeperArgv(t)).length === 1, 20_000);
        seen.restarted = pidsOf(sleeperArgv(t));
        return { text: "done" };
      },
    ];
    let n = 0;
    const script = (_req: RecordedRequest) => turns[n++]?.() ?? { text: "done" };
    const llm = await startScriptedLlmServer({ script });
    try {
      const cli = startCli(who, [...scriptedRunArgs(llm.openaiBaseUrl, w.cwd, join(w.home, "sessions")), "go"], { HOME: w.home });
      const timer = setTimeout(() => cli.kill("SIGKILL"), 100_000);
      const r = await cli.result;
      clearTimeout(timer);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      await llm.close();
    }
    expect(seen.first).toHaveLength(1);
    expect(left).toBe(true);
    expect(seen.afterCrash).toEqual([]); // during the session
    expect(seen.restarted).toHaveLength(1);
    expect(seen.restarted[0]).not.toBe(seen.first[0]);
    expect(pidsOf([process.execPath, SERVER, t])).toEqual([]);
    expect(pidsOf(sleeperArgv(t))).toEqual([]);
  }, 150_000);

  it("SIGKILL of yoke run (no code of Yoke's runs): the grandchild lives on; the next start (yoke mcp list) stops it by the marker on record", async () => {
    const t = uniqueTestArg("kill");
    const w = workspace(t, who);
    const llm = await startScriptedLlmServer({ script: [{ hang: true }] });
    try {
      const cli = startCli(who, [...scriptedRunArgs(llm.openaiBaseUrl, w.cwd, join(w.home, "sessions")), "go"], { HOME: w.home });
      expect(await until(() => llm.requests.length === 1 && pidsOf(sleeperArgv(t)).length === 1, 60_000)).toBe(true);
      cli.kill("SIGKILL");
      await cli.result;
      // The server reads the end of its input and exits; its setsid grandchild is nobody's now.
      expect(await until(() => pidsOf([process.execPath, SERVER, t]).length === 0, 10_000)).toBe(true);
      expect(pidsOf(sleeperArgv(t))).toHaveLength(1);
    } finally {
      await llm.close();
    }
    const list = startCli(who, ["mcp", "list", "--cwd", w.cwd, "--json"], { HOME: w.home });
    expect((await list.result).code).toBe(0);
    // (mcp list starts the server again, and stops it with its own grandchild at its end.)
    expect(await until(() => pidsOf(sleeperArgv(t)).length === 0, 10_000)).toBe(true);
  }, 120_000);

  for (const [sig, code] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const) {
    it(`${sig} to yoke run while the model is thinking: exit ${code}, the server and its setsid grandchild gone`, async () => {
      const t = uniqueTestArg(sig);
      const w = workspace(t, who);
      const llm = await startScriptedLlmServer({ script: [{ hang: true }] });
      try {
        const cli = startCli(who, [...scriptedRunArgs(llm.openaiBaseUrl, w.cwd, join(w.home, "sessions")), "go"], { HOME: w.home });
        expect(await until(() => llm.requests.length === 1 && pidsOf(sleeperArgv(t)).length === 1, 60_000)).toBe(true);
        cli.kill(sig);
        const r = await cli.result;
        expect(r.code, r.stderr).toBe(code);
        expect(pidsOf([process.execPath, SERVER, t])).toEqual([]);
        expect(pidsOf(sleeperArgv(t))).toEqual([]);
      } finally {
        await llm.close();
      }
    }, 120_000);
  }
});
