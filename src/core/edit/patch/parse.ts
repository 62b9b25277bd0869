/**
 * Reads a patch as models send it: OpenAI's V4A `apply_patch` envelope (`*** Begin Patch` …
 * `*** End Patch`, the format of its published Lark grammar) or a unified diff (`--- a/x`,
 * `+++ b/x`, `@@ -l,s +l,s @@`, git headers). Also read: a patch in a ``` fence or a shell heredoc
 * (`apply_patch <<'EOF' … EOF`, as Codex models write it in a shell call), CRLF, a missing
 * `*** End Patch`, blank context lines that lost their leading space, hunk counts that do not
 * match the body (the body is trusted). Locating and applying is ./apply.ts.
 */
import type { ChunkLine, FilePatch, ParseResult, PatchChunk, PatchDialect } from "./types";

interface Lines {
  text: string[];
  /** The line ended with `\r\n` in the patch. */
  cr: boolean[];
  notes: string[];
}

const FENCE = /^\s*(```|~~~)[\w.+-]*\s*$/;
const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1\s*$/;

/** The patch's lines without a fence or heredoc around it. */
export function unwrap(raw: string): Lines {
  const all = raw.split("\n");
  const cr = all.map((l) => l.endsWith("\r"));
  let text = all.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  const notes: string[] = [];
  let from = 0;
  let to = text.length;
  // Only empty lines: a line of one space is a blank context line.
  const trim = () => {
    while (from < to && text[from] === "") from++;
    while (to > from && text[to - 1] === "") to--;
  };
  trim();
  for (let pass = 0; pass < 2 && from < to; pass++) {
    if (FENCE.test(text[from]!)) {
      const close = findLast(text, from + 1, to, (l) => /^\s*(```|~~~)\s*$/.test(l));
      from++;
      if (close >= 0) to = close;
      notes.push("the patch was inside a ``` fence; the fence was left out");
      trim();
    }
    const h = HEREDOC.exec(text[from] ?? "");
    if (h && !/^\*\*\* /.test(text[from]!)) {
      const delim = h[2]!;
      const close = findLast(text, from + 1, to, (l) => l.trim() === delim);
      from++;
      if (close >= 0) to = close;
      notes.push(`the patch was a shell heredoc (<<${delim}); only its body was read`);
      trim();
    }
  }
  text = text.slice(from, to);
  return { text, cr: cr.slice(from, to), notes };
}

function findLast(lines: string[], from: number, to: number, test: (l: string) => boolean): number {
  for (let i = to - 1; i >= from; i--) if (test(lines[i]!)) return i;
  return -1;
}

const V4A_FILE = /^\*\*\* (Add|Update|Delete) File:/;

/** Which dialect the text is in, if any. */
export function detectDialect(raw: string): PatchDialect | undefined {
  const { text } = unwrap(raw);
  if (text.some((l) => l.trim() === "*** Begin Patch" || V4A_FILE.test(l.trim()))) return "apply_patch";
  for (let i = 0; i < text.length; i++) {
    const l = text[i]!;
    if (/^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/.test(l) || l.startsWith("diff --git ")) return "unified_diff";
    if (l.startsWith("--- ") && (text[i + 1] ?? "").startsWith("+++ ")) return "unified_diff";
  }
  return undefined;
}

export function parsePatch(raw: string, dialect?: PatchDialect): ParseResult {
  const d = dialect ?? detectDialect(raw);
  if (!d) return { ok: false, message: "This is neither an apply_patch patch (*** Begin Patch … *** End Patch) nor a unified diff (--- a/file, +++ b/file, @@ hunks)." };
  return d === "apply_patch" ? parseV4A(unwrap(raw)) : parseUnified(unwrap(raw));
}

/**
 * Blank lines with no prefix at all at the start or end of a chunk may be layout (between
 * sections) rather than context: they are left out, unless nothing of the old side would remain
 * (the chunk would become an insertion located by nothing).
 */
function closeChunk(c: PatchChunk, rawBlank: Set<ChunkLine>): PatchChunk {
  let from = 0;
  let to = c.lines.length;
  while (to > from && rawBlank.has(c.lines[to - 1]!)) to--;
  while (from < to && rawBlank.has(c.lines[from]!)) from++;
  const kept = c.lines.slice(from, to);
  if (kept.some((l) => l.kind !== "add") || !c.lines.some((l) => l.kind !== "add")) c.lines = kept;
  return c;
}

function headerText(l: string): string {
  return l
    .replace(/^@@/, "")
    .replace(/@@\s*$/, "")
    .trim();
}

function parseV4A(src: Lines): ParseResult {
  const { text, cr } = src;
  const notes = [...src.notes];
  const fail = (i: number, why: string): ParseResult => ({ ok: false, dialect: "apply_patch", message: `apply_patch: line ${i + 1} of the patch: ${why}` });
  let i = text.findIndex((l) => l.trim() === "*** Begin Patch");
  if (i < 0) {
    i = text.findIndex((l) => V4A_FILE.test(l.trim()));
    notes.push('the patch had no "*** Begin Patch" line');
  } else i++;
  const files: FilePatch[] = [];
  let ended = false;
  const marker = (l: string) => /^\*\*\* (Begin Patch|End Patch|Add File:|Update File:|Delete File:|Move to:|End of File)/.test(l.trim());
  while (i < text.length) {
    const line = text[i]!;
    const t = line.trim();
    if (t === "") {
      i++;
      continue;
    }
    if (t === "*** End Patch") {
      ended = true;
      break;
    }
    const m = /^\*\*\* (Add|Update|Delete) File:\s*(.*)$/.exec(t);
    if (!m) return fail(i, `expected "*** Add File: PATH", "*** Update File: PATH", "*** Delete File: PATH" or "*** End Patch", got ${JSON.stringify(line.slice(0, 80))}.`);
    const path = m[2]!.trim();
    if (!path) return fail(i, `"*** ${m[1]} File:" names no file.`);
    i++;
    if (m[1] === "Delete") {
      files.push({ op: "delete", path });
      continue;
    }
    if (m[1] === "Add") {
      const lines: string[] = [];
      const layout: boolean[] = [];
      let crs = 0;
      while (i < text.length && !marker(text[i]!)) {
        const l = text[i]!;
        if (l.startsWith("+")) {
          lines.push(l.slice(1));
          layout.push(false);
          if (cr[i]) crs++;
        } else if (l.trim() === "") {
          lines.push("");
          layout.push(true);
        } else return fail(i, `every line of an added file starts with "+" (the file's content); got ${JSON.stringify(l.slice(0, 80))}.`);
        i++;
      }
      // Blank lines with no "+" after the content separate sections: not content.
      while (layout.length && layout[layout.length - 1]) {
        layout.pop();
        lines.pop();
      }
      files.push({ op: "add", path, lines, crlf: crs > 0 && crs * 2 >= layout.length });
      continue;
    }
    // Update File
    let moveTo: string | undefined;
    if (i < text.length && /^\*\*\* Move to:/.test(text[i]!.trim())) {
      moveTo = text[i]!.trim()
        .replace(/^\*\*\* Move to:/, "")
        .trim();
      if (!moveTo) return fail(i, '"*** Move to:" names no file.');
      i++;
    }
    const chunks: PatchChunk[] = [];
    let cur: PatchChunk | undefined;
    const rawBlank = new Set<ChunkLine>();
    const flush = () => {
      if (cur && cur.lines.length) chunks.push(closeChunk(cur, rawBlank));
      cur = undefined;
    };
    while (i < text.length) {
      const l = text[i]!;
      const lt = l.trim();
      if (/^\*\*\* (End Patch|Add File:|Update File:|Delete File:)/.test(lt)) break;
      if (lt === "*** End of File") {
        if (cur) cur.eof = true;
        flush();
        i++;
        continue;
      }
      if (lt.startsWith("*** ")) return fail(i, `unknown line ${JSON.stringify(l.slice(0, 80))} in the section of ${path}.`);
      if (l.startsWith("@@")) {
        if (cur && cur.lines.length) flush();
        cur ??= { lines: [], headers: [], at: i + 1 };
        const u = /^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@\s*(.*)$/.exec(l);
        if (u) {
          cur.lineHint = Number(u[1]);
          if (u[2]!.trim()) cur.headers.push(u[2]!.trim());
        } else if (headerText(l)) cur.headers.push(headerText(l));
        i++;
        continue;
      }
      cur ??= { lines: [], headers: [], at: i + 1 };
      const c = l[0];
      let cl: ChunkLine;
      if (c === " ") cl = { kind: "ctx", text: l.slice(1) };
      else if (c === "-") cl = { kind: "del", text: l.slice(1) };
      else if (c === "+") cl = { kind: "add", text: l.slice(1) };
      else {
        cl = { kind: "ctx", text: l };
        if (l === "") rawBlank.add(cl);
      }
      cur.lines.push(cl);
      i++;
    }
    flush();
    if (chunks.length === 0 && moveTo === undefined) return fail(i - 1, `"*** Update File: ${path}" has no changes (no @@ chunk with -/+ lines).`);
    files.push({ op: "update", path, ...(moveTo !== undefined ? { moveTo } : {}), chunks });
  }
  if (!ended) notes.push('the patch had no "*** End Patch" line; it was read to its end');
  if (files.length === 0) return { ok: false, dialect: "apply_patch", message: "apply_patch: the patch names no file (no *** Add File / Update File / Delete File section)." };
  return { ok: true, dialect: "apply_patch", files, notes };
}

const DEV_NULL = "/dev/null";

function diffPath(raw: string): string {
  let p = raw.replace(/\t.*$/, "").trim();
  if (p.startsWith('"') && p.endsWith('"') && p.length > 1) p = p.slice(1, -1);
  return p;
}

function stripPrefix(p: string, prefix: "a/" | "b/", strip: boolean): string {
  return strip && p.startsWith(prefix) ? p.slice(2) : p;
}

function parseUnified(src: Lines): ParseResult {
  const { text, cr } = src;
  const notes = [...src.notes];
  const files: FilePatch[] = [];
  interface Cur {
    from?: string;
    to?: string;
    git: boolean;
    newFile: boolean;
    deleted: boolean;
    chunks: PatchChunk[];
    crs: number;
    adds: number;
  }
  let cur: Cur | undefined;
  const fail = (message: string): ParseResult => ({ ok: false, dialect: "unified_diff", message: `unified diff: ${message}` });
  const finish = (): string | undefined => {
    if (!cur) return undefined;
    const c = cur;
    cur = undefined;
    const strip = c.git || (((c.from ?? "a/").startsWith("a/") || c.from === DEV_NULL) && ((c.to ?? "b/").startsWith("b/") || c.to === DEV_NULL));
    const from = c.from === undefined || c.from === DEV_NULL ? undefined : stripPrefix(c.from, "a/", strip);
    const to = c.to === undefined || c.to === DEV_NULL ? undefined : stripPrefix(c.to, "b/", strip);
    if ((c.from === DEV_NULL || c.newFile) && to !== undefined) {
      const lines: string[] = [];
      for (const ch of c.chunks) {
        for (const l of ch.lines) {
          if (l.kind === "del" || (l.kind === "ctx" && l.text !== "")) return `the new file ${to} has a hunk with context or removed lines`;
          if (l.kind === "add") lines.push(l.text);
        }
      }
      const noEol = c.chunks.some((ch) => ch.newNoEol);
      files.push({ op: "add", path: to, lines, crlf: lines.length > 0 && c.crs * 2 > c.adds, ...(noEol ? { noEol } : {}) });
      return undefined;
    }
    if (c.to === DEV_NULL || c.deleted) {
      if (from === undefined) return "a file section names no file";
      files.push({ op: "delete", path: from });
      return undefined;
    }
    const path = from ?? to ?? "";
    if (c.chunks.length === 0 && (to === undefined || to === path)) return `the section of ${path || "the file"} has no hunks`;
    files.push({ op: "update", path, ...(to !== undefined && to !== path ? { moveTo: to } : {}), chunks: c.chunks });
    return undefined;
  };
  const start = (git: boolean): Cur => ({ git, newFile: false, deleted: false, chunks: [], crs: 0, adds: 0 });
  let i = 0;
  while (i < text.length) {
    const l = text[i]!;
    const git = /^diff --git (?:"?a\/)?(.+?)"? (?:"?b\/)(.+?)"?$/.exec(l);
    if (l.startsWith("diff --git ")) {
      const e = finish();
      if (e) return fail(e);
      cur = start(true);
      if (git) {
        cur.from = `a/${git[1]}`;
        cur.to = `b/${git[2]}`;
      }
      i++;
      continue;
    }
    if (l.startsWith("--- ") && (text[i + 1] ?? "").startsWith("+++ ")) {
      if (!cur || cur.chunks.length) {
        const e = finish();
        if (e) return fail(e);
        cur = start(false);
      }
      cur.from = diffPath(l.slice(4));
      cur.to = diffPath(text[i + 1]!.slice(4));
      i += 2;
      continue;
    }
    if (cur && cur.chunks.length === 0) {
      if (/^new file mode/.test(l)) cur.newFile = true;
      else if (/^deleted file mode/.test(l)) cur.deleted = true;
      else if (l.startsWith("rename from ")) cur.from = `a/${l.slice(12).trim()}`;
      else if (l.startsWith("rename to ")) cur.to = `b/${l.slice(10).trim()}`;
    }
    if (l.startsWith("@@")) {
      cur ??= start(false);
      const h = /^@@ -(\d+)(?:,-?\d+)? \+(-?\d+)(?:,-?\d+)? @@ ?(.*)$/.exec(l);
      const chunk: PatchChunk = { lines: [], headers: [], at: i + 1 };
      if (h) {
        chunk.lineHint = Number(h[1]);
        // The function-name text git prints after a hunk header is a line above the hunk, not always in its scope: kept out of locating.
      } else if (headerText(l)) chunk.headers.push(headerText(l));
      i++;
      const rawBlank = new Set<ChunkLine>();
      let last: ChunkLine | undefined;
      while (i < text.length) {
        const b = text[i]!;
        if (b.startsWith("@@") || b.startsWith("diff --git ") || (b.startsWith("--- ") && (text[i + 1] ?? "").startsWith("+++ "))) break;
        // The end of a fenced diff in a reply: what follows is prose.
        if (/^(```|~~~)/.test(b)) {
          i++;
          break;
        }
        if (b.startsWith("\\")) {
          if (last?.kind === "add") chunk.newNoEol = true;
          else if (last?.kind === "del") chunk.oldNoEol = true;
          else if (last) {
            chunk.oldNoEol = true;
            chunk.newNoEol = true;
          }
          i++;
          continue;
        }
        const c = b[0];
        let cl: ChunkLine;
        if (c === " ") cl = { kind: "ctx", text: b.slice(1) };
        else if (c === "-") cl = { kind: "del", text: b.slice(1) };
        else if (c === "+") {
          cl = { kind: "add", text: b.slice(1) };
          cur.adds++;
          if (cr[i]) cur.crs++;
        } else {
          cl = { kind: "ctx", text: b };
          if (b.trim() === "") rawBlank.add(cl);
        }
        chunk.lines.push(cl);
        last = cl;
        i++;
      }
      closeChunk(chunk, rawBlank);
      if (chunk.lines.some((x) => x.kind !== "ctx") || cur.chunks.length === 0) cur.chunks.push(chunk);
      continue;
    }
    i++;
  }
  const e = finish();
  if (e) return fail(e);
  if (files.length === 0) return fail("no file sections or hunks were found.");
  return { ok: true, dialect: "unified_diff", files, notes };
}
