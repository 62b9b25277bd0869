/**
 * Claude Code's block-level HTML comments: "Block-level HTML comments (`<!-- maintainer notes -->`)
 * in CLAUDE.md files are stripped before the content is injected into Claude's context … Comments
 * inside code blocks are preserved" (code.claude.com/docs/en/memory). Read as Claude Code reads
 * them — with marked's lexer, GitHub extensions off: a top-level HTML block that starts with `<!--`
 * and holds `-->` loses every `<!-- … -->` in it (what is left stays when it is not blank); every
 * other block (paragraphs with an inline comment, fenced code) is kept as written.
 */
import { Lexer } from "marked";

export function stripBlockComments(text: string): string {
  if (!text.includes("<!--")) return text;
  let out = "";
  for (const t of Lexer.lex(text, { gfm: false })) {
    if (t.type === "html" && t.raw.trimStart().startsWith("<!--") && t.raw.includes("-->")) {
      const rest = t.raw.replace(/<!--[\s\S]*?-->/g, "");
      if (rest.trim()) out += rest;
    } else out += t.raw;
  }
  return out;
}
