// The task benchmark through the real CLI: `yoke bench --only tasks --json` on a few tasks for all
// four policies prints the documented shape with every run passing its check, and a policy that
// leaves the goal's last change out fails the same checks.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, runCli } from "../support/cli";

beforeAll(() => ensureBuilt(), 120_000);

const POLICIES = ["yoke", "claude-code-style", "aider-style", "bash-only"];
const TASKS = ["csv-quoted-fields", "rename-subtotal"];
const ROW_KEYS = ["task", "policy", "passed", "requests", "inputTokens", "cachedInputTokens", "outputTokens", "costUsd", "wallMs", "perRequest"];
const TOTAL_KEYS = ["passed", "requests", "inputTokens", "cachedInputTokens", "outputTokens", "costUsd", "wallMs"];
/** The priced model's shortest cacheable prompt (src/bench/tasks/tokens.ts). */
const MIN_CACHEABLE = 1024;

type Req = { input: number; cached: number; shared: number; output: number };

interface Doc {
  tasks: Array<Record<string, unknown>>;
  totals: Record<string, Record<string, unknown>>;
}

async function bench(env: Record<string, string>): Promise<{ doc: Doc; stderr: string }> {
  const r = await runCli(["bench", "--only", "tasks", "--json"], { env: { YOKE_BENCH_TASKS: TASKS.join(","), ...env } });
  expect(r.code, r.stderr).toBe(0);
  return { doc: JSON.parse(r.stdout) as Doc, stderr: r.stderr };
}

describe("yoke bench --only tasks", () => {
  it("runs the tasks for all four policies and prints the documented JSON", async () => {
    const { doc, stderr } = await bench({ YOKE_BENCH_TASK_PARTS: "1" });
    expect(Object.keys(doc)).toEqual(["tasks", "totals"]);
    // bash-only is a one-tool harness (yoke run --tools run_command); yoke's deferred tools are behind load_tools.
    expect(stderr).toMatch(/\nbash-only: .*First request \(mean\): tool definitions \d+ \(run_command \d+, list \(separators\) \d+\), system/);
    expect(stderr).toMatch(/\nyoke: .*tool definitions [\d,]+ \([^)]*load_tools \d+/);
    // Request by request, with the cache breaks Yoke's own watch recorded (none: nothing rewrites the prefix).
    expect(stderr).toMatch(
      /\nyoke, request by request \(means over the runs\): #1 \(2 runs\): input [\d,]+, cached 0, shared 0, fresh [\d,]+, output \d+; #2 .* Cache breaks recorded by Yoke's prompt-cache watch: 0\./,
    );
    // The one-tool harness is not told about tools it lacks: its system prompt is shorter than yoke's.
    const systemOf = (p: string) => Number(new RegExp(`\\n${p}: .*\\), system (\\d+), messages`).exec(stderr)?.[1]);
    expect(systemOf("bash-only")).toBeLessThan(systemOf("yoke"));
    expect(stderr).not.toMatch(/\nyoke: .*tool definitions [\d,]+ \([^)]*(kill_command|command_output|recall|load_skill|task) \d+/);
    expect(doc.tasks).toHaveLength(TASKS.length * POLICIES.length);
    for (const row of doc.tasks) {
      expect(Object.keys(row)).toEqual(ROW_KEYS);
      expect(row.passed, `${String(row.task)} / ${String(row.policy)}: ${stderr}`).toBe(true);
      expect(row.requests).toBeGreaterThanOrEqual(2);
      expect(row.inputTokens).toBeGreaterThan(row.cachedInputTokens as number);
      expect(row.outputTokens).toBeGreaterThan(0);
      // Request by request: the figures add up to the row's; every later request shares a prefix with
      // the one before, which the cache serves only from the priced model's minimum on.
      const per = row.perRequest as Req[];
      expect(per).toHaveLength(row.requests as number);
      expect(per.reduce((n, x) => n + x.input, 0)).toBe(row.inputTokens);
      expect(per.reduce((n, x) => n + x.cached, 0)).toBe(row.cachedInputTokens);
      expect(per.reduce((n, x) => n + x.output, 0)).toBe(row.outputTokens);
      expect(per[0]!.shared).toBe(0);
      for (const x of per.slice(1)) {
        expect(x.shared).toBeGreaterThan(0);
        expect(x.cached).toBe(x.shared >= MIN_CACHEABLE ? x.shared : 0);
      }
      // Yoke's first request (tool definitions and system prompt) is above the minimum: all it shares is served.
      if (row.policy !== "bash-only") expect(row.cachedInputTokens).toBe(per.reduce((n, x) => n + x.shared, 0));
      expect(row.costUsd).toBeGreaterThan(0);
      expect(row.wallMs).toBeGreaterThan(0);
    }
    expect(new Set(doc.tasks.map((r) => `${String(r.task)}/${String(r.policy)}`)).size).toBe(doc.tasks.length);
    expect(Object.keys(doc.totals)).toEqual(POLICIES);
    for (const p of POLICIES) {
      const t = doc.totals[p]!;
      expect(Object.keys(t)).toEqual(TOTAL_KEYS);
      expect(t.passed).toBe(TASKS.length);
      const rows = doc.tasks.filter((r) => r.policy === p);
      expect(t.inputTokens).toBe(rows.reduce((n, r) => n + (r.inputTokens as number), 0));
      expect(t.requests).toBe(rows.reduce((n, r) => n + (r.requests as number), 0));
    }
    // The whole run's wall and CPU time, with the load it ran under and where the runs' time went.
    expect(stderr).toMatch(
      /\[bench\] tasks: Whole run: [\d.]+ s wall, CPU [\d.]+ s \(bench process [\d.]+, yoke run and checks [\d.]+\)\. Load average \(1, 5, 15 min\) before: [\d. ]+; after: [\d. ]+\. Summed over the runs \(wall s\): copy \+ server [\d.]+, yoke run start-up [\d.]+, session [\d.]+, exit [\d.]+, check [\d.]+/,
    );
    // The styles really differ: whole-file reads cost more input than yoke's targeted ones on the rename.
    const input = (p: string) => doc.tasks.find((r) => r.policy === p && r.task === "rename-subtotal")!.inputTokens as number;
    expect(input("yoke")).toBeLessThan(input("claude-code-style"));
  }, 600_000);

  it("fails the checks when the policy leaves out the last change", async () => {
    const { doc, stderr } = await bench({ YOKE_BENCH_TASK_POLICIES: "broken" });
    expect(doc.tasks).toHaveLength(TASKS.length);
    for (const row of doc.tasks) expect(row.passed, stderr).toBe(false);
    expect(doc.totals.broken!.passed).toBe(0);
    expect(stderr).toMatch(/csv-quoted-fields \/ broken failed: check: `bash scripts\/test\.sh ts test\/csv\.test\.ts` exited 1/);
    expect(stderr).toMatch(/rename-subtotal \/ broken failed: check: .*computeSubtotal.* is still in /);
  }, 600_000);

  it("refuses an unknown task or policy name", async () => {
    const r = await runCli(["bench", "--only", "tasks", "--json"], { env: { YOKE_BENCH_TASKS: "no-such-task" } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no task "no-such-task"/);
  }, 120_000);
});
