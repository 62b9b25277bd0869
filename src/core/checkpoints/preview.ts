/**
 * What a restore preview shows per file: the action and the lines the restore adds and removes,
 * read from the plan's unified diff (from the files now to the checkpoint), so "+3 −1" means the
 * restore writes 3 lines back and takes 1 out. A file whose part of the diff was cut at the bound
 * has no counts (`counted: false`), never made-up ones.
 */
import type { FileChange, RestorePlan } from "./types";

export interface FileStat {
  path: string;
  action: FileChange["action"];
  added: number;
  removed: number;
  binary: boolean;
  /** false: the file's diff was cut at the preview's bound (or missing), so the counts are unknown. */
  counted: boolean;
}

/** Per-file counts of a plan, in the plan's order. */
export function planStats(plan: RestorePlan): FileStat[] {
  const sections = splitDiff(plan.diff);
  const last = [...sections.keys()].at(-1);
  return plan.changes.map((c) => {
    const lines = sections.get(c.path);
    if (!lines) return { path: c.path, action: c.action, added: 0, removed: 0, binary: false, counted: false };
    let added = 0;
    let removed = 0;
    let binary = false;
    let inHunk = false;
    for (const l of lines) {
      if (l.startsWith("@@")) inHunk = true;
      else if (!inHunk && /^Binary files .* differ$/.test(l)) binary = true;
      else if (inHunk && l.startsWith("+")) added++;
      else if (inHunk && l.startsWith("-")) removed++;
    }
    // The last section may have been cut mid-way by the bound.
    const counted = !(plan.diffTruncated && c.path === last);
    return { path: c.path, action: c.action, added, removed, binary, counted };
  });
}

/** The diff's lines per file, keyed by the path in its `diff --git a/P b/P` header. */
function splitDiff(diff: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of diff.split("\n")) {
    if (line.startsWith("diff --git ")) {
      current = [];
      const path = headerPath(line.slice("diff --git ".length));
      if (path !== undefined) out.set(path, current);
      continue;
    }
    current?.push(line);
  }
  return out;
}

/** `a/P b/P` (the same path twice: no renames in a plan's diff) → P; a quoted header → its unquoted path. */
function headerPath(rest: string): string | undefined {
  if (rest.startsWith('"')) {
    const m = /^"a\/((?:[^"\\]|\\.)*)" "b\/(?:[^"\\]|\\.)*"$/.exec(rest);
    return m ? unquote(m[1]!) : undefined;
  }
  if (!rest.startsWith("a/")) return undefined;
  const half = (rest.length - 1) / 2;
  if (!Number.isInteger(half)) return undefined;
  const a = rest.slice(0, half);
  const b = rest.slice(half + 1);
  return a.slice(2) === b.slice(2) && b.startsWith("b/") ? a.slice(2) : undefined;
}

/** git's C-style quoting of a path (octal escapes are UTF-8 bytes). */
function unquote(s: string): string {
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, "\\": 92 };
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch !== "\\") {
      bytes.push(...new TextEncoder().encode(ch));
      continue;
    }
    const next = s[i + 1] ?? "";
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(s.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
