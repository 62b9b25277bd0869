/**
 * Keeps the Claude-format transcript of a session (the file a hook's `transcript_path` names)
 * up to date: it reads the session's event log from where it stopped last time and appends the
 * lines the new events add (src/core/hooks/transcript.ts). The first sync in a process rewrites
 * the file from the whole log (a resumed session), later ones only append.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeFileSync, appendFileSync } from "node:fs";
import { dirname } from "node:path";
import { SessionEvent } from "../core/events";
import { ClaudeTranscriptProjector, type ClaudeToolShape } from "../core/hooks/transcript";

export interface ClaudeTranscriptWriter {
  /** The transcript file. */
  readonly path: string;
  /** Appends the lines of events logged since the last call. */
  sync(): void;
}

export function createClaudeTranscriptWriter(opts: {
  /** The session's event log (`<sessionDir>/<id>.jsonl`). */
  logPath: string;
  /** Where the transcript goes. */
  path: string;
  toolShape?: ClaudeToolShape;
}): ClaudeTranscriptWriter {
  const projector = new ClaudeTranscriptProjector(opts.toolShape);
  let offset = 0;
  let started = false;
  let partial: Buffer = Buffer.alloc(0);

  return {
    path: opts.path,
    sync() {
      let fd: number;
      try {
        fd = openSync(opts.logPath, "r");
      } catch {
        return; // nothing logged yet
      }
      let chunk: Buffer = Buffer.alloc(0);
      try {
        const size = fstatSync(fd).size;
        if (size > offset) {
          const buf = Buffer.alloc(size - offset);
          let read = 0;
          while (read < buf.length) {
            const n = readSync(fd, buf, read, buf.length - read, offset + read);
            if (n === 0) break;
            read += n;
          }
          offset += read;
          chunk = buf.subarray(0, read);
        }
      } finally {
        closeSync(fd);
      }
      const bytes = Buffer.concat([partial, chunk]);
      const cut = bytes.lastIndexOf(0x0a);
      partial = cut < 0 ? bytes : bytes.subarray(cut + 1);
      const lines: object[] = [];
      for (const raw of (cut < 0 ? "" : bytes.subarray(0, cut).toString("utf8")).split("\n")) {
        if (!raw.trim()) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          continue; // a damaged line of the log; the log reader reports it
        }
        const event = SessionEvent.safeParse(parsed);
        if (event.success) lines.push(...projector.push(event.data));
      }
      const out = lines.map((l) => JSON.stringify(l) + "\n").join("");
      mkdirSync(dirname(opts.path), { recursive: true });
      if (!started) {
        writeFileSync(opts.path, out, { mode: 0o600 });
        started = true;
      } else if (out) appendFileSync(opts.path, out);
    },
  };
}
