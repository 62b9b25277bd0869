// Reviews in the event log: the proposal and the decision are events, a failed or rejected review
// is an error result (cards and PostToolUse hooks must not see success), and a review pending when
// the window reloaded is taken up again on resume, its decision becoming the tool's result.
import { afterEach, describe, expect, it } from "vitest";
import type { EventOf, SessionEvent } from "../../../src/core/events";
import { AgentSession, type AgentSessionOptions } from "../../../src/core/loop/agent-session";
import { silentLogger } from "../../../src/core/ports";
import type { ChangeReviewer, ProposedChange, ReviewOutcome } from "../../../src/core/review";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { createFakeProvider, textTurn, toolTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

function options(store: ReturnType<typeof createMemoryStore>, reviewer: ChangeReviewer, turns: Parameters<typeof createFakeProvider>[0]): AgentSessionOptions {
  return {
    store,
    provider: createFakeProvider(turns),
    tools: createBuiltinTools(),
    services: { fs: ws.fs, search: ws.search, log: silentLogger, reviewer },
    approver: { ask: async () => ({ decision: "allow" }) },
    retry: { maxRetries: 0 },
  };
}

/** A reviewer that writes what the user accepted, like the extension's. */
function reviewer(decide: (c: ProposedChange) => Promise<ReviewOutcome> | ReviewOutcome): ChangeReviewer & { seen: ProposedChange[] } {
  const seen: ProposedChange[] = [];
  return {
    seen,
    async review(change) {
      seen.push(change);
      const o = await decide(change);
      if (o.finalContent !== null && o.status !== "rejected" && !o.error) ws.write({ [change.relPath]: o.finalContent });
      return o;
    },
  };
}

const of = <T extends SessionEvent["type"]>(events: readonly SessionEvent[], type: T) => events.filter((e): e is EventOf<T> => e.type === type);
const write = (content: string) => toolTurn({ id: "w1", name: "write_file", input: { path: "notes.md", content } });

describe("reviews in the event log", () => {
  it("records the proposal and the user's decision", async () => {
    ws = createTempWorkspace({});
    const store = createMemoryStore();
    const r = reviewer((c) => ({ status: "accepted", finalContent: c.after }));
    const s = await AgentSession.create(options(store, r, [write("hello\n"), textTurn("ok")]));
    await s.send("write notes");
    const [proposed] = of(s.events(), "review_proposed");
    expect(proposed).toMatchObject({ callId: "w1", relPath: "notes.md", tool: "write_file", mode: "ask", created: true });
    expect(proposed!.diff).toContain("+hello");
    expect(of(s.events(), "review_decision")).toEqual([expect.objectContaining({ status: "accepted", by: "user", path: "notes.md", region: "@@ line 1\nhello" })]);
    expect(ws.read("notes.md")).toBe("hello\n");
  });

  it("a review that fails or is rejected is an error result, not a success", async () => {
    for (const outcome of [
      { status: "rejected", finalContent: null, error: "the editor could not open notes.md" },
      { status: "rejected", finalContent: null, message: "not now" },
    ] as ReviewOutcome[]) {
      ws = createTempWorkspace({});
      const s = await AgentSession.create(
        options(
          createMemoryStore(),
          reviewer(() => outcome),
          [write("x\n"), textTurn("ok")],
        ),
      );
      await s.send("write");
      const [result] = of(s.events(), "tool_result");
      expect(result).toMatchObject({ name: "write_file", isError: true });
      expect(of(s.events(), "review_decision")[0]).toMatchObject({ status: outcome.error ? "failed" : "rejected" });
      expect(ws.exists("notes.md")).toBe(false);
      ws.cleanup();
    }
  });

  it("takes up a review that was pending when the window reloaded, and the decision is the result", async () => {
    ws = createTempWorkspace({ "notes.md": "old\n" });
    const store = createMemoryStore();
    // The first window: the review is put up and never answered (the window reloads).
    const hanging = reviewer(() => new Promise<ReviewOutcome>(() => {}));
    const first = await AgentSession.create(options(store, hanging, [toolTurn({ id: "r1", name: "read_file", input: { path: "notes.md" } }), write("new\n")]));
    void first.send("rewrite notes");
    await waitUntil(() => of(first.events(), "review_proposed").length === 1);
    // The new window resumes the same log with its own reviewer; the user accepts this time.
    const accepting = reviewer((c) => ({ status: "accepted", finalContent: c.after }));
    const second = await AgentSession.resume(first.id, options(store, accepting, [textTurn("rewritten")]));
    expect(of(second.events(), "tool_result").filter((e) => e.callId === "w1")).toEqual([]);
    await second.continue();
    expect(accepting.seen).toEqual([expect.objectContaining({ editId: "w1:notes.md", before: "old\n", after: "new\n" })]);
    const result = of(second.events(), "tool_result").find((e) => e.callId === "w1")!;
    expect(result).toMatchObject({ isError: false });
    expect(result.output).toContain("The user accepted the change to notes.md.");
    expect(ws.read("notes.md")).toBe("new\n");
    expect(second.state).toBe("done");
  });

  it("does not apply a pending review when the file changed while the window was closed", async () => {
    ws = createTempWorkspace({ "notes.md": "old\n" });
    const store = createMemoryStore();
    const first = await AgentSession.create(
      options(
        store,
        reviewer(() => new Promise<ReviewOutcome>(() => {})),
        [toolTurn({ id: "r1", name: "read_file", input: { path: "notes.md" } }), write("new\n")],
      ),
    );
    void first.send("rewrite notes");
    await waitUntil(() => of(first.events(), "review_proposed").length === 1);
    ws.write({ "notes.md": "changed by the user\n" });
    const second = await AgentSession.resume(
      first.id,
      options(
        store,
        reviewer(() => ({ status: "accepted", finalContent: "" })),
        [textTurn("ok")],
      ),
    );
    await second.continue();
    const result = of(second.events(), "tool_result").find((e) => e.callId === "w1")!;
    expect(result).toMatchObject({ isError: true });
    expect(result.output).toMatch(/^The change to notes.md was waiting for review when the window reloaded, and the file has changed since, so it was not applied/);
    expect(ws.read("notes.md")).toBe("changed by the user\n");
  });
});

async function waitUntil(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
