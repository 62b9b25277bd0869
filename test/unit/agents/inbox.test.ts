// A background agent's inbox of notes (src/node/background/inbox.ts): notes come out oldest first,
// whole, and each one only once — the agent's process and the command that left a note race for it.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentInbox } from "../../../src/node/background/inbox";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function inbox(): AgentInbox {
  const dir = mkdtempSync(join(tmpdir(), "yoke-inbox-"));
  dirs.push(dir);
  return AgentInbox.of(dir, "a1b2c3d4");
}

describe("an agent's inbox", () => {
  it("gives the notes oldest first, each once, and is empty after", async () => {
    const box = inbox();
    expect(box.take()).toEqual([]);
    box.post("first note");
    await new Promise((r) => setTimeout(r, 5));
    box.post("  second note\n");
    expect(box.waiting()).toHaveLength(2);
    expect(box.take()).toEqual(["first note", "second note"]);
    expect(box.take()).toEqual([]);
    expect(readdirSync(box.dir)).toEqual([]);
  });

  it("lets only one taker have a note (the agent, or the command that left it and found the agent ended)", () => {
    const box = inbox();
    const name = box.post("only once");
    const other = new AgentInbox(box.dir);
    expect(other.takeOne(name)).toBe("only once");
    expect(box.takeOne(name)).toBeUndefined();
    expect(box.take()).toEqual([]);
  });

  it("is removed with its folder", () => {
    const box = inbox();
    box.post("left behind");
    box.remove();
    expect(box.waiting()).toEqual([]);
  });
});
