/** The order of the mention completion list: pure, so it is unit-tested. */

/** A workspace-relative path (a multi-root workspace: starting with the folder's name). */
export type PathEntry = { rel: string; folder: boolean };

/** Best matches first: the name starts with the query, the name holds it, the path holds it, the letters in order. */
export function rankPaths(entries: readonly PathEntry[], query: string): PathEntry[] {
  const q = query.toLowerCase();
  const scored: Array<{ e: PathEntry; score: number }> = [];
  for (const e of entries) {
    const path = e.rel.toLowerCase();
    const name = path.slice(path.lastIndexOf("/") + 1);
    let score: number;
    if (!q) score = e.folder ? 4 : 3 + path.split("/").length;
    else if (name.startsWith(q)) score = 0;
    else if (name.includes(q)) score = 1;
    else if (path.includes(q)) score = 2;
    else if (subsequence(path, q)) score = 3;
    else continue;
    scored.push({ e, score: score * 1000 + Math.min(path.length, 999) });
  }
  return scored.sort((a, b) => a.score - b.score || (a.e.rel < b.e.rel ? -1 : 1)).map((s) => s.e);
}

function subsequence(text: string, q: string): boolean {
  let i = 0;
  for (const ch of text) if (ch === q[i] && ++i === q.length) return true;
  return q.length === 0;
}
