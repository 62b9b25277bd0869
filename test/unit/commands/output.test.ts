import { describe, expect, it } from "vitest";
import { formatBoundedOutput, formatDuration, OutputBounder } from "../../../src/core/commands/output";

function numbered(n: number): string {
  return Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
}

describe("OutputBounder", () => {
  it("keeps every line when the output is short", () => {
    const b = new OutputBounder();
    b.push(numbered(5));
    b.end();
    expect(b.snapshot()).toEqual({ head: ["line 1", "line 2", "line 3", "line 4", "line 5"], tail: [], totalLines: 5 });
  });

  it("keeps head and tail and counts the middle when the output is long", () => {
    const b = new OutputBounder({ headLines: 3, tailLines: 2 });
    b.push(numbered(1000));
    b.end();
    const s = b.snapshot();
    expect(s.head).toEqual(["line 1", "line 2", "line 3"]);
    expect(s.tail).toEqual(["line 999", "line 1000"]);
    expect(s.totalLines).toBe(1000);
  });

  it("bounds the tail by characters as well as lines", () => {
    const b = new OutputBounder({ headLines: 1, tailLines: 100, tailChars: 25 });
    b.push(numbered(50));
    const s = b.snapshot();
    expect(s.tail).toEqual(["line 48", "line 49", "line 50"]);
  });

  it("streams chunks that split lines and escape codes", () => {
    const b = new OutputBounder();
    for (const c of ["hel", "lo\n\x1b[3", "2mwor", "ld\x1b[0m\r\n", "tail"]) b.push(c);
    expect(b.snapshot()).toEqual({ head: ["hello", "world"], tail: ["tail"], totalLines: 3 });
  });
});

describe("formatBoundedOutput", () => {
  it("replaces the middle with a note saying how to read it with command_output", () => {
    const b = new OutputBounder({ headLines: 2, tailLines: 2 });
    b.push(numbered(10));
    b.end();
    expect(formatBoundedOutput(b.snapshot(), "c4")).toBe(
      ["line 1", "line 2", '[... 6 lines omitted (lines 3-8). Read them with command_output {"id":"c4","since":3} ...]', "line 9", "line 10"].join("\n"),
    );
  });

  it("says (no output) when there is none", () => {
    expect(formatBoundedOutput({ head: [], tail: [], totalLines: 0 }, "c1")).toBe("(no output)");
  });
});

describe("formatDuration", () => {
  it("uses ms, seconds or minutes depending on the length", () => {
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(3210)).toBe("3.2 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
  });
});
