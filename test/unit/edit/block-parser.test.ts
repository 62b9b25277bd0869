import { describe, expect, it } from "vitest";
import { isElisionLine } from "../../../src/core/edit/elision";
import { looksLikeBlocks, parseEditBlocks } from "../../../src/core/edit/block-parser";

function parse(text: string) {
  const r = parseEditBlocks(text);
  if (!r.ok) throw new Error(r.message);
  return r.blocks;
}

describe("parseEditBlocks", () => {
  it("reads the standard block with a filename line", () => {
    expect(parse("src/a.ts\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n")).toEqual([{ kind: "block", search: ["old"], replace: ["new"], path: "src/a.ts", startLine: undefined }]);
  });

  it("accepts 5 to 9 marker characters and no filename", () => {
    expect(parse("<<<<< SEARCH\na\n=====\nb\n>>>>> REPLACE")[0]).toMatchObject({ search: ["a"], replace: ["b"], path: undefined });
    expect(parse("<<<<<<<<< SEARCH\na\n=========\nb\n>>>>>>>>> REPLACE")[0]).toMatchObject({ search: ["a"], replace: ["b"] });
  });

  it("accepts Cline's markers", () => {
    expect(parse("------- SEARCH\nold line\n=======\nnew line\n+++++++ REPLACE\n")[0]).toMatchObject({ search: ["old line"], replace: ["new line"] });
  });

  it("accepts Roo Code's start_line hint and separator", () => {
    expect(parse("<<<<<<< SEARCH\n:start_line:12\n-------\n  old\n=======\n  new\n>>>>>>> REPLACE")[0]).toMatchObject({
      search: ["  old"],
      replace: ["  new"],
      startLine: 12,
    });
  });

  it("reads several blocks inside code fences with prose around them", () => {
    const text = "Here is the change:\n\n```ts\nsrc/a.ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n\nAnd another:\n" + "```\nsrc/a.ts\n<<<<<<< SEARCH\nc\n=======\n>>>>>>> REPLACE\n```\n";
    expect(parse(text)).toEqual([
      { kind: "block", search: ["a"], replace: ["b"], path: "src/a.ts", startLine: undefined },
      { kind: "block", search: ["c"], replace: [], path: "src/a.ts", startLine: undefined },
    ]);
  });

  it("keeps fence lines and blank lines that are inside a block", () => {
    expect(parse("<<<<<<< SEARCH\n```js\n\nx\n=======\n```js\ny\n>>>>>>> REPLACE")[0]).toMatchObject({ search: ["```js", "", "x"], replace: ["```js", "y"] });
  });

  it("picks the middle divider when SEARCH and REPLACE both contain a ======= line", () => {
    expect(parse("<<<<<<< SEARCH\nTitle\n=======\n=======\nTitle!\n=======\n>>>>>>> REPLACE")[0]).toMatchObject({
      search: ["Title", "======="],
      replace: ["Title!", "======="],
    });
  });

  it("refuses a block without a ======= line with how a block looks", () => {
    expect(parseEditBlocks("x.ts\n<<<<<<< SEARCH\na\nb\n")).toEqual({
      ok: false,
      message:
        'Block 1 (SEARCH marker on line 2) is not complete: expected a "=======" line and then ">>>>>>> REPLACE". Each block is: ' +
        'optional filename line, "<<<<<<< SEARCH", the exact current lines, "=======", the new lines, ">>>>>>> REPLACE".',
    });
  });

  it("reads a last block without its REPLACE marker to the end of a reply that ended normally", () => {
    expect(parse("x.ts\n<<<<<<< SEARCH\na\n=======\nb\n\n")).toEqual([{ kind: "block", search: ["a"], replace: ["b"], path: "x.ts", startLine: undefined, unclosed: true }]);
  });

  it("refuses a last block without its REPLACE marker when the reply was cut off, and says so", () => {
    const r = parseEditBlocks("<<<<<<< SEARCH\na\n=======\nb", { truncated: true });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toBe(
      'Block 1 (SEARCH marker on line 1) was cut off: the reply ended (it hit the output token limit) before the block\'s ">>>>>>> REPLACE" line, ' +
        "so its REPLACE text may be incomplete. Nothing was applied. Send the edit again, in smaller blocks if it is long.",
    );
  });

  it("ends an unclosed last block at the fence it was opened in, leaving the prose after it out", () => {
    expect(parse("```py\n<<<<<<< SEARCH\na\n=======\nb\n\nc\n```\nThat adds c.\n")[0]).toMatchObject({ search: ["a"], replace: ["b", "", "c"], unclosed: true });
  });

  it("refuses an unclosed last block outside a fence whose REPLACE has a blank line and more text (prose may follow)", () => {
    const r = parseEditBlocks("<<<<<<< SEARCH\na\n=======\nb\n\nThis changes a to b.\n");
    expect(!r.ok && r.message).toContain("so where its REPLACE text ends (and prose begins) is unclear");
  });

  it("refuses a block whose REPLACE marker is missing before the next block", () => {
    const r = parseEditBlocks("<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n");
    expect(!r.ok && r.message).toContain('Block 1 (SEARCH marker on line 1) is not complete: a new SEARCH marker (line 5) comes before its ">>>>>>> REPLACE" line.');
  });

  it("accepts marker runs of any length from 3", () => {
    expect(parse("----------- SEARCH\na\n=======\nb\n+++++++++++ REPLACE")[0]).toMatchObject({ search: ["a"], replace: ["b"] });
    expect(parse("<<< SEARCH\na\n===\nb\n>>> REPLACE")[0]).toMatchObject({ search: ["a"], replace: ["b"] });
    expect(parse("<<<<<<<<<<<< SEARCH\na\n============\nb\n>>>>>>>>>>>> REPLACE")[0]).toMatchObject({ search: ["a"], replace: ["b"] });
    expect(looksLikeBlocks("-- SEARCH")).toBe(false);
  });

  it("refuses text without blocks", () => {
    expect(parseEditBlocks("just prose").ok).toBe(false);
    expect(looksLikeBlocks("just prose")).toBe(false);
    expect(looksLikeBlocks("<<<<<<< SEARCH")).toBe(true);
  });
});

describe("isElisionLine", () => {
  it("recognises elision markers", () => {
    for (const l of ["...", "…", "// ...", "  // ... existing code ...", "# ... rest of file", "/* ... */", "<!-- ... -->", "{/* ... */}", "    // ...existing code..."]) {
      expect(isElisionLine(l), l).toBe(true);
    }
  });

  it("does not take code using ... for an elision", () => {
    for (const l of ["...defaults,", "foo(...)", "return ...;", "  ...rest", "// TODO", "x = [...a]"]) expect(isElisionLine(l), l).toBe(false);
  });
});
