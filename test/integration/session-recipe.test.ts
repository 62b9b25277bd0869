// The session recipe (src/node/session-recipe.ts) through the built CLI: a mechanism added by one
// recipe line (turn time, src/core/turn-time) appears in `yoke run`'s output and in the log, and a
// sub-agent's session — built from its parent's options — gets the same mechanisms.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/core/events";
import { parseLog } from "../../src/core/session/session-log";
import { turnTimeLine } from "../../src/core/turn-time";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt, runCli } from "../support/cli";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

function workspace(): { ws: string; sessions: string; home: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-recipe-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws);
  mkdirSync(join(dir, "home"));
  writeFileSync(join(ws, "README.md"), "# Tides\n\nThe period is 745 minutes.\n");
  return { ws, sessions: join(dir, "sessions"), home: join(dir, "home") };
}

function logs(dir: string): Map<string, SessionEvent[]> {
  const out = new Map<string, SessionEvent[]>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".jsonl"))) {
    out.set(f.replace(/\.jsonl$/, ""), parseLog(readFileSync(join(dir, f), "utf8").split("\n").filter(Boolean)).events);
  }
  return out;
}

const run = (ws: string, sessions: string, home: string, url: string, prompt: string) =>
  runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", url, "--model", "scripted", "--cwd", ws, "--session-dir", sessions, "--permission-mode", "bypassPermissions", prompt], {
    env: { HOME: home },
  });

describe("a mechanism of the recipe in the CLI", () => {
  it("turn time: `yoke run` says how long the agent worked, split into the model's and the tools' time; the log records it after the run's status; the model never sees it", async () => {
    const { ws, sessions, home } = workspace();
    server = await startScriptedLlmServer({
      script: [
        { delayMs: 400, toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
        { delayMs: 300, text: "The period is 745 minutes." },
      ],
    });
    const r = await run(ws, sessions, home, server.openaiBaseUrl, "What is the period?");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("The period is 745 minutes.");
    // The line, on stderr with the footer (stdout stays the answer and the activity).
    const line = r.stderr.split("\n").find((l) => l.startsWith("yoke: ⏱ "));
    const d = String.raw`(\d+ ms|\d+\.\d s|\d+ min \d+ s)`;
    expect(line, r.stderr).toMatch(new RegExp(`^yoke: ⏱ Worked ${d}: model ${d} in 2 requests, tools ${d} in 1 call\\.$`));
    expect(r.stdout).not.toContain("Worked");

    const [events] = [...logs(sessions).values()];
    const t = events!.filter((e): e is Extract<SessionEvent, { type: "turn_time" }> => e.type === "turn_time");
    expect(t).toHaveLength(1);
    expect(events!.at(-2)).toMatchObject({ type: "status", state: "done" });
    expect(events!.at(-1)).toBe(t[0]);
    // The server waited 700 ms before its answers: the model's share holds them, and the whole holds both shares.
    expect(t[0]!.modelMs).toBeGreaterThanOrEqual(700);
    expect(t[0]!.ms).toBeGreaterThanOrEqual(t[0]!.modelMs);
    const toolResult = events!.find((e) => e.type === "tool_result");
    expect(t[0]).toMatchObject({ requests: 2, tools: 1, toolMs: (toolResult as { durationMs: number }).durationMs, outcome: "done" });
    // The line shows the event's own figures.
    expect(line).toBe(`yoke: ⏱ ${turnTimeLine(t[0]!)}`);
    for (const req of server.requests) expect(JSON.stringify(req.body)).not.toMatch(/Worked|turn_time/);
  });

  it("a sub-agent's session gets its parent's mechanisms: its own log has its own turn time", async () => {
    const { ws, sessions, home } = workspace();
    let n = 0;
    // Requests arrive one after another: parent (task call), child (answer), parent (final answer).
    const script = (): ScriptedTurn => {
      n++;
      if (n === 1) return { toolCalls: [{ name: "task", input: { description: "Find the period", prompt: "Read README.md and say the period." } }] };
      if (n === 2) return { delayMs: 200, text: "README.md says 745 minutes." };
      return { text: "The sub-agent found it: 745 minutes." };
    };
    server = await startScriptedLlmServer({ script });
    const r = await run(ws, sessions, home, server.openaiBaseUrl, "Use a sub-agent to find the period.");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("745 minutes");
    const all = logs(sessions);
    expect(all.size).toBe(2);
    const child = [...all.values()].find((events) => events[0]?.type === "session_start" && events[0].parentId !== undefined)!;
    const parent = [...all.values()].find((events) => events !== child)!;
    expect(child.filter((e) => e.type === "turn_time")).toEqual([expect.objectContaining({ requests: 1, tools: 0, outcome: "done" })]);
    expect((child.find((e) => e.type === "turn_time") as { modelMs: number }).modelMs).toBeGreaterThanOrEqual(200);
    expect(parent.filter((e) => e.type === "turn_time")).toEqual([expect.objectContaining({ requests: 2, tools: 1, outcome: "done" })]);
  });
});
