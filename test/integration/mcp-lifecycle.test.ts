// What Yoke's MCP client does around a server, through the built CLI and the scripted model, with
// real servers (@modelcontextprotocol/server-everything from the npm registry, and a small server
// built on the SDK's own server classes in test/support): what environment a server gets, a large
// result spilled whole, unreachable servers that must not hang the CLI, no process left behind
// (a crash, SIGTERM, SIGINT, SIGKILL of Yoke — checked in the process table), JSONC .mcp.json and
// a tool list that follows a changed server. Root and an unprivileged user where processes run.
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest, Script } from "../../src/demo/types";
import { spillPreview } from "../../src/core/compaction/render";
import { cliPath, ensureBuilt, runCli, type CliResult } from "../support/cli";
import { chownTree, identities, spawnAs, type Identity } from "../support/identities";
import { pidsOf } from "../support/processes";
import { scriptedRunArgs } from "../support/scripted-run";
import { EVERYTHING, uniqueTestArg } from "../support/mcp-fixtures";
import { createWorkspaceWithHome } from "../support/workspace";

const PROBE = join(__dirname, "../support/mcp-probe-server.cjs");
const ANTHROPIC_SECRET = "sk-ant-mcp22-secret-0123456789";
const OPENAI_SECRET = "sk-openai-mcp22-secret-0123456789";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  // Whatever a failing test left running (every tagged process of this test run): never left behind.
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(`--yoke-test=`) && readFileSync(`/proc/${name}/cmdline`, "utf8").includes(`-${process.pid}-`)) process.kill(Number(name), "SIGKILL");
    } catch {
      // gone
    }
  }
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

interface Ws {
  base: string;
  cwd: string;
  home: string;
}

/** A workspace and a HOME of its own (approvals, caches, the process registry are the test's), owned by `who`. */
function workspace(files: Record<string, string>, who?: Identity): Ws {
  const { base, cwd, home } = createWorkspaceWithHome("yoke-mcp22-", files, temps);
  chmodSync(base, 0o755);
  if (who) chownTree(base, who);
  return { base, cwd, home };
}

const tag = uniqueTestArg;
const sleeperArgv = (t: string) => [process.execPath, "-e", "setInterval(() => {}, 1 << 30)", `sleeper${t}`];

type Msg = { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string } }[] };
const messages = (req: RecordedRequest) => req.body.messages as Msg[];
function toolResults(requests: RecordedRequest[]): string[] {
  return messages(requests[requests.length - 1]!)
    .filter((m) => m.role === "tool")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}
const toolNames = (req: RecordedRequest) => ((req.body.tools as { function: { name: string } }[]) ?? []).map((t) => t.function.name);

/** The CLI as `who` (root runs it directly), with its pid for signals. */
function startCliAs(who: Identity | undefined, args: string[], env: Record<string, string | undefined>) {
  const opts = who
    ? spawnAs(who, env)
    : { env: Object.fromEntries(Object.entries({ ...process.env, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, ...env }).filter((e): e is [string, string] => e[1] !== undefined)) };
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: ["pipe", "pipe", "pipe"], ...opts });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  child.stdin.end();
  const result = new Promise<CliResult & { ms: number }>((resolve) => {
    const began = Date.now();
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - began }));
  });
  return Object.assign(child, { result });
}

async function session(w: Ws, script: Script, opts: { who?: Identity; env?: Record<string, string>; extra?: string[] } = {}) {
  const llm = await startScriptedLlmServer({ script });
  try {
    const cli = startCliAs(opts.who, [...scriptedRunArgs(llm.openaiBaseUrl, w.cwd, join(w.home, "sessions")), ...(opts.extra ?? []), "go"], { HOME: w.home, ...opts.env });
    const timer = setTimeout(() => cli.kill("SIGKILL"), 100_000);
    const r = await cli.result;
    clearTimeout(timer);
    return { ...r, requests: llm.requests };
  } finally {
    await llm.close();
  }
}

async function until(cond: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

const ids = identities();

describe.each(ids.list)("a stdio server gets only what its definition names, as $label", (who) => {
  it("get-env of server-everything: the SDK's minimal set plus env and envFile; no provider key, no other server's env, nothing else of Yoke's", async () => {
    const w = workspace(
      {
        "~/.yoke/a.env": '# the server\'s own file\nFROM_FILE=file-value\nexport QUOTED="two words"\nA_NAMED=from-file-loses\n',
        "~/.yoke/settings.json": JSON.stringify({
          mcpServers: {
            a: { command: process.execPath, args: [EVERYTHING, "stdio"], env: { A_NAMED: "named-value" }, envFile: "a.env" },
            b: { command: process.execPath, args: [EVERYTHING, "stdio"], env: { B_ONLY: "b-secret-value" } },
            broken: { command: process.execPath, args: [EVERYTHING, "stdio"], envFile: "missing.env" },
          },
          permissions: { allow: ["mcp__a"] },
        }),
      },
      who,
    );
    const r = await session(w, [{ toolCalls: [{ name: "mcp__a__get-env", input: {} }] }, { text: "done" }], {
      who,
      env: { ANTHROPIC_API_KEY: ANTHROPIC_SECRET, OPENAI_API_KEY: OPENAI_SECRET, YOKE_UNRELATED: "not-for-servers", TERM: "xterm-test", SHELL: "/bin/bash" },
    });
    expect(r.code, r.stderr).toBe(0);
    const env = JSON.parse(toolResults(r.requests)[0]!) as Record<string, string>;
    expect(env).toEqual({
      HOME: w.home,
      LOGNAME: who.name,
      USER: who.name,
      PATH: process.env.PATH,
      SHELL: "/bin/bash",
      TERM: "xterm-test",
      A_NAMED: "named-value",
      FROM_FILE: "file-value",
      QUOTED: "two words",
      // Yoke's marker of this start (what the server starts carries it: stopped with the server).
      YOKE_MCP_SERVER: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    const all = JSON.stringify(r.requests.map((q) => q.body));
    for (const secret of [ANTHROPIC_SECRET, OPENAI_SECRET, "b-secret-value", "not-for-servers"]) expect(all).not.toContain(secret);
    // A missing envFile is that server's problem, said clearly; the others run.
    expect(r.stderr).toContain(`MCP server "broken": its envFile ${join(w.home, ".yoke", "missing.env")} does not exist`);
    expect(toolNames(r.requests[0]!)).not.toContain("mcp__broken__echo");
  }, 120_000);
});

describe("a large result is spilled whole", () => {
  it("5,000 lines: the model sees the head and tail and is told truthfully; recall returns line 2,500 of the original", async () => {
    const w = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { probe: { command: process.execPath, args: [PROBE] } }, permissions: { allow: ["mcp__probe", "recall"] } }) });
    const original = Array.from({ length: 5000 }, (_, i) => `line ${i + 1} of 5000: ${"x".repeat(60)}`).join("\n");
    const offset = original.indexOf("line 2500 of 5000:");
    let ref = "";
    const script: Script = (req) => {
      const n = messages(req).filter((m) => m.role === "tool").length;
      if (n === 0) return { toolCalls: [{ name: "mcp__probe__lines", input: { n: 5000 } }] };
      if (n === 1) {
        ref = messages(req).find((m) => m.tool_calls)!.tool_calls![0]!.id;
        return { toolCalls: [{ name: "recall", input: { ref, offset } }] };
      }
      return { text: "done" };
    };
    const r = await session(w, script);
    expect(r.code, r.stderr).toBe(0);
    const [shown, recalled] = toolResults(r.requests);
    // Exactly the spill's preview of the whole result (not of a cut one).
    expect(shown).toBe(spillPreview(original, ref));
    expect(shown).toContain(
      `[This result is ${original.length.toLocaleString("en-US")} characters (5,000 lines), too long for the context: its start and end are shown. The whole of it is kept: recall {"ref":"${ref}"} returns it`,
    );
    expect(shown).not.toContain("cut to fit");
    expect(shown).not.toContain("line 2500 of 5000");
    expect(recalled).toContain(`[ref=${ref}: characters ${offset}–${offset + 40_000} of ${original.length}.`);
    expect(recalled.split("\n")[1]).toBe(`line 2500 of 5000: ${"x".repeat(60)}`);
  }, 120_000);
});

describe("MAX_MCP_OUTPUT_TOKENS governs what the model sees of a result", () => {
  // 2,500 lines of 80 characters: 200,000 characters, over the 50,000 beyond which a result is spilled by default.
  const original = Array.from({ length: 2500 }, (_, i) => `line ${i + 1} of 2500: ${"x".repeat(60)}`).join("\n");
  const settings = JSON.stringify({ mcpServers: { probe: { command: process.execPath, args: [PROBE] } }, permissions: { allow: ["mcp__probe", "recall"] } });
  const script =
    (recallAt?: number): Script =>
    (req) => {
      const n = messages(req).filter((m) => m.role === "tool").length;
      if (n === 0) return { toolCalls: [{ name: "mcp__probe__lines", input: { n: 2500 } }] };
      if (n === 1 && recallAt !== undefined) return { toolCalls: [{ name: "recall", input: { ref: messages(req).find((m) => m.tool_calls)!.tool_calls![0]!.id, offset: recallAt } }] };
      return { text: "done" };
    };

  it("1000 tokens: the preview is at most 4,000 characters, notes included, and says why; recall still returns the middle", async () => {
    const w = workspace({ "~/.yoke/settings.json": settings });
    const offset = original.indexOf("line 1250 of 2500:");
    const r = await session(w, script(offset), { env: { MAX_MCP_OUTPUT_TOKENS: "1000" } });
    expect(r.code, r.stderr).toBe(0);
    const [shown, recalled] = toolResults(r.requests);
    expect(shown!.length).toBeLessThanOrEqual(4000);
    expect(
      shown!.startsWith(
        `[This result is ${original.length.toLocaleString("en-US")} characters (2,500 lines), more than this tool's bound (MAX_MCP_OUTPUT_TOKENS=1000, 4,000 characters shown at most)`,
      ),
    ).toBe(true);
    expect(shown).toContain("line 1 of 2500:");
    expect(shown).toContain(`line 2500 of 2500: ${"x".repeat(60)}`);
    expect(shown).not.toContain("line 1250 of 2500");
    // Not the default preview's size (4,000 + 2,000 characters of the result).
    expect(shown).not.toContain("line 50 of 2500:");
    expect(recalled!.split("\n")[1]).toBe(`line 1250 of 2500: ${"x".repeat(60)}`);
  }, 120_000);

  it("60000 tokens: the whole 200,000-character result reaches the model as the server sent it, not spilled", async () => {
    const w = workspace({ "~/.yoke/settings.json": settings });
    const r = await session(w, script(), { env: { MAX_MCP_OUTPUT_TOKENS: "60000" } });
    expect(r.code, r.stderr).toBe(0);
    const [shown] = toolResults(r.requests);
    expect(shown).toBe(original);
    // The default (no variable, test above) shows 6,000 characters of such a result; a value that is not a number is ignored and logged.
    const bad = await session(workspace({ "~/.yoke/settings.json": settings }), script(), { env: { MAX_MCP_OUTPUT_TOKENS: "lots" } });
    expect(bad.code, bad.stderr).toBe(0);
    const [shownBad] = toolResults(bad.requests);
    expect(shownBad).toContain("too long for the context: its start and end are shown");
    expect(shownBad!.length).toBeLessThan(7000);
  }, 180_000);
});

/** A TCP port nobody listens on (bound, then closed). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A server that accepts every connection and drops it at once. */
async function dropper(): Promise<{ port: number; server: Server }> {
  const server = createServer((sock) => sock.destroy());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, server };
}

describe("unreachable remote servers end in a bounded time", () => {
  it("yoke mcp list and yoke run exit with a clear error for SSE, http (falling back to SSE) on a closed port and on a server that drops the connection; the session works without them", async () => {
    const closed = await freePort();
    const drop = await dropper();
    try {
      const w = workspace({
        "~/.yoke/settings.json": JSON.stringify({
          mcpServers: {
            "sse-closed": { type: "sse", url: `http://127.0.0.1:${closed}/sse` },
            "http-closed": { url: `http://127.0.0.1:${closed}/mcp` },
            "sse-drop": { type: "sse", url: `http://127.0.0.1:${drop.port}/sse` },
            "http-drop": { type: "http", url: `http://127.0.0.1:${drop.port}/mcp` },
            everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
          },
          permissions: { allow: ["mcp__everything__echo"] },
        }),
      });
      const list = startCliAs(undefined, ["mcp", "list", "--cwd", w.cwd, "--json"], { HOME: w.home });
      const timer = setTimeout(() => list.kill("SIGKILL"), 60_000);
      const l = await list.result;
      clearTimeout(timer);
      expect(l.signal).toBeNull(); // not killed by the timer: it exited by itself
      // Bounded: a server that drops the connection has 10 s to answer `initialize` per transport.
      expect(l.ms).toBeLessThan(30_000);
      expect(l.code).toBe(1);
      const out = JSON.parse(l.stdout) as { servers: { name: string; state: string; detail?: string }[] };
      const state = Object.fromEntries(out.servers.map((s) => [s.name, s]));
      expect(state.everything!.state).toBe("running");
      for (const name of ["sse-closed", "http-closed", "sse-drop", "http-drop"]) expect(state[name]!.state, name).toBe("failed");
      expect(state["sse-closed"]!.detail).toMatch(/^SSE error: .*fetch failed/);
      expect(state["http-closed"]!.detail).toMatch(/^streamable HTTP: fetch failed; SSE: SSE error: .*fetch failed/);
      expect(state["sse-drop"]!.detail).toMatch(/^(connecting took longer than 10 s|SSE error: .*(other side closed|ECONNRESET))/);
      // The dropped connection is seen at once (fetch failed) or as no answer, by timing: either is bounded and clear.
      expect(state["http-drop"]!.detail).toMatch(
        /^streamable HTTP: (connecting took longer than 10 s|fetch failed); SSE: (connecting took longer than 10 s|SSE error: .*(other side closed|ECONNRESET))/,
      );

      const r = await session(w, [{ toolCalls: [{ name: "mcp__everything__echo", input: { message: "still here" } }] }, { text: "done" }]);
      expect(r.signal).toBeNull();
      expect(r.ms).toBeLessThan(40_000);
      expect(r.code, r.stderr).toBe(0);
      expect(toolResults(r.requests)).toEqual(["Echo: still here"]);
    } finally {
      drop.server.close();
    }
  }, 120_000);
});

/** The session log's events (one JSONL file in the session folder). */
function loggedEvents(w: Ws): { type: string; [k: string]: unknown }[] {
  const dir = join(w.home, "sessions");
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".jsonl")) files.push(join(d, e.name));
    }
  };
  walk(dir);
  return files.flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string }),
  );
}

describe.each(ids.list)("no process left behind, as $label", (who) => {
  it("a server that crashes: the grandchild it started is stopped with it", async () => {
    const t = tag("crash");
    const w = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { probe: { command: process.execPath, args: [PROBE, t] } }, permissions: { allow: ["mcp__probe"] } }) }, who);
    let sleeperDuringSession: number[] = [];
    let sleeperAfterCrash: number[] | undefined;
    const script: Script = async (req) => {
      const n = messages(req).filter((m) => m.role === "tool").length;
      if (n === 0) return { toolCalls: [{ name: "mcp__probe__spawn_sleeper", input: {} }] };
      if (n === 1) {
        sleeperDuringSession = pidsOf(sleeperArgv(t));
        return { toolCalls: [{ name: "mcp__probe__crash", input: {} }] };
      }
      // The server exited 100 ms after answering: its group is stopped (SIGTERM, then SIGKILL after 1 s).
      await until(() => pidsOf([process.execPath, PROBE, t]).length === 0 && pidsOf(sleeperArgv(t)).length === 0, 5000);
      sleeperAfterCrash = pidsOf(sleeperArgv(t));
      return { text: "done" };
    };
    const r = await session(w, script, { who });
    expect(r.code, r.stderr).toBe(0);
    expect(sleeperDuringSession).toHaveLength(1);
    expect(sleeperAfterCrash).toEqual([]); // during the session, not only at its end
    expect(pidsOf([process.execPath, PROBE, t])).toEqual([]);
  }, 120_000);

  it("the end of a session closes a server's input first: a server that exits then never gets SIGTERM (the specification's order)", async () => {
    const t = tag("order");
    const w = workspace({}, who);
    const record = join(w.base, "ended-by.txt");
    writeFileSync(join(w.home, "settings.json"), JSON.stringify({ mcpServers: { probe: { command: process.execPath, args: [PROBE, t], env: { PROBE_RECORD: record }, startOnSessionStart: true } } }));
    chownTree(w.base, who);
    const r = await session(w, [{ text: "hi" }], { who, extra: ["--settings", join(w.home, "settings.json")] });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(record, "utf8")).toBe("stdin-end\n");
    expect(pidsOf([process.execPath, PROBE, t])).toEqual([]);
  }, 60_000);

  for (const [sig, code] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const) {
    it(`${sig} to yoke run during a long call of a server that ignores its input's end and SIGTERM: exit ${code}, the log ended, the server and its child gone`, async () => {
      const t = tag(sig);
      const server = [process.execPath, PROBE, "--stubborn", t];
      const w = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { probe: { command: server[0], args: server.slice(1) } }, permissions: { allow: ["mcp__probe"] } }) }, who);
      const llm = await startScriptedLlmServer({
        script: [{ toolCalls: [{ name: "mcp__probe__spawn_sleeper", input: {} }] }, { toolCalls: [{ name: "mcp__probe__wait", input: { ms: 120_000 } }] }, { text: "never" }],
      });
      try {
        const cli = startCliAs(who, [...scriptedRunArgs(llm.openaiBaseUrl, w.cwd, join(w.home, "sessions")), "go"], { HOME: w.home });
        expect(await until(() => llm.requests.length === 2 && pidsOf(sleeperArgv(t)).length === 1, 60_000)).toBe(true);
        await new Promise((r) => setTimeout(r, 300)); // the wait call is on its way
        expect(pidsOf(server)).toHaveLength(1);
        cli.kill(sig);
        const r = await cli.result;
        expect(r.code, r.stderr).toBe(code);
        expect(r.ms).toBeLessThan(60_000);
        expect(r.stderr).toContain("stopping…");
        expect(pidsOf(server)).toEqual([]);
        expect(pidsOf(sleeperArgv(t))).toEqual([]);
        const events = loggedEvents(w);
        // The log ends as a cancelled turn does: the call's result, the status, the turn's time.
        expect(events.find((e) => e.type === "tool_result" && e.name === "mcp__probe__wait")).toMatchObject({ isError: true, output: expect.stringMatching(/^Cancelled by the user after/) });
        expect(events.filter((e) => e.type === "status").pop()).toMatchObject({ state: "cancelled" });
        expect(events[events.length - 1]).toMatchObject({ type: "turn_time", outcome: "cancelled" });
      } finally {
        await llm.close();
      }
    }, 120_000);
  }

  for (const command of ["mcp list", "run"] as const) {
    it(`SIGTERM to yoke ${command} while a server that never answers is starting: exit 143 at once, the server gone`, async () => {
      const t = tag("startterm");
      const server = [process.execPath, "-e", "setInterval(() => {}, 1 << 30)", `mute${t}`];
      const w = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { mute: { command: server[0], args: server.slice(1) } } }) }, who);
      const args = command === "run" ? [...scriptedRunArgs("http://127.0.0.1:9/v1", w.cwd, join(w.home, "sessions")), "go"] : ["mcp", "list", "--cwd", w.cwd, "--json"];
      const cli = startCliAs(who, args, { HOME: w.home });
      expect(await until(() => pidsOf(server).length === 1, 20_000)).toBe(true);
      cli.kill("SIGTERM");
      const r = await cli.result;
      expect(r.code).toBe(143);
      expect(r.ms).toBeLessThan(20_000);
      expect(await until(() => pidsOf(server).length === 0, 2000)).toBe(true);
    }, 60_000);
  }

  it("SIGKILL of yoke run: the server ends with its input; what it started is stopped by the next start (yoke mcp list)", async () => {
    const t = tag("sigkill");
    const server = [process.execPath, PROBE, t];
    const w = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { probe: { command: server[0], args: server.slice(1) } }, permissions: { allow: ["mcp__probe"] } }) }, who);
    const llm = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "mcp__probe__spawn_sleeper", input: {} }] }, { hang: true }] });
    try {
      const cli = startCliAs(who, [...scriptedRunArgs(llm.openaiBaseUrl, w.cwd, join(w.home, "sessions")), "go"], { HOME: w.home });
      expect(await until(() => llm.requests.length === 2 && pidsOf(sleeperArgv(t)).length === 1, 60_000)).toBe(true);
      cli.kill("SIGKILL");
      await cli.result;
      // Nothing of Yoke runs to stop them: the server reads the end of its input and exits; its child lives on.
      expect(await until(() => pidsOf(server).length === 0, 5000)).toBe(true);
      expect(pidsOf(sleeperArgv(t))).toHaveLength(1);
    } finally {
      await llm.close();
    }
    const list = startCliAs(who, ["mcp", "list", "--cwd", w.cwd, "--json"], { HOME: w.home });
    expect((await list.result).code).toBe(0);
    expect(await until(() => pidsOf(sleeperArgv(t)).length === 0, 5000)).toBe(true);
  }, 120_000);
});

describe("configuration as users write it", () => {
  it(".mcp.json with commented-out entries after a trailing comma loads (the one JSONC parser)", async () => {
    const w = workspace({
      ".mcp.json": `{\n  "mcpServers": {\n    "repo": { "command": "node", "args": ["server.js"] },\n    // "old": { "command": "true" },\n    /* "older": {} */\n  },\n}\n`,
    });
    const r = await runCli(["mcp", "list", "--cwd", w.cwd, "--json"], { env: { HOME: w.home } });
    const out = JSON.parse(r.stdout) as { servers: { name: string; state: string }[]; problems: unknown[] };
    expect(out.problems).toEqual([]);
    expect(out.servers.map((s) => [s.name, s.state])).toEqual([["repo", "not_approved"]]);
  }, 60_000);

  it("~/.yoke/settings.json with comments and trailing commas: its servers and its permission rules both count (one reader)", async () => {
    const w = workspace({
      "~/.yoke/settings.json": `{\n  // my servers\n  "mcpServers": { "everything": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING)}, "stdio"] }, },\n  /* and what they may do */\n  "permissions": { "allow": ["mcp__everything__echo"], },\n}\n`,
    });
    const r = await session(w, [{ toolCalls: [{ name: "mcp__everything__echo", input: { message: "commented" } }] }, { text: "done" }]);
    expect(r.code, r.stderr).toBe(0);
    expect(toolResults(r.requests)).toEqual(["Echo: commented"]);
  }, 60_000);

  it("a tool added to a server is offered in the first session after the change (the cached list follows the program)", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-mcp22-prog-"));
    temps.push(base);
    const program = join(base, "server.cjs");
    writeFileSync(program, `require(${JSON.stringify(PROBE)});\n`);
    const w = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { p: { command: process.execPath, args: [program] } }, permissions: { allow: ["mcp__p"] } }) });
    const first = await session(w, [{ text: "hi" }]);
    expect(first.code, first.stderr).toBe(0);
    expect(toolNames(first.requests[0]!)).not.toContain("mcp__p__added");
    // The server gains a tool (its program changes).
    writeFileSync(program, `process.env.PROBE_EXTRA_TOOL = "added";\nrequire(${JSON.stringify(PROBE)});\n`);
    const second = await session(w, [{ toolCalls: [{ name: "mcp__p__added", input: {} }] }, { text: "done" }]);
    expect(second.code, second.stderr).toBe(0);
    expect(toolNames(second.requests[0]!)).toContain("mcp__p__added");
    expect(toolResults(second.requests)).toEqual(["the added tool answered"]);
    // Unchanged program: the next session takes the cached list again (the server is not started to list it).
    const third = await session(w, [{ text: "hi" }]);
    expect(toolNames(third.requests[0]!)).toContain("mcp__p__added");
    const states = loggedEvents(w).flatMap((e) => (e.type === "mcp_server" && e.server === "p" ? [e.state] : []));
    expect(states.filter((s) => s === "running")).toHaveLength(2);
    expect(states.filter((s) => s === "cached")).toHaveLength(1);
  }, 120_000);
});

describe("roots, progress and tools/list_changed", () => {
  it("roots: server-everything's get-roots-list sees the workspace folder and an --add-dir folder as file: URIs", async () => {
    const w = workspace({
      "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } }, permissions: { allow: ["mcp__everything"] } }),
    });
    const extra = join(w.base, "other folder");
    mkdirSync(extra);
    const r = await session(w, [{ toolCalls: [{ name: "mcp__everything__get-roots-list", input: {} }] }, { text: "done" }], { extra: ["--add-dir", extra] });
    expect(r.code, r.stderr).toBe(0);
    const [text] = toolResults(r.requests);
    expect(text).toContain("Current MCP Roots (2 total):");
    expect(text).toContain(`1. ws\n   URI: file://${w.cwd}`);
    expect(text).toContain(`2. other folder\n   URI: file://${join(w.base, "other%20folder")}`);
  }, 60_000);

  it("progress: a 3 s operation with progress every 0.5 s completes under a 1.5 s timeout; without progress the same timeout stops it", async () => {
    const w = workspace({
      "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], timeout: 1500 } }, permissions: { allow: ["mcp__everything"] } }),
    });
    const r = await session(
      w,
      [
        {
          toolCalls: [
            { name: "mcp__everything__trigger-long-running-operation", input: { duration: 3, steps: 6 } },
            { name: "mcp__everything__trigger-long-running-operation", input: { duration: 3, steps: 1 } },
          ],
        },
        { text: "done" },
      ],
      { extra: ["--permission-mode", "bypassPermissions"] },
    );
    expect(r.code, r.stderr).toBe(0);
    const [withProgress, without] = toolResults(r.requests);
    expect(withProgress).toBe("Long running operation completed. Duration: 3 seconds, Steps: 6.");
    expect(without).toMatch(/did not answer the call: .*timed out/i);
    // The user sees the progress (the CLI's activity lines); the log has it; the model never gets it.
    expect(r.stdout).toContain("  ⋯ everything: trigger-long-running-operation 1/6 (17%)\n");
    const progress = loggedEvents(w).filter((e) => e.type === "mcp_progress");
    expect(progress[0]).toMatchObject({ server: "everything", tool: "trigger-long-running-operation", progress: 1, total: 6 });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeLessThanOrEqual(4); // at most one a second of 6 notifications in 3 s
    expect(JSON.stringify(r.requests.map((q) => q.body))).not.toContain("1/6");
  }, 60_000);

  it("tools/list_changed: the change is reported and cached for the next session; this session's tool list (the cached prefix) stays as it was", async () => {
    const t = tag("listchanged");
    const w = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { probe: { command: process.execPath, args: [PROBE, t] } }, permissions: { allow: ["mcp__probe"] } }) });
    const r = await session(w, [{ toolCalls: [{ name: "mcp__probe__add_tool", input: { name: "late" } }] }, { toolCalls: [{ name: "mcp__probe__wait", input: { ms: 300 } }] }, { text: "done" }]);
    expect(r.code, r.stderr).toBe(0);
    expect(toolNames(r.requests[2]!)).toEqual(toolNames(r.requests[0]!));
    expect(toolNames(r.requests[0]!)).not.toContain("mcp__probe__late");
    const changed = loggedEvents(w).find((e) => e.type === "mcp_server" && e.state === "running" && typeof e.detail === "string" && e.detail.startsWith("its tool list changed"));
    expect(changed?.detail).toBe("its tool list changed (added: late); this session keeps the tools it started with, the next session offers the new list");
    expect(r.stdout + r.stderr).toContain("MCP server probe: its tool list changed (added: late); this session keeps the tools it started with, the next session offers the new list.");
    const list = await runCli(["mcp", "list", "--cwd", w.cwd, "--json"], { env: { HOME: w.home } });
    const out = JSON.parse(list.stdout) as { servers: { name: string; state: string; tools: { name: string }[] }[] };
    expect(out.servers[0]!.state).toBe("configured");
    expect(out.servers[0]!.tools.map((x) => x.name)).toContain("mcp__probe__late");
  }, 60_000);
});
