// SEARCH/REPLACE dialects (docs/edits.md): Roo Code's numbered lines and line hints, runs of
// whitespace, blank lines at the edges of SEARCH, marker spellings, an unclosed last block.
import { beforeAll, describe, expect, it } from "vitest";
import { parseEditBlocks } from "../../../src/core/edit/block-parser";
import { hashlineReady } from "../../../src/core/edit/hashline";
import { rooNumbered } from "../../../src/core/edit/search-replace";
import { applied, block, blocks, edit, refused } from "./edit-helpers";

beforeAll(() => hashlineReady());

function withNotes(file: string, text: string): { after: string; notes: string[] } {
  const r = edit(file, blocks(text));
  if (!r.ok) throw new Error(`expected the edit to apply, got:\n${r.message}`);
  return { after: r.after, notes: r.notes };
}

describe("Roo Code's line-numbered SEARCH", () => {
  const f = "function a() {\n  return null;\n}\n\nfunction b() {\n  return null;\n}\n";

  it("strips the numbers from SEARCH and REPLACE and says so", () => {
    const r = withNotes(f, "<<<<<<< SEARCH\n:start_line:5\n-------\n5 | function b() {\n6 |   return null;\n=======\n5 | function b() {\n6 |   return 0;\n>>>>>>> REPLACE\n");
    expect(r.after).toBe(f.replace("function b() {\n  return null;", "function b() {\n  return 0;"));
    expect(r.notes[0]).toContain('[rule roo-line-numbers] the "N | " line numbers copied from the view were removed from SEARCH and REPLACE');
  });

  it("uses the numbers to pick the one of several exact matches they name", () => {
    const r = withNotes(f, "<<<<<<< SEARCH\n6 |   return null;\n=======\n6 |   return undefined;\n>>>>>>> REPLACE\n");
    expect(r.after).toBe("function a() {\n  return null;\n}\n\nfunction b() {\n  return undefined;\n}\n");
    expect(r.notes[0]).toContain("[rule line-hint] SEARCH matches 2 places exactly; line 6 is at the line hint 6, so that one was changed");
  });

  it("leaves REPLACE lines without numbers as they are, and keeps padded numbers and blank numbered lines", () => {
    const g = "a\nb\n\nd\n";
    expect(applied(g, blocks("<<<<<<< SEARCH\n 2 | b\n 3 | \n 4 | d\n=======\nb\n\nD\n>>>>>>> REPLACE\n"))).toBe("a\nb\n\nD\n");
  });

  it("counter-case: numbers that do not count up by one are text, not a view", () => {
    expect(rooNumbered(["1 | a", "3 | b"], ["x"])).toBeUndefined();
    expect(rooNumbered(["1 | a", "b"], ["x"])).toBeUndefined();
    expect(rooNumbered(["1 || a"], ["x"])).toBeUndefined();
    expect(rooNumbered(["7 | a", "8 | b"], ["7 | A", "new"])).toEqual({ search: ["a", "b"], replace: ["A", "new"], first: 7, replaceToo: true });
  });

  it("counter-case: a file that really holds numbered lines is matched as written", () => {
    const g = "Steps:\n1 | open\n2 | start\n";
    expect(applied(g, blocks("<<<<<<< SEARCH\n2 | start\n=======\n2 | start both\n>>>>>>> REPLACE\n"))).toBe("Steps:\n1 | open\n2 | start both\n");
  });
});

describe("line hints among several exact matches", () => {
  const f = "x = 1\ny = 2\nx = 1\ny = 3\nx = 1\n";

  it("moves a hint past the lines an earlier block of the same call added above it", () => {
    const g = "x = 1\ny = 2\nx = 1\n";
    const text = "<<<<<<< SEARCH\n:start_line:2\n-------\ny = 2\n=======\ny = 2\ny = 2.5\ny = 2.75\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n:start_line:3\n-------\nx = 1\n=======\nx = 3\n>>>>>>> REPLACE\n";
    expect(applied(g, blocks(text))).toBe("x = 1\ny = 2\ny = 2.5\ny = 2.75\nx = 3\n");
  });

  it("takes the match at :start_line:, or the one clearly nearest to it", () => {
    expect(applied(f, blocks("<<<<<<< SEARCH\n:start_line:3\n-------\nx = 1\n=======\nx = 0\n>>>>>>> REPLACE\n"))).toBe("x = 1\ny = 2\nx = 0\ny = 3\nx = 1\n");
    const g = "// new header\ntry {\n  run();\n} catch (e) {\n  log(e);\n}\n\n\n\n\n\ntry {\n  other();\n} catch (e) {\n  log(e);\n}\n";
    expect(applied(g, blocks("<<<<<<< SEARCH\n:start_line:3\n-------\n} catch (e) {\n  log(e);\n=======\n} catch (e) {\n  report(e);\n>>>>>>> REPLACE\n"))).toBe(
      g.replace("  log(e);", "  report(e);"),
    );
  });

  it("counter-case: a hint equally near two matches is refused with the candidates", () => {
    expect(refused(f, blocks("<<<<<<< SEARCH\n:start_line:2\n-------\nx = 1\n=======\nx = 0\n>>>>>>> REPLACE\n"))).toContain(
      "SEARCH matches 3 places in f.ts exactly (starting at lines 1, 3, 5), and the line hint 2 is equally near line 1 and line 3, so which one is meant is unclear",
    );
  });

  it("counter-case: a hint not clearly nearer one match (by less than 2 lines) is refused", () => {
    const g = "x = 1\na\nb\nc\nd\nx = 1\n";
    expect(refused(g, blocks("<<<<<<< SEARCH\n:start_line:4\n-------\nx = 1\n=======\nx = 0\n>>>>>>> REPLACE\n"))).toContain("is not clearly nearer to line 6 than to line 1");
  });

  it("keeps the ambiguity policy without a hint: several equal matches are refused with the candidates", () => {
    expect(refused(f, [block(["x = 1"], ["x = 0"])])).toContain("SEARCH matches 3 places in f.ts exactly (starting at lines 1, 3, 5); nothing was changed.");
  });
});

describe("re-indenting REPLACE to stray indentation", () => {
  it("counter-case: a line indented by one space that no other line uses may be stray: refused, not re-indented", () => {
    expect(refused("line1\n line2 \nline3", [block(["line2"], ["replaced"])])).toContain("the file's indentation there (1 space) is used by no other line");
  });

  it("re-indents to indentation that is a level (even, or used elsewhere)", () => {
    expect(applied("    line1\n    line2\n    line3\n", [block([" line1", " line2"], [" new_line1", "     new_line2"])])).toBe("    new_line1\n        new_line2\n    line3\n");
    expect(applied(" a\n b\nc\n", [block(["b"], ["B"])])).toBe(" a\n B\nc\n");
  });
});

describe("the spacing rung: runs of whitespace inside lines", () => {
  it("matches a SEARCH whose runs of spaces differ, keeps the file's spacing and reads new runs the same way", () => {
    const f = "function sum(a, b) {\n  return a + b;\n}\n";
    const r = edit(f, [block(["function   sum(a,   b) {", "  return a  +  b;", "}"], ["function   sum(a,   b) {", "  return a  +  b  +  0;", "}"])]);
    expect(r.ok && r.after).toBe("function sum(a, b) {\n  return a + b + 0;\n}\n");
    expect(r.ok && r.notes[0]).toContain("matched lines 1-3 when indentation is ignored and each run of spaces or tabs inside a line is read as one space");
  });

  it("keeps a tab of the file where the model wrote a space, and never turns new spaces into tabs", () => {
    const f = "const A = 1;\t// one\nconst B = 2;\t// two\n";
    expect(applied(f, [block(["const B = 2; // two"], ["const B = 3; // two, three"])])).toBe("const A = 1;\t// one\nconst B = 3;\t// two, three\n");
  });

  it("counter-case: two places equal once runs are collapsed: refused with both", () => {
    const f = "x  =  compute(a, b)\ny = 2\nx = compute(a,  b)\n";
    expect(refused(f, [block(["x = compute(a, b)"], ["x = compute(a, b, c)"])])).toContain("SEARCH matches 2 places in f.ts when indentation is ignored and each run of spaces");
  });

  it("counter-case: a missing space is not a run of another length: not found", () => {
    expect(refused("total = price * qty\n", [block(["total=price*qty"], ["total = 0"])])).toContain("SEARCH text not found in f.ts.");
  });

  it("counter-case: an exact match elsewhere wins; a unique spaced match with a loose twin is refused", () => {
    const f = "call(a,  b);\ncall(a, b);\n";
    expect(applied(f, [block(["call(a, b);"], ["call(a, c);"])])).toBe("call(a,  b);\ncall(a, c);\n");
    const g = 'say( "hi" );\nsay( \u201chi\u201d );\n';
    expect(refused(g, [block(['say(  "hi"  );'], ['say("yo");'])])).toContain("read loosely (ignoring indentation, runs of whitespace and Unicode look-alikes) it matches 2 places");
  });
});

describe("edge-blank-lines: SEARCH with blank lines the file does not have there", () => {
  it("drops a leading blank line from SEARCH (REPLACE without it)", () => {
    const r = edit("import os\ndef main():\n    pass\n", [block(["", "def main():", "    pass"], ["def main():", "    return 0"])]);
    expect(r.ok && r.after).toBe("import os\ndef main():\n    return 0\n");
    expect(r.ok && r.notes[0]).toContain("[rule edge-blank-lines] SEARCH's blank lines at its start are not in the file there, so they were not required to match");
  });

  it("drops trailing blank lines, and REPLACE's matching ones; keeps REPLACE's extra blank line", () => {
    expect(applied("a = 1\nb = 2\nc = 3\n", [block(["b = 2", "", ""], ["b = 20"])])).toBe("a = 1\nb = 20\nc = 3\n");
    expect(applied("start()\nstop()\n", [block(["", "stop()", ""], ["", "halt()", ""])])).toBe("start()\nhalt()\n");
    expect(applied("header()\nbody()\n", [block(["", "body()"], ["", "", "body2()"])])).toBe("header()\n\nbody2()\n");
  });

  it("when the file has some of the blank lines: removing all or keeping all is clear", () => {
    expect(applied("one()\n\ntwo()\n", [block(["", "", "two()"], ["three()"])])).toBe("one()\nthree()\n");
    expect(applied("one()\n\ntwo()\n", [block(["", "", "two()"], ["", "", "three()"])])).toBe("one()\n\nthree()\n");
  });

  it("counter-case: the file has some, REPLACE another number: refused", () => {
    expect(refused("one()\n\ntwo()\n", [block(["", "", "two()"], ["", "three()"])])).toContain(
      "SEARCH has 2 blank lines at its start, the file has 1 there, and REPLACE has 1, so how many blank lines are meant is unclear",
    );
  });

  it("works on JSON old_string too, once it is read line by line", () => {
    expect(applied("a()\nb()\n", [{ old_string: "\n\nb()", new_string: "c()" }])).toBe("a()\nc()\n");
  });
});

describe("markers and the last block", () => {
  it("reads Cline markers of any length from 3, and escaped marker lines (Roo) as content", () => {
    expect(applied("v = 1\n", blocks("----------- SEARCH\nv = 1\n=======\nv = 2\n+++++++++++ REPLACE\n"))).toBe("v = 2\n");
    expect(applied("title\n=======\n", blocks("<<<<<<< SEARCH\ntitle\n\\=======\n=======\nTitle\n\\=======\n>>>>>>> REPLACE\n"))).toBe("Title\n=======\n");
  });

  it("reads :start_line: with brackets, refuses one in REPLACE, and reads an escaped one as content", () => {
    const f = 'function hello() {\n    console.log("hello")\n}\n';
    expect(applied(f, blocks("<<<<<<< SEARCH\n:start_line: [1]\n:end_line:[1]\n-------\nfunction hello() {\n=======\nfunction helloWorld() {\n>>>>>>> REPLACE\n"))).toBe(
      f.replace("hello()", "helloWorld()"),
    );
    const r = parseEditBlocks("<<<<<<< SEARCH\ncontent\n=======\n:start_line:5\nreplacement\n>>>>>>> REPLACE\n");
    expect(!r.ok && r.message).toContain('has a line hint (:start_line:5) in its REPLACE part; ":start_line:" and ":end_line:" go right after the SEARCH marker');
    expect(parseEditBlocks("<<<<<<< SEARCH\ncontent\n=======\nnew\n\\:start_line:5\n>>>>>>> REPLACE\n")).toMatchObject({ ok: true, blocks: [{ replace: ["new", ":start_line:5"] }] });
  });

  it("refuses a divider or REPLACE marker outside any block, but not a Markdown heading's underline", () => {
    const grok = "=======\n<<<<<<< SEARCH\nlet total = 0;\n=======\nlet total = 1;\n>>>>>>> REPLACE\n";
    expect(parseEditBlocks(grok)).toMatchObject({ ok: false, message: expect.stringContaining('Line 1 ("=======") is a "=======" divider outside any block') });
    expect(parseEditBlocks("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n>>>>>>> REPLACE\n")).toMatchObject({ ok: false });
    expect(parseEditBlocks("Changes\n=======\n\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n")).toMatchObject({ ok: true });
  });

  it("counter-case: a marker run without a space before the word is not a marker (as in aider, Cline and Roo)", () => {
    expect(parseEditBlocks("-------SEARCH\nline2\n=======\nreplaced\n+++++++ REPLACE\n")).toMatchObject({ ok: false });
    expect(parseEditBlocks("-- SEARCH\nline2\n=======\nreplaced\n+++++++ REPLACE\n")).toMatchObject({ ok: false });
  });

  it("applies a last block without its REPLACE marker when the reply ended normally, and says so", () => {
    const r = withNotes('def greet():\n    return "hi"\n', '<<<<<<< SEARCH\n    return "hi"\n=======\n    return "hello"\n');
    expect(r.after).toBe('def greet():\n    return "hello"\n');
    expect(r.notes).toEqual([
      'Edit 1 (SEARCH block starting "return \\"hi\\"") [rule unclosed-final-block]: the block had no ">>>>>>> REPLACE" line; the reply ended normally, so its REPLACE text was taken to run to the end of the reply.',
    ]);
  });

  it("refuses it when the reply was cut off by a token limit", () => {
    const r = parseEditBlocks('<<<<<<< SEARCH\n    return "hi"\n=======\n    return "hel', { truncated: true });
    expect(!r.ok && r.message).toContain("was cut off: the reply ended (it hit the output token limit)");
  });

  it("keeps blank lines at the end of an unclosed REPLACE only as far as SEARCH ends with them", () => {
    expect(parseEditBlocks("<<<<<<< SEARCH\na\n\n=======\nb\n\n\n\n")).toMatchObject({ ok: true, blocks: [{ search: ["a", ""], replace: ["b", ""] }] });
  });
});
