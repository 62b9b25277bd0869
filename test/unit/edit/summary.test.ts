import { beforeAll, describe, expect, it } from "vitest";
import { hashlineReady, lineTag } from "../../../src/core/edit/hashline";
import { summarizeEdit } from "../../../src/core/edit/summary";
import { docFromString } from "../../../src/core/edit/text-doc";

beforeAll(() => hashlineReady());

describe("summarizeEdit", () => {
  it("counts lines, shows a compact diff and the changed region with fresh anchors", () => {
    const s = summarizeEdit("a.txt", docFromString("a\nb\nc\nd\n"), docFromString("a\nB\nc\nd\ne\n"));
    expect([s.added, s.removed]).toEqual([2, 1]);
    expect(s.compactDiff).toBe("@@ -1,4 +1,5 @@\n a\n-b\n+B\n c\n d\n+e");
    expect(s.view).toBe(["a", "B", "c", "d", "e"].map((l, i) => `${lineTag(i + 1, l)}|${l}`).join("\n"));
    expect(s.fullDiff).toContain("+++ a.txt");
    const row = (n: number, l: string) => `${lineTag(n, l)}|${l}`;
    expect(s.anchoredDiff).toBe(["@@", ` ${row(1, "a")}`, "-b", `+${row(2, "B")}`, ` ${row(3, "c")}`, ` ${row(4, "d")}`, `+${row(5, "e")}`].join("\n"));
  });

  it("separates hunks with a bare @@: the rows carry the line numbers the header would repeat", () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n") + "\n";
    const s = summarizeEdit("h.txt", docFromString(before), docFromString(before.replace("l3\n", "L3\n").replace("l15\n", "")));
    const row = (n: number, l: string) => `${lineTag(n, l)}|${l}`;
    expect(s.anchoredDiff).toBe(["@@", ` ${row(2, "l2")}`, "-l3", `+${row(3, "L3")}`, ` ${row(4, "l4")}`, "@@", ` ${row(14, "l14")}`, "-l15", ` ${row(15, "l16")}`].join("\n"));
    expect(s.anchoredDiff).not.toMatch(/@@ -\d/);
  });

  it("anchors CRLF lines as the file has them and caps the anchored diff", () => {
    const s = summarizeEdit("w.txt", docFromString("a\r\nb\r\n"), docFromString("a\r\nB\r\n"));
    expect(s.anchoredDiff.split("\n").slice(-1)[0]).toBe(`+${lineTag(2, "B\r")}|B`);
    const before = Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const capped = summarizeEdit("big.txt", docFromString(before), docFromString(before.replace(/line (\d+)/g, "LINE $1")), 10, 5);
    expect(capped.anchoredDiff.split("\n")).toHaveLength(11);
    expect(capped.anchoredDiff.endsWith("... (391 more diff lines not shown; read_file shows the current lines)")).toBe(true);
  });

  it("caps the diff and the view and says how much was left out", () => {
    const before = Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const after = before.replace(/line (\d+)/g, "LINE $1");
    const s = summarizeEdit("big.txt", docFromString(before), docFromString(after), 10, 5);
    expect(s.compactDiff.split("\n")).toHaveLength(11);
    expect(s.compactDiff.endsWith("... (391 more diff lines not shown)")).toBe(true);
    expect(s.view.split("\n").slice(-1)[0]).toBe("    ... (195 more changed lines; read_file shows them)");
  });

  it("cuts very long lines", () => {
    const s = summarizeEdit("m.js", docFromString("x\n"), docFromString("y".repeat(5000) + "\n"));
    expect(s.compactDiff).toContain("… [line cut: 3001 more characters]");
    expect(s.view).toContain("… [line cut:");
  });
});
