import { beforeAll, describe, expect, it } from "vitest";
import { hashlineReady, legacyLineHash } from "../../../src/core/edit/hashline";
import { opLines, parseAnchor } from "../../../src/core/edit/hashline-ops";
import { anchor, applied, edit, refused } from "./edit-helpers";

beforeAll(() => hashlineReady());

const file = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";
const a = (n: number) => anchor(file, n);

describe("parseAnchor", () => {
  it("reads anchors with the noise models add", () => {
    expect(parseAnchor("12#QN")).toEqual({ line: 12, hash: "QN" });
    expect(parseAnchor(">>> 12 # QN")).toEqual({ line: 12, hash: "QN" });
    expect(parseAnchor("12#QN|  const x = 1;")).toEqual({ line: 12, hash: "QN" });
    expect(parseAnchor("12#qn")).toEqual({ line: 12, hash: "QN" });
    expect(parseAnchor("+12#QN")).toEqual({ line: 12, hash: "QN" });
    expect(parseAnchor("  7#ZZ  ")).toEqual({ line: 7, hash: "ZZ" });
    expect(parseAnchor("line 12#QN")).toEqual({ line: 12, hash: "QN" });
  });

  it("returns undefined when there is no anchor", () => {
    expect(parseAnchor("abc")).toBeUndefined();
    expect(parseAnchor("12")).toBeUndefined();
    expect(parseAnchor("12#AA")).toBeUndefined();
  });
});

describe("opLines", () => {
  it("splits a string on newlines and drops one trailing newline", () => {
    expect(opLines("a\nb\n")).toEqual(["a", "b"]);
    expect(opLines("a\r\nb")).toEqual(["a", "b"]);
    expect(opLines(null)).toEqual([]);
    expect(opLines([])).toEqual([]);
    expect(opLines("")).toEqual([""]);
  });

  it("strips hashline prefixes copied into most lines, but not from ordinary content", () => {
    expect(opLines(["3#QN|  a", ">>> 4#VR|b", ""])).toEqual(["  a", "b", ""]);
    expect(opLines(["3#QN|a", "4#VR|b", "new line"])).toEqual(["a", "b", "new line"]);
    expect(opLines(["3#QN|a", "plain", "text"])).toEqual(["3#QN|a", "plain", "text"]);
  });
});

describe("hashline ops", () => {
  it("replaces one line, a range, and deletes a range", () => {
    expect(applied(file, [{ op: "replace", pos: a(2), lines: ["TWO"] }])).toBe(file.replace("two", "TWO"));
    expect(applied(file, [{ op: "replace", pos: a(2), end: a(4), lines: "2-4" }])).toBe("one\n2-4\nfive\nsix\nseven\n");
    expect(applied(file, [{ op: "replace", pos: a(2), end: a(3), lines: null }])).toBe("one\nfour\nfive\nsix\nseven\n");
    expect(applied(file, [{ op: "replace", pos: a(7), lines: [] }])).toBe("one\ntwo\nthree\nfour\nfive\nsix\n");
  });

  it("appends and prepends at anchors and at the ends of the file", () => {
    expect(applied(file, [{ op: "append", pos: a(1), lines: ["1.5"] }])).toBe("one\n1.5\ntwo\nthree\nfour\nfive\nsix\nseven\n");
    expect(applied(file, [{ op: "prepend", pos: a(1), lines: ["zero"] }])).toBe("zero\n" + file);
    expect(applied(file, [{ op: "append", lines: ["eight"] }])).toBe(file + "eight\n");
    expect(applied(file, [{ op: "prepend", lines: "header" }])).toBe("header\n" + file);
  });

  it("applies several ops against the file as read, bottom-up", () => {
    const out = applied(file, [
      { op: "replace", pos: a(2), lines: ["TWO", "TWO-B"] },
      { op: "replace", pos: a(5), end: a(6), lines: ["FIVE-SIX"] },
      { op: "append", pos: a(7), lines: ["eight"] },
      { op: "prepend", pos: a(1), lines: ["zero"] },
    ]);
    expect(out).toBe("zero\none\nTWO\nTWO-B\nthree\nfour\nFIVE-SIX\nseven\neight\n");
  });

  it("puts text appended to a line before text prepended to the next, whatever the order of the ops", () => {
    const out = applied(file, [
      { op: "replace", pos: a(3), lines: ["THREE"] },
      { op: "prepend", pos: a(3), lines: ["p1"] },
      { op: "prepend", pos: a(3), lines: ["p2"] },
      { op: "append", pos: a(2), lines: ["a1"] },
    ]);
    expect(out).toBe("one\ntwo\na1\np1\np2\nTHREE\nfour\nfive\nsix\nseven\n");
  });

  it("accepts anchors with model noise and the legacy hash", () => {
    const noisy = `>>> ${a(3).replace("#", " # ")}|three`;
    expect(applied(file, [{ op: "replace", pos: noisy, lines: ["3"] }])).toBe(file.replace("three", "3"));
    const lower = a(4).replace(/#(..)$/, (_m, h: string) => `#${h.toLowerCase()}`);
    expect(applied(file, [{ op: "replace", pos: lower, lines: ["4"] }])).toBe(file.replace("four", "4"));
    const f = "spaced   out  \nx\n";
    const legacy = `1#${legacyLineHash(1, "spaced   out  ")}`;
    expect(applied(f, [{ op: "replace", pos: legacy, lines: ["y"] }])).toBe("y\nx\n");
  });

  it("refuses a stale anchor with the current lines around it so the model can retry", () => {
    const read = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";
    const now = "one\ntwo\nTHREE!\nfour\nfive\nsix\nseven\n";
    expect(refused(now, [{ op: "replace", pos: anchor(read, 3), lines: ["3"] }])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        `Edit 1 (replace ${anchor(read, 3)}): line 3 has changed since it was read (anchor ${anchor(read, 3)}, now ${anchor(now, 3)}). ` +
        "Current lines (>>> marks the changed line):\n" +
        `    ${anchor(now, 1)}|one\n    ${anchor(now, 2)}|two\n>>> ${anchor(now, 3)}|THREE!\n    ${anchor(now, 4)}|four\n    ${anchor(now, 5)}|five\n` +
        "Retry with these anchors; there is no need to re-read the file.",
    );
  });

  it("refuses out-of-range lines, malformed anchors and a missing pos, all in one report", () => {
    expect(
      refused(file, [
        { op: "replace", pos: "99#ZZ", lines: ["x"] },
        { op: "replace", pos: "abc", lines: ["x"] },
        { op: "replace", lines: ["x"] },
      ]),
    ).toBe(
      "Nothing was written to f.ts: 3 edits of 3 failed, and edits are all-or-nothing.\n\n" +
        "Edit 1 (replace 99#ZZ): line 99 is out of range; the file has 7 lines.\n\n" +
        'Edit 2 (replace abc): "pos" is not a line anchor: "abc". Use LINE#HASH exactly as read_file shows it, e.g. "12#QN".\n\n' +
        'Edit 3 (replace): "pos" is required for replace (the first line to replace, e.g. "12#QN").',
    );
  });

  it("refuses overlapping ranges", () => {
    expect(
      refused(file, [
        { op: "replace", pos: a(2), end: a(3), lines: ["x"] },
        { op: "replace", pos: a(3), lines: ["y"] },
      ]),
    ).toBe(
      "Nothing was written to f.ts: 1 edit of 2 failed, and edits are all-or-nothing.\n\n" +
        "Edits 1 and 2 overlap (lines 2-3 and line 3). All ops refer to the file as it was read, so one line cannot be changed by two ops: " +
        "merge them into one replace covering lines 2-3.",
    );
  });

  it("refuses an insertion inside a replaced range", () => {
    const msg = refused(file, [
      { op: "replace", pos: a(2), end: a(4), lines: ["x"] },
      { op: "append", pos: a(3), lines: ["y"] },
    ]);
    expect(msg).toContain("Edits 1 and 2 overlap (lines 2-4 and an insertion after line 3).");
  });

  it("refuses end before pos", () => {
    expect(refused(file, [{ op: "replace", pos: a(3), end: a(2), lines: ["x"] }])).toContain(
      `Edit 1 (replace ${a(3)}..${a(2)}): "end" (line 2) is before "pos" (line 3); "end" is the last line to replace.`,
    );
  });

  it("reports a replace with identical lines as no change", () => {
    expect(refused(file, [{ op: "replace", pos: a(2), lines: ["two"] }])).toBe(
      `No change: Edit 1 (replace ${a(2)}) changes nothing: the new lines are identical to the current ones. Nothing was written.`,
    );
  });

  it("ignores an exact duplicate op instead of calling it an overlap", () => {
    const op = { op: "replace" as const, pos: a(2), lines: ["TWO"] };
    const r = edit(file, [op, { ...op }]);
    expect(r.ok && r.after).toBe(file.replace("two", "TWO"));
    expect(r.ok && r.notes).toEqual(["Edit 2 [rule duplicate-op]: it repeats edit 1 exactly (anchors compared as line and hash), so it was applied once."]);
  });

  it("keeps a missing final newline when appending at or deleting the last line", () => {
    const f = "a\nb";
    expect(applied(f, [{ op: "append", pos: anchor(f, 2), lines: ["c"] }])).toBe("a\nb\nc");
    expect(applied(f, [{ op: "replace", pos: anchor(f, 2), lines: null }])).toBe("a");
    expect(applied(f, [{ op: "replace", pos: anchor(f, 2), lines: ["B"] }])).toBe("a\nB");
  });
});

describe("hashline op tolerance", () => {
  it("treats a replace with only end as a one-line replace", () => {
    expect(applied(file, [{ op: "replace", end: a(3), lines: ["3"] }])).toBe(file.replace("three", "3"));
  });
});

describe("hashline ops at the end of a file without a final newline", () => {
  it("appends after the next-to-last line while deleting the last one", () => {
    const f = "a\nb";
    expect(
      applied(f, [
        { op: "append", pos: anchor(f, 1), lines: ["x"] },
        { op: "replace", pos: anchor(f, 2), lines: null },
      ]),
    ).toBe("a\nx");
  });

  it("deletes every line", () => {
    const f = "a\nb";
    expect(applied(f, [{ op: "replace", pos: anchor(f, 1), end: anchor(f, 2), lines: [] }])).toBe("");
  });
});

describe("echoed neighbour lines", () => {
  it("leaves out an append's first line when it repeats the anchor line, and says which rule did", () => {
    const r = edit(file, [{ op: "append", pos: a(2), lines: ["two", "2.5"] }]);
    expect(r.ok && r.after).toBe("one\ntwo\n2.5\nthree\nfour\nfive\nsix\nseven\n");
    expect(r.ok && r.notes).toEqual([`Edit 1 (append ${a(2)}) [rule anchor-echo]: its first line repeated line 2 (the anchor), so that copy was left out.`]);
  });

  it("leaves out a grown replace's last new line when it repeats the line after the range", () => {
    const r = edit(file, [{ op: "replace", pos: a(2), lines: ["TWO", "three"] }]);
    expect(r.ok && r.after).toBe("one\nTWO\nthree\nfour\nfive\nsix\nseven\n");
    expect(r.ok && r.notes).toEqual([`Edit 1 (replace ${a(2)}) [rule boundary-echo]: its last new line repeated line 3, just after the range, so that copy was left out.`]);
  });

  it("refuses a replace that did not grow and whose new line repeats the next line (an echo, or a copy meant)", () => {
    expect(refused(file, [{ op: "replace", pos: a(2), lines: ["three"] }])).toContain(
      "its last new line repeats line 3, just after the range, and it replaces 1 line with 1, so Yoke cannot tell which was meant",
    );
  });
});
