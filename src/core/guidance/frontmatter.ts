/**
 * YAML frontmatter as other tools write it: a BOM, CRLF line ends, no frontmatter at all, and
 * Cursor's unquoted globs (`globs: *.ts, src/**` is not valid YAML — `*` starts an alias — but
 * Cursor accepts it, so do we), and a top-level value YAML cannot read on its own line
 * (`argument-hint: [issue] [branch]`, a description with `: ` in it) taken as plain text, as Claude
 * Code reads it. Anything else that does not parse is a problem with its line.
 */
import { parseDocument } from "yaml";

export interface Frontmatter {
  data: Record<string, unknown>;
  body: string;
  /** 1-based line of the body's first line in the file. */
  bodyLine: number;
  /** A problem with its 1-based line in the file. */
  problem?: { line: number; message: string };
}

/** Keys whose values are globs: an unquoted scalar is taken as a string, as Cursor, Copilot and Kiro (`fileMatchPattern`) do. */
const GLOB_KEYS = /^(\s*)(globs|applyTo|paths|files|fileMatchPattern)(\s*:\s*)(?![\s"'[{|>])(.*\S)\s*$/;

/**
 * Deepest nesting of YAML flow collections (`[` / `{`) in `text`, not counting brackets in quoted
 * scalars or comments (each taken to end with its line): the YAML parser takes about 125 µs a byte on deeply nested flow collections
 * (red team J 24: a 40 KB agent file of twenty `[[[…]]]` values 1,000 deep added 5 s to each
 * session's start, 500 such files an hour), while front matter that people write nests a few levels.
 */
export const MAX_FLOW_DEPTH = 64;
export function flowDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let quote = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      // A quote or a comment ends with its line here (a quoted scalar may go on, but then its brackets count: never fewer).
      if (c === "\n") quote = "";
      else if (c === quote && quote !== "#") {
        if (quote === "'" && text[i + 1] === "'") i++;
        else quote = "";
      } else if (c === "\\" && quote === '"') i++;
      continue;
    }
    if (c === "[" || c === "{") max = Math.max(max, ++depth);
    else if ((c === "]" || c === "}") && depth > 0) depth--;
    else if ((c === '"' || c === "'") && (i === 0 || /[\s[{,:]/.test(text[i - 1]!))) quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1]!))) quote = "#";
  }
  return max;
}

export function normalizeText(text: string): string {
  return (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, "\n");
}

/**
 * Front matter parsed before, by its YAML text (after the globs' quoting above): the built-in
 * lessons' are parsed when Yoke is built (esbuild.mjs, dist/lessons-frontmatter.json) and given
 * here at start (src/node/guidance-files.ts), so a session that reads only them never runs the
 * YAML parser — its first, cold parse cost ~10 ms of CPU per lesson on the way to the first
 * request. Only documents without problems are known; a value is kept as JSON, and each use gets
 * a copy of its own. Any other text is parsed as before.
 */
const known = new Map<string, string>();

export function addKnownFrontmatter(table: Readonly<Record<string, unknown>>): void {
  for (const [yamlText, data] of Object.entries(table)) {
    if (data && typeof data === "object" && !Array.isArray(data)) known.set(yamlText, JSON.stringify(data));
  }
}

/** The front matter's YAML text as parseFrontmatter parses it, or undefined when there is none. */
export function frontmatterYaml(raw: string): string | undefined {
  const text = normalizeText(raw);
  if (!/^---[ \t]*\n/.test(text)) return undefined;
  const lines = text.split("\n");
  const end = lines.findIndex((l, i) => i > 0 && /^(---|\.\.\.)[ \t]*$/.test(l));
  return end < 0 ? undefined : yamlOf(lines, end);
}

/**
 * A glob key given several quoted globs on one line, separated by commas (`paths: "**\/*.ts", "**\/*.tsx"`,
 * `globs: 'a/**', 'b/**'`): not YAML (a scalar cannot go on after its closing quote), but what the author
 * plainly meant, and what Claude Code's and Cursor's comma splitting read — a list of those globs.
 */
const QUOTED_GLOB_LIST = /^(\s*)(globs|applyTo|paths|files|fileMatchPattern)(\s*:\s*)((["'])[^"'\n]*\5(?:\s*,\s*(["'])[^"'\n]*\6)+)\s*,?\s*$/;

const yamlOf = (lines: string[], end: number) =>
  lines
    .slice(1, end)
    .map((l) =>
      QUOTED_GLOB_LIST.test(l)
        ? l.replace(QUOTED_GLOB_LIST, (_m, ind: string, key: string, sep: string, value: string) => `${ind}${key}${sep}[${value}]`)
        : l.replace(GLOB_KEYS, (_m, ind: string, key: string, sep: string, value: string) => `${ind}${key}${sep}${JSON.stringify(value)}`),
    )
    .join("\n");

export function parseFrontmatter(raw: string): Frontmatter {
  const text = normalizeText(raw);
  if (!/^---[ \t]*\n/.test(text)) return { data: {}, body: text, bodyLine: 1 };
  const lines = text.split("\n");
  let end = -1;
  for (let i = 1; i < lines.length; i++) {
    if (/^(---|\.\.\.)[ \t]*$/.test(lines[i]!)) {
      end = i;
      break;
    }
  }
  if (end < 0) return { data: {}, body: text, bodyLine: 1, problem: { line: 1, message: "frontmatter starts with --- but is never closed by a --- line" } };
  const body = lines.slice(end + 1).join("\n");
  const bodyLine = end + 2;
  const yamlText = yamlOf(lines, end);
  const seen = known.get(yamlText);
  if (seen !== undefined) return { data: JSON.parse(seen) as Record<string, unknown>, body, bodyLine };
  if (flowDepth(yamlText) > MAX_FLOW_DEPTH) return { data: {}, body, bodyLine, problem: { line: 2, message: `frontmatter not read: its [ ] or { } are nested more than ${MAX_FLOW_DEPTH} deep` } };
  let doc = parseDocument(yamlText, { prettyErrors: false, uniqueKeys: true });
  const err = doc.errors[0] ?? aliasError(doc);
  if (err) {
    // Claude Code (and the other tools) read a value YAML rejects as the plain text it is:
    // `argument-hint: [pr-number] [priority]`, `description: Use this agent when: <example>…`.
    const lenient = quoteUnparsable(yamlText);
    if (lenient !== yamlText) {
      const retry = parseDocument(lenient, { prettyErrors: false, uniqueKeys: true });
      if (!retry.errors.length && !aliasError(retry)) doc = retry;
    }
  }
  if ((doc.errors.length || aliasError(doc)) && err) {
    // The error's offset in the YAML, as a line of the file (the opening --- is line 1).
    const line = yamlText.slice(0, Math.min(err.pos[0], yamlText.length)).split("\n").length + 1;
    return { data: {}, body, bodyLine, problem: { line, message: `invalid YAML frontmatter: ${firstLine(err.message)}` } };
  }
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return { data: {}, body, bodyLine };
  if (typeof value !== "object" || Array.isArray(value)) return { data: {}, body, bodyLine, problem: { line: 2, message: "frontmatter must be a mapping of keys to values" } };
  return { data: value as Record<string, unknown>, body, bodyLine };
}

/**
 * Each top-level `key: value` line whose value YAML cannot read on its own line, with the value
 * quoted as a string (lines that parse — `tools: [Read, Grep]`, `model: sonnet` — stay as they are).
 */
function quoteUnparsable(yamlText: string): string {
  return yamlText
    .split("\n")
    .map((line) => {
      const m = /^([A-Za-z_][\w.-]*)(\s*:[ \t]+)(\S.*?)\s*$/.exec(line);
      if (!m) return line;
      // A quoted value or a block scalar (`|`, `>-`) is YAML's own — unless it is plainly text that only
      // starts like one: text after the closing quote (`"Fix" bugs`), or words after `>` on its line
      // (`description: > AGENTS.md — project notes`, a real Windsurf rule lost whole to the YAML error).
      if (/^["']/.test(m[3]!) && !/^(["'])(?:(?!\1).)*\1\s*[^\s#]/.test(m[3]!)) return line;
      if (/^[|>]/.test(m[3]!) && /^[|>][1-9+-]*\s*(#.*)?$/.test(m[3]!)) return line;
      const one = parseDocument(line, { prettyErrors: false });
      if (!one.errors.length && !aliasError(one)) return line;
      return `${m[1]}${m[2]}${JSON.stringify(m[3])}`;
    })
    .join("\n");
}

/**
 * What `toJS` would throw for the document: a `*name` YAML reads as an alias with no anchor
 * (`description: *Important* rules`, `fileMatchPattern: **\/*.py`) parses without errors and
 * throws only when read — which took `yoke lessons list` down whole (red team R).
 */
function aliasError(doc: ReturnType<typeof parseDocument>): { pos: [number, number]; message: string } | undefined {
  try {
    doc.toJS();
    return undefined;
  } catch (e) {
    return { pos: [0, 0], message: e instanceof Error ? e.message : String(e) };
  }
}

function firstLine(s: string): string {
  return s.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}

/** The line (1-based, in the file) where `key:` appears in the frontmatter, for problems about its value. */
export function keyLine(raw: string, key: string): number {
  const lines = normalizeText(raw).split("\n");
  const re = new RegExp(`^\\s*${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*:`);
  for (let i = 1; i < lines.length; i++) {
    if (/^(---|\.\.\.)\s*$/.test(lines[i]!)) break;
    if (re.test(lines[i]!)) return i + 1;
  }
  return 1;
}

/** A list given as a YAML sequence or as one comma-separated string (commas inside `{…}` kept). */
export function stringList(v: unknown, split = true): string[] {
  if (v === undefined || v === null || v === "") return [];
  if (Array.isArray(v)) return v.flatMap((x) => stringList(x, split));
  if (typeof v !== "string") return typeof v === "number" || typeof v === "boolean" ? [String(v)] : [];
  if (!split) return v.trim() ? [v] : [];
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of v) {
    if (ch === "{") depth++;
    else if (ch === "}") depth = Math.max(0, depth - 1);
    if (ch === "," && depth === 0) {
      if (cur.trim()) out.push(unquote(cur.trim()));
      cur = "";
    } else cur += ch;
  }
  if (cur.trim()) out.push(unquote(cur.trim()));
  return out;
}

function unquote(s: string): string {
  return /^(["']).*\1$/.test(s) ? s.slice(1, -1) : s;
}

/**
 * `allowed-tools` as Claude Code reads it: a YAML list (each item one rule), or one string of rules
 * separated by commas or — as the Agent Skills format writes them (`allowed-tools: Read Grep
 * Bash(git diff *)`) — by spaces; a space or comma inside a rule's parentheses belongs to the rule
 * (before, `Read Grep Bash(git diff *)` was one rule that matched nothing, and
 * `Bash(git log --format=%H,%s)` was cut in two at its comma).
 */
export function toolRules(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap((x) => (typeof x === "string" && x.trim() ? [x.trim()] : []));
  if (typeof v !== "string") return [];
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of v) {
    if (ch === "(") depth++;
    else if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && /[\s,]/.test(ch)) {
      if (cur) out.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Claude Code's description of a command or skill without a `description`: the first paragraph of
 * its Markdown body (a heading's `#` marks dropped, whitespace collapsed, cut at 250 characters).
 * Undefined for an empty body.
 */
export function firstParagraph(body: string): string | undefined {
  const lines = normalizeText(body).split("\n");
  let i = 0;
  while (i < lines.length && !lines[i]!.trim()) i++;
  const para: string[] = [];
  for (; i < lines.length && lines[i]!.trim(); i++) para.push(lines[i]!.trim().replace(/^#{1,6}\s+/, ""));
  const text = para.join(" ").replace(/\s+/g, " ").trim();
  if (!text) return undefined;
  return text.length > 250 ? `${text.slice(0, 249).trimEnd()}…` : text;
}

/**
 * A command's or skill's `description` as Claude Code reads it: a string (trimmed), or a number or
 * boolean YAML made of the text (`description: 42` is "42", `description: true` "true"); a list or
 * a mapping is none (then the first paragraph stands in, as for a file without one).
 */
export function descriptionText(v: unknown): string | undefined {
  if (typeof v === "string") return v.trim() || undefined;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}

/**
 * A boolean key (`disable-model-invocation`) as Claude Code reads it: YAML's true — `true`, `True`,
 * `TRUE` under YAML 1.2's core schema, which this reader and Claude Code's both use — or the string
 * "true" (`"true"`). `yes`, `on` and `1` are not (YAML 1.2 reads `yes` as a string).
 */
export function frontmatterTrue(v: unknown): boolean {
  return v === true || v === "true";
}
