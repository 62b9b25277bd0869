// Compaction over the master log: the log is never rewritten, the projection after a compaction
// keeps what must survive verbatim, recall restores removed results byte for byte, and the guards stop
// compactions that would not help.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { EventOf, SessionEvent } from "../../../src/core/events";
import type { Extension } from "../../../src/core/extensions/types";
import { AgentSession, type AgentSessionOptions } from "../../../src/core/loop/agent-session";
import type { Approver } from "../../../src/core/loop/types";
import { silentLogger, type Searcher, type WorkspaceFs } from "../../../src/core/ports";
import { ProviderError } from "../../../src/core/providers/types";
import { projectConversation } from "../../../src/core/session/projection";
import { parseLog } from "../../../src/core/session/session-log";
import { todoWriteTool } from "../../../src/core/tools/todo-write";
import { defineTool, type ToolDefinition } from "../../../src/core/tools/types";
import { createFakeProvider, textTurn, toolTurn, type FakeTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";

const services = { fs: { root: "/ws" } as WorkspaceFs, search: {} as Searcher, log: silentLogger };

/** Deterministic, non-repeating text of `n` characters (with some unicode), different per key. */
export function payload(key: string, n: number): string {
  let s = "";
  let i = 0;
  while (s.length < n) s += `${key}:${i++} ünïcode ✓ line ${(i * 7919) % 10007}\n`;
  return s.slice(0, n);
}

const dump = defineTool({
  name: "dump",
  description: "prints a large report",
  schema: z.object({ key: z.string(), size: z.number() }),
  permission: "Read",
  capabilities: { reads: true },
  summarize: (i) => String(i.key ?? ""),
  timeoutMs: 1000,
  hookInput: (a) => ({ key: a.key }),
  run: async (a) => ({ text: payload(a.key, a.size) }),
});

const approver: Approver = { ask: async () => ({ decision: "allow" }) };

function setup(turns: FakeTurn[], extra: Partial<AgentSessionOptions> = {}) {
  const provider = createFakeProvider(turns);
  const store = createMemoryStore();
  const opts: AgentSessionOptions = {
    store,
    provider,
    tools: [dump] as ToolDefinition[],
    services,
    approver,
    retry: { maxRetries: 0 },
    systemPrompt: "You are a test agent.",
    compaction: { contextWindow: 40_000 },
    ...extra,
  };
  return { provider, store, opts };
}

const ofType = <T extends SessionEvent["type"]>(events: readonly SessionEvent[], type: T) => events.filter((e): e is EventOf<T> => e.type === type);
const allText = (s: AgentSession) =>
  projectConversation(s.events())
    .map((m) => (m.role === "tool" ? m.content : m.text))
    .join("\n");

const CONSTRAINT = "Never modify files under migrations/, and keep every public function Python 3.8 compatible.";

/** A session of several turns, each dumping an 8,000-character report. */
async function longSession(extra: Partial<AgentSessionOptions> = {}, more: FakeTurn[] = [], first: FakeTurn[] = []) {
  const turns: FakeTurn[] = [...first];
  for (let i = 0; i < 6; i++) {
    turns.push(toolTurn({ id: `call_${i}`, name: "dump", input: { key: `r${i}`, size: 8_000 } }));
    turns.push(textTurn(`I decided to use approach ${i} because the report ${i} shows it. The tests passed for step ${i}.`));
  }
  const t = setup([...turns, ...more], extra);
  const session = await AgentSession.create(t.opts);
  await session.send(`Refactor the parser. ${CONSTRAINT}`);
  for (let i = 1; i < 6; i++) await session.send(i === 3 ? "ok" : `Step ${i}: go on with the next module.`);
  return { ...t, session };
}

describe("compaction", () => {
  it("keeps a planted constraint verbatim and recall restores a compacted tool result byte for byte", async () => {
    const { session, provider } = await longSession({}, [toolTurn({ id: "call_recall", name: "recall", input: { ref: "call_0" } }), textTurn("done")]);
    const logBefore = session.events().map((e) => JSON.stringify(e));
    const out = await session.compact();
    expect(out.status).toBe("compacted");
    // The log is only appended to.
    expect(
      session
        .events()
        .slice(0, logBefore.length)
        .map((e) => JSON.stringify(e)),
    ).toEqual(logBefore);
    const c = ofType(session.events(), "compaction").at(-1)!;
    expect(c.trigger).toBe("manual");
    expect(c.tokensAfter).toBeLessThan(c.tokensBefore);
    expect(c.phases.map((p) => p.name)).toEqual(["reasoning", "tool_results", "summary"]);
    const messages = projectConversation(session.events());
    // The constraint is sent verbatim, as the user wrote it; the acknowledgement "ok" is not kept.
    expect(messages.some((m) => m.role === "user" && m.text === `Refactor the parser. ${CONSTRAINT}`)).toBe(true);
    expect(c.keptUserSeqs.map((seq) => (session.events()[seq] as EventOf<"user_message">).text)).not.toContain("ok");
    // The first report is gone from the context, named by its ref.
    const original = payload("r0", 8_000);
    expect(allText(session)).not.toContain(original);
    expect(c.summary).toMatch(/## (Decisions|Conclusions|Results)/);
    await session.send("Look at the first report again.");
    const recalled = ofType(session.events(), "tool_result").find((r) => r.callId === "call_recall")!;
    expect(recalled.isError).toBe(false);
    expect(recalled.output).toBe(original);
    // The model got those exact bytes.
    const lastReq = provider.requests.at(-1)!;
    expect(lastReq.messages.some((m) => m.role === "tool" && m.callId === "call_recall" && m.content === original)).toBe(true);
  });

  it("stubs name the call and carry the ref; the projection is a pure function of the log (a reopened log projects the same)", async () => {
    const { session, store } = await longSession();
    await session.compact();
    const c = ofType(session.events(), "compaction").at(-1)!;
    const inTail = session.events().filter((e) => e.type === "tool_result" && e.seq >= c.firstKeptSeq);
    for (const s of c.stubs) {
      const r = session.events()[s.seq] as EventOf<"tool_result">;
      const stub = projectConversation(session.events()).find((m) => m.role === "tool" && m.callId === r.callId);
      expect(stub && stub.role === "tool" && stub.content).toContain(`recall {"ref":"${s.ref}"}`);
    }
    expect(inTail.length).toBeGreaterThan(0);
    const reopened = parseLog(store.read(session.id)).events;
    expect(JSON.stringify(projectConversation(reopened))).toBe(JSON.stringify(projectConversation(session.events())));
  });

  it("re-sends persisted context and the open todo list verbatim after the summary", async () => {
    const guidance: Extension = {
      name: "guidance",
      setup(api) {
        api.on("request.prepare", ({ turn }) =>
          turn === 0 && api.session.events().filter((e) => e.type === "context").length === 0
            ? {
                append: [
                  { source: "rules", text: "RULE: tabs, not spaces.", persist: true },
                  { source: "lessons", text: "a passing lesson" },
                ],
              }
            : undefined,
        );
      },
    };
    const todos = toolTurn({
      id: "todo",
      name: "todo_write",
      input: {
        todos: [
          { content: "Port the lexer", status: "completed" },
          { content: "Port the parser", status: "in_progress" },
          { content: "Update the docs", status: "pending" },
        ],
      },
    });
    const { session } = await longSession({ extensions: [guidance], tools: [dump, todoWriteTool] as ToolDefinition[] }, [], [todos]);
    const out = await session.compact();
    expect(out.status).toBe("compacted");
    const messages = projectConversation(session.events());
    const rule = messages.findIndex((m) => m.role === "user" && m.text === '<context source="rules">\nRULE: tabs, not spaces.\n</context>');
    expect(rule).toBe(1); // right after the summary
    expect(messages[0]!.role === "user" && messages[0]!.text.startsWith('<context source="compaction">')).toBe(true);
    expect(messages.some((m) => m.role === "user" && m.text.includes("a passing lesson"))).toBe(false);
    const c = ofType(session.events(), "compaction").at(-1)!;
    expect(c.todosSeq).toBeDefined();
    const todoMsg = messages.find((m) => m.role === "user" && m.text.startsWith('<context source="todos">'));
    expect(todoMsg && todoMsg.role === "user" && todoMsg.text).toContain("[>] 2. Port the parser\n[ ] 3. Update the docs");
    // Order: summary, persisted context, user constraint messages, todo list, then the kept tail.
    const idx = (pred: (m: (typeof messages)[number]) => boolean) => messages.findIndex(pred);
    expect(idx((m) => m.role === "user" && m.text.includes(CONSTRAINT))).toBeGreaterThan(rule);
    expect(idx((m) => m === todoMsg)).toBeGreaterThan(idx((m) => m.role === "user" && m.text.includes(CONSTRAINT)));
  });

  it("spills a result over 50,000 characters to the session folder from the start; recall returns it byte-exact in pages", async () => {
    const big = payload("huge", 123_456);
    const t = setup(
      [
        toolTurn({ id: "call_big", name: "dump", input: { key: "huge", size: 123_456 } }),
        textTurn("seen"),
        toolTurn({ id: "r1", name: "recall", input: { ref: "call_big" } }),
        toolTurn({ id: "r2", name: "recall", input: { ref: "call_big", offset: 40_000 } }),
        toolTurn({ id: "r3", name: "recall", input: { ref: "call_big", offset: 80_000 } }),
        toolTurn({ id: "r4", name: "recall", input: { ref: "call_big", offset: 120_000 } }),
        textTurn("ok"),
      ],
      { compaction: {} },
    );
    const session = await AgentSession.create(t.opts);
    await session.send("dump it");
    const result = ofType(session.events(), "tool_result").find((r) => r.callId === "call_big")!;
    expect(result.output.length).toBeLessThan(8_000);
    expect(result.output).toContain('recall {"ref":"call_big"}');
    expect(result.output.startsWith("[This result is 123,456 characters")).toBe(true);
    expect(t.store.blobs.get(`${session.id}/result-call_big`)).toBe(big);
    expect(t.provider.requests[1]!.messages.some((m) => m.role === "tool" && m.content.includes(big))).toBe(false);
    await session.send("read all of it");
    const pages = ["r1", "r2", "r3", "r4"].map((id) => ofType(session.events(), "tool_result").find((r) => r.callId === id)!.output);
    const body = pages.map((p) => p.slice(p.indexOf("\n") + 1)).join("");
    expect(body).toBe(big);
    expect(pages[3]).toContain("This is the last page.");
  });

  it("a manual compaction of a short session under a long system prompt frees the conversation, and the meter says so only when it would", async () => {
    const turns: FakeTurn[] = [];
    for (let i = 0; i < 3; i++) turns.push(toolTurn({ id: `c${i}`, name: "dump", input: { key: `n${i}`, size: 3_000 } }), textTurn("I decided to keep it because it is fine."));
    // The provider reports what it counted: a 20,000-character system prompt is most of it.
    const t = setup(
      turns.map((turn) => (Array.isArray(turn) ? turn.map((e) => (e.type === "usage" ? { ...e, usage: { ...e.usage, inputTokens: 7_000 } } : e)) : turn)),
      { systemPrompt: "s".repeat(20_000), compaction: {} },
    );
    const session = await AgentSession.create(t.opts);
    const fresh = session.contextMeter()!;
    expect(fresh.afterCompaction).toBeUndefined();
    for (const m of ["Read the notes. Never change the constants.", "Again, please.", "And once more."]) await session.send(m);
    const meter = session.contextMeter()!;
    expect(meter.window).toBe(128_000);
    expect(meter.windowKnown).toBe(false);
    expect(meter.afterCompaction).toBeLessThan(meter.tokens);
    const out = await session.compact();
    expect(out.status).toBe("compacted");
  });

  it("recall of an unknown ref is a clear error", async () => {
    const t = setup([toolTurn({ id: "x", name: "recall", input: { ref: "nope" } }), textTurn("ok")]);
    const session = await AgentSession.create(t.opts);
    await session.send("recall");
    const r = ofType(session.events(), "tool_result").find((e) => e.callId === "x")!;
    expect(r.isError).toBe(true);
    expect(r.output).toContain('No tool result has ref "nope"');
  });

  it("the guard refuses a compaction that frees nothing, with a clear message and no compaction event", async () => {
    const t = setup([textTurn("hello")]);
    const session = await AgentSession.create(t.opts);
    await session.send("hi");
    const out = await session.compact();
    expect(out.status).toBe("refused");
    expect(out.status === "refused" && out.reason).toMatch(/too little to help: nothing was compacted/);
    expect(ofType(session.events(), "compaction")).toHaveLength(0);
    expect(ofType(session.events(), "error").at(-1)!.code).toBe("compaction_refused");
  });

  it("compacts automatically at the threshold before a request, and stops after three automatic compactions in a row", async () => {
    // A small window: every turn's 8,000-character result pushes the context past 80 %.
    const turns: FakeTurn[] = [];
    for (let i = 0; i < 12; i++) turns.push(toolTurn({ id: `c${i}`, name: "dump", input: { key: `k${i}`, size: 9_000 } }));
    turns.push(textTurn("done"));
    const t = setup(turns, { compaction: { contextWindow: 12_000 } });
    const session = await AgentSession.create(t.opts);
    await session.send(`Go. ${CONSTRAINT}`);
    const compactions = ofType(session.events(), "compaction");
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    expect(compactions.length).toBeLessThanOrEqual(3);
    expect(compactions.every((c) => c.trigger === "threshold")).toBe(true);
    const refusals = ofType(session.events(), "error").filter((e) => e.code === "compaction_refused");
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(refusals.length).toBeLessThanOrEqual(2);
    // Every request after the first compaction still carries the constraint verbatim.
    const afterFirst = t.provider.requests.filter((r) => r.messages[0]?.role === "user" && (r.messages[0] as { text: string }).text.startsWith('<context source="compaction">'));
    expect(afterFirst.length).toBeGreaterThan(0);
    for (const r of afterFirst) expect(r.messages.some((m) => m.role === "user" && m.text === `Go. ${CONSTRAINT}`)).toBe(true);
  });

  it("a too-long error from the provider compacts and retries once", async () => {
    const { session, provider } = await longSession({}, [new ProviderError("context_length", "the conversation is too long"), textTurn("fits now")]);
    const n = provider.requests.length;
    await session.send("continue please, with all of it");
    expect(provider.requests.length).toBe(n + 2);
    const c = ofType(session.events(), "compaction").at(-1)!;
    expect(c.trigger).toBe("overflow");
    expect(ofType(session.events(), "assistant_message").at(-1)!.text).toBe("fits now");
    expect(provider.requests.at(-1)!.messages.length).toBeLessThan(provider.requests.at(-2)!.messages.length);
  });

  it("a too-long error that compaction cannot help ends the turn with the provider's error, tried once", async () => {
    const t = setup([new ProviderError("context_length", "the conversation is too long"), textTurn("never")]);
    const session = await AgentSession.create(t.opts);
    await session.send("hi");
    expect(t.provider.requests.length).toBe(1);
    expect(ofType(session.events(), "error").map((e) => e.code)).toEqual(["compaction_refused", "context_length"]);
  });

  it("a compaction handler (a PreCompact hook) may veto: nothing is compacted and the reason is recorded", async () => {
    const veto: Extension = { name: "precompact", setup: (api) => void api.on("compaction", ({ trigger }) => ({ veto: `not now (${trigger})` })) };
    const { session } = await longSession({ extensions: [veto] });
    const out = await session.compact();
    expect(out).toMatchObject({ status: "vetoed", reason: "not now (manual)" });
    expect(ofType(session.events(), "compaction")).toHaveLength(0);
    expect(ofType(session.events(), "extension").at(-1)).toMatchObject({ point: "compaction", outcome: "blocked" });
  });

  it("a second compaction updates the previous summary (anchored) instead of summarising it", async () => {
    const { session } = await longSession({}, [
      toolTurn({ id: "m1", name: "dump", input: { key: "m1", size: 8_000 } }),
      textTurn("We chose the streaming parser instead of the DOM one."),
      toolTurn({ id: "m2", name: "dump", input: { key: "m2", size: 8_000 } }),
      textTurn("I decided to keep the old API because callers depend on it."),
      toolTurn({ id: "m3", name: "dump", input: { key: "m3", size: 8_000 } }),
      textTurn("Done with step three."),
    ]);
    await session.compact();
    const first = ofType(session.events(), "compaction").at(-1)!;
    await session.send("more work");
    await session.send("and more");
    await session.send("and the rest");
    await session.compact();
    const second = ofType(session.events(), "compaction").at(-1)!;
    expect(second.seq).not.toBe(first.seq);
    expect(second.firstKeptSeq).toBeGreaterThan(first.firstKeptSeq);
    for (const line of first.summary.split("\n").filter((l) => l.startsWith("- "))) expect(second.summary).toContain(line);
    expect(second.keptUserSeqs).toEqual(expect.arrayContaining(first.keptUserSeqs));
  });
  it("with strategy llm the chosen model writes the summary from the older turns; the next request carries it and the constraint verbatim", async () => {
    const summarizer = createFakeProvider([textTurn("## Goal\n- Refactor the parser\n## Decisions\n- LLM-SUMMARY: approach 5 was chosen over approaches 0-4")], "cheap-model");
    const { session, provider } = await longSession({ compaction: { contextWindow: 40_000, settings: { threshold: 0.8, strategy: "llm" }, summaryProvider: summarizer } }, [textTurn("Carrying on.")]);
    const out = await session.compact();
    expect(out.status).toBe("compacted");
    const event = ofType(session.events(), "compaction").at(-1)!;
    expect(event.strategy).toBe("llm");
    expect(event.summary).toContain("LLM-SUMMARY: approach 5 was chosen");
    // The summariser was asked once, with the running-summary instructions and the older turns.
    expect(summarizer.requests).toHaveLength(1);
    expect(summarizer.requests[0]!.system).toContain("update the running summary");
    expect(JSON.stringify(summarizer.requests[0]!.messages)).toContain("approach 0");
    await session.send("Carry on.");
    const next = JSON.stringify(provider.requests.at(-1)!.messages);
    expect(next).toContain("LLM-SUMMARY: approach 5 was chosen");
    expect(next).toContain(CONSTRAINT);
  });

  it("with strategy llm a failing summariser falls back to the extractive summary and says so", async () => {
    const summarizer = createFakeProvider([new ProviderError("server", "summariser down")], "cheap-model");
    const { session } = await longSession({ compaction: { contextWindow: 40_000, settings: { threshold: 0.8, strategy: "llm" }, summaryProvider: summarizer } });
    const out = await session.compact();
    expect(out.status).toBe("compacted");
    expect(ofType(session.events(), "compaction").at(-1)!.strategy).toBe("extractive");
    expect(ofType(session.events(), "error").map((e) => e.message)).toEqual(
      expect.arrayContaining([expect.stringContaining("The LLM summary failed (summariser down); the extractive summary was used instead.")]),
    );
  });
});
