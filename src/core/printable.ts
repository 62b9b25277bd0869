/**
 * Text Yoke did not write — from the model, a command's output, the repository (a settings key, a
 * rule, a file name), an MCP server — made safe to show to a person: on a terminal, in a
 * notification, in the panel, in the output channel. A terminal acts on control characters: ESC
 * sequences move the cursor, erase lines, hide text (SGR 8), make links (OSC 8), retitle the window
 * or set the clipboard (OSC 52); a carriage return overwrites the line. Everywhere, bidi controls
 * (U+202E…) reorder what is shown — `rm -rf \u202Ecrs/` reads as `rm -rf /src` — and invisible
 * characters (zero-width space, soft hyphen, a Hangul filler, a run of variation selectors, tag
 * characters) make two different names look the same or hide text. Printed raw, a command line or
 * its output could erase the permission question and draw another in its place (red team 15: `rm
 * -rf src` asked as "Allow read_file README.md"), and a committed settings key quoted in a warning
 * could rewrite the lines around it. Every such character is shown as a visible escape instead
 * (`\x1b`, `\u202e`, `\u{e0041}`); newlines and tabs stay (`keepNewlines: false` shows a newline as
 * `\n` too, for one-line output). Ordinary text of any script stays as it is: accents, CJK, Arabic,
 * emoji — and the invisible characters such text needs where it needs them (a joiner between two
 * non-ASCII characters, one variation selector after an emoji or ideograph, an emoji flag's tags, a
 * Mongolian variation selector after a Mongolian letter).
 *
 * The one helper for every place that shows such text: the CLI's stdout and stderr (cli/printable.ts
 * `say`, `warn`), the extension's notifications and output channel (host/shown.ts), the panel
 * (webview/ui/dom.ts through src/protocol/printable.ts, which draws each escape as a marked span).
 */

/** A piece of shown text: as it is, or one character that is shown as its escape. */
export type PrintablePart = { text: string } | { escape: string; codePoint: number };

export interface PrintableOptions {
  /** Keep newlines and tabs as they are (default). `false`: a newline is shown as `\n` (one-line output). */
  keepNewlines?: boolean;
}

// Every character that may need an escape: C0 and C1 controls but tab, DEL, Unicode's default-ignorable
// (invisible) code points, which hold every bidi control, the line and paragraph separators, the
// interlinear annotation characters, and lone surrogate halves. Most text has none, and is returned as it is.
// eslint-disable-next-line no-control-regex
const CANDIDATE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\p{Default_Ignorable_Code_Point}\u2028\u2029\ufff9-\ufffb\p{Cs}]/gu;
// eslint-disable-next-line no-control-regex
const CANDIDATE_KEEP_NL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Default_Ignorable_Code_Point}\u2028\u2029\ufff9-\ufffb\p{Cs}]/gu;
const INVISIBLE = /^[\p{Default_Ignorable_Code_Point}\u2028\u2029\ufff9-\ufffb\p{Cs}]$/u;

const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const KEYCAP = 0x20e3;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;

const isVariationSelector = (c: number): boolean => (c >= 0xfe00 && c <= 0xfe0f) || (c >= 0xe0100 && c <= 0xe01ef);
const isTag = (c: number): boolean => c >= 0xe0020 && c <= 0xe007e;
const isMongolianSelector = (c: number): boolean => (c >= 0x180b && c <= 0x180d) || c === 0x180f;
const isMongolianLetter = (c: number): boolean => c >= 0x1820 && c <= 0x18aa;
const isKeycapBase = (c: number): boolean => c === 0x23 || c === 0x2a || (c >= 0x30 && c <= 0x39);
/** Visible and not ASCII: a letter of another script, an emoji, an ideograph — what an invisible character may join or vary. */
function visibleNonAscii(c: number | undefined): boolean {
  if (c === undefined || c <= 0x9f) return false;
  const ch = String.fromCodePoint(c);
  return !INVISIBLE.test(ch);
}

function escapeOf(c: number): string {
  if (c === 0x0a) return "\\n";
  if (c === 0x0d) return "\\r";
  if (c < 0x100) return `\\x${c.toString(16).padStart(2, "0")}`;
  if (c < 0x10000) return `\\u${c.toString(16).padStart(4, "0")}`;
  return `\\u{${c.toString(16)}}`;
}

/** The code point that ends just before `index` (a surrogate pair read whole). */
function codePointBefore(text: string, index: number): number | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(index - 2);
  }
  return low;
}

/** What printableParts and printable remember while they scan one text. */
interface ScanState {
  keepNewlines: boolean;
  /** The end index of the last invisible character kept (a selector may follow a kept joiner's target, a joiner a kept selector). */
  keptEnd: number;
  /** The run of tag characters being read. */
  tagRun?: { end: number; kept: boolean };
}

/** Whether the candidate `ch` at `at` is shown as it is (true) or as its escape. */
function keptAt(text: string, at: number, ch: string, st: ScanState): boolean {
  const c = ch.codePointAt(0)!;
  const end = at + ch.length;
  let keep = false;
  if (c <= 0x9f) return c === 0x0a && st.keepNewlines;
  if (c === ZWJ || c === ZWNJ) {
    // Between two non-ASCII characters (emoji sequences, Indic and Persian words); never beside ASCII, where it only hides.
    // The character before counts only if it is shown: visible, or an invisible one kept just before.
    keep = (st.keptEnd === at || visibleNonAscii(codePointBefore(text, at))) && visibleNonAscii(text.codePointAt(end));
  } else if (isVariationSelector(c)) {
    // One selector after an emoji, a symbol or an ideograph; after 0-9 # * only in a keycap (1️⃣). A run of them hides data.
    const prev = codePointBefore(text, at);
    const afterSelector = prev !== undefined && isVariationSelector(prev);
    keep = !afterSelector && (visibleNonAscii(prev) || (c <= 0xfe0f && prev !== undefined && isKeycapBase(prev) && text.codePointAt(end) === KEYCAP));
  } else if (isMongolianSelector(c)) {
    const prev = codePointBefore(text, at);
    keep = prev !== undefined && isMongolianLetter(prev);
  } else if (isTag(c) || c === CANCEL_TAG) {
    // An emoji flag of a region (🏴 + tag letters + cancel tag): its tags are kept only when the sequence is whole.
    if (!st.tagRun || at >= st.tagRun.end) {
      let j = at;
      while (j < text.length && isTag(text.codePointAt(j)!)) j += 2;
      const whole = codePointBefore(text, at) === BLACK_FLAG && j > at && text.codePointAt(j) === CANCEL_TAG;
      st.tagRun = { end: whole ? j + 2 : j, kept: whole };
    }
    keep = st.tagRun.kept;
  }
  if (keep) st.keptEnd = end;
  return keep;
}

/** `text` as pieces: runs shown as they are, and each character shown as its escape. */
export function printableParts(text: string, opts: PrintableOptions = {}): PrintablePart[] {
  const keepNewlines = opts.keepNewlines !== false;
  if (keepNewlines) text = text.replace(/\r\n/g, "\n");
  const candidates = keepNewlines ? CANDIDATE_KEEP_NL : CANDIDATE;
  const st: ScanState = { keepNewlines, keptEnd: -1 };
  const parts: PrintablePart[] = [];
  let from = 0; // text before this index is in `parts`
  candidates.lastIndex = 0;
  for (let m = candidates.exec(text); m; m = candidates.exec(text)) {
    const at = m.index;
    if (keptAt(text, at, m[0], st)) continue;
    const c = m[0].codePointAt(0)!;
    if (at > from) parts.push({ text: text.slice(from, at) });
    parts.push({ escape: escapeOf(c), codePoint: c });
    from = at + m[0].length;
  }
  if (from < text.length) parts.push({ text: text.slice(from) });
  return parts;
}

/** `text` with every character printableParts escapes written as its escape. */
export function printable(text: string, opts: PrintableOptions = {}): string {
  const keepNewlines = opts.keepNewlines !== false;
  if (keepNewlines) text = text.replace(/\r\n/g, "\n");
  const st: ScanState = { keepNewlines, keptEnd: -1 };
  const source = text;
  return text.replace(keepNewlines ? CANDIDATE_KEEP_NL : CANDIDATE, (ch: string, at: number) => (keptAt(source, at, ch, st) ? ch : escapeOf(ch.codePointAt(0)!)));
}

/**
 * JSON text of `value` with the same characters escaped (`\u001b`, `\u202e`, `\udb40\udc41`):
 * JSON.stringify leaves C1 controls, bidi and invisible format characters raw, and `printable` on
 * JSON would write `\x..`, which JSON does not read. Such characters can only be inside strings,
 * where `\uXXXX` (a surrogate pair for an astral one) means them.
 */
export function printableJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space) ?? "null";
  return printableParts(text)
    .map((p) => {
      if ("text" in p) return p.text;
      return jsonUnits(p.codePoint);
    })
    .join("");
}

function jsonUnits(c: number): string {
  const s = String.fromCodePoint(c);
  let out = "";
  for (let k = 0; k < s.length; k++) out += `\\u${s.charCodeAt(k).toString(16).padStart(4, "0")}`;
  return out;
}
