/**
 * The full raw output of one command, appended to a log file as it arrives, with a sparse
 * index of line starts so that reading from line N does not rescan the whole file.
 */
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import type { OutputPage } from "../../core/commands/types";

/** Every CHECKPOINT-th line start is remembered. */
const CHECKPOINT = 256;
const READ_CHUNK = 64 * 1024;

export class CommandLog {
  private fd: number | undefined;
  private bytes = 0;
  private newlines = 0;
  private lastByte = 10;
  /** checkpoints[k] = byte offset where line k*CHECKPOINT+1 starts. */
  private readonly checkpoints: number[] = [0];

  /** true once maxBytes was reached: later output is not logged (the bounded view still sees it). */
  truncated = false;

  /** `maxBytes` keeps a runaway command from filling the disk (default 1 GiB). */
  constructor(
    readonly path: string,
    private readonly maxBytes = 2 ** 30,
  ) {
    this.fd = openSync(path, "w", 0o600);
  }

  write(data: Buffer): void {
    if (data.length === 0 || this.truncated) return;
    let chunk = data;
    if (this.bytes + chunk.length > this.maxBytes) {
      const note = Buffer.from(`\n[yoke: the log stopped at ${this.maxBytes} bytes; later output was not kept]\n`);
      chunk = Buffer.concat([chunk.subarray(0, Math.max(0, this.maxBytes - this.bytes)), note]);
      this.truncated = true;
    }
    if (this.fd !== undefined) writeSync(this.fd, chunk);
    let at = chunk.indexOf(10);
    while (at !== -1) {
      this.newlines++;
      if (this.newlines % CHECKPOINT === 0) this.checkpoints.push(this.bytes + at + 1);
      at = chunk.indexOf(10, at + 1);
    }
    this.bytes += chunk.length;
    this.lastByte = chunk[chunk.length - 1]!;
  }

  /** Lines so far; a last line without a newline counts. */
  get totalLines(): number {
    return this.newlines + (this.lastByte === 10 ? 0 : 1);
  }

  get size(): number {
    return this.bytes;
  }

  /** Stops writing (the file stays readable). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  dispose(): void {
    this.close();
  }

  /** Lines from 1-based `since`, at most maxLines lines and about maxBytes bytes. */
  read(since: number, maxLines: number, maxBytes: number): OutputPage {
    const total = this.totalLines;
    const from = Math.max(1, Math.floor(since));
    if (from > total) return { lines: [], from, to: from - 1, totalLines: total, more: false };
    const fd = openSync(this.path, "r");
    try {
      return this.readFrom(fd, from, total, maxLines, maxBytes);
    } finally {
      closeSync(fd);
    }
  }

  private readFrom(fd: number, from: number, total: number, maxLines: number, maxBytes: number): OutputPage {
    const k = Math.min(Math.floor((from - 1) / CHECKPOINT), this.checkpoints.length - 1);
    let line = k * CHECKPOINT + 1;
    let pos = this.checkpoints[k]!;
    const end = this.bytes;
    const buf = Buffer.alloc(READ_CHUNK);
    const lines: string[] = [];
    let current: Buffer[] = [];
    let currentLen = 0;
    let cut = 0;
    let taken = 0;
    let full = false;
    outer: while (pos < end) {
      const n = readSync(fd, buf, 0, Math.min(READ_CHUNK, end - pos), pos);
      if (n <= 0) break;
      const chunk = buf.subarray(0, n);
      let start = 0;
      while (start < n) {
        const nl = chunk.indexOf(10, start);
        const stop = nl === -1 ? n : nl;
        if (line >= from) {
          const room = Math.max(0, maxBytes - taken - currentLen);
          const part = chunk.subarray(start, Math.min(stop, start + room));
          current.push(Buffer.from(part));
          currentLen += part.length;
          cut += stop - start - part.length;
        }
        if (nl === -1) break;
        if (line >= from) {
          lines.push(finish(current, cut));
          taken += currentLen + 1;
          if (lines.length >= maxLines || taken >= maxBytes) {
            full = true;
            break outer;
          }
        }
        current = [];
        currentLen = 0;
        cut = 0;
        line++;
        start = nl + 1;
      }
      pos += n;
    }
    if (!full && line >= from && (currentLen > 0 || cut > 0)) lines.push(finish(current, cut));
    const to = lines.length === 0 ? from - 1 : from + lines.length - 1;
    return { lines, from, to, totalLines: total, more: to < total };
  }
}

function finish(parts: Buffer[], cut: number): string {
  const text = Buffer.concat(parts).toString("utf8");
  return cut > 0 ? `${text} … [${cut} more bytes on this line]` : text;
}
