/**
 * Bounding what tools send to the model: cap by lines and bytes, cut long lines, and always say
 * what was cut and how to see more.
 */

export const MAX_LINE_CHARS = 2000;
/** Default byte budget of one tool result. */
export const MAX_OUTPUT_BYTES = 50_000;

const encoder = new TextEncoder();

export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** Cuts a line longer than `max` characters, with a marker that says how much was cut. */
export function cutLine(line: string, max = MAX_LINE_CHARS): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)}… [line cut: ${line.length - max} more characters]`;
}

export interface HeadResult {
  /** The lines kept, in order. */
  kept: string[];
  /** How many lines were left out at the end. */
  omitted: number;
}

/** Keeps leading lines while both the line count and the byte budget allow. */
export function keepHead(lines: readonly string[], maxLines: number, maxBytes = MAX_OUTPUT_BYTES): HeadResult {
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    if (kept.length >= maxLines) break;
    const size = byteLength(line) + 1;
    if (bytes + size > maxBytes && kept.length > 0) break;
    kept.push(line);
    bytes += size;
  }
  return { kept, omitted: lines.length - kept.length };
}

/**
 * Keeps the head and the tail of a long text (for logs and command output), with a marker in the
 * middle saying how many lines were left out.
 */
export function keepHeadAndTail(text: string, maxLines: number, maxBytes = MAX_OUTPUT_BYTES, hint = ""): string {
  const lines = text.split("\n").map((l) => cutLine(l));
  const total = byteLength(lines.join("\n"));
  if (lines.length <= maxLines && total <= maxBytes) return lines.join("\n");
  const headLines = Math.max(1, Math.floor(maxLines / 2));
  const tailLines = Math.max(1, maxLines - headLines);
  const head = keepHead(lines, headLines, Math.floor(maxBytes / 2)).kept;
  const tail = keepHead([...lines].reverse(), tailLines, Math.floor(maxBytes / 2)).kept.reverse();
  const omitted = Math.max(0, lines.length - head.length - tail.length);
  if (omitted === 0) return lines.join("\n");
  const note = `[… ${omitted} lines omitted${hint ? `; ${hint}` : ""} …]`;
  return [...head, note, ...tail].join("\n");
}

/**
 * The head and tail of `text` in at most `maxChars` characters, `note(omitted)` (the line between
 * them) included: two thirds head, one third tail, each cut at a line's end where one is near.
 * Text within the bound is returned as it is. A bound smaller than the note gives the note alone.
 */
export function keepHeadAndTailChars(text: string, maxChars: number, noteOf: (omittedChars: number) => string): string {
  if (text.length <= maxChars) return text;
  // The note's length depends on the count it names: sized with the largest count it can name.
  const room = Math.max(0, maxChars - noteOf(text.length).length - 2);
  let head = text.slice(0, Math.floor((room * 2) / 3));
  let tail = room - head.length > 0 ? text.slice(text.length - (room - head.length)) : "";
  // Whole lines where a line ends within the last fifth of the head (the first fifth of the tail).
  const headEnd = head.lastIndexOf("\n");
  if (headEnd >= head.length * 0.8) head = head.slice(0, headEnd);
  const tailStart = tail.indexOf("\n");
  if (tailStart !== -1 && tailStart <= tail.length * 0.2) tail = tail.slice(tailStart + 1);
  // Never half a surrogate pair (an emoji cut in two is no text a provider takes).
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  if (/^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  return [head, noteOf(text.length - head.length - tail.length), tail].filter((p, i) => i === 1 || p !== "").join("\n");
}

/** A bracketed note on its own line, as every tool writes them. */
export function note(text: string): string {
  return `[${text}]`;
}

/** Formats a count with its noun: 1 file, 2 files. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
