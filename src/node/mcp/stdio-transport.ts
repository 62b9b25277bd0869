/**
 * A stdio transport for the MCP SDK client that starts the server in its own process group, so
 * stopping a server stops everything it started, and a server's stderr is kept (its last lines
 * explain a failed start).
 *
 * Why not the SDK's StdioClientTransport: it spawns with no `detached` option (the server shares
 * Yoke's process group, so there is no group to signal), and its close() signals the server
 * process alone — a grandchild of the server survives it, and nothing stops the group of a server
 * that crashed. What leaves the group (`setsid`, a daemon) is found by the marker in its
 * environment (processes.ts: SERVER_MARKER), new for every start. The message format
 * (deserializeMessage, serializeMessage) and the minimal environment are the SDK's; the line reading
 * is ours for two things the SDK's ReadBuffer cannot do: a line that is a JSON-RPC **batch** (an
 * array, which MCP 2025-03-26 clients MUST accept and the SDK's stdio transport rejects — its
 * Streamable HTTP transport accepts one) gives each of its messages, and a line that is not an MCP
 * message (a server's `print()` on stdout) is kept, bounded, to explain a start that never answers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { hostLaunchWithClosedFds } from "../commands/fd-hygiene";
import { newServerMarker, SERVER_MARKER, stopGroup, stopMarked } from "./processes";

export interface StdioOptions {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  /** Called with the pid as soon as the process exists. */
  onSpawn?(pid: number): void;
  onExit?(code: number | null, signal: NodeJS.Signals | null): void;
}

const STDERR_KEEP = 4000;
/** The first lines a server wrote on stdout that are not MCP messages: how many are kept, and how much of each. */
const NOISE_LINES = 3;
const NOISE_LINE_CHARS = 200;
/**
 * The largest message (one line) read from a server: beyond it the server is stopped, so a server
 * cannot make Yoke hold what it sends without end. The SDK's own stdio client stops at 10 MiB (its
 * ReadBuffer); Yoke takes more, since a big tool result is kept whole (spilled) and shown bounded.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * The messages of one line of a server's stdout: one message, or each message of a JSON-RPC batch
 * (an array). Throws for a line that is not an MCP message (or a batch holding one).
 */
export function messagesOfLine(line: string): JSONRPCMessage[] {
  if (line.trimStart().startsWith("[")) {
    const parsed: unknown = JSON.parse(line);
    if (Array.isArray(parsed) && parsed.length > 0) return parsed.map((m) => JSONRPCMessageSchema.parse(m));
  }
  return [deserializeMessage(line)];
}

/**
 * Newline-delimited lines, as the SDK's ReadBuffer frames them (a trailing `\r` dropped). The part
 * of a line not yet ended is kept as chunks and joined once, when its newline comes: the ReadBuffer
 * joins and searches everything it holds on every chunk, so a 40 MB answer (a big tool result or
 * resource) arriving in 64 KB chunks cost Yoke a minute of CPU (docs/benchmarks.md, red team S).
 */
export class StdoutLines {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** `maxLine`: the longest line kept, in bytes; a longer one throws (what is held is dropped). */
  constructor(private readonly maxLine = MAX_MESSAGE_BYTES) {}

  /** The lines this chunk ends, in order. Throws when a line grows past `maxLine`. */
  push(chunk: Buffer): string[] {
    const out: string[] = [];
    let rest = chunk;
    for (let nl = rest.indexOf(10); nl !== -1; nl = rest.indexOf(10)) {
      const head = rest.subarray(0, nl);
      this.check(head.length);
      out.push((this.pending.length ? Buffer.concat([...this.pending, head]) : head).toString("utf8").replace(/\r$/, ""));
      this.clear();
      rest = rest.subarray(nl + 1);
    }
    if (rest.length) {
      this.check(rest.length);
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
    return out;
  }

  private check(more: number): void {
    if (this.pendingBytes + more <= this.maxLine) return;
    this.clear();
    throw new Error(`the server sent a message over ${Math.round(this.maxLine / 1024 / 1024)} MiB (MCP messages are one line each; Yoke keeps one line up to that size)`);
  }

  clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private child: ChildProcess | undefined;
  private readonly lines = new StdoutLines();
  private stderrTail = "";
  private readonly noise: string[] = [];
  private fatalReason: string | undefined;
  private closed = false;
  private stopping = false;
  /** SERVER_MARKER's value in this start's environment (processes.ts). */
  readonly marker = newServerMarker();

  constructor(private readonly opts: StdioOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Why Yoke stopped the server itself (a message too large), if it did. */
  get fatal(): string | undefined {
    return this.fatalReason;
  }

  /** The first lines the server wrote on stdout that are not MCP messages (at most NOISE_LINES, each cut). */
  get stdoutNoise(): readonly string[] {
    return this.noise;
  }

  /** The server's last stderr output (bounded). */
  get stderr(): string {
    return this.stderrTail;
  }

  private stderrClosed: Promise<void> = Promise.resolve();
  /**
   * Waits (at most `ms`) until the server's stderr is read to its end. A server that writes why it
   * failed and exits at once may have its exit, and the SDK's "Connection closed", seen before the
   * last of its stderr is read: the reason then went missing from the failure under load.
   */
  async stderrSettled(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.stderrClosed, new Promise<void>((done) => (timer = setTimeout(done, ms)))]);
    clearTimeout(timer);
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      // Only stdin, stdout and stderr reach the server, not a descriptor Yoke inherited (fd-hygiene.ts); its environment is exactly opts.env.
      const env = { ...this.opts.env, [SERVER_MARKER]: this.marker };
      const line = hostLaunchWithClosedFds(this.opts.command, this.opts.args, env, this.opts.cwd);
      const child = spawn(line.file, line.args, {
        cwd: this.opts.cwd,
        env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: process.platform !== "win32",
        windowsHide: true,
        shell: false,
      });
      this.child = child;
      child.once("error", (err) => {
        const e = (err as NodeJS.ErrnoException).code === "ENOENT" ? new Error(`command not found: ${this.opts.command}${windowsOnlyHint(this.opts.command, this.opts.args)}`) : err;
        reject(e);
        this.onerror?.(e);
        this.finish();
      });
      child.once("spawn", () => {
        if (child.pid) this.opts.onSpawn?.(child.pid);
        resolve();
      });
      child.once("exit", (code, signal) => {
        // The server is gone (a crash, or it stopped by itself): what it started goes too, in its group or not.
        if (!this.stopping && child.pid) void stopGroup(child.pid, 1000).then(() => stopMarked(this.marker, 1000));
        this.opts.onExit?.(code, signal);
        this.finish();
      });
      child.stdout!.on("data", (chunk: Buffer) => this.read(chunk));
      this.stderrClosed = new Promise((done) => child.stderr!.once("close", () => done()));
      child.stderr!.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_KEEP);
      });
      child.stdin!.on("error", (err) => this.onerror?.(err));
    });
  }

  private read(chunk: Buffer): void {
    if (this.fatalReason) return;
    let lines: string[];
    try {
      lines = this.lines.push(chunk);
    } catch (err) {
      // Said when the server is gone (fatal), and the server stopped: as the SDK's client does.
      this.fatalReason = (err as Error).message;
      this.onerror?.(err as Error);
      void this.close();
      return;
    }
    for (const line of lines) {
      if (this.closed) return;
      this.handleLine(line);
    }
  }

  private handleLine(line: string): void {
    let messages: JSONRPCMessage[];
    try {
      messages = messagesOfLine(line);
    } catch (err) {
      if (this.noise.length < NOISE_LINES && line.trim()) this.noise.push(line.length > NOISE_LINE_CHARS ? `${line.slice(0, NOISE_LINE_CHARS)}…` : line);
      this.onerror?.(err as Error);
      return;
    }
    for (const m of messages) this.onmessage?.(m);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed) return reject(new Error("the server is not running"));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** The specification's order: close the server's input, wait; SIGTERM, wait; SIGKILL — to the whole group. */
  async close(): Promise<void> {
    const child = this.child;
    if (child?.pid && !this.stopping) {
      this.stopping = true;
      await stopGroup(child.pid, 2000, () => child.stdin?.end());
      await stopMarked(this.marker, 1000);
      // A process that left the group and the marker (`setsid env -i …`) may still hold the server's stdout and
      // stderr: read what is left (at most 1 s), then let go of them — they kept Yoke's process alive until it
      // ended (the CLI waited for it after printing; red team F, session 21).
      await this.stderrSettled(1000);
      child.stdout?.destroy();
      child.stderr?.destroy();
    }
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.lines.clear();
    this.onclose?.();
  }
}

/**
 * `"command": "cmd", "args": ["/c", "npx", …]` is how Windows users start npx (a batch file there);
 * a repository's `.mcp.json` written on Windows names it on every machine. Off Windows it is not
 * found: say what to write instead (the server is not started another way behind the user's back).
 */
export function windowsOnlyHint(command: string, args: readonly string[], platform: NodeJS.Platform = process.platform): string {
  if (platform === "win32" || !/^cmd(\.exe)?$/i.test(command) || !/^\/c$/i.test(args[0] ?? "")) return "";
  const rest = args.slice(1);
  return ` (\`cmd /c\` is Windows's shell; here write "command": ${JSON.stringify(rest[0] ?? "npx")}, "args": ${JSON.stringify(rest.slice(1))})`;
}
