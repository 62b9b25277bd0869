/**
 * Applies a parsed patch (./parse.ts) to files as they are now, with the edit engine's rule: never
 * guess. Each chunk is located by its old side (context and removed lines), compared line by line
 * with trailing whitespace ignored (line ends are the document's business, core/edit/text-doc.ts).
 * Of several places that match, the chunks' order (each after the previous one), the `@@` header's
 * scope (V4A) and then the nearest to the `@@ -L` line number (unified diffs) choose; if several
 * are still left, or none matches, the chunk is refused with the candidates or the closest region
 * and its line numbers. Context lines keep the file's own text. A patch applies all or nothing.
 */
import { closestRegion } from "../closest-region";
import { applySplices, decodeDoc, docFromString, docLines, docToString, encodeDoc, type TextDoc } from "../text-doc";
import type { FilePatch, PatchChunk } from "./types";

/** `rules`: the tolerance rules that placed a chunk (lost-indentation), for the parse check (syntax-check.ts). */
export type ChunksApplied = { ok: true; doc: TextDoc; notes: string[]; rules: string[] } | { ok: false; message: string };

const rtrim = (s: string) => s.replace(/\s+$/, "");

/** How far a chunk's one match may be from where line numbers all the other chunks agree on put it. */
const AGREED_SLACK = 1;

/** Lines that say nothing about where they are: blank, or only brackets and punctuation. */
const WEAK = /^[\s{}()[\];,.:]*$/;

function quote(s: string): string {
  const t = s.trim();
  return JSON.stringify(t.length > 60 ? t.slice(0, 57) + "..." : t);
}

function describeChunk(c: PatchChunk, k: number): string {
  const first = c.lines.find((l) => l.kind !== "add" && l.text.trim() !== "") ?? c.lines.find((l) => l.text.trim() !== "");
  return `chunk ${k + 1}${first ? ` (starting ${quote(first.text)})` : ""}`;
}

function indentOf(s: string): number {
  return s.length - s.trimStart().length;
}

/** Lines of the header's block: from the header line to the first later line indented no deeper (a closing `}` included). */
function scopeOf(lines: readonly string[], h: number): [number, number] {
  const ind = indentOf(lines[h]!);
  for (let j = h + 1; j < lines.length; j++) {
    const l = lines[j]!;
    if (l.trim() !== "" && indentOf(l) <= ind) return [h + 1, j + 1];
  }
  return [h + 1, lines.length];
}

/** Lines matching a `@@ header`: equal when trimmed, else starting with it, else containing it. */
function headerLines(lines: readonly string[], header: string, from: number): number[] {
  const h = header.trim();
  for (const test of [(l: string) => l === h, (l: string) => l.startsWith(h), (l: string) => l.includes(h)]) {
    const hits: number[] = [];
    for (let j = from; j < lines.length; j++) if (test(lines[j]!.trim())) hits.push(j);
    if (hits.length) return hits;
  }
  return [];
}

interface Placed {
  at: number;
  chunk: PatchChunk;
  /** Old-side line count. */
  len: number;
  /** Put before every non-blank added line (the lost-indentation rule). */
  prefix?: string;
}

const lead = (l: string) => l.slice(0, l.length - l.trimStart().length);

/**
 * Rule lost-indentation: the chunk's old lines match one place only when leading whitespace is
 * ignored. Its context lines keep the file's text anyway; the added lines are used as they are if
 * every one's indentation is one the matched lines (or the line above them) have and none is one
 * of the patch's own, or shifted by the patch's loss when it is the same on every line, the patch
 * kept some indentation and the added lines lost it too — and refused if both readings fit or
 * neither does (a flattened patch, every line flush left, says nothing about how deep its new
 * lines go).
 */
function lostIndentation(lines: readonly string[], old: readonly string[], adds: readonly string[], free: (p: number) => boolean): { at: number; prefix: string } | string | undefined {
  const m = old.length;
  const hits: number[] = [];
  for (let p = 0; p + m <= lines.length; p++) {
    let ok = true;
    for (let j = 0; j < m && ok; j++) ok = lines[p + j]!.trim() === old[j]!.trim();
    if (ok && free(p)) hits.push(p);
  }
  if (hits.length === 0) return undefined;
  if (hits.length > 1)
    return `its lines match ${hits.length} places only when indentation is ignored (lines ${hits.map((p) => `${p + 1}-${p + m}`).join(", ")}); copy them with the file's indentation`;
  const at = hits[0]!;
  const region = lines.slice(Math.max(0, at - 1), at + m).filter((l) => l.trim() !== "");
  const levels = new Set(region.map(lead));
  // The patch's loss, if it is the same on every line: file indentation = loss + patch indentation.
  let loss: string | undefined;
  for (let j = 0; j < m; j++) {
    if (old[j]!.trim() === "") continue;
    const f = lead(lines[at + j]!);
    const pl = lead(old[j]!);
    const d = f.endsWith(pl) ? f.slice(0, f.length - pl.length) : undefined;
    if (d === undefined || (loss !== undefined && d !== loss)) {
      loss = undefined;
      break;
    }
    loss = d;
  }
  const added = adds.filter((l) => l.trim() !== "");
  if (added.length === 0) return { at, prefix: "" };
  const patchLevels = new Set(old.filter((l) => l.trim() !== "").map(lead));
  const flattened = [...old, ...added].every((l) => l.trim() === "" || lead(l) === "");
  const asIs = !flattened && added.every((l) => levels.has(lead(l)) && !patchLevels.has(lead(l)));
  const shifted = !flattened && loss !== undefined && loss !== "" && added.every((l) => patchLevels.has(lead(l)) && levels.has(loss + lead(l)));
  if (asIs !== shifted) return { at, prefix: asIs ? "" : loss! };
  return `its lines match lines ${at + 1}-${at + m} only when indentation is ignored, and the indentation of its added lines cannot be told for sure; copy the lines with the file's indentation`;
}

/** The blocks the chunk's @@ headers open (nested headers narrow in turn); undefined when a header is not in the file. */
function headerScopes(lines: readonly string[], c: PatchChunk): Array<[number, number]> | undefined {
  let scopes: Array<[number, number]> = [[0, lines.length]];
  for (const h of c.headers) {
    const hits = headerLines(lines, h, 0).filter((x) => scopes.some(([a, b]) => x >= a - 1 && x < b));
    if (!hits.length) return undefined;
    scopes = hits.map((x) => scopeOf(lines, x));
  }
  return scopes;
}

/** Is the chunk's change (its first removed or added line), placed at `at`, inside one of the blocks? */
function changeInside(c: PatchChunk, at: number, scopes: ReadonlyArray<[number, number]>): boolean {
  const first = c.lines.findIndex((x) => x.kind !== "ctx");
  const change = at + (first < 0 ? 0 : first);
  return scopes.some(([a, b]) => change >= a && change < b);
}

function outsideHeader(c: PatchChunk, at: readonly number[]): string {
  return (
    `the @@ line ${quote(c.headers[c.headers.length - 1]!)} is in the file, but the chunk's lines match only outside its block (at line ${at.map((p) => p + 1).join(", ")}); ` +
    "the lines meant are probably inside it with different whitespace. Copy the context exactly from the file"
  );
}

/** Applies the chunks of one file's update to its document. */
export function applyChunks(doc: TextDoc, chunks: readonly PatchChunk[], path: string): ChunksApplied {
  const lines = docLines(doc.text);
  const n = lines.length;
  const notes: string[] = [];
  const rules: string[] = [];
  const placed: Placed[] = [];
  let cursor = 0;
  let loose = false;
  const matchesAt = (p: number, old: readonly string[]) => {
    for (let j = 0; j < old.length; j++) if (rtrim(lines[p + j]!) !== rtrim(old[j]!)) return false;
    return true;
  };
  // A unified diff's line numbers are often wrong. They never choose between places where the
  // same lines are (on the random round trip every such tie-break applied some patches at the wrong
  // place); they only confirm: the chunks that match one place only show how far off the numbers
  // are, and a chunk whose one match contradicts numbers all the others agree on is refused.
  const unique = new Map<number, number>();
  chunks.forEach((c, k) => {
    const old = c.lines.filter((l) => l.kind !== "add").map((l) => l.text);
    if (c.lineHint === undefined || old.length === 0) return;
    const at: number[] = [];
    for (let p = 0; p + old.length <= n && at.length < 2; p++) if (matchesAt(p, old)) at.push(p);
    if (at.length === 1) unique.set(k, at[0]! - (c.lineHint - 1));
  });
  /** The offset every other located chunk agrees on, if there is one. */
  const agreedOffset = (k: number): number | undefined => {
    const others = [...unique].filter(([j]) => j !== k).map(([, o]) => o);
    return others.length && others.every((o) => o === others[0]) ? others[0] : undefined;
  };
  const taken = (at: number, len: number) => placed.some((p) => at < p.at + p.len && p.at < at + len) || placed.some((p) => len === 0 && at > p.at && at < p.at + p.len);
  for (let k = 0; k < chunks.length; k++) {
    const c = chunks[k]!;
    const label = `${path}, ${describeChunk(c, k)}`;
    const old = c.lines.filter((l) => l.kind !== "add").map((l) => l.text);
    const m = old.length;
    let at: number;
    if (m === 0) {
      // Nothing to match: an insertion at the end of the file, after a header, or at the diff's line.
      if (c.headers.length && !c.eof) {
        const hits = headerLines(lines, c.headers[c.headers.length - 1]!, cursor);
        if (hits.length !== 1) {
          return fail(
            label,
            hits.length === 0
              ? `it only adds lines, after the line ${quote(c.headers[c.headers.length - 1]!)}, which is not in the file`
              : `it only adds lines, after the line ${quote(c.headers[c.headers.length - 1]!)}, which is in the file ${hits.length} times (lines ${hits.map((h) => h + 1).join(", ")})`,
          );
        }
        at = hits[0]! + 1;
      } else if (c.eof || n === 0) at = n;
      else {
        return fail(
          label,
          `it only adds lines and has no context lines, so nothing says where they go${c.lineHint !== undefined ? ` (a diff's line number alone is not trusted)` : ""}. ` +
            `Give the lines around the place as context (a space, then the line), an @@ line naming the block they go in, or "*** End of File" to add them at the end`,
        );
      }
    } else {
      const all: number[] = [];
      for (let p = 0; p + m <= n; p++) if (matchesAt(p, old) && !taken(p, m)) all.push(p);
      if (all.length === 0) {
        const li = lostIndentation(
          lines,
          old,
          c.lines.filter((l) => l.kind === "add").map((l) => l.text),
          (p) => !taken(p, m),
        );
        if (li === undefined) return fail(label, notFound(lines, old));
        if (typeof li === "string") return fail(label, li);
        if (old.every((l) => WEAK.test(l)))
          return fail(label, "its context and removed lines are only blank lines and brackets, which say too little about where it goes; give a few more lines of context");
        const scopes = c.headers.length ? headerScopes(lines, c) : undefined;
        if (scopes && !changeInside(c, li.at, scopes)) return fail(label, outsideHeader(c, [li.at]));
        placed.push({ at: li.at, chunk: c, len: m, prefix: li.prefix });
        rules.push("lost-indentation");
        notes.push(
          `${label} [rule lost-indentation]: its lines matched lines ${li.at + 1}-${li.at + m} only with indentation ignored (one place in the file); the file's lines were kept as context${li.prefix ? `, and the added lines were indented by ${JSON.stringify(li.prefix)} as the patch lost` : " and the added lines used as given (already in the file's indentation)"}.`,
        );
        cursor = li.at + m;
        continue;
      }
      if (old.every((l) => WEAK.test(l)) && !c.eof) {
        return fail(
          label,
          `its context and removed lines are only blank lines and brackets (${old.map((l) => JSON.stringify(l)).join(", ")}), which say too little about where it goes; give a few more lines of context`,
        );
      }
      let cands = all.filter((p) => p >= cursor);
      if (cands.length === 0) cands = all;
      const why: string[] = [];
      if (c.eof && cands.length > 1) {
        const end = cands.filter((p) => p + m === n || (p + m === n - 1 && lines[n - 1]!.trim() === ""));
        if (end.length) cands = end;
        why.push("it ends the file");
      }
      // The change must be inside the block the @@ header opens.
      const scopes = c.headers.length ? headerScopes(lines, c) : undefined;
      if (scopes) {
        const inScope = cands.filter((p) => changeInside(c, p, scopes));
        if (inScope.length === 0) return fail(label, outsideHeader(c, cands));
        if (inScope.length < cands.length) why.push(`it is in the block of ${quote(c.headers[c.headers.length - 1]!)}`);
        cands = inScope;
      }
      if (c.lineHint !== undefined && cands.length > 1) why.push(`the diff's line number ${c.lineHint} is not used to choose between identical lines`);
      const agreed = c.lineHint !== undefined && cands.length === 1 ? agreedOffset(k) : undefined;
      if (agreed !== undefined && Math.abs(cands[0]! - (c.lineHint! - 1 + agreed)) > AGREED_SLACK) {
        return fail(
          label,
          `its lines match only at lines ${cands[0]! + 1}-${cands[0]! + m}, but the diff says line ${c.lineHint}, and the other chunks' line numbers are ${agreed === 0 ? "right" : `all off by ${agreed}`}; ` +
            "the lines meant are probably somewhere else with different whitespace. Copy the context exactly from the file",
        );
      }
      if (cands.length > 1) {
        return fail(
          label,
          `its context and removed lines match ${cands.length} places${why.length ? ` (even knowing ${why.join(" and ")})` : ""}: lines ${cands.map((p) => `${p + 1}-${p + m}`).join(", ")}. ` +
            "Add context lines that differ between them, or an @@ line naming the function or class around the change",
        );
      }
      at = cands[0]!;
      // Old lines with no indentation at all may have lost it: an indented look-alike elsewhere makes the exact match doubtful.
      if (old.every((l) => l.trim() === "" || lead(l) === "")) {
        const alike: number[] = [];
        for (let p = 0; p + m <= n; p++) {
          if (all.includes(p) || taken(p, m)) continue;
          let ok = true;
          for (let j = 0; j < m && ok; j++) ok = lines[p + j]!.trim() === old[j]!.trim();
          if (ok) alike.push(p);
        }
        if (alike.length) {
          return fail(
            label,
            `its lines match lines ${at + 1}-${at + m} exactly, and also lines ${alike.map((p) => `${p + 1}-${p + m}`).join(", ")} when indentation is ignored; ` +
              "the patch's lines have no indentation at all, so which is meant is not clear. Copy the lines with the file's indentation",
          );
        }
      }
      if (c.eof && at + m < n && !(at + m === n - 1 && lines[n - 1]!.trim() === "")) {
        return fail(label, `it is marked "*** End of File", but its lines match at lines ${at + 1}-${at + m}, not at the end of the file (${n} lines)`);
      }
      for (let j = 0; j < m; j++) if (lines[at + j] !== old[j]) loose = true;
    }
    placed.push({ at, chunk: c, len: m });
    cursor = at + m;
  }
  if (loose) notes.push(`${path}: some lines of the patch differed from the file only in trailing whitespace; the file's own lines were kept for context.`);
  placed.sort((a, b) => a.at - b.at);
  const out: string[] = [];
  let pos = 0;
  let finalNl = doc.text === "" || doc.text.endsWith("\n");
  for (const p of placed) {
    out.push(...lines.slice(pos, p.at));
    let j = p.at;
    for (const l of p.chunk.lines) {
      if (l.kind === "ctx") out.push(lines[j++]!);
      else if (l.kind === "del") j++;
      else out.push(p.prefix && l.text.trim() !== "" ? p.prefix + l.text : l.text);
    }
    pos = p.at + p.len;
    if (pos >= n) {
      if (p.chunk.newNoEol) finalNl = false;
      else if (p.chunk.oldNoEol) finalNl = true;
    }
  }
  out.push(...lines.slice(pos));
  const text = out.length ? out.join("\n") + (finalNl ? "\n" : "") : "";
  return { ok: true, doc: applySplices(doc, [{ start: 0, end: doc.text.length, text }]), notes, rules };
}

function fail(label: string, why: string): ChunksApplied {
  return { ok: false, message: `${label}: ${why}.` };
}

function notFound(lines: readonly string[], old: readonly string[]): string {
  const close = closestRegion(lines, old);
  if (!close) return "its context and removed lines are not in the file (the file is empty)";
  const shown = lines.slice(close.start, close.start + close.count);
  let differs = "";
  for (let j = 0; j < shown.length; j++) {
    if (rtrim(shown[j]!) !== rtrim(old[j] ?? "")) {
      const a = shown[j]!;
      const b = old[j] ?? "";
      const what = a.trim() === b.trim() ? "indentation" : "text";
      differs = ` The first difference is at line ${close.start + j + 1} (${what}): the file has ${JSON.stringify(a)}, the patch ${JSON.stringify(b)}.`;
      break;
    }
  }
  const body = shown.map((l, j) => `${close.start + j + 1}| ${l}`).join("\n");
  return (
    `its context and removed lines are not in the file. The closest region is lines ${close.start + 1}-${close.start + close.count} ` +
    `(${Math.round(close.similarity * 100)}% similar):\n${body}\n${differs.trim()}\nCopy the lines exactly as the file has them (read_file shows them)`
  );
}

/** One file's planned change. `before`/`after` are texts without BOM; null: the file does not exist (before) / is deleted (after). */
export interface PlannedFile {
  op: "add" | "update" | "delete";
  path: string;
  /** Update with `*** Move to:` (or a unified diff's rename): the new path; the old one is deleted. */
  moveTo?: string;
  before: string | null;
  after: string | null;
  /** The bytes to write at `moveTo ?? path` (absent for a deletion). */
  bytes?: Uint8Array;
  beforeDoc?: TextDoc;
  afterDoc?: TextDoc;
  /** Tolerance rules that placed its chunks (an update): the change is parse-checked (syntax-check.ts). */
  rules?: string[];
}

export type PatchPlan = { ok: true; files: PlannedFile[]; notes: string[] } | { ok: false; failures: Array<{ path: string; message: string }>; message: string };

/** Reads a file for the plan: its bytes, or undefined when it does not exist (may throw with a model-facing message). */
export type PatchReader = (path: string) => Promise<Uint8Array | undefined>;

/**
 * The whole patch planned against the files as they are: every file's new content, or every
 * failure (nothing is written by this function; the caller writes all files or none).
 */
export async function planPatch(files: readonly FilePatch[], read: PatchReader, sameFile: (a: string, b: string) => boolean = (a, b) => a === b): Promise<PatchPlan> {
  const failures: Array<{ path: string; message: string }> = [];
  const out: PlannedFile[] = [];
  const notes: string[] = [];
  const merged = mergeUpdates(files, sameFile);
  if (typeof merged === "string") return refuse([{ path: "", message: merged }]);
  for (const f of merged) {
    try {
      const bytes = await read(f.path);
      if (f.op === "add") {
        if (bytes !== undefined) {
          failures.push({ path: f.path, message: `${f.path} already exists; to change it use "*** Update File: ${f.path}" with chunks of its lines (or delete it first).` });
          continue;
        }
        const nl = f.crlf ? "\r\n" : "\n";
        const raw = f.lines.length ? f.lines.join(nl) + (f.noEol ? "" : nl) : "";
        const afterDoc = docFromString(raw);
        out.push({ op: "add", path: f.path, before: null, after: docToString(afterDoc), bytes: encodeDoc(afterDoc), afterDoc });
        continue;
      }
      if (bytes === undefined) {
        failures.push({
          path: f.path,
          message: `${f.path} does not exist, so it cannot be ${f.op === "delete" ? "deleted" : "updated"}${f.op === "update" ? ' (to create it use "*** Add File:")' : ""}.`,
        });
        continue;
      }
      const d = decodeDoc(bytes);
      if (f.op === "delete") {
        out.push({ op: "delete", path: f.path, before: d.ok ? docToString(d.doc) : null, after: null, ...(d.ok ? { beforeDoc: d.doc } : {}) });
        continue;
      }
      if (!d.ok) {
        failures.push({ path: f.path, message: `Cannot edit ${f.path}: ${d.message}.` });
        continue;
      }
      if (f.moveTo !== undefined && !sameFile(f.moveTo, f.path) && (await read(f.moveTo)) !== undefined) {
        failures.push({ path: f.path, message: `${f.path} cannot be moved to ${f.moveTo}: that file already exists.` });
        continue;
      }
      const r = f.chunks.length ? applyChunks(d.doc, f.chunks, f.path) : { ok: true as const, doc: d.doc, notes: [], rules: [] };
      if (!r.ok) {
        failures.push({ path: f.path, message: r.message });
        continue;
      }
      notes.push(...r.notes);
      const moved = f.moveTo !== undefined && !sameFile(f.moveTo, f.path);
      if (!moved && r.doc.text === d.doc.text) {
        failures.push({ path: f.path, message: `${f.path}: the chunks change nothing (their new lines equal the old ones).` });
        continue;
      }
      out.push({
        op: "update",
        path: f.path,
        ...(moved ? { moveTo: f.moveTo } : {}),
        before: docToString(d.doc),
        after: docToString(r.doc),
        bytes: encodeDoc(r.doc),
        beforeDoc: d.doc,
        afterDoc: r.doc,
        ...(r.rules.length ? { rules: r.rules } : {}),
      });
    } catch (e) {
      failures.push({ path: f.path, message: e instanceof Error ? e.message : String(e) });
    }
  }
  if (failures.length) return refuse(failures, merged.length);
  return { ok: true, files: out, notes };
}

/** Several sections of one file: consecutive updates join; any other repetition is refused. */
function mergeUpdates(files: readonly FilePatch[], sameFile: (a: string, b: string) => boolean): FilePatch[] | string {
  const out: FilePatch[] = [];
  for (const f of files) {
    const prev = out.find((o) => sameFile(o.path, f.path) || (o.op === "update" && o.moveTo !== undefined && sameFile(o.moveTo, f.path)));
    if (prev && prev.op === "update" && f.op === "update" && prev.moveTo === undefined && f.moveTo === undefined && sameFile(prev.path, f.path)) {
      prev.chunks = [...prev.chunks, ...f.chunks];
      continue;
    }
    if (prev) return `The patch touches ${f.path} twice (${prev.op} and ${f.op}); give each file one section.`;
    out.push(f.op === "update" ? { ...f, chunks: [...f.chunks] } : f);
  }
  return out;
}

function refuse(failures: Array<{ path: string; message: string }>, total = 1): PatchPlan {
  const head = `Nothing was written: ${failures.length === 1 && total === 1 ? "the patch" : `${failures.length} of the patch's ${total} file section${total === 1 ? "" : "s"}`} could not be applied, and a patch applies all or nothing.`;
  return { ok: false, failures, message: `${head}\n\n${failures.map((f) => f.message).join("\n\n")}` };
}
