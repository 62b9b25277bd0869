/**
 * An agent's session log read as it grows (the panel's Agents view reads five running agents'
 * logs once a second): only the bytes appended since the last read are looked at; the log is read
 * again from its start only when it was replaced or shrank.
 *
 * Two readings:
 * - `events(file)`: every event, what parseLog would give for the same file (valid lines in order,
 *   invalid ones skipped, a torn last line left for the next read) — the open transcript's;
 * - `summary(file)`: only what the Agents list shows (spend, tokens, last message). Its first read
 *   of a long log parses only the lines that carry those (usage, sub-agent and rewind events, found
 *   by their `"type"` bytes without decoding the others, and the last assistant message with text),
 *   read in slices asynchronously: the list's first refresh after the panel opens does not hold the
 *   extension host for the whole of five long logs (docs/benchmarks.md, issue 24).
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { SessionEvent } from "../../core/events";
import { summarizeSession } from "../../core/session/projection";

/** What the Agents list shows of an agent's log. */
export interface LogSummary {
  /** The log has at least one event. */
  any: boolean;
  costUsd: number | undefined;
  usage: { inputTokens: number; outputTokens: number };
  /** The last assistant message with text, trimmed. */
  lastMessage: string | null;
  /** A permission question of the agent nobody answered yet (its tool and summary), while it waits. */
  asking: string | null;
}

interface Tail {
  ino: number;
  /** Bytes of complete lines consumed. */
  offset: number;
}

interface FullTail extends Tail {
  events: SessionEvent[];
}

interface SummaryTail extends Tail {
  any: boolean;
  /** The usage, sub-agent and rewind events (what the spend is summed from, rewinds applied). */
  counted: SessionEvent[];
  lastMessage: string | null;
  /** The questions asked and not answered yet (call id → what is asked). */
  open: Map<string, string>;
  cached?: LogSummary;
}

/**
 * The spend's event types (summarizeSession's cost and usage, eventsInForce's rewinds) as the store
 * writes them (JSON.stringify: no spaces). Inside a string value the quotes are escaped, so a match
 * is a key of the line's event or of an object in it (then its validation as an event tells).
 */
const COUNTED = ['"type":"usage"', '"type":"subagent"', '"type":"rewind"'].map((t) => Buffer.from(t));
const ASSISTANT = Buffer.from('"type":"assistant_message"');
/** A question, its answer, and the run's end (a question left open by a stop or a crash is no longer waited on). */
const ASKING = ['"type":"permission_request"', '"type":"permission_decision"', '"type":"status"'].map((t) => Buffer.from(t));
const NL = 0x0a;

function parseEvent(line: string): SessionEvent | undefined {
  try {
    const r = SessionEvent.safeParse(JSON.parse(line));
    return r.success ? r.data : undefined;
  } catch {
    return undefined; // an invalid line: skipped, as parseLog skips it
  }
}

const count = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

/**
 * A usage line (a fifth of a long log's lines) checked as the event schema checks it, without the
 * schema's validator (the first refresh's cost was mostly that): the same events pass.
 */
function usageEvent(line: string): SessionEvent | undefined {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const u = o && typeof o === "object" ? (o.usage as Record<string, unknown> | undefined) : undefined;
  if (o?.type !== "usage" || !count(o.seq) || typeof o.ts !== "string" || typeof o.model !== "string" || !u || typeof u !== "object") return parseEvent(line);
  if (!count(u.inputTokens) || !count(u.outputTokens) || (u.cacheReadTokens !== undefined && !count(u.cacheReadTokens)) || (u.cacheWriteTokens !== undefined && !count(u.cacheWriteTokens)))
    return undefined;
  if ((o.costUsd !== undefined && typeof o.costUsd !== "number") || (o.sampling !== undefined && typeof o.sampling !== "string")) return undefined;
  return {
    seq: o.seq,
    ts: o.ts,
    type: "usage",
    usage: {
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      cacheReadTokens: (u.cacheReadTokens as number | undefined) ?? 0,
      cacheWriteTokens: (u.cacheWriteTokens as number | undefined) ?? 0,
    },
    model: o.model,
    ...(o.costUsd !== undefined ? { costUsd: o.costUsd as number } : {}),
    ...(o.sampling !== undefined ? { sampling: o.sampling as string } : {}),
  };
}

/** The complete lines appended to `file` since `t.offset` (the tail reset when the file was replaced or shrank); undefined: no such file. */
function appended<T extends Tail>(file: string, tails: Map<string, T>, fresh: (ino: number) => T): { tail: T; bytes: Buffer } | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    tails.delete(file);
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    let t = tails.get(file);
    if (!t || t.ino !== st.ino || st.size < t.offset) {
      t = fresh(st.ino);
      tails.set(file, t);
    }
    if (st.size === t.offset) return { tail: t, bytes: Buffer.alloc(0) };
    const buf = Buffer.alloc(st.size - t.offset);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, t.offset + got);
      if (n === 0) break;
      got += n;
    }
    const end = buf.subarray(0, got).lastIndexOf(NL);
    if (end < 0) return { tail: t, bytes: Buffer.alloc(0) };
    t.offset += end + 1;
    return { tail: t, bytes: buf.subarray(0, end) };
  } finally {
    closeSync(fd);
  }
}

/** Slices of a log the summary reads at a time. */
const CHUNK = 256 * 1024;

/** Folds complete lines `b` into the summary `t`; true when something it shows may have changed. */
function foldLines(t: SummaryTail, b: Buffer): boolean {
  let changed = false;
  /** The line of `b` around byte `at`: [start, end). */
  const lineAt = (at: number): [number, number] => {
    const end = b.indexOf(NL, at);
    return [b.lastIndexOf(NL, at) + 1, end < 0 ? b.length : end];
  };
  // Has the log an event at all: its first valid line.
  for (let from = 0; !t.any && from < b.length;) {
    const [a, z] = lineAt(from);
    if (parseEvent(b.toString("utf8", a, z))) t.any = changed = true;
    from = z + 1;
  }
  // The last assistant message with text: from the end, only assistant lines, until one has text.
  for (let at = b.lastIndexOf(ASSISTANT); at >= 0;) {
    const [a, z] = lineAt(at);
    const e = parseEvent(b.toString("utf8", a, z));
    if (e?.type === "assistant_message" && e.text.trim()) {
      t.lastMessage = e.text.trim();
      changed = true;
      break;
    }
    at = a > 0 ? b.lastIndexOf(ASSISTANT, a - 1) : -1;
  }
  // Questions asked and not answered, in order.
  const asked = new Set<number>();
  for (const pattern of ASKING) for (let at = b.indexOf(pattern); at >= 0; at = b.indexOf(pattern, lineAt(at)[1])) asked.add(lineAt(at)[0]);
  for (const a of [...asked].sort((x, y) => x - y)) {
    const e = parseEvent(b.toString("utf8", a, lineAt(a)[1]));
    if (e?.type === "permission_request") t.open.set(e.callId, askingText(e));
    else if (e?.type === "permission_decision") t.open.delete(e.callId);
    else if (e?.type === "status" && e.state !== "waiting_user" && e.state !== "waiting_tool" && e.state !== "thinking") t.open.clear();
    else continue;
    changed = true;
  }
  // The spend's events, in order: only their lines are decoded and parsed.
  const starts = new Set<number>();
  for (const pattern of COUNTED) for (let at = b.indexOf(pattern); at >= 0; at = b.indexOf(pattern, lineAt(at)[1])) starts.add(lineAt(at)[0]);
  for (const a of [...starts].sort((x, y) => x - y)) {
    const e = usageEvent(b.toString("utf8", a, lineAt(a)[1]));
    if (e && (e.type === "usage" || e.type === "subagent" || e.type === "rewind")) {
      t.counted.push(e);
      changed = true;
    }
  }
  return changed;
}

/** What a question asks, in one line: "run_command touch a.txt". */
export function askingText(e: Extract<SessionEvent, { type: "permission_request" }>): string {
  return `${e.tool} ${(e.summary ?? "").replace(/\s+/g, " ").slice(0, 200)}`.trim();
}

/** The question an agent's log leaves open (asked, not answered, the run not ended since). */
export function openQuestion(events: readonly SessionEvent[]): string | null {
  const open = new Map<string, string>();
  for (const e of events) {
    if (e.type === "permission_request") open.set(e.callId, askingText(e));
    else if (e.type === "permission_decision") open.delete(e.callId);
    else if (e.type === "status" && e.state !== "waiting_user" && e.state !== "waiting_tool" && e.state !== "thinking") open.clear();
  }
  return [...open.values()].at(-1) ?? null;
}

export class AgentLogs {
  private readonly full = new Map<string, FullTail>();
  private readonly summaries = new Map<string, SummaryTail>();
  private readonly reading = new Map<string, Promise<LogSummary>>();

  /** The events of the log at `file` (none when it does not exist). */
  events(file: string): SessionEvent[] {
    const got = appended(file, this.full, (ino) => ({ ino, offset: 0, events: [] }));
    if (!got) return [];
    if (!got.bytes.length) return got.tail.events;
    for (const line of got.bytes.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      const e = parseEvent(line);
      if (e) got.tail.events.push(e);
    }
    return got.tail.events;
  }

  /**
   * What the Agents list shows of the log at `file`, as summarizeSession and the last assistant
   * message over `events(file)` would give. What was appended is read in slices of CHUNK bytes,
   * asynchronously, yielding to the event loop between slices: a first read of five 3.7 MB logs
   * does not hold the extension host for the whole of them.
   */
  summary(file: string): Promise<LogSummary> {
    const running = this.reading.get(file);
    if (running) return running;
    const p = this.readSummary(file).finally(() => this.reading.delete(file));
    this.reading.set(file, p);
    return p;
  }

  private async readSummary(file: string): Promise<LogSummary> {
    let fh: FileHandle;
    try {
      fh = await open(file, "r");
    } catch {
      this.summaries.delete(file);
      return { any: false, costUsd: undefined, usage: { inputTokens: 0, outputTokens: 0 }, lastMessage: null, asking: null };
    }
    try {
      const st = await fh.stat();
      let t = this.summaries.get(file);
      if (!t || t.ino !== st.ino || st.size < t.offset) {
        t = { ino: st.ino, offset: 0, any: false, counted: [], lastMessage: null, open: new Map() };
        this.summaries.set(file, t);
      }
      let changed = !t.cached;
      let carry = Buffer.alloc(0);
      for (let pos = t.offset; pos < st.size;) {
        const slice = Buffer.alloc(Math.min(CHUNK, st.size - pos));
        const { bytesRead } = await fh.read(slice, 0, slice.length, pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        const b = carry.length ? Buffer.concat([carry, slice.subarray(0, bytesRead)]) : slice.subarray(0, bytesRead);
        const end = b.lastIndexOf(NL);
        if (end < 0) {
          carry = b;
          continue;
        }
        if (foldLines(t, b.subarray(0, end))) changed = true;
        t.offset += end + 1;
        carry = b.subarray(end + 1);
        if (pos < st.size) await new Promise((r) => setImmediate(r));
      }
      if (changed || !t.cached) {
        const s = summarizeSession(t.counted);
        t.cached = {
          any: t.any,
          costUsd: s.costUsd,
          usage: { inputTokens: s.usage.inputTokens, outputTokens: s.usage.outputTokens },
          lastMessage: t.lastMessage,
          asking: [...t.open.values()].at(-1) ?? null,
        };
      }
      return t.cached;
    } finally {
      await fh.close();
    }
  }

  /** Forgets logs not in `keep` (agents discarded). */
  retain(keep: ReadonlySet<string>): void {
    for (const m of [this.full, this.summaries] as Map<string, Tail>[]) for (const f of m.keys()) if (!keep.has(f)) m.delete(f);
  }
}
