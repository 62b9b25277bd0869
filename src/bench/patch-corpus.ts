/**
 * The patch corpus (test/fixtures/edit-corpus/*.patch-cases): V4A apply_patch and unified diff
 * cases over one or several files, run through core/edit/patch on in-memory files. Used by the
 * patch benchmark (src/bench/patch.ts) and test/unit/edit/patch-corpus.test.ts. Format: README.md.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { planPatch } from "../core/edit/patch/apply";
import { syntaxRefusal, type SyntaxChecker } from "../core/edit/syntax-check";
import { detectDialect, parsePatch } from "../core/edit/patch/parse";
import type { PatchDialect } from "../core/edit/patch/types";
import { corpusDir, type CaseStatus } from "./edit-corpus";

export interface PatchCase {
  name: string;
  category: string;
  source: string;
  dialect: PatchDialect;
  files: Record<string, string>;
  patch: string;
  expect: { files: Record<string, string>; gone: string[] } | { refused: string };
}

function withOptions(text: string, options: string[]): string {
  let t = text;
  if (options.includes("no-eol") && t.endsWith("\n")) t = t.slice(0, -1);
  if (options.includes("crlf")) t = t.replace(/\n/g, "\r\n");
  return t;
}

export function parsePatchCases(text: string, source: string): PatchCase[] {
  const out: PatchCase[] = [];
  let cur:
    | { name: string; category: string; dialect?: string; options: string[]; files: Record<string, string>; patch?: string; expects: Record<string, string>; gone: string[]; refused?: string }
    | undefined;
  let section: { kind: string; arg: string; lines: string[] } | undefined;
  const closeSection = () => {
    if (!cur || !section) return;
    const body = section.lines.length ? section.lines.join("\n") + "\n" : "";
    if (section.kind === "file") cur.files[section.arg] = withOptions(body, cur.options);
    else if (section.kind === "expect") cur.expects[section.arg] = withOptions(body, cur.options);
    else if (section.kind === "patch") cur.patch = cur.options.includes("crlf-patch") ? body.replace(/\n/g, "\r\n") : body;
    section = undefined;
  };
  const closeCase = () => {
    closeSection();
    if (!cur) return;
    if (cur.patch === undefined) throw new Error(`${source}: case ${cur.name} has no @@@ patch`);
    const dialect = (cur.dialect ?? detectDialect(cur.patch)) as PatchDialect | undefined;
    if (!dialect) throw new Error(`${source}: case ${cur.name}: the patch's dialect is not recognised`);
    out.push({
      name: cur.name,
      category: cur.category,
      source,
      dialect,
      files: cur.files,
      patch: cur.patch,
      expect: cur.refused !== undefined ? { refused: cur.refused } : { files: cur.expects, gone: cur.gone },
    });
    cur = undefined;
  };
  for (const line of text.split("\n")) {
    const m = /^@@@ (\w[\w-]*)(?: (.*))?$/.exec(line);
    if (!m) {
      section?.lines.push(line);
      continue;
    }
    const [, kind, arg = ""] = m;
    if (kind === "case") {
      closeCase();
      cur = { name: arg, category: "other", options: [], files: {}, expects: {}, gone: [] };
      continue;
    }
    if (!cur) throw new Error(`${source}: @@@ ${kind} before @@@ case`);
    closeSection();
    if (kind === "category") cur.category = arg.trim();
    else if (kind === "dialect") cur.dialect = arg.trim();
    else if (kind === "options") cur.options = arg.split(/\s+/).filter(Boolean);
    else if (kind === "gone") cur.gone.push(arg.trim());
    else if (kind === "refused") cur.refused = arg.trim();
    else if (kind === "file" || kind === "expect" || kind === "patch") section = { kind, arg: arg.trim(), lines: [] };
    else throw new Error(`${source}: unknown section @@@ ${kind}`);
  }
  closeCase();
  return out;
}

export function loadPatchCorpus(dir = corpusDir()): PatchCase[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".patch-cases"))
    .sort()
    .flatMap((f) => parsePatchCases(readFileSync(join(dir, f), "utf8"), f));
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Runs one case: the patch applied to its files (with the parse check of tolerant chunks when a checker is given, as apply_patch has it), compared with what the case expects. */
export async function runPatchCase(c: PatchCase, syntax?: SyntaxChecker): Promise<{ status: CaseStatus; detail: string }> {
  const parsed = parsePatch(c.patch);
  const plan = parsed.ok ? await planPatch(parsed.files, async (p) => (c.files[p] === undefined ? undefined : enc.encode(c.files[p]))) : undefined;
  let broken: string | undefined;
  if (plan?.ok) {
    for (const f of plan.files) {
      if (f.op === "update" && f.before !== null && f.after !== null) broken ??= await syntaxRefusal(syntax, f.moveTo ?? f.path, f.before, f.after, f.rules ?? []);
    }
  }
  const refusal = !parsed.ok ? parsed.message : plan && !plan.ok ? plan.message : broken;
  if ("refused" in c.expect) {
    if (refusal === undefined) return { status: "wrong-apply", detail: "applied, but the case expects a refusal" };
    return refusal.includes(c.expect.refused) ? { status: "refused-correctly", detail: refusal } : { status: "refused-with-other-reason", detail: refusal };
  }
  if (refusal !== undefined || !plan?.ok) return { status: "wrong-refusal", detail: refusal ?? "" };
  // The files as the patch leaves them.
  const after: Record<string, string | null> = {};
  for (const f of plan.files) {
    if (f.op === "delete") after[f.path] = null;
    else {
      if (f.moveTo !== undefined) after[f.path] = null;
      after[f.moveTo ?? f.path] = dec.decode(f.bytes!);
    }
  }
  const problems: string[] = [];
  for (const [p, want] of Object.entries(c.expect.files)) if (after[p] !== want) problems.push(`${p}: got ${JSON.stringify(after[p] ?? "(absent)")}, want ${JSON.stringify(want)}`);
  for (const p of c.expect.gone) if (after[p] !== null) problems.push(`${p}: not deleted`);
  for (const p of Object.keys(after)) if (!(p in c.expect.files) && !c.expect.gone.includes(p)) problems.push(`${p}: changed, but the case does not expect it`);
  return problems.length ? { status: "wrong-apply", detail: problems.join("; ") } : { status: "applied-correctly", detail: "" };
}
