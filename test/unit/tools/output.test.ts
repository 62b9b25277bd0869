import { describe, expect, it } from "vitest";
import { cutLine, keepHead, keepHeadAndTail, plural } from "../../../src/core/tools/output";

describe("output bounding", () => {
  it("cuts a long line at 2000 characters and says how much was cut", () => {
    expect(cutLine("x".repeat(2000))).toBe("x".repeat(2000));
    expect(cutLine("y".repeat(2500))).toBe(`${"y".repeat(2000)}… [line cut: 500 more characters]`);
  });

  it("keeps the head within a line count and a byte budget", () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i}`);
    expect(keepHead(lines, 3)).toEqual({ kept: ["line 0", "line 1", "line 2"], omitted: 7 });
    expect(keepHead(lines, 100, 15)).toEqual({ kept: ["line 0", "line 1"], omitted: 8 });
    // A single line larger than the budget is still kept, so there is always progress.
    expect(keepHead(["z".repeat(100)], 5, 10).kept).toHaveLength(1);
  });

  it("keeps head and tail of a log with a note in the middle", () => {
    const log = Array.from({ length: 100 }, (_, i) => `L${i}`).join("\n");
    const out = keepHeadAndTail(log, 10, 50_000, "call command_output with since=0 for all of it");
    expect(out.split("\n")).toEqual(["L0", "L1", "L2", "L3", "L4", "[… 90 lines omitted; call command_output with since=0 for all of it …]", "L95", "L96", "L97", "L98", "L99"]);
    expect(keepHeadAndTail("a\nb", 10)).toBe("a\nb");
  });

  it("writes counts with their noun", () => {
    expect(plural(1, "file")).toBe("1 file");
    expect(plural(2, "file")).toBe("2 files");
    expect(plural(0, "entry", "entries")).toBe("0 entries");
  });
});
