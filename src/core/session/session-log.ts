/**
 * The append-only event log of one session. Every event is validated, numbered and appended as
 * one JSON line; the log is fsync'd at turn boundaries. Readers tolerate a torn last line (a
 * crash mid-write) and skip lines that do not parse, reporting them.
 */
import { SessionEvent, type NewEvent } from "../events";
import type { SessionStore } from "../ports";
import { forEachSliced, type Slicer } from "./sliced";

export interface ParsedLog {
  events: SessionEvent[];
  /** The last line was incomplete (the process died while writing it). */
  tornTail: boolean;
  /** 1-based numbers of lines that were not valid events (other than a torn tail). */
  invalidLines: number[];
}

export function parseLog(lines: readonly string[]): ParsedLog {
  const out = emptyParsedLog();
  for (let i = 0; i < lines.length; i++) parseLine(out, lines, i);
  return out;
}

/**
 * The same as parseLog, in time slices with a turn of the host's event loop between them, so a
 * long log (10,000 events) never blocks its caller's thread for longer than one slice.
 */
export async function parseLogSliced(lines: readonly string[], slicer: Slicer): Promise<ParsedLog> {
  const out = emptyParsedLog();
  await forEachSliced(lines.length, (i) => parseLine(out, lines, i), slicer);
  return out;
}

function emptyParsedLog(): ParsedLog {
  return { events: [], tornTail: false, invalidLines: [] };
}

function parseLine(out: ParsedLog, lines: readonly string[], i: number): void {
  const line = lines[i]!;
  if (line.trim() === "") return;
  const parsed = safeParse(line);
  if (parsed) out.events.push(parsed);
  else if (i === lines.length - 1) out.tornTail = true;
  else out.invalidLines.push(i + 1);
}

function safeParse(line: string): SessionEvent | undefined {
  try {
    const result = SessionEvent.safeParse(JSON.parse(line));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

export class SessionLog {
  private readonly list: SessionEvent[];

  private constructor(
    private readonly store: SessionStore,
    readonly id: string,
    events: SessionEvent[],
    private readonly now: () => Date,
  ) {
    this.list = events;
  }

  static create(store: SessionStore, id: string, now: () => Date = () => new Date()): SessionLog {
    if (store.exists(id)) throw new Error(`session ${id} already exists`);
    return new SessionLog(store, id, [], now);
  }

  /** Opens an existing log. A torn last line is terminated so later appends start on a fresh line. */
  static open(store: SessionStore, id: string, now: () => Date = () => new Date()): { log: SessionLog; parsed: ParsedLog } {
    if (!store.exists(id)) throw new Error(`no session "${id}" (see \`yoke sessions\`)`);
    const parsed = parseLog(store.read(id));
    if (parsed.tornTail) store.append(id, "");
    return { log: new SessionLog(store, id, parsed.events, now), parsed };
  }

  get events(): readonly SessionEvent[] {
    return this.list;
  }

  /** Validates, numbers and appends an event; returns it as stored. */
  append(event: NewEvent): SessionEvent {
    const full = SessionEvent.parse({ ...event, seq: this.list.length, ts: this.now().toISOString() });
    this.store.append(this.id, JSON.stringify(full));
    this.list.push(full);
    return full;
  }

  sync(): void {
    this.store.sync(this.id);
  }
}

/** A sortable, unique session id: `20261130-142501-ab12cd`. */
export function newSessionId(now: Date = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  const stamp = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  const rand = globalThis.crypto.randomUUID().replace(/-/g, "").slice(0, 6);
  return `${stamp}-${rand}`;
}
