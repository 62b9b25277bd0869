/**
 * Bounded command output for the model: the first and last lines are kept, the middle is
 * counted and replaced by a note saying how to read it (command_output with id and since).
 * The full raw output stays in the command's log file.
 */
import { TerminalLineRenderer } from "./terminal-text";
import type { BoundedOutput } from "./types";

export interface OutputLimits {
  headLines: number;
  headChars: number;
  tailLines: number;
  tailChars: number;
  /** Longer lines are cut, with a count of what was cut. */
  maxLineChars: number;
}

export const DEFAULT_OUTPUT_LIMITS: OutputLimits = {
  headLines: 50,
  headChars: 6_000,
  tailLines: 150,
  tailChars: 14_000,
  maxLineChars: 1_000,
};

/** Streams raw output in and keeps only a bounded, cleaned head and tail. */
export class OutputBounder {
  private readonly limits: OutputLimits;
  private readonly renderer: TerminalLineRenderer;
  private readonly head: string[] = [];
  private headChars = 0;
  private headFull = false;
  private tail: string[] = [];
  private tailStart = 0;
  private tailChars = 0;
  private lines = 0;

  constructor(limits: Partial<OutputLimits> = {}) {
    this.limits = { ...DEFAULT_OUTPUT_LIMITS, ...limits };
    this.renderer = new TerminalLineRenderer((line) => this.add(line), this.limits.maxLineChars);
  }

  push(text: string): void {
    this.renderer.push(text);
  }

  /** Call when the output has ended: the last line without a newline becomes a line. */
  end(): void {
    this.renderer.end();
  }

  snapshot(): BoundedOutput {
    const partial = this.renderer.partial();
    const tail = this.tail.slice(this.tailStart);
    if (partial) tail.push(partial);
    return { head: [...this.head], tail, totalLines: this.lines + (partial ? 1 : 0) };
  }

  private add(line: string): void {
    this.lines++;
    const { headLines, headChars, tailLines, tailChars } = this.limits;
    if (!this.headFull) {
      if (this.head.length < headLines && this.headChars + line.length + 1 <= headChars) {
        this.head.push(line);
        this.headChars += line.length + 1;
        return;
      }
      this.headFull = true;
    }
    this.tail.push(line);
    this.tailChars += line.length + 1;
    while (this.tail.length - this.tailStart > tailLines || (this.tailChars > tailChars && this.tail.length - this.tailStart > 1)) {
      this.tailChars -= this.tail[this.tailStart]!.length + 1;
      this.tailStart++;
    }
    if (this.tailStart > 4096) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailStart = 0;
    }
  }
}

/** The note that replaces omitted lines. */
export function omittedNote(id: string, from: number, to: number): string {
  const count = to - from + 1;
  return `[... ${count} line${count === 1 ? "" : "s"} omitted (lines ${from}-${to}). Read them with command_output {"id":"${id}","since":${from}} ...]`;
}

/** The bounded output as text for the model; "(no output)" when there is none. */
export function formatBoundedOutput(out: BoundedOutput, id: string): string {
  const head = out.head;
  const omittedFrom = head.length + 1;
  const omittedTo = out.totalLines - out.tail.length;
  const parts: string[] = [...head];
  if (omittedTo >= omittedFrom) parts.push(omittedNote(id, omittedFrom, omittedTo));
  parts.push(...out.tail);
  while (parts.length > 0 && parts[parts.length - 1]!.trim() === "") parts.pop();
  while (parts.length > 0 && parts[0]!.trim() === "") parts.shift();
  return parts.length === 0 ? "(no output)" : parts.join("\n");
}

/** Human duration for result lines: "850 ms", "3.2 s", "2 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}
