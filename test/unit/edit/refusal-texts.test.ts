import { beforeAll, describe, expect, it } from "vitest";
import { applyEditsToBytes } from "../../../src/core/edit/apply-edits";
import { parseEditBlocks } from "../../../src/core/edit/block-parser";
import { hashlineReady, lineTag } from "../../../src/core/edit/hashline";
import type { HashlineOp } from "../../../src/core/edit/types";
import { block, refused } from "./edit-helpers";

beforeAll(() => hashlineReady());

describe("refusal texts", () => {
  it("refuses a whitespace-only match that other places match when read loosely", () => {
    const f = "return z;  \nx();\n    return z;\n";
    expect(refused(f, [block(["return z;"], ["return y;"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (SEARCH block starting "return z;"): SEARCH does not match f.ts exactly. It matches line 1 when trailing whitespace is ignored, ' +
        "but read loosely (ignoring indentation, runs of whitespace and Unicode look-alikes) it matches 2 places (starting at lines 1, 3), so which one is meant " +
        "is unclear; nothing was changed. Copy SEARCH exactly from the file, with neighbouring lines so it matches exactly one place.",
    );
  });

  it("refuses an exact match whose twin differs only by trailing whitespace", () => {
    expect(refused("a();\nb();  \na();\nb();\n", [block(["a();", "b();"], ["a();", "c();"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (SEARCH block starting "a();"): SEARCH matches 2 places in f.ts when trailing whitespace is ignored (starting at lines 1-2, 3-4); ' +
        "nothing was changed. Add neighbouring lines to SEARCH so it matches exactly one place.",
    );
  });

  it("refuses an ambiguous look-alike match", () => {
    expect(refused("say(“hi”);\nsay(„hi“);\n", [block(['say("hi");'], ['say("yo");'])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (SEARCH block starting "say(\\"hi\\");"): SEARCH matches 2 places in f.ts when Unicode look-alikes (smart quotes, dashes, special spaces) ' +
        "are read as ASCII (starting at lines 1, 2); nothing was changed. Add neighbouring lines to SEARCH so it matches exactly one place.",
    );
  });

  it("refuses a file that is not UTF-8", () => {
    const r = applyEditsToBytes(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]), [{ old_string: "caf", new_string: "x" }], "latin1.txt");
    expect(!r.ok && r.message).toBe(
      "Cannot edit latin1.txt: it is not valid UTF-8 text (another encoding?); only UTF-8 files can be edited, so convert it first or use run_command. Nothing was written.",
    );
  });

  it("refuses an unknown op", () => {
    expect(refused("a\n", [{ op: "insert", pos: "1#ZZ", lines: ["x"] } as unknown as HashlineOp])).toBe(
      'Nothing was written to f.ts: the edit failed.\n\nEdit 1 (insert 1#ZZ): unknown op "insert"; use "replace", "append" or "prepend".',
    );
  });

  it("refuses a block with an even number of ======= lines", () => {
    expect(parseEditBlocks("<<<<<<< SEARCH\na\n=======\n=======\nb\n=======\n=======\n>>>>>>> REPLACE")).toEqual({
      ok: false,
      message:
        'Block 1 (SEARCH marker on line 1) has 4 "=======" lines, so where SEARCH ends is ambiguous. If the file itself contains such a line, ' + "use a JSON edit (old_string/new_string) instead.",
    });
  });

  it("refuses edits on a missing file unless they create it, and an empty edit list", () => {
    expect(refused(undefined, [{ op: "replace", pos: "1#ZZ", lines: ["x"] }])).toContain("f.ts does not exist.");
    expect(refused("a\n", [])).toBe("No edits were given.");
  });
});

/** The hashline view lines of `file` from `from` to `to` (1-based), as refusals show them. */
function view(file: string, from: number, to: number): string {
  const lines = file.split("\n");
  return lines
    .slice(from - 1, to)
    .map((l, i) => `${from + i}#${lineTag(from + i, l).split("#")[1]}|${l}`)
    .join("\n");
}

describe("refusals that say what differed (issue 21)", () => {
  const config = "const config = {\n  host: 'localhost',\n  port: 8080,\n  debug: false,\n};\nstart(config);\n";

  it("names the character that differs, with its code point", () => {
    const f = "// 10–50 items\nfoo();\n";
    expect(refused(f, [{ old_string: "// 10-50 itens\nfoo();", new_string: "// 10-50 items\nbar();" }])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (old_string starting "// 10-50 itens"): SEARCH text not found in f.ts. The closest region is lines 1-2 (95% similar, and no other place comes near), ' +
        "but REPLACE changes line 1, which SEARCH has differently from the file, so the new text may carry the difference into the file; nothing was changed. " +
        'What differs: line 1: SEARCH has "-" where the file has "–" (U+2013), SEARCH has "n" where the file has "m". Current text:\n' +
        `${view(f, 1, 2)}\nFix: copy SEARCH exactly from the current text above.`,
    );
  });

  it("says when a line differs in whitespace only", () => {
    const f = "if (x) {\n  y();\n}\n";
    expect(refused(f, [block(["if (x)  {", "  z();"], ["if (x) {", "  w();"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (SEARCH block starting "if (x)  {"): SEARCH text not found in f.ts. The closest region is lines 1-2 (88% similar). ' +
        'What differs: line 1: whitespace only; line 2: SEARCH has "z" where the file has "y". Current text:\n' +
        `${view(f, 1, 3)}\nFix: copy SEARCH from the current text above (without the "N#HH|" prefixes) and retry, or use a hashline replace op with those anchors.`,
    );
  });

  it("names a line the file has that SEARCH lacks", () => {
    const f = "a();\nb();\nc();\nd();\n";
    expect(refused(f, [block(["a();", "c();", "d();"], ["a();", "c2();", "d();"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (SEARCH block starting "a();"): SEARCH text not found in f.ts. The closest region is lines 1-4 (93% similar). ' +
        'What differs: the file has a line between SEARCH\'s lines 1 and 2 that SEARCH lacks: line 2 "b();". Current text:\n' +
        `${view(f, 1, 4)}\nFix: copy SEARCH from the current text above (without the "N#HH|" prefixes) and retry, or use a hashline replace op with those anchors.`,
    );
  });

  it("refuses a near-miss whose changed line would carry the model's wrong copy into the file", () => {
    expect(refused(config, [block(["  host: 'localhost'", "  port: 8080,"], ["  host: '0.0.0.0'", "  port: 8080,"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        "Edit 1 (SEARCH block starting \"host: 'localhost'\"): SEARCH text not found in f.ts. The closest region is lines 2-3 (96% similar, and no other place comes near), " +
        "but REPLACE changes line 2, which SEARCH has differently from the file, so the new text may carry the difference into the file; nothing was changed. " +
        'What differs: line 2: the file has "," that SEARCH lacks. Current text:\n' +
        `${view(config, 1, 5)}\nFix: copy SEARCH exactly from the current text above.`,
    );
  });

  it("refuses a near-miss of two similar functions, showing both", () => {
    const f = "function loadUser(id) {\n  return db.get(id);\n}\nfunction loadUsers(id) {\n  return db.get(id);\n}\n";
    expect(refused(f, [block(["function loadUsr(id) {", "  return db.get(id);", "}"], ["function loadUsr(id) {", "  return db.fetch(id);", "}"])])).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (SEARCH block starting "function loadUsr(id) {"): SEARCH text not found in f.ts. The closest region is lines 1-3 (97% similar), but lines 4-6 are 95% similar too, ' +
        "so which one is meant is unclear; nothing was changed. Current text of both:\n" +
        `${view(f, 1, 6)}\nFix: copy SEARCH exactly from the one you mean.`,
    );
  });

  it("tells the model which rule applied a near-miss", () => {
    const r = applyEditsToBytes(
      new TextEncoder().encode(config),
      [block(["  host: 'localhost'", "  port: 8080,", "  debug: false,"], ["  host: 'localhost'", "  port: 8080,", "  debug: true,"])],
      "f.ts",
    );
    expect(r.ok && r.after).toBe(config.replace("debug: false", "debug: true"));
    expect(r.ok && r.notes).toEqual([
      "Edit 1 (SEARCH block starting \"host: 'localhost'\"): [rule similar-text] SEARCH matched nowhere exactly, but lines 2-4 are 97% similar to it and no other place comes near (no other candidate), " +
        'so the edit was made there, with the file\'s own text of the lines REPLACE keeps (line 2: the file has "," that SEARCH lacks); matched lines 2-4 only as similar text (a near-miss: a character or two differ).',
    ]);
  });
});
