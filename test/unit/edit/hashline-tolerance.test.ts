// The hashline tolerance rules (docs/edits.md): each applies only when one reading is possible,
// says which rule applied, and each has its counter-cases (refused, or applied as written).
import { beforeAll, describe, expect, it } from "vitest";
import { hashlineReady, lineTag } from "../../../src/core/edit/hashline";
import type { HashlineOp } from "../../../src/core/edit/types";
import { anchor, applied, edit, refused } from "./edit-helpers";

beforeAll(() => hashlineReady());

function withNotes(file: string, ops: HashlineOp[]): { after: string; notes: string[] } {
  const r = edit(file, ops);
  if (!r.ok) throw new Error(`expected the edit to apply, got:\n${r.message}`);
  return { after: r.after, notes: r.notes };
}

describe("anchor-echo (append/prepend repeating the anchor line)", () => {
  const f = 'import a from "a";\nimport b from "b";\n\nrun(a, b);\n';
  const a = (n: number) => anchor(f, n);

  it("leaves out an append's first line that repeats the anchor, and names the rule", () => {
    const r = withNotes(f, [{ op: "append", pos: a(2), lines: ['import b from "b";', 'import c from "c";'] }]);
    expect(r.after).toBe('import a from "a";\nimport b from "b";\nimport c from "c";\n\nrun(a, b);\n');
    expect(r.notes).toEqual([`Edit 1 (append ${a(2)}) [rule anchor-echo]: its first line repeated line 2 (the anchor), so that copy was left out.`]);
  });

  it("leaves out a prepend's last line that repeats the anchor", () => {
    expect(applied(f, [{ op: "prepend", pos: a(4), lines: ["log(a);", "run(a, b);"] }])).toBe('import a from "a";\nimport b from "b";\n\nlog(a);\nrun(a, b);\n');
  });

  it("leaves out both ends when the lines repeat the anchor and the line on the other side", () => {
    expect(applied(f, [{ op: "append", pos: a(1), lines: ['import a from "a";', 'import x from "x";', 'import b from "b";'] }])).toBe(
      'import a from "a";\nimport x from "x";\nimport b from "b";\n\nrun(a, b);\n',
    );
  });

  it("refuses an op whose only line is the anchor's echo", () => {
    const msg = refused(f, [{ op: "append", pos: a(4), lines: ["run(a, b);"] }]);
    expect(msg).toContain(`Edit 1 (append ${a(4)}): its only line "run(a, b);" only repeats line 4, after which it inserts, so there is nothing to insert. Nothing was changed. Current lines:`);
    expect(msg).toContain(`>>> ${a(4)}|run(a, b);`);
  });

  it("counter-case: an echo with other indentation may be a real line at another level: refused", () => {
    const py = "def f(x):\n    if x:\n        return x\n    return None\n";
    expect(refused(py, [{ op: "append", pos: anchor(py, 3), lines: ["    return x", "    # unreachable"] }])).toContain("so Yoke cannot tell which was meant");
  });

  it("counter-case: a repeated line without letters or digits (a brace) may be meant twice: refused", () => {
    const js = "function f() {\n  if (a) {\n    b();\n  }\n";
    expect(refused(js, [{ op: "append", pos: anchor(js, 4), lines: ["  }", "}"] }])).toContain("cannot tell which was meant: a second copy, or line 4 repeated by mistake");
  });

  describe("a bracket line that closes the inserted lines' own block is theirs, not an echo", () => {
    const cls = "class A {\n  foo() {\n    return 1;\n  }\n}\n";
    const method = ["", "  bar() {", "    return 2;", "  }"];
    const want = "class A {\n  foo() {\n    return 1;\n  }\n\n  bar() {\n    return 2;\n  }\n}\n";

    it("a method appended after the last method, before the class's closing brace", () => {
      const r = withNotes(cls, [{ op: "append", pos: anchor(cls, 4), lines: method }]);
      expect(r.after).toBe(want);
      expect(r.notes).toEqual([]);
    });

    it("a method prepended to the class's closing brace", () => {
      expect(applied(cls, [{ op: "prepend", pos: anchor(cls, 5), lines: method }])).toBe(want);
    });

    it("a replace of the last method that grows by a method", () => {
      expect(applied(cls, [{ op: "replace", pos: anchor(cls, 2), end: anchor(cls, 4), lines: ["  foo() {", "    return 1;", "  }", ...method] }])).toBe(want);
    });

    it("counter-case: a closing brace the inserted lines do not open is still a possible echo: refused", () => {
      expect(refused(cls, [{ op: "append", pos: anchor(cls, 4), lines: ["  bar();", "  }"] }])).toContain("cannot tell which was meant");
    });
  });

  it("counter-case: lines ending with a copy of the line after the insertion point, without echoing the anchor: refused", () => {
    expect(refused(f, [{ op: "append", pos: a(1), lines: ['import x from "x";', 'import b from "b";'] }])).toContain("is the same as line 2, just after the insertion point");
  });

  it("counter-case: a second copy meant on purpose is written with a replace of the line, which is applied as written", () => {
    expect(applied(f, [{ op: "replace", pos: a(4), lines: ["run(a, b);", "run(a, b);"] }])).toBe('import a from "a";\nimport b from "b";\n\nrun(a, b);\nrun(a, b);\n');
  });

  it("leaves a blank line next to a blank line as written (one blank line more at most)", () => {
    expect(applied(f, [{ op: "append", pos: a(2), lines: ['import c from "c";', ""] }])).toBe('import a from "a";\nimport b from "b";\nimport c from "c";\n\n\nrun(a, b);\n');
  });

  it("does not touch appends without an anchor", () => {
    expect(applied(f, [{ op: "append", lines: ["run(a, b);"] }])).toBe(f + "run(a, b);\n");
  });
});

describe("boundary-echo (a grown replace repeating the lines around its range)", () => {
  const f = "before\nold 1\nold 2\nafter\n";
  const a = (n: number) => anchor(f, n);

  it("leaves out echoes of the line before and the line after", () => {
    const r = withNotes(f, [{ op: "replace", pos: a(2), end: a(3), lines: ["before", "new 1", "new 2", "after"] }]);
    expect(r.after).toBe("before\nnew 1\nnew 2\nafter\n");
    expect(r.notes).toEqual([
      `Edit 1 (replace ${a(2)}..${a(3)}) [rule boundary-echo]: its first new line repeated line 1, just before the range, so that copy was left out.`,
      `Edit 1 (replace ${a(2)}..${a(3)}) [rule boundary-echo]: its last new line repeated line 4, just after the range, so that copy was left out.`,
    ]);
  });

  it("counter-case: a replacement that did not grow and repeats a neighbour is an echo with a deletion, or a copy meant: refused", () => {
    const msg = refused(f, [{ op: "replace", pos: a(2), end: a(3), lines: ["before", "new"] }]);
    expect(msg).toContain(`its first new line repeats line 1, just before the range, and it replaces 2 lines with 2, so Yoke cannot tell which was meant`);
    expect(msg).toContain(`>>> ${a(1)}|before`);
  });

  it("counter-case: a blank line replacing a line next to a blank line is applied as written, with a note", () => {
    const g = "a = 1\nb = 2\n\nc = 3\n";
    const r = withNotes(g, [{ op: "replace", pos: anchor(g, 2), lines: [""] }]);
    expect(r.after).toBe("a = 1\n\n\nc = 3\n");
  });

  it("leaves out a blank line echoed at the far side when the lines were written as the region (anchor echoed)", () => {
    const g = "a = 1\n\nb = 2\n";
    expect(applied(g, [{ op: "append", pos: anchor(g, 1), lines: ["a = 1", "a2 = 1", ""] }])).toBe("a = 1\na2 = 1\n\nb = 2\n");
  });

  it("counter-case: a repeated closing brace may close a block on purpose: refused", () => {
    const js = "function f(x) {\n  if (x) {\n    return 1;\n  }\n  return 0;\n}\n";
    const msg = refused(js, [{ op: "replace", pos: anchor(js, 3), lines: ["    log(x);", "    return 2;", "  }"] }]);
    expect(msg).toContain(`Edit 1 (replace ${anchor(js, 3)}): its last new line "  }" is the same as line 4, just after the range`);
    expect(msg).toContain(`>>> ${anchor(js, 4)}|  }`);
    expect(msg).toContain("Nothing was changed.");
  });
});

describe("indent-restored (replacement lines that lost their indentation)", () => {
  it("restores one line's indentation inside a block", () => {
    const f = "if (x) {\n  return 1\n}\n";
    const r = withNotes(f, [{ op: "replace", pos: anchor(f, 2), lines: ["return 3"] }]);
    expect(r.after).toBe("if (x) {\n  return 3\n}\n");
    expect(r.notes).toEqual([`Edit 1 (replace ${anchor(f, 2)}) [rule indent-restored]: its lines had lost their indentation, so each got the indentation of the line it stands for (2 spaces).`]);
  });

  it("restores each line's own indentation, and a new line's between lines of one indentation", () => {
    const f = "def run(cfg):\n\tif cfg:\n\t\tstart(cfg)\n\t\tstop(cfg)\n";
    expect(applied(f, [{ op: "replace", pos: anchor(f, 2), end: anchor(f, 4), lines: ["if cfg.ok:", "start(cfg)", "log(cfg)", "stop(cfg)"] }])).toBe(
      "def run(cfg):\n\tif cfg.ok:\n\t\tstart(cfg)\n\t\tlog(cfg)\n\t\tstop(cfg)\n",
    );
  });

  it("restores a lost base indentation under which the lines kept their relative indentation", () => {
    const f = "class A:\n    def f(self):\n        if x:\n            y()\n        z()\n";
    expect(applied(f, [{ op: "replace", pos: anchor(f, 3), end: anchor(f, 4), lines: ["if x:", "    y2()"] }])).toBe("class A:\n    def f(self):\n        if x:\n            y2()\n        z()\n");
  });

  it("restores before a closing brace that follows the range (the line stays inside the block)", () => {
    const f = "function f() {\n  const a = 1;\n  return a;\n}\n";
    expect(applied(f, [{ op: "replace", pos: anchor(f, 3), lines: ["return a + 1;"] }])).toBe("function f() {\n  const a = 1;\n  return a + 1;\n}\n");
  });

  it("counter-case: a replacement that only removes indentation is a dedent, kept as written", () => {
    const f = "function foo() {\n    indented\n}\n";
    expect(applied(f, [{ op: "replace", pos: anchor(f, 2), lines: ["indented"] }])).toBe("function foo() {\nindented\n}\n");
  });

  it("counter-case: new lines with their own indentation are kept as written", () => {
    const f = "\nverse one\nverse two\n\n";
    expect(applied(f, [{ op: "replace", pos: anchor(f, 1), end: anchor(f, 4), lines: ["", "  verse one", "  verse two", ""] }])).toBe("\n  verse one\n  verse two\n\n");
  });

  it("counter-case: at the end of a block after other lines of it, a dedent may be meant: refused", () => {
    const f = "def f():\n    a = 1\n    return a\nprint(f())\n";
    expect(refused(f, [{ op: "replace", pos: anchor(f, 3), lines: ["return 2"] }])).toContain("its lines lost their indentation");
  });

  it("counter-case: an indented text block after a blank line (Markdown code) may be turned into prose: refused", () => {
    const f = "Usage:\n\n    old command\n";
    expect(refused(f, [{ op: "replace", pos: anchor(f, 3), lines: ["Run the new command."] }])).toContain("so Yoke cannot tell which indentation is meant");
  });

  it("counter-case: several indentations and a changed number of lines: refused", () => {
    const f = "def check(v):\n    if v:\n        ok(v)\n    done(v)\n";
    expect(refused(f, [{ op: "replace", pos: anchor(f, 2), end: anchor(f, 4), lines: ["if v:", "ok(v)", "log(v)", "again(v)", "done(v)"] }])).toContain(
      "new lines sit between lines of different indentation",
    );
  });

  it("counter-case: a structure change (a new block opener) cannot take the old indentation: refused", () => {
    const f = "def f():\n    a()\n    b()\n";
    expect(refused(f, [{ op: "replace", pos: anchor(f, 2), end: anchor(f, 3), lines: ["if a():", "b()"] }])).toContain("a line that opens a block would not be followed by a more indented line");
  });

  it("counter-case: removing a block opener while its body stays: refused", () => {
    const f = "def f():\n    if x:\n        a()\n        b()\n    c()\n";
    expect(refused(f, [{ op: "replace", pos: anchor(f, 2), end: anchor(f, 4), lines: ["a()", "b()"] }])).toContain("a less indented line was removed");
  });
});

describe("wrap-kept, merge-kept, merge-split (re-flowed lines keep the original structure)", () => {
  it("keeps an unchanged line that the replacement wrapped over two lines", () => {
    const f = 'const request = buildRequest({ method: "GET", retries: 3 });\nconst timeout = 1000;\n';
    const r = withNotes(f, [{ op: "replace", pos: anchor(f, 1), end: anchor(f, 2), lines: ["const request = buildRequest({", '  method: "GET", retries: 3 });', "const timeout = 5000;"] }]);
    expect(r.after).toBe('const request = buildRequest({ method: "GET", retries: 3 });\nconst timeout = 5000;\n');
    expect(r.notes[0]).toBe(`Edit 1 (replace ${anchor(f, 1)}..${anchor(f, 2)}) [rule wrap-kept]: lines 1-2 of "lines" are line 1 wrapped without any other change, so line 1 was kept as it is.`);
  });

  it("keeps unchanged lines that the replacement ran together into one", () => {
    const f = "if (a &&\n    b) {\n  go();\n}\n";
    expect(applied(f, [{ op: "replace", pos: anchor(f, 1), end: anchor(f, 3), lines: ["if (a && b) {", "  goFast();"] }])).toBe("if (a &&\n    b) {\n  goFast();\n}\n");
  });

  it("writes one statement per line when one line holds the changed statements of the replaced lines", () => {
    const f = "  const a = 1;\n  const b = 2;\n";
    const r = withNotes(f, [{ op: "replace", pos: anchor(f, 1), end: anchor(f, 2), lines: ["const a = 10; const b = 20;"] }]);
    expect(r.after).toBe("  const a = 10;\n  const b = 20;\n");
    expect(r.notes[0]).toContain("[rule merge-split]");
  });

  it("refuses a pure re-wrap as a change of nothing, and says so", () => {
    const f = 'const request = buildRequest({ method: "GET", retries: 3 });\nconst done = true;\n';
    expect(refused(f, [{ op: "replace", pos: anchor(f, 1), lines: ["const request = buildRequest({", 'method: "GET", retries: 3 });'] }])).toContain("No change:");
  });

  it("counter-case: a wrap of a line that is in the range twice is applied as written", () => {
    const f = "const query = a + b\nconst query = a+b\nconst done = true\n";
    expect(applied(f, [{ op: "replace", pos: anchor(f, 1), end: anchor(f, 2), lines: ["const query = a +", "b"] }])).toBe("const query = a +\nb\nconst done = true\n");
  });

  it("counter-case: a short wrap (under 6 characters) is applied as written", () => {
    const f = "a + b\nconst done = true\n";
    expect(applied(f, [{ op: "replace", pos: anchor(f, 1), lines: ["a +", "b"] }])).toBe("a +\nb\nconst done = true\n");
  });

  it("counter-case: one line replacing several with different content is a real change", () => {
    const f = "function sign(x) {\n  if (x > 0) return 1;\n  if (x < 0) return -1;\n  return 0;\n}\n";
    expect(applied(f, [{ op: "replace", pos: anchor(f, 2), end: anchor(f, 4), lines: ["  return Math.sign(x);"] }])).toBe("function sign(x) {\n  return Math.sign(x);\n}\n");
  });

  it("counter-case: the replaced lines run together with changes may be a join on purpose: refused", () => {
    const f = "if (ok) {\n  go();\n}\n";
    expect(refused(f, [{ op: "replace", pos: anchor(f, 1), end: anchor(f, 3), lines: ["if (ok) { go(); stop(); }"] }])).toContain("run together, with changes");
  });

  it("counter-case: copies of original lines are not taken for a wrap", () => {
    const f = "alpha_value = 1\nbeta_value = 2\nalpha_value = 1beta_value = 2\n";
    expect(applied(f, [{ op: "replace", pos: anchor(f, 1), end: anchor(f, 2), lines: ["alpha_value = 1", "beta_value = 2", "gamma = 3"] }])).toBe(
      "alpha_value = 1\nbeta_value = 2\ngamma = 3\nalpha_value = 1beta_value = 2\n",
    );
  });
});

describe("end-as-anchor: an anchor given as end is never ignored", () => {
  const f = "line1\nline2\n";

  it("regression: append with only end inserts after that line, not at the end of the file", () => {
    const r = withNotes(f, [{ op: "append", end: anchor(f, 1), lines: ["inserted"] }]);
    expect(r.after).toBe("line1\ninserted\nline2\n");
    expect(r.notes).toEqual([`Edit 1 (append ${anchor(f, 1)}) [rule end-as-anchor]: "end" was given without "pos", so it was taken as the anchor.`]);
  });

  it("prepend with only end inserts before that line", () => {
    expect(applied(f, [{ op: "prepend", end: anchor(f, 2), lines: ["between"] }])).toBe("line1\nbetween\nline2\n");
  });

  it("a stale end anchor is refused like any anchor", () => {
    expect(refused(f, [{ op: "append", end: "1#ZZ", lines: ["x"] }])).toMatch(/line 1 has changed since it was read|line 1/);
  });

  it("refuses an append given two different anchors (where to insert is unclear)", () => {
    expect(refused("a\nb\nc\n", [{ op: "append", pos: anchor("a\nb\nc\n", 1), end: anchor("a\nb\nc\n", 3), lines: ["x"] }])).toContain('append takes one anchor ("pos"), but both');
  });

  it("accepts pos and end naming the same line", () => {
    expect(applied(f, [{ op: "append", pos: anchor(f, 1), end: ` ${anchor(f, 1).replace("#", " # ")} `, lines: ["x"] }])).toBe("line1\nx\nline2\n");
  });
});

describe("duplicate-op", () => {
  it("applies ops that differ only in how their anchors are spelled once", () => {
    const f = "line 1\nline 2\n";
    const canonical = anchor(f, 1);
    const spaced = ` ${canonical.replace("#", " # ")} `;
    const r = withNotes(f, [
      { op: "append", pos: canonical, lines: ["inserted"] },
      { op: "append", pos: spaced, lines: "inserted" },
    ]);
    expect(r.after).toBe("line 1\ninserted\nline 2\n");
    expect(r.notes).toEqual(["Edit 2 [rule duplicate-op]: it repeats edit 1 exactly (anchors compared as line and hash), so it was applied once."]);
  });

  it("counter-case: two ops at one anchor with different lines both apply (in order)", () => {
    const f = "a\nb\n";
    expect(
      applied(f, [
        { op: "append", pos: anchor(f, 1), lines: ["x"] },
        { op: "append", pos: anchor(f, 1), lines: ["y"] },
      ]),
    ).toBe("a\nx\ny\nb\n");
  });
});

describe("final-newline-line: the empty line other views show after the final newline", () => {
  const f = "first\nsecond\n";
  let vtl = "";
  beforeAll(() => {
    vtl = lineTag(3, "");
  });

  it("prepend before it ends the file with the new lines (the final newline kept)", () => {
    const r = withNotes(f, [{ op: "prepend", pos: vtl, lines: ["third"] }]);
    expect(r.after).toBe("first\nsecond\nthird\n");
    expect(r.notes[0]).toBe(
      `Edit 1 (prepend ${vtl}) [rule final-newline-line]: line 3 is the empty line after the file's final newline (as views that split the file on newlines show it); ` +
        "the op was applied there, and the file keeps its final newline unless that line was deleted.",
    );
  });

  it("replace of it puts the new lines there; append after it keeps it as a blank line", () => {
    expect(applied(f, [{ op: "replace", pos: vtl, lines: ["third"] }])).toBe("first\nsecond\nthird\n");
    expect(applied(f, [{ op: "append", pos: vtl, lines: ["third"] }])).toBe("first\nsecond\n\nthird\n");
    expect(applied(f, [{ op: "replace", pos: anchor(f, 2), end: vtl, lines: ["2nd"] }])).toBe("first\n2nd\n");
  });

  it("deleting it deletes the final newline", () => {
    expect(applied(f, [{ op: "replace", pos: vtl, lines: null }])).toBe("first\nsecond");
  });

  it("resolves the one line views show for an empty file", () => {
    expect(applied("", [{ op: "append", pos: lineTag(1, ""), lines: ["hello"] }])).toBe("hello\n");
    expect(applied("", [{ op: "replace", pos: lineTag(1, ""), lines: ["hello"] }])).toBe("hello\n");
  });

  it("counter-case: in a file without a final newline there is no such line: out of range", () => {
    expect(refused("first\nsecond", [{ op: "append", pos: vtl, lines: ["x"] }])).toContain("line 3 is out of range; the file has 2 lines.");
  });

  it("counter-case: an anchor past the end with another hash is out of range, and two lines past it too", () => {
    const wrong = vtl.endsWith("ZZ") ? "3#PP" : "3#ZZ";
    expect(refused(f, [{ op: "append", pos: wrong, lines: ["x"] }])).toContain("line 3 is out of range");
    expect(refused(f, [{ op: "append", pos: lineTag(4, ""), lines: ["x"] }])).toContain("line 4 is out of range");
  });

  it("refuses deleting it together with an insertion at the end", () => {
    expect(
      refused(f, [
        { op: "replace", pos: vtl, lines: null },
        { op: "append", pos: anchor(f, 2), lines: ["x"] },
      ]),
    ).toContain("both change the end of the file");
  });
});

describe("missing and empty lines", () => {
  const f = "keep\ndrop\n";

  it("refuses a replace without lines (it does not delete)", () => {
    expect(refused(f, [{ op: "replace", pos: anchor(f, 2) } as HashlineOp])).toContain('"lines" is missing: give the new lines as "lines"');
  });

  it("refuses an insertion with no lines, even next to other ops", () => {
    expect(
      refused(f, [
        { op: "append", pos: anchor(f, 1), lines: [] },
        { op: "replace", pos: anchor(f, 2), lines: ["x"] },
      ]),
    ).toContain('append has no lines to insert ("lines" is empty)');
    expect(refused(f, [{ op: "prepend", lines: null }])).toContain('prepend has no lines to insert ("lines" is null)');
  });

  it("orders a prepend at the top before an append at the end in an empty file", () => {
    expect(
      applied("", [
        { op: "append", lines: ["line2"] },
        { op: "prepend", lines: ["line1"] },
      ]),
    ).toBe("line1\nline2\n");
  });
});
