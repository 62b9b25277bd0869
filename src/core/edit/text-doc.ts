/**
 * The file as the edit engine sees it: text with every line ending normalised to `\n`, plus
 * what is needed to write it back byte-for-byte where nothing changed (each line's own ending,
 * the UTF-8 byte order mark). Edits are splices on the normalised text.
 */
import { diffArrays } from "diff";

/** A decoded text file. */
export interface TextDoc {
  /** The content with `\r\n` replaced by `\n` and without a BOM. */
  text: string;
  /** One entry per `\n` in `text`: was it `\r\n` in the file? */
  crlf: boolean[];
  bom: boolean;
}

/** One replacement of `text.slice(start, end)`; splices of one batch must not overlap. */
export interface Splice {
  start: number;
  end: number;
  text: string;
  /** Order among insertions at the same offset (lower first; then the given order). */
  bias?: number;
}

export type DecodeResult = { ok: true; doc: TextDoc } | { ok: false; reason: "binary" | "encoding"; message: string };

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** Decodes file bytes; refuses binary content (a NUL byte in the first 8 KB) and invalid UTF-8. */
export function decodeDoc(bytes: Uint8Array): DecodeResult {
  if (bytes.subarray(0, 8192).includes(0)) {
    return { ok: false, reason: "binary", message: "it looks like a binary file (it contains NUL bytes); only text files can be edited" };
  }
  let raw: string;
  try {
    raw = strictUtf8.decode(bytes);
  } catch {
    return {
      ok: false,
      reason: "encoding",
      message: "it is not valid UTF-8 text (another encoding?); only UTF-8 files can be edited, so convert it first or use run_command",
    };
  }
  return { ok: true, doc: docFromString(raw) };
}

/** Builds a document from a JS string (a leading U+FEFF is taken as the BOM). */
export function docFromString(raw: string): TextDoc {
  const bom = raw.charCodeAt(0) === 0xfeff;
  const body = bom ? raw.slice(1) : raw;
  const crlf: boolean[] = [];
  let text = "";
  let from = 0;
  for (let i = body.indexOf("\n"); i >= 0; i = body.indexOf("\n", i + 1)) {
    const cr = i > 0 && body.charCodeAt(i - 1) === 13;
    crlf.push(cr);
    text += body.slice(from, cr ? i - 1 : i) + "\n";
    from = i + 1;
  }
  text += body.slice(from);
  return { text, crlf, bom };
}

export function docToString(doc: TextDoc): string {
  let out = doc.bom ? "\uFEFF" : "";
  let from = 0;
  let k = 0;
  for (let i = doc.text.indexOf("\n"); i >= 0; i = doc.text.indexOf("\n", i + 1)) {
    out += doc.text.slice(from, i) + (doc.crlf[k++] ? "\r\n" : "\n");
    from = i + 1;
  }
  return out + doc.text.slice(from);
}

export function encodeDoc(doc: TextDoc): Uint8Array {
  return encoder.encode(docToString(doc));
}

/** The ending new lines get: the one most lines of the file use (`\n` on a tie or an empty file). */
export function dominantCrlf(doc: TextDoc): boolean {
  let n = 0;
  for (const c of doc.crlf) if (c) n++;
  return n * 2 > doc.crlf.length;
}

/** Offsets where each line starts (line i, 0-based). A final newline does not start a line. */
export function lineStarts(text: string): number[] {
  const starts = text === "" ? [] : [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) if (i + 1 < text.length) starts.push(i + 1);
  return starts;
}

/** The lines of the normalised text, as the hashline view numbers them. */
export function docLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * The endings of the newlines in `next`, which replaced `prev` (whose endings were `flags`).
 * Lines that survived unchanged keep their ending; new lines get the dominant one.
 */
function mapEndings(prev: string, flags: boolean[], next: string, dominant: boolean): boolean[] {
  const count = countNewlines(next);
  if (flags.every((f) => f === dominant)) return new Array<boolean>(count).fill(dominant);
  const a = prev.split("\n");
  const b = next.split("\n");
  const out = new Array<boolean>(count).fill(dominant);
  // Unchanged leading and trailing lines pair up by position, the rest through a diff.
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) {
    if (pre < count && pre < flags.length) out[pre] = flags[pre]!;
    pre++;
  }
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) {
    const i = a.length - 1 - suf;
    const j = b.length - 1 - suf;
    if (j < count && i < flags.length) out[j] = flags[i]!;
    suf++;
  }
  let i = pre;
  let j = pre;
  for (const part of diffArrays(a.slice(pre, a.length - suf), b.slice(pre, b.length - suf))) {
    const n = part.count ?? part.value.length;
    if (part.added) j += n;
    else if (part.removed) i += n;
    else {
      for (let k = 0; k < n; k++) if (j + k < count && i + k < flags.length) out[j + k] = flags[i + k]!;
      i += n;
      j += n;
    }
  }
  return out;
}

/** Applies non-overlapping splices (zero-width ones at the same offset keep their given order). */
export function applySplices(doc: TextDoc, splices: readonly Splice[]): TextDoc {
  const order = splices.map((s, i) => ({ s, i })).sort((x, y) => x.s.start - y.s.start || x.s.end - y.s.end || (x.s.bias ?? 0) - (y.s.bias ?? 0) || x.i - y.i);
  const first = doc.crlf[0] ?? false;
  if (doc.crlf.every((c) => c === first))
    return applyUniform(
      doc,
      order.map((o) => o.s),
      first,
    );
  const dominant = dominantCrlf(doc);
  let text = "";
  const crlf: boolean[] = [];
  let pos = 0;
  let nl = 0;
  const copyTo = (to: number) => {
    const chunk = doc.text.slice(pos, to);
    const n = countNewlines(chunk);
    for (let k = 0; k < n; k++) crlf.push(doc.crlf[nl + k]!);
    nl += n;
    text += chunk;
    pos = to;
  };
  for (const { s } of order) {
    if (s.start < pos) throw new Error("applySplices: overlapping splices");
    copyTo(s.start);
    const old = doc.text.slice(s.start, s.end);
    const n = countNewlines(old);
    const flags = doc.crlf.slice(nl, nl + n);
    for (const f of mapEndings(old, flags, s.text, dominant)) crlf.push(f);
    nl += n;
    text += s.text;
    pos = s.end;
  }
  copyTo(doc.text.length);
  return { text, crlf, bom: doc.bom };
}

/** The common case: every line has the same ending, so new lines simply get it too. */
function applyUniform(doc: TextDoc, sorted: readonly Splice[], crlf: boolean): TextDoc {
  let text = "";
  let pos = 0;
  let count = doc.crlf.length;
  for (const s of sorted) {
    if (s.start < pos) throw new Error("applySplices: overlapping splices");
    text += doc.text.slice(pos, s.start) + s.text;
    count += countNewlines(s.text) - countNewlines(doc.text.slice(s.start, s.end));
    pos = s.end;
  }
  text += doc.text.slice(pos);
  const flags = doc.crlf.length === count ? doc.crlf.slice() : new Array<boolean>(count).fill(crlf);
  return { text, crlf: flags, bom: doc.bom };
}
