// Loop control through the real CLI, real SDK clients and real HTTP to the scripted LLM server on
// 127.0.0.1: fallback to a second model when the first answers 503, and the max-cost / max-time
// stops with their report, continued afterwards with `yoke resume`.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseLog } from "../../src/core/session/session-log";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];

function workspace(): { ws: string; sessions: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-loopctl-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "README.md"), "# Widget\n");
  return { ws, sessions: join(dir, "sessions") };
}

function onlySession(dir: string) {
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  return { id: files[0]!.replace(/\.jsonl$/, ""), events: parseLog(readFileSync(join(dir, files[0]!), "utf8").split("\n").filter(Boolean)).events };
}

const base = (url: string, ws: string, sessions: string, model = "primary-model") => [
  "run",
  "--trust",
  "--provider",
  "openai-compatible",
  "--base-url",
  url,
  "--model",
  model,
  "--cwd",
  ws,
  "--session-dir",
  sessions,
];

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

describe("model fallback (yoke run --fallback-model)", () => {
  it("continues on the second model when the first answers 503, and says so in the transcript and the log", async () => {
    const { ws, sessions } = workspace();
    const backup: ScriptedTurn[] = [{ toolCalls: [{ name: "read_file", input: { path: "README.md" } }] }, { text: "The README names the Widget project.", usage: { input: 100, output: 10 } }];
    server = await startScriptedLlmServer({
      script: (req) =>
        req.body.model === "primary-model"
          ? { error: { status: 503, headers: { "retry-after-ms": "0" }, body: { error: { message: "upstream overloaded", type: "server_error" } } } }
          : (backup.shift() ?? { text: "no more" }),
    });
    const r = await runCli([...base(server.openaiBaseUrl, ws, sessions), "--fallback-model", "backup-model", "What is this?"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("The README names the Widget project.");
    expect(r.stdout).toContain("⚡ Circuit open for model openai-compatible:primary-model after 3 consecutive failures");
    expect(r.stdout).toContain("↪ Switched model: openai-compatible:primary-model → openai-compatible:backup-model");
    // Three real requests to the primary (its circuit opened), then the backup answered everything.
    expect(server.requests.map((q) => q.body.model)).toEqual(["primary-model", "primary-model", "primary-model", "backup-model", "backup-model"]);
    const { events } = onlySession(sessions);
    const fallback = events.filter((e) => e.type === "fallback");
    expect(fallback).toEqual([expect.objectContaining({ from: "openai-compatible:primary-model", to: "openai-compatible:backup-model" })]);
    expect((fallback[0] as { reason: string }).reason).toMatch(/primary-model failed and its circuit opened: .*HTTP 503.*upstream overloaded/);
    expect(events.filter((e) => e.type === "usage").map((e) => (e as { model: string }).model)).toEqual(["backup-model", "backup-model"]);
    expect(events.filter((e) => e.type === "status").at(-1)).toMatchObject({ type: "status", state: "done" });
  });

  it("rejects a bad --max-cost / --max-time with exit 2", async () => {
    const { ws, sessions } = workspace();
    const r = await runCli([...scriptedRunArgs("http://127.0.0.1:9/v1", ws, sessions), "--max-cost=-1", "hi"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--max-cost must be a positive number (got "-1")');
    const t = await runCli([...scriptedRunArgs("http://127.0.0.1:9/v1", ws, sessions), "--max-time", "soon", "hi"]);
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('--max-time must be a positive number (got "soon")');
  });
});

describe("budgets through the CLI", () => {
  it("--max-cost stops with the report, and yoke resume continues", async () => {
    const { ws, sessions } = workspace();
    // gpt-5.1 costs $1.25 per million input tokens: 320k tokens are $0.40 a request.
    const priced = { input: 320_000, output: 0 };
    server = await startScriptedLlmServer({
      script: [
        { toolCalls: [{ name: "read_file", input: { path: "README.md" } }], usage: priced },
        { toolCalls: [{ name: "list_files", input: {} }], usage: priced },
        { text: "Finished after the budget stop.", usage: { input: 10, output: 5 } },
      ],
    });
    const r = await runCli([...base(server.openaiBaseUrl, ws, sessions, "gpt-5.1"), "--max-cost", "0.5", "Look around"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /■ Stopped: the cost budget of \$0\.5000 is used up \(\$0\.8000 spent\)\. This task ran 2 model turns, cost \$0\.8000 and took \d+ s\. In progress: the call list_files \. \(not run\)\./,
    );
    const first = onlySession(sessions);
    expect(first.events.filter((e) => e.type === "tool_call").map((e) => (e as { name: string }).name)).toEqual(["read_file"]);
    expect(first.events.filter((e) => e.type === "budget")).toEqual([expect.objectContaining({ limit: "cost", turns: 2 })]);
    const again = await runCli(["resume", "--trust", first.id, "--session-dir", sessions, "--cwd", ws, "--max-cost", "0.5"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("Finished after the budget stop.");
    expect(
      onlySession(sessions)
        .events.filter((e) => e.type === "status")
        .at(-1),
    ).toMatchObject({ type: "status", state: "done" });
  });

  it("--max-time stops with the report, and yoke resume continues", async () => {
    const { ws, sessions } = workspace();
    server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "read_file", input: { path: "README.md" } }], delayMs: 1200 }, { text: "Done after the time stop." }],
    });
    const r = await runCli([...base(server.openaiBaseUrl, ws, sessions), "--max-time", "1", "Look"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /■ Stopped: the time budget of 1 s is used up \(\d s elapsed\)\. This task ran 1 model turn, cost \$0\.0000 and took \d s\. In progress: the call read_file README\.md \(not run\)\./,
    );
    expect(r.stdout).not.toContain("whose price is unknown");
    // The model turn used up the time: the call it asked for was not run.
    expect(r.stdout).toContain("⎿ error: Not run: the session was stopped (Stopped: the time budget");
    const { id } = onlySession(sessions);
    const again = await runCli(["resume", "--trust", id, "--session-dir", sessions, "--cwd", ws]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("Done after the time stop.");
  });
});
