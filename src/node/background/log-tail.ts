/**
 * An agent's session log read as it grows (the panel's Agents view reads five running agents'
 * logs once a second): only the bytes appended since the last read are parsed; the log is read
 * whole again only when it was replaced or shrank. What parseLog would give for the same file:
 * valid lines in order, invalid ones skipped, a torn last line left for the next read.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { SessionEvent } from "../../core/events";

interface Tail {
  ino: number;
  /** Bytes of complete lines consumed. */
  offset: number;
  events: SessionEvent[];
}

export class AgentLogs {
  private readonly tails = new Map<string, Tail>();

  /** The events of the log at `file` (none when it does not exist). */
  events(file: string): SessionEvent[] {
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch {
      this.tails.delete(file);
      return [];
    }
    try {
      const st = fstatSync(fd);
      let t = this.tails.get(file);
      if (!t || t.ino !== st.ino || st.size < t.offset) {
        t = { ino: st.ino, offset: 0, events: [] };
        this.tails.set(file, t);
      }
      if (st.size === t.offset) return t.events;
      const buf = Buffer.alloc(st.size - t.offset);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, t.offset + got);
        if (n === 0) break;
        got += n;
      }
      const end = buf.subarray(0, got).lastIndexOf(0x0a);
      if (end < 0) return t.events;
      for (const line of buf.subarray(0, end).toString("utf8").split("\n")) {
        if (!line.trim()) continue;
        try {
          const r = SessionEvent.safeParse(JSON.parse(line));
          if (r.success) t.events.push(r.data);
        } catch {
          // an invalid line: skipped, as parseLog skips it
        }
      }
      t.offset += end + 1;
      return t.events;
    } finally {
      closeSync(fd);
    }
  }

  /** Forgets logs not in `keep` (agents discarded). */
  retain(keep: ReadonlySet<string>): void {
    for (const f of this.tails.keys()) if (!keep.has(f)) this.tails.delete(f);
  }
}
