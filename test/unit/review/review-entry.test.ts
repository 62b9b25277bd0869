import { describe, expect, it } from "vitest";
import type { ProposedChange, ReviewOutcome } from "../../../src/core/review";
import { applyHunks, computeHunks, proposalRanges, splitLines } from "../../../src/core/review-hunks";
import { ReviewEntry } from "../../../src/host/review/review-entry";

const before = Array.from({ length: 12 }, (_, i) => `line ${i + 1}\n`).join("");
const after = before.replace("line 2\n", "two\n2b\n").replace("line 10\n", "ten\n");

/** A content change as VS Code reports it (only the fields ReviewEntry reads). */
function change(startLine: number, startChar: number, endLine: number, endChar: number, text: string) {
  return { range: { start: { line: startLine, character: startChar }, end: { line: endLine, character: endChar } }, text } as never;
}

/** Applies the same change to a line array, to check ranges against real text. */
function edit(text: string, startLine: number, startChar: number, endLine: number, endChar: number, insert: string): string {
  const lines = text.split("\n");
  const offset = (l: number, c: number) => lines.slice(0, l).reduce((n, x) => n + x.length + 1, 0) + c;
  return text.slice(0, offset(startLine, startChar)) + insert + text.slice(offset(endLine, endChar));
}

function entry(): ReviewEntry {
  const c: ProposedChange = { editId: "e1", callId: "c1", path: "/ws/f.txt", relPath: "f.txt", before, after, tool: "edit_file" };
  const hunks = computeHunks(before, after);
  return new ReviewEntry(c, {} as never, "ask", hunks, proposalRanges(hunks), (_o: ReviewOutcome) => undefined);
}

describe("ReviewEntry", () => {
  it("lists a pending change with its counts", () => {
    expect(entry().item()).toEqual({ editId: "e1", relPath: "f.txt", added: 3, removed: 2, status: "pending", undecided: 2, hunks: 2 });
  });

  it("keeps hunk ranges on the proposed lines while the user types above and inside them", () => {
    const e = entry();
    let text = after;
    const steps: Array<[number, number, number, number, string]> = [
      [0, 6, 0, 6, "\ninserted"], // a new line above hunk 1
      [3, 1, 3, 1, "X"], // typing inside hunk 1 ("2b" line)
      [6, 0, 8, 0, ""], // two lines between the hunks deleted
    ];
    for (const s of steps) {
      e.follow([change(...s)], true);
      text = edit(text, ...s);
    }
    const lines = text.split("\n");
    const region = (k: number) => lines.slice(e.ranges[k]!.start, e.ranges[k]!.end);
    expect(region(0)).toEqual(["two", "2Xb"]);
    expect(region(1)).toEqual(["ten"]);
    expect([...e.touched]).toEqual([0]);
  });

  it("restores exactly the original when each hunk's range is replaced by its original lines", () => {
    const e = entry();
    let text = after;
    for (const k of [1, 0]) {
      const r = e.ranges[k]!;
      const original = e.hunks[k]!.beforeLines.join("");
      e.follow([change(r.start, 0, r.end, 0, original)], false);
      text = edit(text, r.start, 0, r.end, 0, original);
    }
    expect(text).toBe(before);
    expect(e.touched.size).toBe(0);
    expect(applyHunks(before, e.hunks, ["rejected", "rejected"])).toBe(before);
  });

  it("finds the undecided hunk at or nearest to the cursor", () => {
    const e = entry();
    expect(e.hunkAt(2)).toBe(0);
    expect(e.hunkAt(7)).toBe(1);
    e.decisions[1] = "accepted";
    expect(e.hunkAt(11)).toBe(0);
    expect(splitLines(after)[e.ranges[0]!.start]).toBe("two\n");
  });
});
