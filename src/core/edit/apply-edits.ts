/**
 * The edit engine's entry point: a list of edits (hashline ops, JSON search/replace pairs, text
 * blocks) applied to one file, all or nothing. Hashline ops are validated together against the
 * file as read and applied as one batch; search/replace edits then apply in order.
 */
import { keepFinalNewline, planHashlineOps } from "./hashline-ops";
import { applySearchReplace, type ChangedRegion } from "./search-replace";
import { applySplices, decodeDoc, docFromString, docToString, encodeDoc, type TextDoc } from "./text-doc";
import { isBlock, isHashlineOp, type AppliedEdit, type EditFailure, type EditInput, type HashlineOp } from "./types";

export interface EditsApplied {
  ok: true;
  before: TextDoc;
  after: TextDoc;
  applied: AppliedEdit[];
  /** Remarks for the model: edits that changed nothing, relaxed matches. */
  notes: string[];
}

export interface EditsRefused {
  ok: false;
  failures: EditFailure[];
  /** The whole model-facing explanation (every failure, and that nothing was written). */
  message: string;
}

function firstLine(s: string | string[]): string {
  const lines = Array.isArray(s) ? s : s.split("\n");
  const l = lines.find((x) => x.trim() !== "") ?? "";
  const t = l.trim();
  return JSON.stringify(t.length > 60 ? t.slice(0, 57) + "..." : t);
}

function describe(e: EditInput): string {
  if (isBlock(e)) return e.search.some((l) => l.trim() !== "") ? `SEARCH block starting ${firstLine(e.search)}` : "empty SEARCH block";
  if (isHashlineOp(e)) return "hashline op";
  return e.old_string.trim() !== "" ? `old_string starting ${firstLine(e.old_string)}` : "empty old_string";
}

function plural(n: number, w: string): string {
  return `${n} ${w}${n === 1 ? "" : "s"}`;
}

function isCreate(e: EditInput): boolean {
  if (isHashlineOp(e)) return (e.op === "append" || e.op === "prepend") && (e.pos === undefined || e.pos === null || e.pos === "");
  return (isBlock(e) ? e.search.join("\n") : e.old_string).trim() === "";
}

/**
 * Applies `edits` to `before` (undefined: the file does not exist yet). Nothing is returned for
 * writing unless every edit applied and the file changed.
 */
export function applyEdits(before: TextDoc | undefined, edits: readonly EditInput[], path: string): EditsApplied | EditsRefused {
  if (edits.length === 0) return refuse(path, [{ index: 0, message: "No edits were given." }], 0);
  if (before === undefined && !edits.every(isCreate)) {
    return refuse(
      path,
      [
        {
          index: 0,
          message:
            `${path} does not exist. To create it, use write_file, or one search/replace edit with an empty SEARCH ` +
            `(old_string "") whose REPLACE is the whole content. Check the path with list_files or glob if you expected it to exist.`,
        },
      ],
      edits.length,
    );
  }
  const original = before ?? docFromString("");
  const failures: EditFailure[] = [];
  const applied: AppliedEdit[] = [];
  const notes: string[] = [];

  const ops: Array<{ index: number; op: HashlineOp }> = [];
  edits.forEach((e, i) => {
    if (isHashlineOp(e)) ops.push({ index: i + 1, op: e });
  });
  let doc = original;
  if (ops.length) {
    const plan = planHashlineOps(original, ops);
    failures.push(...plan.failures);
    if (plan.failures.length === 0) {
      doc = keepFinalNewline(original, applySplices(original, plan.splices));
      for (const p of plan.planned) {
        applied.push({ index: p.index, kind: "hashline", places: p.noop ? 0 : 1, noop: p.noop, rules: p.rules.map((r) => r.rule) });
        for (const r of p.rules) notes.push(`${p.label} [rule ${r.rule}]: ${r.what}.`);
        if (p.noop) notes.push(`${p.label} changes nothing: the new lines are identical to the current ones.`);
        if (p.echo) notes.push(`${p.label}: ${p.echo}, so that line is now there twice; if that was not meant, delete the copy using the fresh anchors.`);
      }
      for (const d of plan.duplicates) notes.push(`Edit ${d.index} [rule duplicate-op]: it repeats edit ${d.of} exactly (anchors compared as line and hash), so it was applied once.`);
    }
  }

  // Line hints refer to the file as read: moved past the lines earlier edits of this call added or removed above them.
  const changes: ChangedRegion[] = [];
  const shiftHint = (hint: number) => {
    let h = hint;
    for (const c of changes) if (h > c.start + c.removed) h += c.added - c.removed;
    return h;
  };
  const current = (hint: number | undefined) => (hint === undefined ? undefined : shiftHint(hint));
  edits.forEach((e, i) => {
    if (isHashlineOp(e)) return;
    const index = i + 1;
    const label = `Edit ${index} (${describe(e)})`;
    const req = isBlock(e)
      ? {
          search: e.search.join("\n"),
          replace: e.replace.join("\n"),
          searchLines: e.search,
          replaceLines: e.replace,
          lineMode: true,
          replaceAll: false,
          path,
          startLine: current(e.startLine),
          shiftHint,
        }
      : {
          search: e.old_string,
          replace: e.new_string,
          lineMode: false,
          replaceAll: e.replace_all === true,
          path,
          shiftHint,
          ...(e.expected_replacements ? { expected: e.expected_replacements } : {}),
        };
    const r = applySearchReplace(doc, req);
    if (!r.ok) {
      failures.push({ index, message: `${label}: ${r.message}` });
      return;
    }
    doc = r.doc;
    if (r.region && !r.noop) changes.push(r.region);
    const rules = [...(isBlock(e) && e.unclosed ? ["unclosed-final-block"] : []), ...(r.rules ?? [])];
    applied.push({ index, kind: "search_replace", rung: r.rung, places: r.places, noop: r.noop, ...(rules.length ? { rules } : {}) });
    if (isBlock(e) && e.unclosed) {
      notes.push(`${label} [rule unclosed-final-block]: the block had no ">>>>>>> REPLACE" line; the reply ended normally, so its REPLACE text was taken to run to the end of the reply.`);
    }
    if (r.noop) notes.push(`${label} changes nothing${r.note ? `: ${r.note}` : ": the replacement is identical to the current text"}.`);
    else if (r.note) notes.push(`${label}: ${r.note}.`);
    if (r.places > 1) notes.push(`${label}: replaced ${r.places} occurrences.`);
  });

  if (failures.length) return refuse(path, failures, edits.length);
  const unchanged = before !== undefined && doc.text === original.text && sameEndings(doc, original);
  if (unchanged) {
    return refuse(path, [{ index: 0, message: `No change: ${notes.join(" ") || "the edits leave the file exactly as it is."} Nothing was written.` }], edits.length);
  }
  return { ok: true, before: original, after: doc, applied, notes };
}

function sameEndings(a: TextDoc, b: TextDoc): boolean {
  return a.crlf.length === b.crlf.length && a.crlf.every((c, i) => c === b.crlf[i]);
}

function refuse(path: string, failures: EditFailure[], total: number): EditsRefused {
  const real = failures.filter((f) => f.index > 0);
  const head =
    real.length === 0
      ? `Nothing was written to ${path}.`
      : `Nothing was written to ${path}: ${real.length === 1 && total === 1 ? "the edit" : `${plural(new Set(real.map((f) => f.index)).size, "edit")} of ${total}`} ` +
        `failed${total > 1 ? ", and edits are all-or-nothing" : ""}.`;
  const body = failures.map((f) => f.message).join("\n\n");
  return { ok: false, failures, message: real.length === 0 ? body : `${head}\n\n${body}` };
}

export type BytesOutcome =
  { ok: true; before: string; after: string; bytes: Uint8Array; applied: AppliedEdit[]; notes: string[]; afterDoc: TextDoc } | { ok: false; message: string; failures: EditFailure[] };

/** The same on raw file bytes (undefined: no such file): decoding refusals included. */
export function applyEditsToBytes(bytes: Uint8Array | undefined, edits: readonly EditInput[], path: string): BytesOutcome {
  let before: TextDoc | undefined;
  if (bytes !== undefined) {
    const d = decodeDoc(bytes);
    if (!d.ok) {
      const message = `Cannot edit ${path}: ${d.message}. Nothing was written.`;
      return { ok: false, message, failures: [{ index: 0, message }] };
    }
    before = d.doc;
  }
  const r = applyEdits(before, edits, path);
  if (!r.ok) return r;
  return {
    ok: true,
    before: before ? docToString(before) : "",
    after: docToString(r.after),
    bytes: encodeDoc(r.after),
    applied: r.applied,
    notes: r.notes,
    afterDoc: r.after,
  };
}
