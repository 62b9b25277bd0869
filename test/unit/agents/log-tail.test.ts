// The Agents view's reading of a growing session log (src/node/background/log-tail.ts): after
// every append, what it holds is what parsing the whole file gives.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseLog } from "../../../src/core/session/session-log";
import { longSessionLines } from "../../../src/bench/long-session/fixture";
import { AgentLogs, openQuestion } from "../../../src/node/background/log-tail";
import { summarizeSession } from "../../../src/core/session/projection";
import type { SessionEvent } from "../../../src/core/events";

/** What the Agents list showed when it parsed the whole log (agentViewOf before summaries). */
function shown(events: SessionEvent[]) {
  const s = summarizeSession(events);
  const last = events.findLast((e) => e.type === "assistant_message" && e.text.trim());
  return {
    any: events.length > 0,
    costUsd: s.costUsd,
    usage: { inputTokens: s.usage.inputTokens, outputTokens: s.usage.outputTokens },
    lastMessage: last?.type === "assistant_message" ? last.text.trim() : null,
    asking: openQuestion(events),
  };
}

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function whole(text: string) {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return parseLog(lines).events;
}

describe("AgentLogs", () => {
  it("after every append holds what parsing the whole log gives: torn last lines wait, invalid lines are skipped", () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-logtail-"));
    dirs.push(dir);
    const file = join(dir, "s.jsonl");
    const lines = longSessionLines({ events: 60 });
    const logs = new AgentLogs();
    expect(logs.events(file)).toEqual([]);
    writeFileSync(file, lines.slice(0, 10).join("\n") + "\n");
    let text = lines.slice(0, 10).join("\n") + "\n";
    expect(logs.events(file)).toEqual(whole(text));
    // A line written in two pieces: the first piece is not an event yet.
    const [a, b] = [lines[10]!.slice(0, 40), lines[10]!.slice(40)];
    appendFileSync(file, a);
    expect(logs.events(file)).toHaveLength(10);
    appendFileSync(file, b + "\n" + "{not json\n" + lines.slice(11, 30).join("\n") + "\n");
    text += a + b + "\n{not json\n" + lines.slice(11, 30).join("\n") + "\n";
    const got = logs.events(file);
    expect(got).toEqual(whole(text));
    expect(got).toHaveLength(30);
    // The same array grows: nothing before the appended bytes is parsed again.
    appendFileSync(file, lines.slice(30).join("\n") + "\n");
    text += lines.slice(30).join("\n") + "\n";
    expect(logs.events(file)).toBe(got);
    expect(got).toEqual(whole(text));
  });

  it("reads a log that was replaced or shrank again from its start", () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-logtail-"));
    dirs.push(dir);
    const file = join(dir, "s.jsonl");
    const lines = longSessionLines({ events: 40, sessionId: "one" });
    const logs = new AgentLogs();
    writeFileSync(file, lines.join("\n") + "\n");
    expect(logs.events(file)).toHaveLength(40);
    const other = longSessionLines({ events: 5, sessionId: "two" });
    writeFileSync(file, other.join("\n") + "\n");
    const got = logs.events(file);
    expect(got).toEqual(parseLog(other).events);
    expect(got[0]).toMatchObject({ type: "session_start", sessionId: "two" });
    rmSync(file);
    expect(logs.events(file)).toEqual([]);
  });

  it("summary: what the list shows (spend, tokens, last message) equals the whole log's, after every append, a rewind and a replacement", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-logtail-"));
    dirs.push(dir);
    const file = join(dir, "s.jsonl");
    // The fixture's usage events with a price, so that the spend is summed too.
    const lines = longSessionLines({ events: 400 }).map((l) => {
      const o = JSON.parse(l) as { type: string; costUsd?: number };
      if (o.type === "usage") o.costUsd = 0.0125;
      return JSON.stringify(o);
    });
    const logs = new AgentLogs();
    expect(await logs.summary(file)).toEqual({ any: false, costUsd: undefined, usage: { inputTokens: 0, outputTokens: 0 }, lastMessage: null, asking: null });
    let text = "";
    const add = (chunk: string) => {
      appendFileSync(file, chunk);
      text += chunk;
    };
    add(lines.slice(0, 7).join("\n") + "\n");
    expect(await logs.summary(file)).toEqual(shown(whole(text)));
    // A torn line waits; an invalid line is skipped.
    add(lines[7]!.slice(0, 30));
    expect(await logs.summary(file)).toEqual(shown(whole(text.slice(0, text.lastIndexOf("\n") + 1))));
    add(lines[7]!.slice(30) + "\n{not json\n" + lines.slice(8, 250).join("\n") + "\n");
    const mid = await logs.summary(file);
    expect(mid).toEqual(shown(whole(text)));
    expect(mid.costUsd).toBeGreaterThan(0);
    expect(mid.usage.inputTokens).toBeGreaterThan(0);
    expect(mid.lastMessage).toBeTruthy();
    // Nothing appended: the same answer.
    expect(await logs.summary(file)).toBe(mid);
    add(lines.slice(250).join("\n") + "\n");
    const events = whole(text);
    expect(await logs.summary(file)).toEqual(shown(events));
    // A rewind of the conversation takes the spend after its point out, as summarizeSession does.
    const lastSeq = events[events.length - 1]!.seq;
    const fromSeq = events.find((e) => e.type === "usage" && e.seq > events.length / 2)!.seq;
    add(JSON.stringify({ seq: lastSeq + 1, ts: new Date().toISOString(), type: "rewind", turn: 1, fromSeq, conversation: true, files: false }) + "\n");
    const rewound = whole(text);
    expect(rewound[rewound.length - 1]!.type).toBe("rewind");
    expect(await logs.summary(file)).toEqual(shown(rewound));
    expect((await logs.summary(file)).costUsd).toBeLessThan(shown(events).costUsd!);
    // Replaced by another log: read again from its start.
    const other = longSessionLines({ events: 30, sessionId: "two" });
    rmSync(file);
    writeFileSync(file, other.join("\n") + "\n");
    expect(await logs.summary(file)).toEqual(shown(parseLog(other).events));
    rmSync(file);
    expect((await logs.summary(file)).any).toBe(false);
  });

  it("summary: a log of many slices read at once (lines across slice ends) gives the whole log's figures; two reads at once share one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-logtail-"));
    dirs.push(dir);
    const file = join(dir, "s.jsonl");
    const lines = longSessionLines({ events: 3000 }).map((l) => {
      const o = JSON.parse(l) as { type: string; costUsd?: number };
      if (o.type === "usage") o.costUsd = 0.001;
      return JSON.stringify(o);
    });
    const text = lines.join("\n") + "\n";
    writeFileSync(file, text);
    expect(text.length).toBeGreaterThan(4 * 256 * 1024);
    const logs = new AgentLogs();
    const [a, b] = await Promise.all([logs.summary(file), logs.summary(file)]);
    expect(a).toBe(b);
    expect(a).toEqual(shown(whole(text)));
    expect(a.costUsd).toBeCloseTo(0.001 * lines.filter((l) => l.includes('"type":"usage"')).length, 6);
  });

  it("an open question: asked, not answered, while the run goes on; answered, or the run ended, it is gone — read as the log grows and whole alike", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-logtail-ask-"));
    dirs.push(dir);
    const file = join(dir, "s.jsonl");
    const ts = "2026-12-05T00:00:00Z";
    let seq = 0;
    const line = (e: Record<string, unknown>) => JSON.stringify({ seq: seq++, ts, ...e }) + "\n";
    const logs = new AgentLogs();
    writeFileSync(
      file,
      line({ type: "status", state: "thinking" }) + line({ type: "permission_request", callId: "c1", tool: "run_command", permission: "Bash", input: {}, reason: "r", summary: "touch  a.txt" }),
    );
    expect((await logs.summary(file)).asking).toBe("run_command touch a.txt");
    appendFileSync(file, line({ type: "status", state: "waiting_user" }));
    expect((await logs.summary(file)).asking).toBe("run_command touch a.txt");
    appendFileSync(file, line({ type: "permission_decision", callId: "c1", decision: "allow", by: "user" }));
    expect((await logs.summary(file)).asking).toBeNull();
    // Asked again, then the run is cancelled (a stop): nothing is waited on any more.
    appendFileSync(file, line({ type: "permission_request", callId: "c2", tool: "run_command", permission: "Bash", input: {}, reason: "r", summary: "rm b" }));
    expect((await logs.summary(file)).asking).toBe("run_command rm b");
    appendFileSync(file, line({ type: "status", state: "cancelled" }));
    const last = await logs.summary(file);
    expect(last.asking).toBeNull();
    expect(last).toEqual(shown(whole(readFileSync(file, "utf8"))));
  });
});
