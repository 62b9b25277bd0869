// The Agents view's reading of a growing session log (src/node/background/log-tail.ts): after
// every append, what it holds is what parsing the whole file gives.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseLog } from "../../../src/core/session/session-log";
import { longSessionLines } from "../../../src/bench/long-session/fixture";
import { AgentLogs } from "../../../src/node/background/log-tail";

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
});
