/**
 * A stdio transport for the MCP SDK client that starts the server in its own process group, so
 * stopping a server stops everything it started, and a server's stderr is kept (its last lines
 * explain a failed start).
 *
 * Why not the SDK's StdioClientTransport: it spawns with no `detached` option (the server shares
 * Yoke's process group, so there is no group to signal), and its close() signals the server
 * process alone — a grandchild of the server survives it, and nothing stops the group of a server
 * that crashed. What leaves the group (`setsid`, a daemon) is found by the marker in its
 * environment (processes.ts: SERVER_MARKER), new for every start. The framing (ReadBuffer, serializeMessage) and the minimal environment are the SDK's.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
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

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  private stderrTail = "";
  private closed = false;
  private stopping = false;
  /** SERVER_MARKER's value in this start's environment (processes.ts). */
  readonly marker = newServerMarker();

  constructor(private readonly opts: StdioOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The server's last stderr output (bounded). */
  get stderr(): string {
    return this.stderrTail;
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
      child.stdout!.on("data", (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let msg: JSONRPCMessage | null;
          try {
            msg = this.buffer.readMessage();
          } catch (err) {
            this.onerror?.(err as Error);
            continue;
          }
          if (!msg) break;
          this.onmessage?.(msg);
        }
      });
      child.stderr!.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_KEEP);
      });
      child.stdin!.on("error", (err) => this.onerror?.(err));
    });
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
    }
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
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
