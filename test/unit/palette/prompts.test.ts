// The texts the palette and editor commands send to the model (src/host/commands/prompts.ts):
// what they say, that the anchors they carry are the ones the real edit engine accepts, and that
// what the user selected cannot break out of its code fence.
import { beforeAll, describe, expect, it } from "vitest";
import { applyEditsToBytes } from "../../../src/core/edit/apply-edits";
import { hashlineReady, lineTag } from "../../../src/core/edit/hashline";
import {
  editSelectionPrompt,
  explainSelectionPrompt,
  fence,
  fixProblemsPrompt,
  MAX_EXCERPT_CHARS,
  MAX_PROBLEMS,
  problemRegions,
  problemsToFix,
  type FileProblem,
  type SelectionExcerpt,
} from "../../../src/host/commands/prompts";

beforeAll(() => hashlineReady());

const FILE = [
  "/** Mean lunar semidiurnal period: 12 hours 25 minutes. */",
  "export const TIDAL_PERIOD_MS = (12 * 60 + 25) * 60 * 1000;",
  "",
  "export function nextHighTides(knownHigh: Date, from: Date, count: number): Date[] {",
  "  let t = knownHigh.getTime();",
  "  while (t < from.getTime()) t += TIDAL_PERIOD_MS;",
  "  const result: Date[] = [];",
  "  for (let i = 0; i < count; i++) result.push(new Date(t + i * TIDAL_PERIOD_MS));",
  "  return result;",
  "}",
];
const TEXT = `${FILE.join("\n")}\n`;

function excerpt(start: number, end: number, extra: Partial<SelectionExcerpt> = {}): SelectionExcerpt {
  const lines = FILE.slice(start - 1, end);
  return { path: "src/tides.ts", startLine: start, endLine: end, languageId: "typescript", text: lines.join("\n"), lines, wholeLines: true, ...extra };
}

/** The text between the first fence line and its closing fence. */
function fencedBody(prompt: string): string {
  const m = /^(`{3,})[^\n]*\n([\s\S]*?)\n\1$/m.exec(prompt);
  if (!m) throw new Error(`no fenced block in:\n${prompt}`);
  return m[2]!;
}

describe("Explain Selection", () => {
  it("names the file and lines, carries the selection verbatim in a fence, and says not to change files", () => {
    const p = explainSelectionPrompt(excerpt(5, 6));
    expect(p.split("\n")[0]).toBe("Explain the code I selected in src/tides.ts, lines 5-6:");
    expect(p).toContain("```typescript\n  let t = knownHigh.getTime();\n  while (t < from.getTime()) t += TIDAL_PERIOD_MS;\n```");
    expect(p).toContain("Do not change any files.");
    expect(p).not.toContain("unsaved");
    expect(explainSelectionPrompt(excerpt(2, 2))).toContain("src/tides.ts, line 2:");
  });

  it("says when the editor's text is unsaved, and bounds a huge selection with a pointer to the rest", () => {
    expect(explainSelectionPrompt(excerpt(1, 2, { unsaved: true }))).toContain("The editor has unsaved changes");
    const big = Array.from({ length: 5_000 }, (_, i) => `const v${i} = ${i}; // padding padding padding`).join("\n");
    const p = explainSelectionPrompt({ ...excerpt(1, 5_000), text: big, lines: big.split("\n") });
    expect(p.length).toBeLessThan(MAX_EXCERPT_CHARS + 2_000);
    expect(p).toMatch(/\(\d+ more characters of the selection are not shown here: read them from src\/tides\.ts with read_file\.\)/);
  });

  it("keeps backticks in the selection from closing the fence", () => {
    const text = "const md = `\n```\nnot the end\n````\n`;";
    const p = explainSelectionPrompt({ ...excerpt(1, 5), text, lines: text.split("\n"), languageId: "javascript" });
    expect(fence(text).open).toBe("`````");
    expect(fencedBody(p)).toBe(text);
  });

  it("drops a language id that could break the fence line", () => {
    expect(fence("x", "type script\n```").open).toBe("```");
    expect(fence("x", "plaintext").open).toBe("```");
    expect(fence("x", "c++").open).toBe("```c++");
  });
});

describe("Edit Selection", () => {
  it("carries the instruction and the selected lines with anchors the real edit engine accepts", () => {
    const p = editSelectionPrompt(excerpt(7, 9), "  Freeze the result.  ");
    expect(p.split("\n").slice(0, 3)).toEqual(["Edit the code I selected in src/tides.ts, lines 7-9, as follows:", "", "Freeze the result."]);
    expect(p).toContain("I review your edit as a diff before it is written.");
    expect(p).toContain("hashline ops with these anchors need no read_file first");
    const body = fencedBody(p).split("\n");
    expect(body).toEqual([7, 8, 9].map((n) => `${lineTag(n, FILE[n - 1]!)}|${FILE[n - 1]}`));
    // The anchors of the prompt are the ones edit_file checks against the file.
    const pos = body[2]!.split("|")[0]!;
    const r = applyEditsToBytes(new TextEncoder().encode(TEXT), [{ op: "replace", pos, lines: ["  return Object.freeze(result);"] }], "src/tides.ts");
    expect(r.ok).toBe(true);
    if (r.ok) expect(new TextDecoder().decode(r.bytes)).toContain("  return Object.freeze(result);\n}");
  });

  it("adds the exact selected text when the selection covers only part of its lines", () => {
    const p = editSelectionPrompt({ ...excerpt(5, 5), text: "knownHigh.getTime()", wholeLines: false }, "Use valueOf");
    expect(p).toContain("The selection itself is only part of those lines:\n```typescript\nknownHigh.getTime()\n```");
    expect(editSelectionPrompt(excerpt(5, 5), "x")).not.toContain("only part of those lines");
  });

  it("says 'at my cursor' when nothing was selected", () => {
    const p = editSelectionPrompt({ ...excerpt(3, 3), cursorOnly: true }, "Add a helper here");
    expect(p.split("\n")[0]).toBe("Edit the code at my cursor in src/tides.ts, line 3, as follows:");
    expect(p).toContain("The cursor's line as read_file shows it");
    expect(p).toContain("Make the change there with edit_file");
  });

  it("shows a prefix of a huge selection and says which lines to read", () => {
    const lines = Array.from({ length: 4_000 }, (_, i) => `line ${i} ${"x".repeat(40)}`);
    const p = editSelectionPrompt({ path: "big.txt", startLine: 1, endLine: 4_000, text: lines.join("\n"), lines, wholeLines: true }, "Sort them");
    expect(p.length).toBeLessThan(MAX_EXCERPT_CHARS + 2_000);
    expect(p).toMatch(/\(Lines \d+-4000 are not shown here: read them with read_file before you edit them\.\)/);
  });
});

describe("Fix Problems in File", () => {
  const problems: FileProblem[] = [
    { line: 9, column: 3, severity: "warning", message: "Unnecessary return", source: "eslint", code: "no-useless-return" },
    { line: 5, column: 7, severity: "error", message: "Type 'string' is not assignable\n  to type 'number'.", source: "ts", code: "2322" },
    { line: 2, column: 1, severity: "hint", message: "Could be simplified", source: "ts" },
    { line: 1, severity: "info", message: "Spelling: semidiurnal", source: "cSpell" },
  ];

  it("lists every problem with path, line, column, severity, source, code and message, errors first; hints left out", () => {
    const p = fixProblemsPrompt({ path: "src/tides.ts", lines: FILE }, problems);
    const lines = p.split("\n");
    expect(lines[0]).toBe("Fix the problems VS Code reports in src/tides.ts (1 error, 1 warning, 1 info):");
    expect(lines.slice(1, 4)).toEqual([
      "- src/tides.ts:5:7 error (ts 2322): Type 'string' is not assignable to type 'number'.",
      "- src/tides.ts:9:3 warning (eslint no-useless-return): Unnecessary return",
      "- src/tides.ts:1 info (cSpell): Spelling: semidiurnal",
    ]);
    expect(p).not.toContain("Could be simplified");
    expect(p).toContain("Do not silence a problem (no @ts-ignore, eslint-disable, casts to any or empty catch blocks)");
    expect(p).toContain("If a problem is a false report, leave it and say why.");
  });

  it("shows the lines around the problems with real anchors, merging regions that touch", () => {
    expect(problemRegions(10, problemsToFix(problems))).toEqual([{ from: 1, to: 10 }]);
    expect(
      problemRegions(100, [
        { line: 10, severity: "error", message: "a" },
        { line: 50, severity: "error", message: "b" },
        { line: 1, severity: "error", message: "c" },
      ]),
    ).toEqual([
      { from: 1, to: 3 },
      { from: 8, to: 12 },
      { from: 48, to: 52 },
    ]);
    const p = fixProblemsPrompt({ path: "src/tides.ts", lines: FILE }, [{ line: 5, severity: "error", message: "x" }]);
    expect(fencedBody(p).split("\n")).toEqual([3, 4, 5, 6, 7].map((n) => `${lineTag(n, FILE[n - 1]!)}|${FILE[n - 1]}`));
  });

  it("counts problems beyond the list and ignores a line past the end of the file", () => {
    const many: FileProblem[] = Array.from({ length: MAX_PROBLEMS + 7 }, (_, i) => ({ line: (i % 10) + 1, severity: "error", message: `problem ${i}` }));
    const p = fixProblemsPrompt({ path: "a.ts", lines: FILE }, many);
    expect(p).toContain(`(${MAX_PROBLEMS + 7} errors)`);
    expect(p).toContain("- … and 7 more");
    expect(problemRegions(3, [{ line: 40, severity: "error", message: "stale" }])).toEqual([]);
  });
});
