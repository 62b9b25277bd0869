/**
 * The long-session bench's rows for issue 24: five background agents running while the
 * foreground session streams.
 * - webview: the Agents view's list as the host posts it (src/host/agents/index.ts): at most one
 *   `agents` message a second (BUSY_MS) while an agent runs, and only when something changed —
 *   here every second, each of the five with a new spend and last message, and a new changed file
 *   every third second (FILES_MS), the most the host ever posts;
 * - host: the event loop's stalls while the host reads five agents' records' session logs, as its
 *   refresh does (agentViewOf per agent): now with the logs read as they grow (AgentLogs: only what
 *   was appended since the last refresh is parsed), against the whole log read and parsed each
 *   time (what the refresh did before), same run.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentRecord } from "../../core/background/agents";
import { AgentLogs } from "../../node/background/log-tail";
import { agentViewOf } from "../../node/background/view";
import { EventLoopWatchdog } from "../../node/watchdog";
import type { AgentItemView } from "../../protocol/messages";
import type { BenchMetric } from "../types";
import { longSessionLines } from "./fixture";

export const AGENTS = 5;
/** The host's refresh period while an agent runs (src/host/agents/index.ts BUSY_MS). */
export const AGENTS_POST_MS = 1000;

/** The Agents list at tick `t` (one tick a second): five running agents, each changed since the last tick. */
export function agentsTick(t: number): AgentItemView[] {
  return Array.from({ length: AGENTS }, (_, a) => {
    const files = Array.from({ length: Math.min(12, 1 + Math.floor(t / 3)) }, (_, k) => ({ path: `src/agent-${a}/module-${k}.ts`, status: k === 0 ? "A" : "M" }));
    return {
      id: `a${a}b${a}c${a}d${a}`,
      task: `Task ${a + 1}: refactor the parser of module ${a} and add tests for every event kind it validates`,
      state: "running",
      resumable: false,
      branch: `yoke/task-${a + 1}-a${a}b${a}c${a}d${a}`,
      spend: `$${(0.0123 * (t + 1) * (a + 1)).toFixed(4)}`,
      changedFiles: files,
      lastMessage: `Step ${t + 1}: I read \`src/agent-${a}/module-${t % 12}.ts\` and changed the \`value\` it exports; next I run the tests again and look at what fails. `.repeat(3).slice(0, 380),
      merged: false,
    };
  });
}

/** The host: the longest event-loop stall of one refresh reading five agents' logs of `events` events each, each grown by a second of an agent's work since the last refresh (median of 3), against reading them whole. */
export async function agentsHostFigures(sizes: readonly number[] = [1000, 10_000]): Promise<BenchMetric[]> {
  const out: BenchMetric[] = [];
  const dir = mkdtempSync(join(tmpdir(), "yoke-bench-agents-logs-"));
  try {
    for (const events of sizes) {
      const sessions = join(dir, `s${events}`);
      mkdirSync(sessions, { recursive: true });
      const records: AgentRecord[] = Array.from({ length: AGENTS }, (_, a) => {
        const sessionId = `20260101-000000-agent${a}`;
        writeFileSync(join(sessions, `${sessionId}.jsonl`), longSessionLines({ events, sessionId }).join("\n") + "\n");
        const now = new Date().toISOString();
        return {
          id: `a${a}b${a}c${a}d${a}`,
          task: `task ${a}`,
          workspace: dir,
          worktree: join(dir, `wt-${a}`),
          branch: `yoke/task-${a}`,
          baseCommit: "0".repeat(40),
          carried: "none",
          sessionDir: sessions,
          sessionId,
          runArgs: [],
          trusted: true,
          phase: "running",
          createdAt: now,
          updatedAt: now,
        };
      });
      const files = [{ path: "src/a.ts", status: "M" }];
      // One second of an agent's work: the events of one turn (11), appended to every log between refreshes.
      let grown = events;
      const grow = () => {
        const more = longSessionLines({ events: grown + 11 }).slice(grown);
        grown += 11;
        records.forEach((r) => appendFileSync(join(sessions, `${r.sessionId}.jsonl`), more.join("\n") + "\n"));
      };
      const refresh = async (logs?: AgentLogs) => {
        const w = new EventLoopWatchdog({ thresholdMs: 1 }).start();
        const t = performance.now();
        // As HostAgents.refresh: every record's view at once (the changed files are cached there between FILES_MS reads).
        await Promise.all(records.map((r) => agentViewOf(r, files, logs)));
        const wall = performance.now() - t;
        await new Promise((r) => setTimeout(r, 20));
        const stall = w.report().longest?.ms ?? 0;
        w.stop();
        return { stall, wall };
      };
      const logs = new AgentLogs();
      const first = await refresh(logs);
      const whole: number[] = [];
      const tail: number[] = [];
      const tailWall: number[] = [];
      for (let round = 0; round < 3; round++) {
        grow();
        const t = await refresh(logs);
        tail.push(t.stall);
        tailWall.push(t.wall);
        whole.push((await refresh()).stall);
      }
      const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
      const mb = Math.round((longSessionLines({ events }).join("\n").length / 1024 / 1024) * 10) / 10;
      const a = Math.round(med(tail));
      const b = Math.round(med(whole));
      const f = Math.round(first.stall);
      out.push({
        name: `host: longest event-loop stall of the first Agents refresh after the panel opens, ${AGENTS} agents with ${events.toLocaleString("en")}-event logs`,
        value: f,
        unit: "ms",
        baseline: b,
        ratio: Math.round((f / Math.max(1, b)) * 1000) / 1000,
        note: `one refresh with nothing read before (AgentLogs.summary: each log read in 256 KB slices, yielding between them; only the usage, sub-agent and rewind lines and the last assistant message parsed); baseline: every log read and parsed whole (median of 3, same run); wall ${Math.round(first.wall)} ms`,
      });
      out.push({
        name: `host: longest event-loop stall of one Agents refresh, ${AGENTS} agents with ${events.toLocaleString("en")}-event logs`,
        value: a,
        unit: "ms",
        baseline: b,
        ratio: Math.round((a / Math.max(1, b)) * 1000) / 1000,
        note: `median of 3 refreshes, each after 11 events appended to every log (a second of work); baseline: every log read and parsed whole, as the refresh did before (same run); each log ${mb} MB; wall ${Math.round(med(tailWall))} ms; the watchdog's tick adds up to 10 ms`,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
