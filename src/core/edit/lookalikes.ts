/**
 * Unicode look-alikes that models write as ASCII (or the reverse): smart quotes, dashes, special
 * spaces, the ellipsis. Used by the fourth rung of the matching ladder, and to carry the file's
 * own characters into the replacement where the model did not mean to change them.
 */

const MAP: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u2032": "'",
  "\u02BC": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u2033": '"',
  "\u00AB": '"',
  "\u00BB": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u00A0": " ",
  "\u2002": " ",
  "\u2003": " ",
  "\u2004": " ",
  "\u2005": " ",
  "\u2006": " ",
  "\u2007": " ",
  "\u2008": " ",
  "\u2009": " ",
  "\u200A": " ",
  "\u202F": " ",
  "\u205F": " ",
  "\u3000": " ",
  "\u2026": "...",
  "\u200B": "",
  "\u200C": "",
  "\u200D": "",
  "\u2060": "",
  "\uFEFF": "",
};
// Each invisible joiner (U+200C, U+200D) is matched on its own, which is the point of the class.
// eslint-disable-next-line no-misleading-character-class
const ANY = new RegExp(`[${Object.keys(MAP).join("")}]`, "u");

export function hasLookalikes(s: string): boolean {
  return ANY.test(s);
}

/**
 * The reading of one character: its look-alike from MAP, else its compatibility form (NFKC:
 * full-width letters and digits, ligatures, superscripts), else itself.
 */
function foldChar(c: string): string {
  const m = MAP[c];
  if (m !== undefined) return m;
  if (c.charCodeAt(0) < 0x80) return c;
  return c.normalize("NFKC");
}

const NON_ASCII = /[^\t\n\r\x20-\x7e]/;

/** The ASCII reading of a string (look-alikes, then compatibility forms). */
export function foldLookalikes(s: string): string {
  if (!NON_ASCII.test(s)) return s;
  let out = "";
  for (const c of s) out += foldChar(c);
  return out;
}

/** For each position of the folded string, the index of the source character it came from. */
function foldMap(s: string): { folded: string; origin: number[] } {
  let folded = "";
  const origin: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const f = foldChar(c);
    folded += f;
    for (let k = 0; k < f.length; k++) origin.push(i);
  }
  return { folded, origin };
}

/**
 * `changed` is the model's edited version of `seen` (its copy of `actual`, which differs from
 * it only in look-alikes). Returns `changed` with the look-alikes it kept from `seen` (smart
 * quotes, dashes, special spaces it wrote where the file has plain ASCII) taken from `actual`.
 * Plain characters the model wrote are never rewritten into the file's look-alikes: text the
 * model chose is kept (its `10-50` stays `10-50` where the file had `10–50`).
 * Returns `changed` unchanged when `seen` and `actual` do not fold to the same text.
 */
export function restoreLookalikes(seen: string, actual: string, changed: string, diffChars: (a: string, b: string) => Array<{ value: string; added?: boolean; removed?: boolean }>): string {
  if (seen === actual) return changed;
  const s = foldMap(seen);
  const a = foldMap(actual);
  if (s.folded !== a.folded) return changed;
  // Position in `seen` -> range of folded positions.
  const start: number[] = [];
  const stop: number[] = [];
  for (let p = 0; p < s.origin.length; p++) {
    const i = s.origin[p]!;
    if (start[i] === undefined) start[i] = p;
    stop[i] = p + 1;
  }
  let out = "";
  let si = 0;
  let lastActual = -1;
  for (const part of diffChars(seen, changed)) {
    if (part.added) {
      out += part.value;
      continue;
    }
    if (part.removed) {
      si += part.value.length;
      continue;
    }
    for (let k = 0; k < part.value.length; k++, si++) {
      const from = start[si];
      if (from === undefined) continue; // a zero-width character in `seen`
      if (foldChar(seen[si]!) === seen[si]) {
        // A plain character the model wrote stays as written (its ASCII hyphen is never turned into
        // the file's dash): only the model's own look-alikes are read back as the file's characters.
        for (let p = from; p < stop[si]!; p++) lastActual = Math.max(lastActual, a.origin[p]!);
        out += seen[si];
        continue;
      }
      for (let p = from; p < stop[si]!; p++) {
        const ai = a.origin[p]!;
        if (ai > lastActual) {
          // Zero-width characters of the file that sit just before this one are kept too.
          for (let z = lastActual + 1; z < ai; z++) if (foldChar(actual[z]!) === "") out += actual[z];
          out += actual[ai];
          lastActual = ai;
        }
      }
    }
  }
  return out;
}
