/**
 * `yoke edit view FILE [--offset N] [--limit M] [--json]` — the hashline view of a file.
 * `yoke edit apply FILE [--format auto|search_replace|hashline|apply_patch|unified_diff] [--dry-run] [--truncated] [--json] < EDIT` —
 * applies SEARCH/REPLACE text blocks or JSON edits (any shape of core/edit/edit-input.ts), or a
 * one-file patch (V4A apply_patch or unified diff, core/edit/patch) read from stdin. `--truncated`: the reply the edit was taken from was cut off by a token limit, so a last
 * block without its ">>>>>>> REPLACE" line is refused instead of read to the end.
 */
import { dirname, resolve } from "node:path";
import { applyEditsToBytes, type BytesOutcome } from "../../core/edit/apply-edits";
import { planPatch } from "../../core/edit/patch/apply";
import { createSyntaxChecker, placedByTolerance, syntaxRefusal } from "../../core/edit/syntax-check";
import { nodeGrammarWasm } from "../../node/tree-sitter-wasm";
import { detectDialect, parsePatch } from "../../core/edit/patch/parse";
import { looksLikeBlocks } from "../../core/edit/block-parser";
import { parseEditText } from "../../core/edit/edit-input";
import { formatHashlineView, hashlineReady, lineHash } from "../../core/edit/hashline";
import { summarizeEdit } from "../../core/edit/summary";
import { decodeDoc, docFromString, docLines } from "../../core/edit/text-doc";
import type { EditInput } from "../../core/edit/types";
import { createNodeWorkspaceFs } from "../../node/node-fs";
import { parse, printJson, UsageError } from "../args";
import { warn } from "../printable";

const FORMATS = ["auto", "search_replace", "hashline", "apply_patch", "unified_diff"] as const;
type Format = (typeof FORMATS)[number];

/** A refusal: message on stderr, exit status 1. */
class Refused extends Error {}

export async function editCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "view") return view(rest);
  if (sub === "apply") return apply(rest);
  throw new UsageError(`expected "view" or "apply", got ${sub === undefined ? "nothing" : JSON.stringify(sub)}`);
}

function onePath(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`${what} takes exactly one FILE (got ${positionals.length})`);
  return resolve(positionals[0]!);
}

function fail(message: string, json: boolean | undefined, extra: Record<string, unknown> = {}): number {
  warn(`yoke edit: ${message}\n`);
  if (json) printJson({ ok: false, error: message, ...extra });
  return 1;
}

function positiveInt(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`--${name} must be a positive integer, got ${JSON.stringify(v)}`);
  return Number(v);
}

async function readBytes(abs: string): Promise<Uint8Array | undefined> {
  const fs = createNodeWorkspaceFs(dirname(abs));
  const st = await fs.stat(abs);
  if (!st) return undefined;
  if (st.type === "directory") throw new Refused(`${abs} is a directory`);
  return fs.readFile(abs);
}

async function view(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { offset: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } });
  const abs = onePath(positionals, "edit view");
  const offset = positiveInt(values.offset, "offset") ?? 1;
  const limit = positiveInt(values.limit, "limit");
  await hashlineReady();
  try {
    const bytes = await readBytes(abs);
    if (!bytes) return fail(`${abs} does not exist`, values.json);
    const d = decodeDoc(bytes);
    if (!d.ok) return fail(`cannot show ${abs}: ${d.message}`, values.json);
    const lines = docLines(d.doc.text);
    const to = limit === undefined ? lines.length : Math.min(lines.length, offset + limit - 1);
    if (values.json) {
      const shown = [];
      for (let n = offset; n <= to; n++) shown.push({ line: n, hash: lineHash(n, lines[n - 1]!), text: lines[n - 1]! });
      printJson({ ok: true, path: abs, totalLines: lines.length, from: offset, to, lines: shown });
    } else {
      const text = formatHashlineView(lines, offset, to);
      process.stdout.write(text ? text + "\n" : "");
    }
    return 0;
  } catch (e) {
    if (e instanceof Refused) return fail(e.message, values.json);
    throw e;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Turns the stdin text into edits (any accepted shape), or throws Refused with a message saying what is wrong. */
export function parseEditInput(input: string, format: Format, file: string, truncated = false): EditInput[] {
  if (format === "apply_patch" || format === "unified_diff") throw new Refused(`this is not a patch in the ${format} format`);
  const r = parseEditText(input, { format, file, truncated });
  if (!r.ok) throw new Refused(r.message);
  return r.edits;
}

async function apply(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    format: { type: "string", default: "auto" },
    "dry-run": { type: "boolean" },
    truncated: { type: "boolean" },
    json: { type: "boolean" },
  });
  const abs = onePath(positionals, "edit apply");
  const format = values.format as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, got ${JSON.stringify(values.format)}`);
  if (process.stdin.isTTY) throw new UsageError("edit apply reads the edit from stdin (SEARCH/REPLACE blocks or JSON); pipe it in");
  const input = await readStdin();
  if (input.trim() === "") throw new UsageError("no edit on stdin");
  await hashlineReady();
  try {
    const dialect = format === "apply_patch" || format === "unified_diff" ? format : format === "auto" && !looksLikeBlocks(input) && !/^\s*[[{]/.test(input) ? detectDialect(input) : undefined;
    const bytes = await readBytes(abs);
    const r = dialect ? await applyPatchToFile(input, dialect, abs, bytes) : applyEditsToBytes(bytes, parseEditInput(input, format, abs, values.truncated === true), abs);
    if (!r.ok) return fail(r.message, values.json, { failures: r.failures });
    // The parse check of tolerant edits, as the tools make it (docs/edits.md).
    const broken = await syntaxRefusal(createSyntaxChecker(nodeGrammarWasm()), abs, r.before, r.after, placedByTolerance(r.applied));
    if (broken) return fail(broken, values.json, { failures: [{ index: 0, message: broken }] });
    const s = summarizeEdit(abs, docFromString(r.before), r.afterDoc);
    const dry = values["dry-run"] === true;
    if (!dry) await createNodeWorkspaceFs(dirname(abs)).writeFile(abs, r.bytes);
    if (values.json) {
      printJson({
        ok: true,
        path: abs,
        dryRun: dry,
        written: !dry,
        added: s.added,
        removed: s.removed,
        applied: r.applied,
        notes: r.notes,
        diff: s.fullDiff,
        ...(dry ? { content: r.after } : {}),
      });
    } else if (dry) {
      process.stdout.write(r.bytes);
    } else {
      process.stdout.write(`${bytes ? "Edited" : "Created"} ${abs}: +${s.added} -${s.removed} lines\n${s.compactDiff}\n`);
      for (const n of r.notes) process.stdout.write(`note: ${n}\n`);
    }
    if (dry && !values.json) for (const n of r.notes) warn(`note: ${n}\n`);
    return 0;
  } catch (e) {
    if (e instanceof Refused) return fail(e.message, values.json);
    throw e;
  }
}

/** A patch of one file section (naming FILE or not), applied to FILE; several files, a deletion or a move are refused. */
async function applyPatchToFile(input: string, dialect: "apply_patch" | "unified_diff", abs: string, bytes: Uint8Array | undefined): Promise<BytesOutcome> {
  const p = parsePatch(input, dialect);
  if (!p.ok) throw new Refused(p.message);
  if (p.files.length !== 1)
    throw new Refused(`edit apply changes one file, and this patch has ${p.files.length} file sections (${p.files.map((f) => f.path).join(", ")}); give it only the section of ${abs}.`);
  const f = p.files[0]!;
  if (f.op === "delete") throw new Refused(`the patch deletes ${f.path}; edit apply only edits or creates ${abs}.`);
  if (f.op === "update" && f.moveTo !== undefined) throw new Refused(`the patch moves ${f.path} to ${f.moveTo}; edit apply only edits or creates ${abs}.`);
  const plan = await planPatch([{ ...f, path: abs }], async () => bytes);
  if (!plan.ok) return { ok: false, message: plan.message, failures: plan.failures.map((x, i) => ({ index: i + 1, message: x.message })) };
  const done = plan.files[0]!;
  const notes = [...p.notes.map((n) => `read as ${dialect}: ${n}`), ...plan.notes];
  // The rules that placed its chunks (lost-indentation) are what the parse check looks at.
  const applied = done.rules?.length ? [{ index: 1, kind: "search_replace" as const, places: 1, noop: false, rules: done.rules }] : [];
  return { ok: true, before: done.before ?? "", after: done.after!, bytes: done.bytes!, applied, notes, afterDoc: done.afterDoc! };
}
