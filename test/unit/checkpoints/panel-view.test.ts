// The panel's view of checkpoints: a control at the end of each turn (its id stable, its turn the
// core's numbering), the transcript of the conversation in force after a conversation restore
// (the usage still counting what was paid), and the transcript's line for each restore.
import { describe, expect, it } from "vitest";
import type { NewEvent, SessionEvent } from "../../../src/core/events";
import { SessionViewModel, rewindText } from "../../../src/node/panel/view-model";
import { turnsOf } from "../../../src/core/checkpoints";

const usage = { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };

function log(events: NewEvent[]): SessionEvent[] {
  return events.map((e, seq) => ({ ...e, seq, ts: "2026-12-01T00:00:00Z" }) as SessionEvent);
}

function turn(text: string, answer: string): NewEvent[] {
  return [
    { type: "user_message", text },
    { type: "usage", usage, model: "m" },
    { type: "assistant_message", text: answer, toolCalls: [] },
    { type: "status", state: "done" },
  ];
}

const three = (): NewEvent[] => [{ type: "status", state: "idle" }, ...turn("one", "A1"), ...turn("two", "A2"), ...turn("three", "A3")];

describe("checkpoints in the panel's view model", () => {
  it("puts a turn control under each turn's answer, numbered as the core numbers turns", () => {
    const events = log(three());
    const { items } = new SessionViewModel(events).items();
    expect(items.map((i) => i.kind)).toEqual(["user", "assistant", "turn", "user", "assistant", "turn", "user", "assistant", "turn"]);
    const controls = items.filter((i) => i.kind === "turn");
    const turns = turnsOf(events);
    expect(controls.map((c) => [c.turn, c.userSeq])).toEqual(turns.map((t) => [t.turn, t.seq]));
    expect(new Set(controls.map((c) => c.id)).size).toBe(3);
  });

  it("adds a turn's control once, when it ends (live) or when the next turn starts", () => {
    const vm = new SessionViewModel();
    const events = log([
      { type: "status", state: "idle" },
      { type: "user_message", text: "one" },
      { type: "status", state: "thinking" },
      { type: "assistant_message", text: "A1", toolCalls: [] },
    ]);
    const seen = events.flatMap((e) => vm.apply(e));
    expect(seen.some((v) => v.kind === "turn")).toBe(false);
    const done = vm.apply({ type: "status", state: "done", seq: 9, ts: "" } as SessionEvent);
    expect(done.filter((v) => v.kind === "turn")).toHaveLength(1);
    expect(vm.apply({ type: "status", state: "idle", seq: 10, ts: "" } as SessionEvent).filter((v) => v.kind === "turn")).toHaveLength(0);
  });

  it("shows the conversation in force after a conversation restore, counting the usage of the rewound turns", () => {
    const base = three();
    const fromSeq = log(base).find((e) => e.type === "user_message" && e.text === "two")!.seq;
    const events = log([...base, { type: "rewind", turn: 1, conversation: true, files: false, fromSeq }]);
    const vm = new SessionViewModel(events);
    const { items } = vm.items();
    expect(items.filter((i) => i.kind === "user").map((i) => (i as { text: string }).text)).toEqual(["one"]);
    expect(items.filter((i) => i.kind === "assistant").map((i) => (i as { text: string }).text)).toEqual(["A1"]);
    expect(items.at(-1)).toMatchObject({ kind: "notice", text: expect.stringContaining("Restored the conversation to the end of turn 1.") });
    expect(vm.usage.inputTokens).toBe(30);
    // The undo brings the turns back.
    const rewindSeq = events.at(-1)!.seq;
    const undone = log([...base, { type: "rewind", turn: 1, conversation: true, files: false, fromSeq }, { type: "rewind", turn: 1, conversation: false, files: false, undoes: rewindSeq }]);
    const after = new SessionViewModel(undone).items().items;
    expect(after.filter((i) => i.kind === "user")).toHaveLength(3);
    expect(after.at(-1)).toMatchObject({ kind: "notice", text: "Undid the restore to the end of turn 1: the turns after turn 1 are back in the conversation." });
  });

  it("says what each kind of restore did", () => {
    const r = (e: Partial<Extract<SessionEvent, { type: "rewind" }>>) =>
      ({ type: "rewind", seq: 50, ts: "", turn: 2, conversation: false, files: false, ...e }) as Extract<SessionEvent, { type: "rewind" }>;
    const changed = [{ root: "/w", written: 3, deleted: 1 }];
    expect(rewindText(r({ files: true, checkpointSeq: 4, undoSeq: 49, changed }))).toBe("Restored the files to the end of turn 2 (3 files written back, 1 deleted).");
    expect(rewindText(r({ files: true, conversation: true, fromSeq: 20, checkpointSeq: 4, undoSeq: 49, changed }))).toBe(
      "Restored the files and the conversation to the end of turn 2 (3 files written back, 1 deleted). The later turns are out of the conversation (still in the log: Undo restore brings them back).",
    );
    expect(rewindText(r({ files: true, undoSeq: 49, changed: [{ root: "/w", written: 1, deleted: 0 }] }))).toBe(
      "Forked from turn 2: the files are as they were after that turn (1 file written back, 0 deleted).",
    );
    expect(rewindText(r({ files: true, undoes: 40, checkpointSeq: 39, undoSeq: 49, changed }), r({ files: true, conversation: true, fromSeq: 20 }))).toBe(
      "Undid the restore to the end of turn 2: the files are back as they were before it (3 files written back, 1 deleted); the turns after turn 2 are back in the conversation.",
    );
  });
});

describe("an incomplete checkpoint in the panel", () => {
  const checkpoint = (folder: Record<string, unknown>): NewEvent =>
    ({ type: "checkpoint", turn: 1, reason: "turn", folders: [{ name: "ws", root: "/ws", skipped: [], durationMs: 2100, ...folder }] }) as NewEvent;

  it("warns when the snapshot is partial or failed, and says nothing for a complete one", () => {
    const events = log([
      { type: "status", state: "idle" },
      { type: "user_message", text: "edit" },
      checkpoint({ commit: "a".repeat(40) }),
      checkpoint({ commit: "b".repeat(40), partial: true, fallback: "the snapshot ran out of its 2000 ms budget" }),
      checkpoint({ error: "git not found" }),
    ]);
    const notices = new SessionViewModel(events).items().items.filter((i) => i.kind === "notice");
    expect(notices).toHaveLength(2);
    expect(notices[0]).toMatchObject({ level: "warning" });
    expect(notices[0]!.kind === "notice" && notices[0]!.text).toBe(
      "Checkpoint before turn 1's changes is incomplete — ws: the snapshot is partial after 2.1 s (the snapshot ran out of its 2000 ms budget). " +
        "Every file a tool writes is still recorded before the write; other files the snapshot does not know are left as they are by a restore.",
    );
    expect(notices[1]!.kind === "notice" && notices[1]!.text).toContain("ws: the snapshot failed (git not found); a restore cannot put this folder's files back");
  });
});
