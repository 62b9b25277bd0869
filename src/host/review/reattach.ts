// Where a proposal that was under review before a window reload sits in the document VS Code
// restored. Hot exit keeps a dirty editor as it was, so the document may hold the whole proposal,
// the proposal with some hunks already rejected (their original lines back), or the proposal with
// the user's typing in it; or just the original (hot exit off, the tab was closed), and then the
// proposal is put in again. Pure line logic (no `vscode`), so it is tested on its own.
import { diffArrays } from "diff";
import { adjustRange, normalizeEol, proposalRanges, splitLines, type Hunk, type HunkDecision, type LineRange } from "../../core/review-hunks";

export interface Placement {
  /** Where each hunk sits in the document now. */
  ranges: LineRange[];
  /** Hunks whose original lines are back in the document: rejected before the reload. */
  decisions: Array<HunkDecision | undefined>;
  /** Hunks the user typed in (before the reload). */
  touched: number[];
}

/**
 * How the proposal (`hunks` turn `base` into `proposal`) sits in `current`; null when the
 * document holds `base` (or something not derived from the proposal while it is saved): the
 * proposal has to be written in again.
 */
export function findProposal(base: string, proposal: string, hunks: readonly Hunk[], current: string, dirty: boolean): Placement | null {
  const none = () => hunks.map((): HunkDecision | undefined => undefined);
  const cur = normalizeEol(current);
  if (cur === normalizeEol(proposal)) return { ranges: proposalRanges(hunks), decisions: none(), touched: [] };
  if (cur === normalizeEol(base) || !dirty) return null;
  const located = locateHunks(base, hunks, current);
  if (located && located.present.some(Boolean)) {
    return { ranges: located.ranges, decisions: located.present.map((p) => (p ? undefined : "rejected")), touched: [] };
  }
  return followInto(proposal, current, proposalRanges(hunks));
}

/**
 * The document is `base` with each hunk either applied (its proposed lines) or not (its original
 * lines), nothing else changed: which hunks are applied and where each sits. Null otherwise.
 */
export function locateHunks(base: string, hunks: readonly Hunk[], current: string): { ranges: LineRange[]; present: boolean[] } | null {
  const a = splitLines(normalizeEol(base));
  const c = splitLines(normalizeEol(current));
  const norm = (lines: readonly string[]) => lines.map((l) => normalizeEol(l));
  const after = hunks.map((h) => norm(h.afterLines));
  const before = hunks.map((h) => norm(h.beforeLines));
  const failed = new Set<string>();
  const matches = (at: number, lines: readonly string[]) => at + lines.length <= c.length && lines.every((l, i) => c[at + i] === l);

  // Hunk k onwards, the document being shifted by `offset` lines against the base.
  const search = (k: number, offset: number): { ranges: LineRange[]; present: boolean[] } | null => {
    const key = `${k}:${offset}`;
    if (failed.has(key)) return null;
    const from = k === 0 ? 0 : hunks[k - 1]!.beforeStart + hunks[k - 1]!.beforeLines.length;
    const to = k < hunks.length ? hunks[k]!.beforeStart : a.length;
    for (let i = from; i < to; i++) {
      if (c[i + offset] !== a[i]) {
        failed.add(key);
        return null;
      }
    }
    if (k === hunks.length) {
      if (c.length === a.length + offset) return { ranges: [], present: [] };
      failed.add(key);
      return null;
    }
    const at = hunks[k]!.beforeStart + offset;
    const options: Array<[boolean, readonly string[]]> = [
      [true, after[k]!],
      [false, before[k]!],
    ];
    for (const [present, lines] of options) {
      if (!matches(at, lines)) continue;
      const rest = search(k + 1, offset + (present ? after[k]!.length - before[k]!.length : 0));
      if (rest) return { ranges: [{ start: at, end: at + lines.length }, ...rest.ranges], present: [present, ...rest.present] };
    }
    failed.add(key);
    return null;
  };
  return search(0, 0);
}

/**
 * The proposal's ranges carried through the differences between the proposal and `current`, as
 * if the user had typed them: hunks those differences touch are marked touched.
 */
export function followInto(proposal: string, current: string, ranges: readonly LineRange[]): Placement {
  let out = [...ranges];
  const touched = new Set<number>();
  let pos = 0;
  let pending: { start: number; oldCount: number; newCount: number } | undefined;
  const flush = () => {
    if (!pending) return;
    const edit = pending;
    out = out.map((r, k) => {
      const moved = adjustRange(r, edit);
      if (moved.touched) touched.add(k);
      return moved.range;
    });
    pos = edit.start + edit.newCount;
    pending = undefined;
  };
  for (const part of diffArrays(splitLines(normalizeEol(proposal)), splitLines(normalizeEol(current)))) {
    const n = part.value.length;
    if (!part.added && !part.removed) {
      flush();
      pos += n;
      continue;
    }
    pending ??= { start: pos, oldCount: 0, newCount: 0 };
    if (part.removed) pending.oldCount += n;
    else pending.newCount += n;
  }
  flush();
  return { ranges: out, decisions: ranges.map(() => undefined), touched: [...touched].sort((x, y) => x - y) };
}
