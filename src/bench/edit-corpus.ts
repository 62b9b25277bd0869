/**
 * The edit corpus (test/fixtures/edit-corpus/*.cases): loading the cases and running one through
 * the edit engine. Used by the edit benchmark and by test/unit/edit/corpus.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { applyEditsToBytes } from "../core/edit/apply-edits";
import { parseEditBlocks } from "../core/edit/block-parser";
import { parseEditText } from "../core/edit/edit-input";
import { lineTag } from "../core/edit/hashline";
import { placedByTolerance, syntaxRefusal, type SyntaxChecker } from "../core/edit/syntax-check";
import type { EditInput } from "../core/edit/types";

export interface CorpusCase {
  name: string;
  category: string;
  source: string;
  /** The path of the file being edited (`@@@ path P`; default: the path the first SEARCH block names, else "file"). */
  path: string;
  /** The file on disk (with the options applied), "" for an empty file. */
  file: string;
  /** What the model read (anchors are computed from it). */
  read: string;
  editKind: "blocks" | "json";
  editText: string;
  /** The reply the edit came from was cut off by a token limit (option `truncated`). */
  truncated: boolean;
  expect: { content: string } | { refused: string };
}

export type CaseStatus = "applied-correctly" | "refused-correctly" | "wrong-apply" | "wrong-refusal" | "refused-with-other-reason";

export interface CaseResult {
  status: CaseStatus;
  /** The engine's message (refusal) or result (applied). */
  detail: string;
}

/** Finds the corpus folder from the repository root or from dist/. */
export function corpusDir(): string {
  const candidates = [resolve("test/fixtures/edit-corpus"), resolve(__dirname, "../test/fixtures/edit-corpus"), resolve(__dirname, "../../test/fixtures/edit-corpus")];
  const found = candidates.find((d) => existsSync(d));
  if (!found) throw new Error(`edit corpus not found (looked in ${candidates.join(", ")}); run from the repository root`);
  return found;
}

function applyOptions(text: string, options: string[]): string {
  let t = text;
  if (options.includes("no-eol") && t.endsWith("\n")) t = t.slice(0, -1);
  if (options.includes("crlf")) t = t.replace(/\n/g, "\r\n");
  if (options.includes("bom")) t = "\uFEFF" + t;
  return t;
}

/** The filename line before the first SEARCH block, if there is one. */
function namedPath(text: string): string | undefined {
  const r = parseEditBlocks(text);
  return r.ok ? r.blocks.find((b) => b.path)?.path : undefined;
}

/** Parses one `.cases` file. */
export function parseCases(text: string, source: string): CorpusCase[] {
  const out: CorpusCase[] = [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  type Raw = { name: string; sections: Map<string, { arg: string; body: string[] }> };
  const raws: Raw[] = [];
  let cur: { arg: string; body: string[] } | undefined;
  for (const line of lines) {
    const m = /^@@@ (\w[\w-]*)(?: (.*))?$/.exec(line);
    if (!m) {
      if (!cur) throw new Error(`${source}: text before the first @@@ section: ${JSON.stringify(line)}`);
      cur.body.push(line);
      continue;
    }
    const [, section, arg = ""] = m;
    if (section === "case") {
      raws.push({ name: arg.trim(), sections: new Map() });
      cur = undefined;
      continue;
    }
    const raw = raws[raws.length - 1];
    if (!raw) throw new Error(`${source}: section ${section} before any @@@ case`);
    cur = { arg: arg.trim(), body: [] };
    raw.sections.set(section!, cur);
  }
  for (const raw of raws) {
    const get = (s: string) => raw.sections.get(s);
    const body = (s: string) => {
      const sec = get(s);
      return sec && sec.body.length ? sec.body.join("\n") + "\n" : "";
    };
    const options = (get("options")?.arg ?? "").split(/\s+/).filter(Boolean);
    const edit = get("edit");
    if (!get("file") || !edit) throw new Error(`${source}: case ${raw.name} needs @@@ file and @@@ edit`);
    const file = applyOptions(body("file"), options);
    const read = get("read") ? applyOptions(body("read"), options) : file;
    const refused = get("refused");
    const expectText = applyOptions(body("expect"), options);
    const expect = refused ? { refused: refused.arg } : { content: options.includes("expect-no-eol") && expectText.endsWith("\n") ? expectText.slice(0, -1) : expectText };
    if (!refused && !get("expect")) throw new Error(`${source}: case ${raw.name} needs @@@ expect or @@@ refused`);
    out.push({
      name: raw.name,
      category: get("category")?.arg ?? "other",
      source,
      file,
      read,
      path: get("path")?.arg || (edit.arg === "json" ? undefined : namedPath(body("edit"))) || "file",
      editKind: edit.arg === "json" ? "json" : "blocks",
      editText: body("edit"),
      truncated: options.includes("truncated"),
      expect,
    });
  }
  return out;
}

export function loadCorpus(dir = corpusDir()): CorpusCase[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".cases"))
    .sort()
    .flatMap((f) => parseCases(readFileSync(join(dir, f), "utf8"), f));
}

/** The text `yoke edit apply` reads on stdin for this case: `{{N}}` replaced by the anchor of line N of the text the model read. */
export function caseInput(c: CorpusCase): string {
  if (c.editKind === "blocks") return c.editText;
  const readLines = c.read
    .replace(/^\uFEFF/, "")
    .replace(/\r\n/g, "\n")
    .split("\n");
  return c.editText.replace(/\{\{(\d+)\}\}/g, (_m, n: string) => lineTag(Number(n), readLines[Number(n) - 1] ?? ""));
}

const encoder = new TextEncoder();

/**
 * Runs a case through the engine as `yoke edit apply FILE --dry-run` does (call `await hashlineReady()`
 * first), with the parse check of tolerant edits when a checker is given (as the tools and the CLI have).
 */
export async function runCase(c: CorpusCase, syntax?: SyntaxChecker): Promise<CaseResult> {
  const parsed = parseEditText(caseInput(c), { file: c.path, truncated: c.truncated });
  if (!parsed.ok) {
    const message = parsed.message;
    if ("content" in c.expect) return { status: "wrong-refusal", detail: message };
    return message.includes(c.expect.refused) ? { status: "refused-correctly", detail: message } : { status: "refused-with-other-reason", detail: message };
  }
  const edits: EditInput[] = parsed.edits;
  const applied = applyEditsToBytes(encoder.encode(c.file), edits, c.path);
  const broken = applied.ok ? await syntaxRefusal(syntax, c.path, applied.before, applied.after, placedByTolerance(applied.applied)) : undefined;
  const r = broken ? { ok: false as const, message: broken } : applied;
  if ("content" in c.expect) {
    if (!r.ok) return { status: "wrong-refusal", detail: r.message };
    return r.after === c.expect.content ? { status: "applied-correctly", detail: r.after } : { status: "wrong-apply", detail: r.after };
  }
  if (r.ok) return { status: "wrong-apply", detail: r.after };
  return r.message.includes(c.expect.refused) ? { status: "refused-correctly", detail: r.message } : { status: "refused-with-other-reason", detail: r.message };
}
