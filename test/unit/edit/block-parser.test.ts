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
    expect(parse("src/a.ts\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n")).toEqual([
      { kind: "block", search: ["old"], replace: ["new"], path: "src/a.ts", startLine: undefined },
    ]);
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
    const text =
      "Here is the change:\n\n```ts\nsrc/a.ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n\nAnd another:\n" +
      "```\nsrc/a.ts\n<<<<<<< SEARCH\nc\n=======\n>>>>>>> REPLACE\n```\n";
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

  it("refuses an unclosed block with how a block looks", () => {
    expect(parseEditBlocks("x.ts\n<<<<<<< SEARCH\na\n=======\nb\n")).toEqual({
      ok: false,
      message:
        'Block 1 (SEARCH marker on line 2) is not complete: expected a "=======" line and then ">>>>>>> REPLACE". Each block is: ' +
        'optional filename line, "<<<<<<< SEARCH", the exact current lines, "=======", the new lines, ">>>>>>> REPLACE".',
    });
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
