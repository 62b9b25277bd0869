/**
 * The parse check of tolerant edits (docs/edits.md): an edit placed by a tolerance rule (a relaxed
 * rung of the matching ladder, the similarity stage, a re-indent, a patch's lost indentation) is
 * refused when the file parsed without errors before and would not after. Exact edits are the
 * model's own text and are never checked.
 *
 * tree-sitter (web-tree-sitter) parses; the grammars' WebAssembly bytes come from the host
 * (src/node/tree-sitter-wasm.ts), so the core never touches the file system. Nothing is loaded
 * until the first check, and a grammar only when a file of its language is checked.
 */
import { Language, Parser, type Node, type ParseState } from "web-tree-sitter";
import type { MatchRung } from "./types";

/** The WebAssembly the check needs, from the host. */
export interface GrammarWasm {
  /** web-tree-sitter's runtime (tree-sitter.wasm). */
  runtime(): Promise<Uint8Array>;
  /** A grammar (`tree-sitter-NAME.wasm`), undefined when the host has none of that name. */
  grammar(name: string): Promise<Uint8Array | undefined>;
}

/** File extensions and the grammar that parses them (the grammars @vscode/tree-sitter-wasm ships). */
const GRAMMAR_OF: Record<string, string> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  py: "python",
  pyi: "python",
  go: "go",
  rs: "rust",
  java: "java",
  css: "css",
  rb: "ruby",
  php: "php",
  cs: "c-sharp",
  cpp: "cpp",
  cc: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  hh: "cpp",
  hxx: "cpp",
  sh: "bash",
  bash: "bash",
  ps1: "powershell",
};

/** Language names for messages. */
const LANGUAGE_NAME: Record<string, string> = {
  typescript: "TypeScript",
  tsx: "TSX",
  javascript: "JavaScript",
  python: "Python",
  go: "Go",
  rust: "Rust",
  java: "Java",
  css: "CSS",
  ruby: "Ruby",
  php: "PHP",
  "c-sharp": "C#",
  cpp: "C++",
  bash: "shell",
  powershell: "PowerShell",
};

/** The grammar for a path, by its extension (undefined: no grammar at hand). */
export function grammarFor(path: string): string | undefined {
  const m = /\.([A-Za-z0-9]+)$/.exec(path);
  return m ? GRAMMAR_OF[m[1]!.toLowerCase()] : undefined;
}

/** One parse error: an ERROR node (text the grammar could not place) or a MISSING one (a token it had to assume). */
export interface ParseProblem {
  /** 1-based. */
  line: number;
  column: number;
  kind: "error" | "missing";
  /** The missing token, or the start of the text that could not be placed. */
  text: string;
}

export interface SyntaxChecker {
  /** The parse errors of `text` as the file `path` (at most 20), or undefined when no grammar is at hand for it. */
  problems(path: string, text: string): Promise<ParseProblem[] | undefined>;
}

/** Texts larger than this are not parsed (the check is skipped, as for a file without a grammar). */
const MAX_CHARS = 2_000_000;
/**
 * A parse longer than this is given up (the check is skipped, as for a file with no grammar): the
 * parse is synchronous, so a pathological file (red9: 1.96 MB of `a<b<c<…` as TypeScript, 13–30 s
 * per parse, two per edit) would otherwise hold the extension host's event loop.
 */
export const PARSE_BUDGET_MS = 1000;
const MAX_PROBLEMS = 20;

export function createSyntaxChecker(wasm: GrammarWasm): SyntaxChecker {
  let runtime: Promise<void> | undefined;
  const parsers = new Map<string, Promise<Parser | undefined>>();
  const parserFor = (name: string): Promise<Parser | undefined> => {
    let p = parsers.get(name);
    if (!p) {
      p = (async () => {
        runtime ??= wasm.runtime().then((bytes) => Parser.init({ wasmBinary: bytes }));
        await runtime;
        const bytes = await wasm.grammar(name);
        if (!bytes) return undefined;
        const parser = new Parser();
        parser.setLanguage(await Language.load(bytes));
        return parser;
      })();
      // A failed load (a missing or broken file) is not cached: the next check tries again.
      p.catch(() => parsers.delete(name));
      parsers.set(name, p);
    }
    return p;
  };
  return {
    async problems(path, text) {
      const name = grammarFor(path);
      if (!name || text.length > MAX_CHARS) return undefined;
      const parser = await parserFor(name);
      const deadline = Date.now() + PARSE_BUDGET_MS;
      // progressCallback: returning true cancels the parse (parse() then returns null).
      const progressCallback = (() => Date.now() > deadline) as unknown as (state: ParseState) => void;
      const tree = parser?.parse(text, null, { progressCallback });
      if (!tree) {
        // A cancelled parse keeps its state to be resumed: the next file starts afresh.
        parser?.reset();
        return undefined;
      }
      try {
        return collect(tree.rootNode, text);
      } finally {
        tree.delete();
      }
    },
  };
}

function collect(root: Node, text: string): ParseProblem[] {
  const out: ParseProblem[] = [];
  const visit = (n: Node) => {
    if (out.length >= MAX_PROBLEMS) return;
    if (n.isMissing || n.isError) {
      const at = n.startPosition;
      const snippet = n.isMissing ? n.type : text.slice(n.startIndex, Math.min(n.endIndex, n.startIndex + 40)).split("\n")[0]!;
      out.push({ line: at.row + 1, column: at.column + 1, kind: n.isMissing ? "missing" : "error", text: snippet });
      return;
    }
    if (!n.hasError) return;
    for (const c of n.children) if (c) visit(c);
  };
  if (root.hasError) visit(root);
  return out;
}

/** What placed an edit: the rung that matched it and the tolerance rules that applied. */
export interface Placement {
  rung?: MatchRung;
  rules?: readonly string[];
}

/** An edit was placed by tolerance (anything but an exact match as written, or a hashline op with no rule). */
export function placedByTolerance(placements: readonly Placement[]): string[] {
  const out = new Set<string>();
  for (const p of placements) {
    if (p.rung && p.rung !== "exact") out.add(p.rung === "similar" ? "similar-text" : `${p.rung} match`);
    for (const r of p.rules ?? []) if (r !== "line-hint") out.add(r);
  }
  return [...out];
}

/**
 * The model-facing refusal when a tolerant edit would break a file that parsed cleanly, else
 * undefined (no grammar for it, it had errors already, or it still parses). `how`: the rules that placed the edit.
 */
export async function syntaxRefusal(checker: SyntaxChecker | undefined, path: string, before: string, after: string, how: readonly string[]): Promise<string | undefined> {
  if (!checker || how.length === 0) return undefined;
  const was = await checker.problems(path, before);
  if (!was || was.length > 0) return undefined;
  const now = await checker.problems(path, after);
  if (!now || now.length === 0) return undefined;
  const first = now[0]!;
  const lines = after.split("\n");
  const from = Math.max(1, first.line - 2);
  const to = Math.min(lines.length, first.line + 2);
  const shown = lines
    .slice(from - 1, to)
    .map((l, i) => `${from + i === first.line ? ">" : " "}${String(from + i).padStart(5)}| ${l.replace(/\r$/, "")}`)
    .join("\n");
  const what = first.kind === "missing" ? `a missing "${first.text}"` : `text it cannot place, ${JSON.stringify(first.text)}`;
  const language = LANGUAGE_NAME[grammarFor(path)!] ?? "its language";
  return (
    `Nothing was written to ${path}: the edit applies only through tolerance (${how.join(", ")}), and the result would not parse as ${language}, ` +
    `which the file did before: line ${first.line}, column ${first.column} has ${what}` +
    `${now.length > 1 ? ` (${now.length >= MAX_PROBLEMS ? `${MAX_PROBLEMS} or more` : now.length} parse errors in all)` : ""}. The result there would read:\n${shown}\n` +
    `A tolerant match is applied only when it keeps the file parseable. Read the lines (read_file) and send the edit again with the old text copied exactly; ` +
    `if the new text is meant to leave the code unfinished for now, an exact match applies it as written.`
  );
}
