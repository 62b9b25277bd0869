// A fork of a session another writer holds mid-run: the copy has the whole conversation and the
// same system prompt, the call still waiting in the original is closed in the copy as not run
// (and never runs there), and both sessions go on independently in one shared store.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentSession, type AgentSessionOptions } from "../../../src/core/loop/agent-session";
import type { Approver, PermissionAnswer } from "../../../src/core/loop/types";
import type { Searcher, WorkspaceFs } from "../../../src/core/ports";
import { forkSession } from "../../../src/core/session/fork";
import { projectConversation, summarizeSession } from "../../../src/core/session/projection";
import { parseLog } from "../../../src/core/session/session-log";
import { defineTool } from "../../../src/core/tools/types";
import { createFileSessionStore, type FileSessionStore } from "../../../src/node/session-store";
import { createFakeProvider, textTurn, toolTurn, type FakeTurn } from "../../support/fake-provider";

let dir: string;
const stores: FileSessionStore[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-fork-"));
});
afterEach(() => {
  for (const s of stores.splice(0)) s.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

function options(turns: FakeTurn[], approver: Approver, runs: string[]): AgentSessionOptions {
  const store = createFileSessionStore(path.join(dir, "sessions"));
  stores.push(store);
  const touch = defineTool({
    name: "touch",
    description: "writes",
    schema: z.object({ path: z.string() }),
    permission: "Write",
    capabilities: { writes: true },
    summarize: (a: { path: string }) => a.path,
    timeoutMs: 1000,
    hookInput: (a) => ({ file_path: a.path }),
    async run(a) {
      runs.push(a.path);
      return { text: `touched ${a.path}` };
    },
  });
  return {
    store,
    provider: createFakeProvider(turns),
    tools: [touch],
    services: { fs: { root: "/ws" } as WorkspaceFs, search: {} as Searcher, log: { debug() {}, info() {}, warn() {}, error() {} } },
    approver,
    systemPrompt: "You are a test.",
  };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error("timed out");
};

describe("forkSession", () => {
  it("copies a session waiting on a question, closes that call in the copy, and both go on alone", async () => {
    const runs: string[] = [];
    let answer: (a: PermissionAnswer) => void = () => {};
    const asking: Approver = { ask: () => new Promise((r) => (answer = r)) };
    const sourceOpts = options([toolTurn({ id: "c1", name: "touch", input: { path: "a.txt" } }), textTurn("Original done.")], asking, runs);
    const source = await AgentSession.create(sourceOpts);
    const running = source.send("touch a.txt");
    await until(() => source.state === "waiting_user");

    // Another process (its own store on the same folder) forks it while the question is open.
    const other = createFileSessionStore(path.join(dir, "sessions"), { owner: "yoke fork" });
    stores.push(other);
    const before = parseLog(other.read(source.id)).events;
    const fork = forkSession(other, source.id);
    expect(fork.id).not.toBe(source.id);
    expect(fork.seq).toBe(before.at(-1)!.seq);
    const copied = parseLog(other.read(fork.id)).events;
    expect(copied[0]).toMatchObject({ type: "session_start", sessionId: fork.id, systemPrompt: "You are a test.", forkedFrom: { sessionId: source.id, seq: fork.seq } });
    expect(copied.map((e) => e.seq)).toEqual([...copied.keys()]);
    expect(copied.slice(1, before.length).map(({ seq: _s, ...e }) => e)).toEqual(before.slice(1).map(({ seq: _s, ...e }) => e));
    expect(copied.at(-2)).toMatchObject({ type: "tool_result", callId: "c1", isError: true });
    expect((copied.at(-2) as { output: string }).output).toContain(`forked from session ${source.id} before this call finished there`);
    expect(copied.at(-1)).toMatchObject({ type: "status", state: "idle", detail: `forked from ${source.id}` });
    expect(summarizeSession(copied, fork.id)).toMatchObject({ id: fork.id, title: "touch a.txt", status: "idle", forkedFrom: source.id });

    // The fork goes on: the model sees the conversation with the call closed; touch never runs in it.
    const forkOpts = options([textTurn("Fork goes on.")], { ask: async () => ({ decision: "allow" }) }, runs);
    const resumed = await AgentSession.resume(fork.id, forkOpts);
    await resumed.send("carry on here");
    const sent = (forkOpts.provider as ReturnType<typeof createFakeProvider>).requests[0]!;
    expect(sent.system).toBe("You are a test.");
    expect(JSON.stringify(sent.messages)).toContain("Not run in this session");
    expect(runs).toEqual([]);
    await resumed.end();

    // The original is untouched by the fork and finishes its own run.
    answer({ decision: "allow" });
    await running;
    expect(runs).toEqual(["a.txt"]);
    const original = parseLog(other.read(source.id)).events;
    expect(original.slice(0, before.length)).toEqual(before);
    expect(original.at(-1)).toMatchObject({ type: "status", state: "done" });
    expect(projectConversation(original).at(-1)).toMatchObject({ role: "assistant", text: "Original done." });
    await source.end();
  });

  it("refuses a log without session_start and an unknown id", () => {
    const store = createFileSessionStore(path.join(dir, "sessions"));
    stores.push(store);
    expect(() => forkSession(store, "nope")).toThrow('no session "nope"');
    store.append("bad", JSON.stringify({ seq: 0, ts: "2026-01-01T00:00:00Z", type: "status", state: "idle" }));
    expect(() => forkSession(store, "bad")).toThrow("has no session_start event");
    expect(store.list()).toEqual(["bad"]);
  });
});
