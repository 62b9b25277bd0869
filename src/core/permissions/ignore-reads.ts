/**
 * Reading other agents' ignore files again when they change, tighten-only (issue 23, session 24): an
 * editor's save often empties the file before writing it, or writes it in pieces, and a reload that
 * lands in between read a file that lists less — its deny rules were lifted until the write's own
 * change event (milliseconds). Now a read that would loosen a file the gate read before — the file
 * gone, emptied, a line of it missing, a new `!` exception — keeps the last text until the same
 * text has been read again after `settleMs` (the confirming read is scheduled): a half-written save
 * never lifts a rule, and the person's real edit that loosens applies a moment later. A file that
 * exists but cannot be read keeps its last text until a clean read. Tightening (a new line) applies at once.
 */

/** Reads a file's text; undefined when it is missing or not readable. */
export type ReadText = (path: string) => Promise<string | undefined>;

export interface IgnoreReadsOptions {
  read: ReadText;
  /** Does the path exist (a file that exists but cannot be read is held, never accepted)? */
  exists?: (path: string) => Promise<boolean>;
  /** How long a loosening read must stay the same before it is taken (default 1,000 ms). */
  settleMs?: number;
  /** Asked to read again once a loosening read has settled (the gate's reload). */
  recheck(): void;
  now?: () => number;
}

const lines = (text: string) =>
  new Set(
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#")),
  );

/** Would `now` lift something `before` denied: a line gone, or a new `!` exception? */
export function loosens(before: string, now: string | undefined): boolean {
  if (now === undefined) return true;
  const was = lines(before);
  const is = lines(now);
  for (const l of was) if (!is.has(l)) return true;
  for (const l of is) if (!was.has(l) && l.startsWith("!")) return true;
  return false;
}

export interface IgnoreReads {
  /** The text to use for `path` now (the last good text while a loosening read has not settled). */
  read: ReadText;
}

export function ignoreReads(opts: IgnoreReadsOptions): IgnoreReads {
  const settleMs = opts.settleMs ?? 1_000;
  const now = opts.now ?? (() => Date.now());
  const good = new Map<string, string>();
  const held = new Map<string, { key: string; since: number }>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      opts.recheck();
    }, settleMs + 20);
    (timer as unknown as { unref?: () => void }).unref?.();
  };
  return {
    async read(path) {
      let text: string | undefined;
      let failed = false;
      try {
        text = await opts.read(path);
      } catch {
        failed = true;
      }
      if (text === undefined && !failed && opts.exists) failed = await opts.exists(path).catch(() => true);
      const last = good.get(path);
      if (last === undefined || (!failed && !loosens(last, text))) {
        held.delete(path);
        if (text === undefined) good.delete(path);
        else good.set(path, text);
        return text;
      }
      // A read that loosens: kept back until it has stayed the same for settleMs (never, when unreadable).
      const key = failed ? "\0unreadable" : (text ?? "\0missing");
      const seen = held.get(path);
      if (!failed && seen && seen.key === key && now() - seen.since >= settleMs) {
        held.delete(path);
        if (text === undefined) good.delete(path);
        else good.set(path, text);
        return text;
      }
      if (!seen || seen.key !== key) held.set(path, { key, since: now() });
      if (!failed) schedule();
      return last;
    },
  };
}
