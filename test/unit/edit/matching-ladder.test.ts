import { beforeAll, describe, expect, it } from "vitest";
import { hashlineReady } from "../../../src/core/edit/hashline";
import { applied, block, blocks, edit, refused } from "./edit-helpers";

beforeAll(() => hashlineReady());

const file = "function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n";

describe("search/replace matching ladder", () => {
  it("applies an exact old_string as a substring when it occurs once", () => {
    expect(applied(file, [{ old_string: "a + b", new_string: "b + a" }])).toBe(file.replace("a + b", "b + a"));
  });

  it("applies an exact text block on whole lines", () => {
    const out = applied(file, [block(["  return a - b;"], ["  return b - a;", "  // swapped"])]);
    expect(out).toBe(file.replace("  return a - b;\n", "  return b - a;\n  // swapped\n"));
    const r = edit(file, [block(["  return a - b;"], ["  return b - a;"])]);
    expect(r.ok && r.applied[0]!.rung).toBe("exact");
  });

  it("matches when trailing whitespace differs and keeps the file's unchanged lines as they are", () => {
    const f = "a();   \nb();\t\nc();\n";
    const r = edit(f, [block(["a();", "b();"], ["a();", "B();"])]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.after).toBe("a();   \nB();\nc();\n");
    expect(r.applied[0]!.rung).toBe("whitespace");
    expect(r.notes).toEqual(['Edit 1 (SEARCH block starting "a();"): matched lines 1-2 when trailing whitespace is ignored.']);
  });

  it("re-indents the replacement by the same shift when only indentation differs", () => {
    const f = "class A {\n    run() {\n        go();\n    }\n}\n";
    const r = edit(f, [block(["run() {", "    go();", "}"], ["run() {", "    go();", "    stop();", "}"])]);
    expect(r.ok && r.after).toBe("class A {\n    run() {\n        go();\n        stop();\n    }\n}\n");
    expect(r.ok && r.notes[0]).toBe('Edit 1 (SEARCH block starting "run() {"): matched lines 2-4 when indentation is ignored; indentation shifted by +4 spaces.');
  });

  it("converts the replacement's indentation to the file's tabs when the model wrote spaces", () => {
    const f = "func main() {\n\tif ok {\n\t\tgo()\n\t}\n}\n";
    const r = edit(f, [block(["    if ok {", "        go()", "    }"], ["    if ok {", "        go()", "        stop()", "    }"])]);
    expect(r.ok && r.after).toBe("func main() {\n\tif ok {\n\t\tgo()\n\t\tstop()\n\t}\n}\n");
  });

  it("converts 4-space indentation of the model to the file's 2-space levels", () => {
    const f = "def f():\n  if x:\n    y()\n  return 1\n";
    const out = applied(f, [block(["if x:", "    y()"], ["if x:", "    y()", "    z()"])]);
    expect(out).toBe("def f():\n  if x:\n    y()\n    z()\n  return 1\n");
  });

  it("refuses when the indentation cannot be re-indented consistently", () => {
    expect(refused(file, [block(["function add(a, b) {", "        return a + b;", "}"], ["function add(a, b) {", "  return 1;", "}"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (SEARCH block starting "function add(a, b) {"): SEARCH matches lines 1-3 of f.ts only when indentation is ignored, ' +
        "and the REPLACE text cannot be re-indented consistently: the indentation differs by different amounts on different lines " +
        '(file 2 spaces vs SEARCH 8 spaces for "return a + b;"; file none vs SEARCH none for "function add(a, b) {"; ' +
        'file none vs SEARCH none for "}"). Nothing was changed. Current text:\n' +
        "1#KR|function add(a, b) {\n2#BN|  return a + b;\n3#RZ|}\n4#RW|\n5#TQ|function sub(a, b) {\n" +
        "Fix: copy the indentation exactly from the current text above.",
    );
  });

  it("matches Unicode look-alikes, keeps the lines the model did not change, and writes its changed lines as given", () => {
    const f = "const msg = “Don’t panic” — he said…;\nconst n = 1;\nconst k = “x”;\n";
    const r = edit(f, [
      { old_string: 'const msg = "Don\'t panic" - he said...;\nconst n = 1;\nconst k = "x";', new_string: 'const msg = "Don\'t panic" - she said...;\nconst n = 2;\nconst k = "x";' },
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // The changed line is the model's text (its ASCII is never turned into the file's look-alikes); the kept line is the file's.
    expect(r.after).toBe('const msg = "Don\'t panic" - she said...;\nconst n = 2;\nconst k = “x”;\n');
    expect(r.applied[0]!.rung).toBe("unicode");
  });

  it("never maps the model's ASCII hyphen in the new text to the file's dash (10–50, break—-here)", () => {
    expect(applied("// range 10–50 items\n", [{ old_string: "// range 10-50 items", new_string: "// range 10-50 things" }])).toBe("// range 10-50 things\n");
    expect(applied("x = 'break—here'\n", [{ old_string: "x = 'break-here'", new_string: "x = 'break—-here'" }])).toBe("x = 'break—-here'\n");
  });

  it("reads the model's own look-alikes back as the file's ASCII (smart quotes in code)", () => {
    expect(applied('print("It\'s done")\nexit(0)\n', [block(["print(“It’s done”)"], ["print(“It’s finished”)"])])).toBe('print("It\'s finished")\nexit(0)\n');
  });

  it("matches a non-breaking space in the file against a plain space, and writes the changed line as given", () => {
    const f = "price:\u00a010 €\nnext\n";
    expect(applied(f, [block(["price: 10 €"], ["price: 12 €"])])).toBe("price: 12 €\nnext\n");
  });

  it("keeps an elided region as it is in the file", () => {
    const f = "function big() {\n  one();\n  two();\n  three();\n  return 4;\n}\n";
    const r = edit(f, [block(["function big() {", "  // ... existing code ...", "  return 4;", "}"], ["function big() {", "  // ... existing code ...", "  return 5;", "}"])]);
    expect(r.ok && r.after).toBe("function big() {\n  one();\n  two();\n  three();\n  return 5;\n}\n");
    expect(r.ok && r.applied[0]!.rung).toBe("elision");
    expect(r.ok && r.notes[0]).toBe('Edit 1 (SEARCH block starting "function big() {"): matched lines 1-6 with the elided (...) lines skipped; 3 elided lines kept as in the file.');
  });

  it("expands several elision markers in order, with bare ... and # ... forms", () => {
    const f = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\n";
    const out = applied(f, [block(["a = 1", "...", "c = 3", "# ...", "f = 6"], ["a = 10", "...", "c = 30", "# ...", "f = 60"])]);
    expect(out).toBe("a = 10\nb = 2\nc = 30\nd = 4\ne = 5\nf = 60\n");
  });

  it("refuses an elision when REPLACE drops a marker", () => {
    expect(refused(file, [block(["function add(a, b) {", "...", "}"], ["function add(a, b) {", "  return 1;", "}"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (SEARCH block starting "function add(a, b) {"): SEARCH has 1 elision marker ("...") but REPLACE has 0; nothing was changed. ' +
        "REPLACE must keep each marker of SEARCH (in the same order) so the elided lines are kept as they are, or spell the lines out in full.",
    );
  });

  it("refuses an elision at the start of SEARCH when REPLACE does not start with one", () => {
    expect(refused(file, [block(["...", "}"], ["};"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (SEARCH block starting "..."): SEARCH in f.ts begins or ends with an elision marker ("..."), so where it starts or ends is unknown. ' +
        "Begin and end SEARCH with real lines copied from the file.",
    );
  });

  it("refuses an ambiguous exact match listing the candidate lines", () => {
    expect(refused(file, [{ old_string: "}\n", new_string: "};\n" }])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (old_string starting "}"): SEARCH matches 2 places in f.ts exactly (starting at lines 3, 7); nothing was changed. ' +
        "Add neighbouring lines to SEARCH so it matches exactly one place, or set replace_all: true to change every occurrence.",
    );
  });

  it("refuses an ambiguous relaxed match instead of picking one", () => {
    const f = "if (a) {\n  x();\n}\nif (a) {\n    x();\n}\n";
    expect(refused(f, [block(["if (a) {", "x();", "}"], ["if (a) {", "y();", "}"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (SEARCH block starting "if (a) {"): SEARCH matches 2 places in f.ts when indentation is ignored (starting at lines 1-3, 4-6); ' +
        "nothing was changed. Add neighbouring lines to SEARCH so it matches exactly one place.",
    );
  });

  it("refuses a missing SEARCH and shows the closest region with its similarity", () => {
    expect(refused(file, [block(["  return a * b;"], ["  return 0;"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (SEARCH block starting "return a * b;"): SEARCH text not found in f.ts. The closest region is line 2 (93% similar). What differs: line 2: SEARCH has "*" where the file has "+". Current text:\n' +
        "1#KR|function add(a, b) {\n2#BN|  return a + b;\n3#RZ|}\n4#RW|\n" +
        'Fix: copy SEARCH from the current text above (without the "N#HH|" prefixes) and retry, or use a hashline replace op with those anchors.',
    );
  });

  it("says nothing is close when the SEARCH resembles nothing in the file", () => {
    expect(refused(file, [{ old_string: "zzz qqq", new_string: "y" }])).toContain(
      "SEARCH text not found in f.ts. Nothing in the file is close to it (7 lines). Re-read the file (read_file) to see its current content.",
    );
  });

  it("replaces every exact occurrence with replace_all", () => {
    const r = edit(file, [{ old_string: "(a, b)", new_string: "(x, y)", replace_all: true }]);
    expect(r.ok && r.after).toBe(file.replaceAll("(a, b)", "(x, y)"));
    expect(r.ok && r.notes).toEqual(['Edit 1 (old_string starting "(a, b)"): replaced 2 occurrences.']);
  });

  it("applies replace_all at a relaxed rung when every place holds the same text, and refuses when they differ", () => {
    const f = "function a() {\n  log( 1 );\n}\nfunction b() {\n  log( 1 );\n}\n";
    const r = edit(f, [{ old_string: "log(  1 );", new_string: "log(2);", replace_all: true }]);
    expect(r.ok && r.after).toBe("function a() {\n  log(2);\n}\nfunction b() {\n  log(2);\n}\n");
    expect(r.ok && r.notes).toEqual([
      'Edit 1 (old_string starting "log(  1 );"): [rule replace-all-relaxed] SEARCH matches 2 places when indentation is ignored and each run of spaces or tabs inside a line is read as one space (starting at lines 2, 5), all with the same text, so each was changed alike; indentation shifted by +2 spaces.',
      'Edit 1 (old_string starting "log(  1 );"): replaced 2 occurrences.',
    ]);
    const g = "function a() {\n  log( 1 );\n}\nfunction b() {\n    log( 1 );\n}\n";
    expect(refused(g, [{ old_string: "log(  1 );", new_string: "log(2);", replace_all: true }])).toContain(
      "replace_all: SEARCH does not match f.ts exactly. It matches 2 places when indentation is ignored and each run of spaces or tabs inside a line is read as one space (starting at lines 2, 5), but they differ from each other",
    );
  });

  it("checks gemini's expected_replacements against the places matched", () => {
    const f = "x = 1\ny = 2\nx = 1\n";
    expect(applied(f, [{ old_string: "x = 1", new_string: "x = 3", replace_all: true, expected_replacements: 2 }])).toBe("x = 3\ny = 2\nx = 3\n");
    expect(refused(f, [{ old_string: "x = 1", new_string: "x = 3", replace_all: true, expected_replacements: 3 }])).toContain(
      "expected_replacements is 3, but SEARCH matches 2 places in f.ts exactly; nothing was changed.",
    );
  });

  it("creates a file from an empty SEARCH when the file does not exist", () => {
    const r = edit(undefined, blocks("new.ts\n<<<<<<< SEARCH\n=======\nexport const x = 1;\n>>>>>>> REPLACE\n"));
    expect(r.ok && r.after).toBe("export const x = 1;\n");
  });

  it("refuses an empty SEARCH on a file that has content", () => {
    expect(refused(file, [block([], ["x"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        "Edit 1 (empty SEARCH block): SEARCH is empty, but f.ts is not empty (7 lines); an empty SEARCH only creates a new file. " +
        "To add text, put in SEARCH the existing lines next to where it goes and repeat them in REPLACE with the new text, or use a hashline append/prepend op.",
    );
  });

  it("refuses a non-empty SEARCH on a missing file", () => {
    expect(refused(undefined, [{ old_string: "x", new_string: "y" }])).toBe(
      'f.ts does not exist. To create it, use write_file, or one search/replace edit with an empty SEARCH (old_string "") ' +
        "whose REPLACE is the whole content. Check the path with list_files or glob if you expected it to exist.",
    );
  });

  it("reports an edit whose SEARCH and REPLACE are identical instead of claiming success", () => {
    expect(refused(file, [{ old_string: "  return a + b;", new_string: "  return a + b;" }])).toBe(
      'No change: Edit 1 (old_string starting "return a + b;") changes nothing: SEARCH and REPLACE are identical. Nothing was written.',
    );
  });

  it("notes a no-op block among real changes", () => {
    const r = edit(file, [block(["  return a + b;"], ["  return a + b;"]), block(["  return a - b;"], ["  return 0;"])]);
    expect(r.ok && r.notes).toEqual(['Edit 1 (SEARCH block starting "return a + b;") changes nothing: SEARCH and REPLACE are identical.']);
  });

  it("writes nothing when one of several blocks fails, and reports every failure", () => {
    expect(refused(file, [block(["  return a + b;"], ["  return 2;"]), block(["nothing here"], ["x"]), block(["}"], ["x"])])).toBe(
      "Nothing was written to f.ts: 2 edits of 3 failed, and edits are all-or-nothing.\n\n" +
        'Edit 2 (SEARCH block starting "nothing here"): SEARCH text not found in f.ts. Nothing in the file is close to it (7 lines). ' +
        "Re-read the file (read_file) to see its current content.\n\n" +
        'Edit 3 (SEARCH block starting "}"): SEARCH matches 2 places in f.ts exactly (starting at lines 3, 7); nothing was changed. ' +
        "Add neighbouring lines to SEARCH so it matches exactly one place.",
    );
  });

  it("applies several blocks in order, each seeing the previous one's result", () => {
    const out = applied(file, [block(["  return a + b;"], ["  return sum(a, b);"]), block(["  return sum(a, b);", "}"], ["  return sum(a, b);", "} // add"])]);
    expect(out).toBe(file.replace("  return a + b;\n}", "  return sum(a, b);\n} // add"));
  });

  it("deletes whole lines when REPLACE is empty", () => {
    expect(applied(file, [block(["", "function sub(a, b) {", "  return a - b;", "}"], [])])).toBe("function add(a, b) {\n  return a + b;\n}\n");
  });

  it("never matches a partial line through the relaxed rungs", () => {
    const msg = refused("const total = price * qty;\n", [{ old_string: "total = price *  qty", new_string: "total = price" }]);
    expect(msg).toContain("SEARCH text not found in f.ts.");
  });
});

describe("search/replace re-indentation across styles", () => {
  it("does not mix the model's spaces into a tab-indented file when SEARCH is one line", () => {
    const f = "func f() {\n\t\ty()\n}\n";
    expect(applied(f, [block(["y()"], ["y()", "if ok {", "  z()", "}"])])).toBe("func f() {\n\t\ty()\n\t\tif ok {\n\t\t\tz()\n\t\t}\n}\n");
  });

  it("applies hashline ops and search/replace pairs given in one call", () => {
    const f = "one\ntwo\nthree\n";
    const r = edit(f, [
      { old_string: "three", new_string: "3" },
      { op: "replace", pos: "1#" + "ZZ", lines: ["1"] },
    ]);
    expect(r.ok).toBe(false);
    const good = edit(f, [
      { old_string: "three", new_string: "3" },
      { op: "prepend", lines: ["zero"] },
    ]);
    expect(good.ok && good.after).toBe("zero\none\ntwo\n3\n");
  });
});

describe("search/replace copied from the hashline view", () => {
  it("removes N#HH| prefixes when every SEARCH line carries one, and says so", () => {
    const f = "def area(r):\n    return 3.14 * r * r\n";
    const r = edit(f, [{ old_string: "1#KR|def area(r):\n>>> 2#BN|    return 3.14 * r * r", new_string: "1#KR|def area(r):\n    return math.pi * r * r" }]);
    expect(r.ok && r.after).toBe("def area(r):\n    return math.pi * r * r\n");
    expect(r.ok && r.notes).toEqual(['Edit 1 (old_string starting "1#KR|def area(r):"): the "N#HH|" prefixes copied from the view were removed from SEARCH and REPLACE.']);
  });

  it("leaves text alone when only a few lines look like view prefixes", () => {
    expect(refused("a\nb\nc\n", [{ old_string: "1#KR|a\nb\nc", new_string: "x" }])).toContain("SEARCH text not found in f.ts.");
  });
});

describe("elision boundaries", () => {
  it("does not let an indented marker stand for lines outside the block it is in", () => {
    const f = "def load(path):\n    data = read(path)\n    return parse(data)\n\n\ndef save(path, obj):\n    text = dump(obj)\n    return len(text)\n";
    const msg = refused(f, [block(["def load(path):", "    ...", "    return len(text)"], ["def load(path):", "    ...", "    return 0"])]);
    expect(msg).toContain('Edit 1 (SEARCH block starting "def load(path):"): SEARCH text not found in f.ts (even with the elided lines skipped).');
  });

  it("lets a marker at the outer level span blocks", () => {
    const f = "<head>\n  <title>A</title>\n</head>\n<body>\n  <h1>x</h1>\n</body>\n";
    expect(applied(f, [block(["  <title>A</title>", "<!-- ... -->", "  <h1>x</h1>"], ["  <title>B</title>", "<!-- ... -->", "  <h1>y</h1>"])])).toBe(
      "<head>\n  <title>B</title>\n</head>\n<body>\n  <h1>y</h1>\n</body>\n",
    );
  });
});

describe("blank lines at the edges of text blocks", () => {
  it("keeps a trailing blank line of SEARCH as a line to match", () => {
    const f = "    return z;\n    next();\nreturn z;\n\nend();\n";
    const r = edit(f, [block(["return z;", ""], ["return y;", ""])]);
    expect(r.ok && r.after).toBe("    return z;\n    next();\nreturn y;\n\nend();\n");
  });

  it("adds a blank line REPLACE ends with", () => {
    expect(applied("a\nb\n", [block(["a"], ["a", ""])])).toBe("a\n\nb\n");
  });

  it("does not require blank lines that both SEARCH and REPLACE carry at their edges", () => {
    const r = edit("a\nb\nc\n", [block(["", "b", ""], ["", "B", ""])]);
    expect(r.ok && r.after).toBe("a\nB\nc\n");
    expect(r.ok && r.notes).toEqual([
      'Edit 1 (SEARCH block starting "b"): [rule edge-blank-lines] SEARCH\'s blank lines at its start and end are not in the file there, so they were not required to match.',
    ]);
  });
});

describe("the end of the file", () => {
  it("does not take the final newline for a blank line of SEARCH: the blank line is one the file lacks, and the final newline stays", () => {
    const r = edit("a\nb\n", [block(["b", ""], ["B"])]);
    expect(r.ok && r.after).toBe("a\nB\n");
    expect(r.ok && r.notes[0]).toContain("[rule edge-blank-lines] SEARCH's blank lines at its end are not in the file there");
    expect(applied("a\nb\n", [block(["b"], ["B"])])).toBe("a\nB\n");
  });
});
