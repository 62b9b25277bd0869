/**
 * `yoke edit view FILE [--offset N] [--limit M] [--json]` — the hashline view of a file.
 * `yoke edit apply FILE [--format auto|search_replace|hashline] [--dry-run] [--json] < EDIT` —
 * applies SEARCH/REPLACE text blocks or JSON edits (an array, or {"edits": [...]}) read from stdin.
 */
import { basename, dirname, resolve } from "node:path";
import { applyEditsToBytes } from "../../core/edit/apply-edits";
import { looksLikeBlocks, parseEditBlocks } from "../../core/edit/block-parser";
import { formatHashlineView, hashlineReady, lineHash } from "../../core/edit/hashline";
import { summarizeEdit } from "../../core/edit/summary";
import { decodeDoc, docFromString, docLines } from "../../core/edit/text-doc";
import { isHashlineOp, isSearchReplaceEdit, type EditInput } from "../../core/edit/types";
import { createNodeWorkspaceFs } from "../../node/node-fs";
import { parse, printJson, UsageError } from "../args";

const FORMATS = ["auto", "search_replace", "hashline"] as const;
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
  process.stderr.write(`yoke edit: ${message}\n`);
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

/** Turns the stdin text into edits, or throws Refused with a message saying what is wrong. */
export function parseEditInput(input: string, format: Format, file: string): EditInput[] {
  const trimmed = input.trim();
  let value: unknown;
  let isJson = false;
  let jsonError = "";
  if (/^[[{]/.test(trimmed)) {
    try {
      value = JSON.parse(trimmed);
      isJson = true;
    } catch (e) {
      jsonError = e instanceof Error ? e.message : String(e);
    }
  }
  if (!isJson && format === "hashline") {
    throw new Refused(`--format hashline expects JSON (an array of ops or {"edits": [...]})${jsonError ? `, but the input is not valid JSON (${jsonError})` : ""}`);
  }
  if (!isJson) {
    if (jsonError && !looksLikeBlocks(input)) throw new Refused(`the edit is not valid JSON (${jsonError})`);
    const r = parseEditBlocks(input);
    if (!r.ok) throw new Refused(r.message);
    r.blocks.forEach((b, i) => {
      if (b.path && !samePath(b.path, file)) {
        throw new Refused(`block ${i + 1} is for "${b.path}", but the file being edited is ${file}; apply one file's blocks at a time`);
      }
    });
    return r.blocks;
  }
  const list = Array.isArray(value) ? value : (value as { edits?: unknown })?.edits;
  if (!Array.isArray(list) || list.length === 0) throw new Refused(`expected a JSON array of edits or {"edits": [...]} with at least one edit`);
  return list.map((e, i) => {
    const item = e as EditInput;
    const ok = e !== null && typeof e === "object" && (isHashlineOp(item) || (isSearchReplaceEdit(item) && typeof (e as { new_string?: unknown }).new_string === "string"));
    if (!ok) throw new Refused(`edit ${i + 1} is neither a hashline op ({"op": ...}) nor a search/replace pair ({"old_string": ..., "new_string": ...})`);
    if (format === "hashline" && !isHashlineOp(item)) throw new Refused(`edit ${i + 1} is not a hashline op, but --format hashline was given`);
    if (format === "search_replace" && isHashlineOp(item)) throw new Refused(`edit ${i + 1} is a hashline op, but --format search_replace was given`);
    return item;
  });
}

function samePath(given: string, file: string): boolean {
  const g = given.replace(/\\/g, "/").replace(/^\.\//, "");
  const f = file.replace(/\\/g, "/");
  return f === g || f.endsWith("/" + g) || basename(f) === g;
}

async function apply(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    format: { type: "string", default: "auto" },
    "dry-run": { type: "boolean" },
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
    const edits = parseEditInput(input, format, abs);
    const bytes = await readBytes(abs);
    const r = applyEditsToBytes(bytes, edits, abs);
    if (!r.ok) return fail(r.message, values.json, { failures: r.failures });
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
    if (dry && !values.json) for (const n of r.notes) process.stderr.write(`note: ${n}\n`);
    return 0;
  } catch (e) {
    if (e instanceof Refused) return fail(e.message, values.json);
    throw e;
  }
}
