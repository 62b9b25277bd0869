// @-mentions typed in a message: what is a mention and what is not, and the chip labels.
import { describe, expect, it } from "vitest";
import { ContextItem, itemLabel, parseMentions, uniqueItems } from "../../../src/core/composer/mentions";
import { rankPaths } from "../../../src/core/composer/rank";
import { ContextItemView } from "../../../src/protocol/messages";

const refs = (text: string) => parseMentions(text).map((m) => m.ref);

describe("parseMentions", () => {
  it("finds keywords, paths, quoted paths and problems of a file", () => {
    expect(refs("look at @src/tides.ts and @docs/ with @selection, @problems @problems:src/a.ts @terminal @git-diff")).toEqual([
      { kind: "path", path: "src/tides.ts" },
      { kind: "path", path: "docs/" },
      { kind: "selection" },
      { kind: "problems" },
      { kind: "problems", path: "src/a.ts" },
      { kind: "terminal" },
      { kind: "git-diff" },
    ]);
    expect(refs('see @"docs/my notes.md" please')).toEqual([{ kind: "path", path: "docs/my notes.md" }]);
  });

  it("leaves sentence punctuation out and reports where each mention is", () => {
    const text = "Fix @README.md. Then (@src/a.ts)!";
    const found = parseMentions(text);
    expect(found.map((m) => m.raw)).toEqual(["@README.md", "@src/a.ts"]);
    for (const m of found) expect(text.slice(m.start, m.end)).toBe(m.raw);
  });

  it("is not fooled by e-mail addresses, a lone @ or decorators in the middle of a word", () => {
    expect(refs("mail me at dev@example.com or x@y")).toEqual([]);
    expect(refs("a lone @ here, and @ there")).toEqual([]);
    expect(refs("")).toEqual([]);
  });

  it('a keyword is only a keyword unquoted: @"selection" is a path', () => {
    expect(refs('@"selection"')).toEqual([{ kind: "path", path: "selection" }]);
  });
});

describe("context items", () => {
  it("labels chips and drops repeats (a folder with or without its slash is one)", () => {
    const items: ContextItem[] = [
      { kind: "file", path: "src/a.ts" },
      { kind: "folder", path: "src" },
      { kind: "folder", path: "src/" },
      { kind: "selection", path: "src/a.ts", startLine: 3, endLine: 7, text: "x" },
      { kind: "problems" },
      { kind: "problems" },
      { kind: "git-diff" },
    ];
    const u = uniqueItems(items);
    expect(u.map(itemLabel)).toEqual(["src/a.ts", "src/", "a.ts:3-7", "problems", "git diff"]);
  });

  it("the protocol's shape and the core's accept and refuse the same items", () => {
    const good = [
      { kind: "file", path: "a.ts" },
      { kind: "folder", path: "src" },
      { kind: "selection", path: "a.ts", startLine: 1, endLine: 2, text: "let x" },
      { kind: "problems", path: "a.ts" },
      { kind: "problems" },
      { kind: "terminal" },
      { kind: "git-diff" },
    ];
    const bad = [{ kind: "file", path: "" }, { kind: "selection", path: "a", startLine: 0, endLine: 1, text: "" }, { kind: "shell", command: "rm -rf /" }, { kind: "file" }];
    for (const g of good) {
      expect(ContextItem.safeParse(g).success).toBe(true);
      expect(ContextItemView.safeParse(g).success).toBe(true);
    }
    for (const b of bad) {
      expect(ContextItem.safeParse(b).success).toBe(false);
      expect(ContextItemView.safeParse(b).success).toBe(false);
    }
  });
});

describe("the completion list", () => {
  const entries = [
    { rel: "src/tides.ts", folder: false },
    { rel: "src/tides.test.ts", folder: false },
    { rel: "notes/tide-table.md", folder: false },
    { rel: "docs/outside.md", folder: false },
    { rel: "src", folder: true },
    { rel: "README.md", folder: false },
  ];

  it("ranks name prefixes, then names, then paths, then letters in order; case does not matter", () => {
    expect(rankPaths(entries, "tide").map((e) => e.rel)).toEqual(["src/tides.ts", "src/tides.test.ts", "notes/tide-table.md", "docs/outside.md"]);
    expect(rankPaths(entries, "TIDE-T").map((e) => e.rel)).toEqual(["notes/tide-table.md"]);
    expect(rankPaths(entries, "src/").map((e) => e.rel)).toEqual(["src/tides.ts", "src/tides.test.ts"]);
    expect(rankPaths(entries, "ntm").map((e) => e.rel)).toEqual(["notes/tide-table.md"]);
    expect(rankPaths(entries, "zzz")).toEqual([]);
  });

  it("finds the @query the caret is in, only at a word start", async () => {
    const { mentionAt } = await import("../../../webview/views/mention-list");
    expect(mentionAt("fix @src/ti", 11)).toEqual({ start: 4, query: "src/ti" });
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAt("mail a@b", 8)).toBeUndefined();
    expect(mentionAt("fix @src/ti now", 15)).toBeUndefined();
    expect(mentionAt("fix @src/ti now", 8)).toEqual({ start: 4, query: "src" });
  });
});
