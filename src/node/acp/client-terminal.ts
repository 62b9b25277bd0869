/**
 * Commands in the editor's terminal (ACP `terminal/create`, when the client offers `terminal`):
 * the editor starts the process and shows its output live in the tool call, and Yoke reads the
 * output back (`terminal/output`) into the command's log and the model's view.
 *
 * What the editor starts is the runner's own command line (launcher.ts): `env -i` with the
 * runner's environment (the editor's variables, its credentials among them, do not reach the
 * command), the descriptor closer, and the sandbox's wrapper (bwrap, firejail). The command is
 * confined exactly as when Yoke spawns it; the runner finds its processes by their marker to
 * stop them, count them and check what they left.
 */
import type { LaunchedProcess, ProcessLauncher } from "../commands/launcher";

/** The editor's terminal methods, as the ACP connection offers them. */
export interface TerminalClient {
  create(p: { sessionId: string; command: string; args: string[]; env: Array<{ name: string; value: string }>; cwd: string; outputByteLimit: number }): Promise<{ terminalId: string }>;
  output(p: { sessionId: string; terminalId: string }): Promise<{ output: string; truncated: boolean; exitStatus?: { exitCode?: number | null; signal?: string | null } | null }>;
  waitForExit(p: { sessionId: string; terminalId: string }): Promise<{ exitCode?: number | null; signal?: string | null }>;
  kill(p: { sessionId: string; terminalId: string }): Promise<unknown>;
  release(p: { sessionId: string; terminalId: string }): Promise<unknown>;
}

/** The editor keeps this much of a command's output (its terminal drops the oldest beyond it). */
export const OUTPUT_BYTE_LIMIT = 32 * 1024 * 1024;
/** How often the output is read while the command runs. */
const POLL_MS = 100;

export interface ClientTerminalOptions {
  /** The editor's session the terminals belong to. */
  sessionId(): string;
  /** A terminal was made for a command (to show it in the command's tool call). */
  onTerminal?(terminalId: string): void;
  warn?(message: string): void;
  pollMs?: number;
}

export function clientTerminalLauncher(client: TerminalClient, opts: ClientTerminalOptions): ProcessLauncher {
  return {
    label: "the editor's terminal",
    launch(file, args, { cwd, env }): LaunchedProcess {
      const outputs: Array<(raw: Buffer, text: string) => void> = [];
      const exits: Array<(code: number | null, signal: string | null) => void> = [];
      let exited: [number | null, string | null] | undefined;
      let killWanted = false;
      let terminalId: string | undefined;
      const sessionId = opts.sessionId();
      let seen = "";
      const emit = (text: string) => {
        if (!text) return;
        const raw = Buffer.from(text, "utf8");
        for (const l of outputs) l(raw, text);
      };
      /** What is new since the last read; the editor's terminal may have dropped its oldest output. */
      const take = (output: string, truncated: boolean) => {
        if (!truncated || seen.length === 0) {
          if (output.startsWith(seen)) emit(output.slice(seen.length));
          else emit(`\n[yoke: the editor's terminal rewrote its output; shown again from here]\n${output}`);
        } else {
          const tail = seen.slice(-256);
          const at = output.lastIndexOf(tail);
          emit(at >= 0 ? output.slice(at + tail.length) : `\n[yoke: the editor's terminal dropped output it could not keep]\n${output}`);
        }
        seen = output;
      };
      const finish = (code: number | null, signal: string | null) => {
        if (exited) return;
        exited = [code, signal];
        for (const l of exits) l(code, signal);
      };
      void (async () => {
        try {
          const made = await client.create({ sessionId, command: file, args, env: Object.entries(env).map(([name, value]) => ({ name, value })), cwd, outputByteLimit: OUTPUT_BYTE_LIMIT });
          terminalId = made.terminalId;
        } catch (err) {
          emit(`yoke: the editor could not start the command in its terminal: ${err instanceof Error ? err.message : String(err)}\n`);
          return finish(127, null);
        }
        const id = { sessionId, terminalId };
        opts.onTerminal?.(terminalId);
        if (killWanted) await client.kill(id).catch(() => undefined);
        let status: { exitCode?: number | null; signal?: string | null } | undefined;
        const waited = client.waitForExit(id).then(
          (s) => (status = s),
          () => (status = { exitCode: null, signal: null }),
        );
        while (!status) {
          try {
            const out = await client.output(id);
            take(out.output, out.truncated);
            if (out.exitStatus) status = out.exitStatus;
          } catch (err) {
            opts.warn?.(`reading the editor's terminal: ${err instanceof Error ? err.message : String(err)}`);
          }
          if (!status) await Promise.race([waited, new Promise((r) => setTimeout(r, opts.pollMs ?? POLL_MS))]);
        }
        // The last output, after the exit.
        try {
          const out = await client.output(id);
          take(out.output, out.truncated);
        } catch {
          // what was read is what there is
        }
        // The tool call keeps showing the terminal's output after the release.
        await client.release(id).catch(() => undefined);
        finish(status.exitCode ?? null, status.signal ?? null);
      })();
      return {
        onOutput: (l) => void outputs.push(l),
        onExit: (l) => {
          if (exited) l(...exited);
          else exits.push(l);
        },
        kill: () => {
          killWanted = true;
          if (terminalId !== undefined) void client.kill({ sessionId, terminalId }).catch(() => undefined);
        },
      };
    },
  };
}
