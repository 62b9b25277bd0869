/**
 * Bench section "guidance": matching latency with 1,000 lessons and 200 skills (against a naive
 * substring scan of the same keywords, measured in the same run), and the tokens guidance adds to
 * the requests of a scripted session with the built-in lessons (a session of the session recipe,
 * src/node/session-recipe.ts, in an empty temporary workspace and home). The matching latency is of
 * rank() alone on a synthetic set: it measures the matcher, no session is involved.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { effectiveEntries, rank, toolAliases } from "../core/guidance";
import { GUIDANCE_SOURCE } from "../core/guidance/extension";
import { parseLesson, parseSkill } from "../core/guidance/parse";
import type { GuidanceEntry } from "../core/guidance/types";
import type { SessionStore } from "../core/ports";
import type { ChatRequest, Provider, ProviderEvent } from "../core/providers/types";
import { defineTool, type ToolDefinition } from "../core/tools/types";
import { benchSession } from "./recipe-session";
import type { BenchMetric, BenchSection } from "./types";

const TOOLS = ["run_command", "edit_file", "write_file", "grep", "glob", "read_file", "todo_write", "task"];
const WORDS = "cache queue parser router schema index render deploy worker socket token stream buffer config logger metric session upload invoice report".split(" ");

function synthetic(): GuidanceEntry[] {
  const out: GuidanceEntry[] = [];
  for (let i = 0; i < 1000; i++) {
    const w = WORDS[i % WORDS.length]!;
    const text = `---\nmatch:\n  keywords: ["${w}${i} failure", "${w}*${i}"]\n  patterns: ['${w}Error${i}: .*']\n  tools: [${TOOLS[i % TOOLS.length]}]\n  globs: ['src/${w}/**/*.ts']\n---\n# Lesson ${i}\nWhat to do when ${w} ${i} breaks.\n`;
    const p = parseLesson({ path: `/l/${i}.md`, source: `lessons/${i}.md`, origin: "workspace", text });
    if (p.entry) out.push(p.entry);
  }
  for (let i = 0; i < 200; i++) {
    const w = WORDS[i % WORDS.length]!;
    const p = parseSkill({
      path: `/s/${i}/SKILL.md`,
      source: `.claude/skills/${i}/SKILL.md`,
      origin: "workspace",
      text: `---\nname: skill-${i}\ndescription: Work with the ${w} subsystem, variant ${i}\n---\nSteps.\n`,
    });
    if (p.entry) out.push(p.entry);
  }
  return out;
}

function median(runs: number, fn: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(runs / 2)]! * 100) / 100;
}

const OUTPUT = `${"npm test output line\n".repeat(200)}Traceback (most recent call last):\n  File "app.py", line 3\nqueueError17: boom\n`;

async function tokensPerRequest(): Promise<BenchMetric[]> {
  // An empty workspace and home: the session's guidance finds the built-in lessons only, as a fresh user's does.
  const root = mkdtempSync(join(tmpdir(), "yoke-bench-guidance-"));
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws);
  mkdirSync(home);
  const outputs = [
    OUTPUT,
    "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
    "ok",
    " FAIL  src/sum.test.ts\nAssertionError: expected 3 to be 4\n Tests  1 failed",
    "ok",
    "ok",
    "ok",
    "ok",
    "ok",
  ];
  const shell = defineTool({
    name: "run_command",
    description: "runs",
    schema: z.object({ command: z.string() }),
    permission: "Bash",
    capabilities: { runs: true },
    timeoutMs: 1000,
    summarize: () => "",
    hookInput: (a) => ({ command: a.command }),
    run: async () => ({ text: outputs.shift() ?? "ok" }),
  });
  const requests: ChatRequest[] = [];
  let turn = 0;
  const provider: Provider = {
    id: "openai-compatible",
    model: "bench",
    async *stream(req): AsyncIterable<ProviderEvent> {
      requests.push(req);
      turn++;
      // One test file per turn: the same command with the same output over and over would be stopped by the session's stuck detection.
      if (turn < 10) yield { type: "tool_call", id: `c${turn}`, name: "run_command", input: { command: `npm test -- test/part${turn}.test.ts` } };
      else yield { type: "text_delta", text: "done" };
      yield { type: "done", stopReason: turn < 10 ? "tool_use" : "end_turn" };
    },
  };
  const lines = new Map<string, string[]>();
  const store: SessionStore = {
    append: (id, l) => void (lines.get(id) ?? lines.set(id, []).get(id)!).push(l),
    sync() {},
    read: (id) => lines.get(id) ?? [],
    list: () => [...lines.keys()],
    exists: (id) => lines.has(id),
  };
  // The session of the recipe (every mechanism of a real session), the scripted shell its only tool.
  const { session: s, dispose } = await benchSession({ cwd: ws, home, provider, store, tools: [shell as ToolDefinition], limits: { retry: { maxRetries: 0 } } });
  try {
    await s.send("the test suite fails with a python traceback, fix it");
  } finally {
    await dispose();
    rmSync(root, { recursive: true, force: true });
  }
  const guidanceChars = s
    .events()
    .filter((e) => e.type === "context" && e.source === GUIDANCE_SOURCE)
    .reduce((n, e) => n + (e.type === "context" ? e.text.length : 0), 0);
  if (requests.length !== 10)
    throw new Error(
      `the guidance bench session made ${requests.length} requests, not 10: ${JSON.stringify(s.events().filter((e) => e.type === "stuck" || e.type === "error" || e.type === "budget"))}`,
    );
  // What the session's other mechanisms (tool hints, stuck detection…) added, for the note.
  const otherContext = s.events().filter((e) => e.type === "context" && e.source !== GUIDANCE_SOURCE);
  const lastChars = JSON.stringify(requests.at(-1)!.messages).length + requests.at(-1)!.system.length;
  const injected = s.events().flatMap((e) => (e.type === "guidance" ? e.injected : []));
  return [
    {
      name: "guidance tokens, whole 10-request session",
      value: Math.ceil(guidanceChars / 4),
      unit: "tokens",
      note: `${injected.filter((i) => i.kind === "lesson").length} lessons injected once each (${injected.map((i) => i.name).join(", ")}); other mechanisms' context messages, not counted: ${otherContext.length}`,
    },
    {
      name: "guidance tokens per request (mean)",
      value: Math.round(guidanceChars / 4 / requests.length),
      unit: "tokens",
      baseline: Math.round(lastChars / 4 / requests.length),
      ratio: Math.round((guidanceChars / lastChars) * 1000) / 1000,
      note: "baseline: mean request size of the session / requests; ratio: guidance share of the last request",
    },
  ];
}

export async function bench(): Promise<BenchSection> {
  const entries = effectiveEntries(synthetic());
  const aliases = toolAliases([]);
  const signals = {
    message: "the queue17 failure is back after the cache change",
    tools: ["run_command", "read_file"],
    outputs: [OUTPUT],
    files: ["/ws/src/queue/a.ts", "/ws/src/cache/b/c.ts", "/ws/README.md"],
  };
  rank(entries, signals, { toolAliases: aliases }); // compile once (cached per entry)
  const real = median(21, () => rank(entries, signals, { toolAliases: aliases }));
  const lower = `${signals.message}\n${signals.outputs.join("\n")}`.toLowerCase();
  const naive = median(21, () => entries.filter((e) => e.match.keywords.some((k) => lower.includes(k.replace(/\*/g, "").toLowerCase()))));
  const matched = rank(entries, signals, { toolAliases: aliases }).length;
  return {
    section: "guidance",
    method:
      "rank() over 1,000 synthetic lessons (2 keywords with wildcards, 1 regex, 1 of 8 tools, 1 glob each) and 200 skills, for one request's signals (a message, 2 tools, a 4 kB tool output, 3 files); median of 21 runs after one warm-up (regexes and globs are compiled once per entry). Baseline: a naive lower-case substring scan of the same keywords. Tokens: a scripted 10-request session built by the session recipe (every mechanism of a real session) in an empty workspace and home, so with the built-in lessons only, whose tool outputs carry a Python traceback, a TypeScript error and a failing test.",
    metrics: [
      {
        name: "match 1,000 lessons + 200 skills",
        value: real,
        unit: "ms",
        baseline: naive,
        ratio: naive > 0 ? Math.round((real / naive) * 10) / 10 : undefined,
        note: `${matched} entries scored above 0`,
      },
      ...(await tokensPerRequest()),
    ],
  };
}
