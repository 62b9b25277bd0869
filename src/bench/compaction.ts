/**
 * Bench section "compaction": prompt-cache prefix stability over a scripted 50-request session
 * with guidance and one compaction (real Anthropic SDK over HTTP to the scripted server, measured
 * on the server's request log), and a 2,000-event session compacted (tokens before/after, time,
 * and a check that every planted constraint and decision survives and recall is byte-exact).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createCompaction } from "../core/compaction/compactor";
import { recallText } from "../core/compaction/recall";
import type { EventOf, SessionEvent } from "../core/events";
import { AgentSession } from "../core/loop/agent-session";
import type { SessionStore } from "../core/ports";
import { AnthropicProvider } from "../core/providers/anthropic";
import type { Provider, ProviderEvent } from "../core/providers/types";
import { projectConversation } from "../core/session/projection";
import { createBuiltinTools } from "../core/tools/builtin";
import { defineTool, type ToolDefinition } from "../core/tools/types";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedTurn } from "../demo/scripted-llm-server";
import { benchRecipe } from "./recipe-session";
import type { BenchSection } from "./types";

type Json = Record<string, unknown>;

function stripCacheControl(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(stripCacheControl);
  if (x && typeof x === "object") {
    const out: Json = {};
    for (const [k, v] of Object.entries(x as Json)) if (k !== "cache_control") out[k] = stripCacheControl(v);
    return out;
  }
  return x;
}

/**
 * A request in the order a provider's prompt cache reads it (tools, system, messages), without
 * Anthropic's cache_control markers (they mark where to cache; they are not part of the prefix).
 */
export function canonicalRequest(rec: RecordedRequest): string {
  const b = rec.body;
  return JSON.stringify(stripCacheControl(rec.format === "anthropic" ? [b.tools ?? [], b.system ?? [], b.messages ?? []] : [b.tools ?? [], b.messages ?? []]));
}

export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export interface PrefixStep {
  /** 0-based request index (≥ 1). */
  index: number;
  /** Share of this request's bytes identical to the previous request's prefix. */
  share: number;
  /** Share of the previous request found unchanged at the start of this one. */
  previousKept: number;
}

export function prefixStability(requests: readonly RecordedRequest[]): PrefixStep[] {
  const c = requests.map(canonicalRequest);
  return c.slice(1).map((cur, i) => {
    const prev = c[i]!;
    const same = commonPrefix(prev, cur);
    return { index: i + 1, share: same / cur.length, previousKept: same / prev.length };
  });
}

export function memoryStore(): SessionStore {
  const raw = new Map<string, string[]>();
  const blobs = new Map<string, string>();
  return {
    append: (id, line) => void (raw.get(id) ?? raw.set(id, []).get(id)!).push(line),
    sync() {},
    read: (id) => [...(raw.get(id) ?? [])],
    list: () => [...raw.keys()],
    exists: (id) => raw.has(id),
    writeBlob: (id, key, data) => void blobs.set(`${id}/${key}`, data),
    readBlob: (id, key) => blobs.get(`${id}/${key}`),
  };
}

/** Deterministic text of n characters, distinct per key. */
export function report(key: string, n: number): string {
  let s = "";
  for (let i = 0; s.length < n; i++) s += `${key} line ${i}: value=${(i * 2654435761) % 1000003} ok\n`;
  return s.slice(0, n);
}

const probe = defineTool({
  name: "probe",
  description: "Prints a report of a part of the system.",
  schema: z.object({ part: z.string(), size: z.number().int().positive() }),
  permission: "Read",
  capabilities: { reads: true },
  summarize: (i) => String(i.part ?? ""),
  timeoutMs: 5_000,
  hookInput: (a) => ({ part: a.part }),
  run: async (a) => ({ text: report(a.part, a.size) }),
});

/**
 * Lessons in the workspace's .yoke/lessons/, each matching the report of one probe call: the
 * session's own guidance (the recipe's) appends them after that call, about every 5th request
 * (appended, never inserted), as it does in a real session.
 */
function writeLessons(ws: string, sends: number): void {
  const dir = join(ws, ".yoke", "lessons");
  mkdirSync(dir, { recursive: true });
  for (let turn = 1; turn <= sends * 2; turn += 2) {
    if (turn % 10 !== 1 && turn % 10 !== 5) continue;
    writeFileSync(join(dir, `m${turn}.md`), `---\nmatch:\n  keywords: ["m${turn} line"]\n---\n# Module ${turn}\nRule ${turn}: keep the functions of module ${turn} under 40 lines.\n`);
  }
}

/** A temporary workspace and home for one bench session (removed by the returned function). */
function benchFolders(prefix: string): { ws: string; home: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws);
  mkdirSync(home);
  return { ws, home, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * A scripted session over the Anthropic wire: `sends` user messages, each answered by one probe
 * call and then text (two requests each), with a manual compaction after `compactAfter` sends.
 * Returns the server's request log and the index of the first request after the compaction.
 */
export async function scriptedPrefixSession(opts: {
  sends: number;
  compactAfter: number;
  resultChars?: number;
}): Promise<{ requests: RecordedRequest[]; compactionRequest: number; session: AgentSession }> {
  let turn = 0;
  const server = await startScriptedLlmServer({
    script: (req): ScriptedTurn => {
      const messages = req.body.messages as Json[];
      const last = messages[messages.length - 1] as { content?: Json[] };
      const answeredTool = Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result");
      turn++;
      return answeredTool
        ? { text: `Step ${turn}: I decided to keep module ${turn} as it is because its report is clean.` }
        : { toolCalls: [{ name: "probe", input: { part: `m${turn}`, size: opts.resultChars ?? 1_200 } }] };
    },
  });
  const folders = benchFolders("yoke-bench-prefix-");
  try {
    writeLessons(folders.ws, opts.sends);
    const provider = new AnthropicProvider({ provider: "anthropic", model: "claude-sonnet-5", baseUrl: server.anthropicBaseUrl, apiKey: "bench" });
    // A session as the recipe builds it: Yoke's own system prompt, tool list and mechanisms (the builtin tools are offered, only probe is called).
    const tools = [...createBuiltinTools(), probe] as ToolDefinition[];
    const recipe = await benchRecipe({ cwd: folders.ws, home: folders.home, provider, store: memoryStore(), tools, platform: "linux", limits: { retry: { maxRetries: 0 } } });
    const session = await AgentSession.create(recipe.options);
    let compactionRequest = -1;
    for (let i = 0; i < opts.sends; i++) {
      if (i === opts.compactAfter) {
        const out = await session.compact();
        if (out.status !== "compacted") throw new Error(`the bench compaction did not happen: ${JSON.stringify(out)}`);
        compactionRequest = server.requests.length;
      }
      await session.send(i === 0 ? "Review every module. Never change the public API, and keep Python 3.8 compatibility." : `Module ${i}: go on.`);
    }
    await recipe.dispose();
    return { requests: [...server.requests], compactionRequest, session };
  } finally {
    await server.close();
    folders.remove();
  }
}

/** A provider in-process (no HTTP) for the 2,000-event session: answers from a function. */
function localProvider(answer: (n: number, last: unknown, inputTokens: number) => ProviderEvent[]): Provider {
  let n = 0;
  return {
    id: "openai-compatible",
    model: "bench-model",
    async *stream(req) {
      n++;
      yield* answer(n, req.messages[req.messages.length - 1], Math.ceil((req.system.length + JSON.stringify(req.messages).length) / 4));
    },
  };
}

export interface BigSessionResult {
  events: number;
  tokensBefore: number;
  tokensAfter: number;
  ms: number;
  constraints: { planted: number; kept: number };
  decisions: { planted: number; kept: number };
  recall: { checked: number; exact: number };
}

/** A session of about 2,000 events with planted constraints and decisions, compacted once. */
export async function bigSession(): Promise<BigSessionResult> {
  const constraints: string[] = [];
  const decisions: string[] = [];
  const provider = localProvider((n, last, inputTokens) => {
    const usage: ProviderEvent = { type: "usage", usage: { inputTokens, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 } };
    if ((last as { role?: string }).role === "tool") {
      const text = n % 20 === 0 ? decisions[decisions.push(`I decided to use the ring buffer ${n} because the queue ${n} dropped messages.`) - 1]! : `Read it; nothing unusual in part ${n}.`;
      return [{ type: "text_delta", text }, usage, { type: "done", stopReason: "end_turn" }];
    }
    const size = n % 101 === 0 ? 60_000 : 3_000 + ((n * 7919) % 6_000);
    return [{ type: "tool_call", id: `call_${n}`, name: "probe", input: { part: `p${n}`, size } }, usage, { type: "done", stopReason: "tool_use" }];
  });
  const store = memoryStore();
  const folders = benchFolders("yoke-bench-big-");
  const recipe = await benchRecipe({ cwd: folders.ws, home: folders.home, provider, store, tools: [probe] as ToolDefinition[], limits: { retry: { maxRetries: 0 } } });
  // The log is a fixture: a window large enough that the session never compacts itself while it is written
  // (the compaction measured below is a dry run of its own over the whole log).
  const session = await AgentSession.create({ ...recipe.options, compaction: { ...recipe.options.compaction, contextWindow: 2_000_000 } });
  for (let i = 0; session.events().length < 2_000; i++) {
    const text = i % 25 === 0 ? constraints[constraints.push(`Constraint ${i}: never call the legacy endpoint /v${i}/sync, and keep responses under ${i + 10} ms.`) - 1]! : `Part ${i}: next.`;
    await session.send(text);
  }
  const events = session.events();
  // The originals: what the tool produced (the spilled ones are in the store whole).
  const produced = new Map<string, string>();
  for (const e of events) if (e.type === "assistant_message") for (const c of e.toolCalls) produced.set(c.id, report((c.input as { part: string }).part, (c.input as { size: number }).size));
  const compaction = createCompaction({
    sessionId: () => session.id,
    events: () => session.events(),
    append: () => {
      throw new Error("measured as a dry run");
    },
    store,
    model: "bench-model",
    fixedTokens: () => 500,
    ask: async () => ({ instructions: [] }),
    describeTool: () => ({ reads: true }),
    contextWindow: 200_000,
  });
  const started = performance.now();
  const out = await compaction.compact("manual", new AbortController().signal, { dryRun: true });
  const ms = performance.now() - started;
  await session.end();
  await recipe.dispose();
  folders.remove();
  if (out.status !== "compacted") throw new Error(`the 2,000-event compaction did not happen: ${JSON.stringify(out)}`);
  const c = { ...out.event, seq: events.length, ts: "" } as EventOf<"compaction">;
  const after: SessionEvent[] = [...events, c];
  const messages = projectConversation(after);
  const userTexts = new Set(messages.flatMap((m) => (m.role === "user" ? [m.text] : [])));
  const all = messages.map((m) => (m.role === "tool" ? m.content : m.text)).join("\n");
  let exact = 0;
  // Every tool result of the log: summarised, stubbed, spilled or kept.
  const refs = [...produced.keys()];
  for (const id of refs) if (recallText({ sessionId: () => session.id, events: () => after, store }, id) === produced.get(id)) exact++;
  return {
    events: events.length,
    tokensBefore: c.tokensBefore,
    tokensAfter: c.tokensAfter,
    ms,
    constraints: { planted: constraints.length, kept: constraints.filter((t) => userTexts.has(t)).length },
    decisions: { planted: decisions.length, kept: decisions.filter((d) => all.includes(d)).length },
    recall: { checked: refs.length, exact },
  };
}

export async function bench(): Promise<BenchSection> {
  const { requests, compactionRequest } = await scriptedPrefixSession({ sends: 25, compactAfter: 13 });
  const steps = prefixStability(requests);
  const outside = steps.filter((s) => s.index !== compactionRequest);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const big = await bigSession();
  return {
    section: "compaction",
    method:
      "Prefix stability: 25 user messages (50 requests) through the real @anthropic-ai/sdk client to the scripted server, each a probe tool call (1,200 characters) and an answer, " +
      "the session built by the session recipe (every mechanism of a real session), lessons of the workspace's .yoke/lessons appended by its guidance about every 5th request, one manual compaction after the 13th message; for each request, the share of its bytes (tools, system, messages; cache_control markers left out) identical to the previous request's prefix. " +
      "Big session: about 2,000 events (tool results of 3–9 k characters, two over 50 k spilled, a constraint in every 25th user message, a decision in every 10th answer) compacted once against a 200 k window (dry run), in-process; the log is written by a session of the recipe whose window is widened so that it never compacts itself.",
    metrics: [
      { name: "requests measured", value: steps.length, unit: "requests" },
      { name: "prefix share, mean outside the compaction request", value: +(mean(outside.map((s) => s.share)) * 100).toFixed(2), unit: "%" },
      { name: "prefix share, lowest outside the compaction request", value: +(Math.min(...outside.map((s) => s.share)) * 100).toFixed(2), unit: "%" },
      { name: "previous request kept whole at the start of the next, lowest outside the compaction request", value: +(Math.min(...outside.map((s) => s.previousKept)) * 100).toFixed(2), unit: "%" },
      { name: "prefix share at the compaction request", value: +((steps.find((s) => s.index === compactionRequest)?.share ?? 0) * 100).toFixed(2), unit: "%" },
      { name: "2,000-event session: events", value: big.events, unit: "events" },
      { name: "2,000-event session: tokens before", value: big.tokensBefore, unit: "tokens" },
      { name: "2,000-event session: tokens after", value: big.tokensAfter, unit: "tokens", baseline: big.tokensBefore, ratio: +(big.tokensAfter / big.tokensBefore).toFixed(3) },
      { name: "2,000-event session: compaction time", value: +big.ms.toFixed(1), unit: "ms" },
      { name: "planted constraints kept verbatim", value: big.constraints.kept, unit: `of ${big.constraints.planted}` },
      { name: "planted decisions kept in the context", value: big.decisions.kept, unit: `of ${big.decisions.planted}` },
      { name: "recall byte-exact (every tool result: summarised, stubbed, spilled, kept)", value: big.recall.exact, unit: `of ${big.recall.checked}` },
    ],
  };
}
