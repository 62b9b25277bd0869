// Red team D, session 23: the review hover shows a hunk's removed lines in a code block. VS Code's
// `MarkdownString.appendCodeblock` sizes its fence from backtick runs at the START of a line only
// (htmlContent.ts, appendEscapedMarkdownCodeBlockFence), but CommonMark closes a fence with one
// indented up to three spaces: a removed line "   ```" ended the block and every removed line after
// it was rendered as markdown — a heading saying nothing was removed, a link, an image fetched on
// hover, or link reference definitions that render as nothing (removed lines hidden from review).
import { marked } from "marked";
import { describe, expect, it, vi } from "vitest";

// VS Code's own appendCodeblock (src/vs/base/common/htmlContent.ts), as the extension host runs it.
function vscodeFence(code: string, langId: string): string {
  const longest = code.match(/^`+/gm)?.reduce((a, b) => (a.length > b.length ? a : b)).length ?? 0;
  const n = longest >= 3 ? longest + 1 : 3;
  return ["`".repeat(n) + langId, code, "`".repeat(n)].join("\n");
}

const editors: unknown[] = [];
vi.mock("vscode", () => {
  class Range {
    constructor(
      readonly startLine: number,
      readonly startCharacter: number,
      readonly endLine: number,
      readonly endCharacter: number,
    ) {}
  }
  class MarkdownString {
    value: string;
    constructor(v = "") {
      this.value = v;
    }
    appendCodeblock(code: string, lang = "") {
      this.value += `\n${vscodeFence(code, lang)}\n`;
      return this;
    }
    appendMarkdown(md: string) {
      this.value += md;
      return this;
    }
    appendText(t: string) {
      this.value += t.replace(/[\\`*_{}[\]()#+\-.!<>~|]/g, "\\$&");
      return this;
    }
  }
  return {
    Range,
    MarkdownString,
    ThemeColor: class {
      constructor(readonly id: string) {}
    },
    OverviewRulerLane: { Left: 1 },
    window: {
      createTextEditorDecorationType: () => ({ dispose() {} }),
      get visibleTextEditors() {
        return editors;
      },
    },
  };
});

const { ReviewDecorations } = await import("../../../src/host/review/decorations");

function hoverOf(removed: string[], lang = "markdown"): string {
  const notes: Array<{ hoverMessage: { value: string } }> = [];
  const lines = ["new line", "tail"];
  editors.length = 0;
  editors.push({
    document: {
      uri: "file:///w/a.md",
      languageId: lang,
      lineCount: lines.length,
      lineAt: (n: number) => ({ range: { end: { line: n, character: lines[n]!.length } } }),
    },
    setDecorations: (_t: unknown, opts: unknown[]) => {
      for (const o of opts) if (o && typeof o === "object" && "hoverMessage" in o) notes.push(o as (typeof notes)[number]);
    },
  });
  const d = new ReviewDecorations();
  const entry = { undecided: [0], ranges: [{ start: 0, end: 1 }], hunks: [{ beforeLines: removed.map((l) => `${l}\n`), afterLines: ["new line\n"] }] };
  d.render(() => entry as never);
  expect(notes).toHaveLength(1);
  return notes[0]!.hoverMessage.value;
}

/** The removed lines as the hover renders them: every token after the title must be one code block holding them all. */
function shownCode(md: string): string[] {
  const tokens = marked.lexer(md).filter((t) => t.type !== "space");
  const [title, ...rest] = tokens;
  expect(title?.type).toBe("paragraph");
  expect(rest.map((t) => t.type)).toEqual(["code"]);
  return (rest[0] as { text: string }).text.split("\n");
}

describe("review hover: removed lines stay in their code block (red team D 23)", () => {
  const rows: Array<[string, string[]]> = [
    ["an indented fence closes the block", ["keep()", "   ```", "# Nothing removed", "[x]: https://evil.invalid/", "deleteAllChecks()"]],
    ["one space, longer fence", ["a", " ````", "![t](https://evil.invalid/p.png)"]],
    ["a fence at column 0 still held", ["```", "b"]],
    ["a fence longer than the one counted at column 0", ["````", "  `````", "hidden"]],
    ["a lone carriage return is a line end to markdown", ["x\r   ```\r# shown as a heading"]],
  ];
  for (const [name, removed] of rows) {
    it(name, () => {
      const code = shownCode(hoverOf(removed));
      expect(code.join("\n").replace(/\r/g, "\n")).toBe(removed.join("\n").replace(/\r/g, "\n"));
    });
  }
});
