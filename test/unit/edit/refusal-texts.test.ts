import { beforeAll, describe, expect, it } from "vitest";
import { applyEditsToBytes } from "../../../src/core/edit/apply-edits";
import { parseEditBlocks } from "../../../src/core/edit/block-parser";
import { hashlineReady } from "../../../src/core/edit/hashline";
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
