// Claude Code's block-level HTML comment stripping (src/core/guidance/html-comments.ts), with the
// shapes real CLAUDE.md files hold: generator markers, a commented-out block of instructions, an
// inline note, a comment in fenced code, an unclosed comment.
import { describe, expect, it } from "vitest";
import { stripBlockComments } from "../../../src/core/guidance/html-comments";

describe("stripBlockComments", () => {
  it("drops block comments, keeps inline ones, fenced ones and unclosed ones; text without comments is unchanged", () => {
    const plain = "# A\n\n- one\n- two\n\n```sh\nmake\n```\n\n> quote\n";
    expect(stripBlockComments(plain)).toBe(plain);
    expect(stripBlockComments("<!-- BEGIN generated -->\n# T\n<!-- END generated -->\nbody\n")).not.toMatch(/generated/);
    expect(stripBlockComments("a\n\n<!--\nold rule\n-->\n\nb\n").replace(/\n+/g, "\n")).toBe("a\nb\n");
    expect(stripBlockComments("see <!-- inline --> here\n")).toBe("see <!-- inline --> here\n");
    expect(stripBlockComments("```\n<!-- fenced -->\n```\n")).toContain("<!-- fenced -->");
    expect(stripBlockComments("<!-- note --> trailing text\n")).toContain("trailing text");
    expect(stripBlockComments("<!-- never closed\nstill here\n")).toContain("still here");
  });
  it("keeps pace on large and unbalanced input (bounded by marked's lexer, no backtracking blow-up)", () => {
    const big = "<!--a-->\n".repeat(20_000) + "<!-- ".repeat(20_000) + "x\n" + "text <!-- y --> ".repeat(20_000);
    const out = stripBlockComments(big);
    expect(out).toContain("x");
    expect(out.split("<!--a-->").length).toBe(1);
  });
});
