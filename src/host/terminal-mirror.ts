// Mirrors the agent's commands into VS Code terminals (extension Pseudoterminals): the command line,
// its live output with colours, then the exit code and duration. Ctrl+C in the terminal interrupts
// the command. Foreground commands share one "Yoke" terminal; each background command gets its own.
import * as vscode from "vscode";
import type { CommandResult, RunningCommand } from "../core/commands/types";
import type { Disposable } from "../core/ports";
import { printable } from "../core/printable";

const DIM = "\x1b[2m";
const RESET = "\x1b[0m";
const MAX_TITLE = 40;

/** A Pseudoterminal that shows one command at a time; writes before open() are kept until then. */
class MirrorTerminal {
  readonly terminal: vscode.Terminal;
  closed = false;
  private readonly write = new vscode.EventEmitter<string>();
  private readonly close = new vscode.EventEmitter<number | void>();
  private opened = false;
  private queued: string[] = [];
  private cmd: RunningCommand | undefined;
  private subs: Disposable[] = [];
  private dims: { columns: number; rows: number } | undefined;

  constructor(name: string, onClosed: () => void) {
    const pty: vscode.Pseudoterminal = {
      onDidWrite: this.write.event,
      onDidClose: this.close.event,
      open: (dims) => {
        this.opened = true;
        if (dims) this.dims = dims;
        for (const chunk of this.queued) this.write.fire(chunk);
        this.queued = [];
        if (dims) this.cmd?.resize(dims.columns, dims.rows);
      },
      // Closing the view does not stop the command: it keeps running (the model or the panel stops it).
      close: () => {
        this.closed = true;
        this.detach();
        onClosed();
      },
      handleInput: (data) => {
        if (data.includes("\x03") && this.cmd && !this.cmd.result) {
          this.out("^C");
          this.cmd.interrupt();
        }
      },
      setDimensions: (d) => {
        this.dims = d;
        this.cmd?.resize(d.columns, d.rows);
      },
    };
    this.terminal = vscode.window.createTerminal({ name, pty, isTransient: true, iconPath: new vscode.ThemeIcon("terminal") });
  }

  /** Shows `cmd` from now on (its recent output is replayed); a separator goes before a second one. */
  show(cmd: RunningCommand): void {
    if (this.cmd) this.out(`\r\n${DIM}${"─".repeat(24)}${RESET}\r\n`);
    this.detach();
    this.cmd = cmd;
    if (this.dims) cmd.resize(this.dims.columns, this.dims.rows);
    // The command line is the model's text: its ESC sequences would act on the terminal (erase the line, set
    // the clipboard, draw a link) and a bidi override reorder it — shown with escapes (core/printable.ts).
    // What the command prints is the program's own, shown as a terminal shows it when the person runs it.
    this.out(`${DIM}$ ${printable(cmd.command).replace(/\n/g, "\r\n  ")}${RESET}\r\n`);
    const crlf = cmd.mode === "pipe";
    this.subs.push(
      cmd.onData((chunk) => this.out(crlf ? chunk.replace(/\r?\n/g, "\r\n") : chunk), { replay: true }),
      cmd.onExit((r) => this.out(`\r\n${DIM}[${exitLine(r)}]${RESET}\r\n`)),
    );
    this.terminal.show(true); // preserveFocus: never take the focus from the editor
  }

  /** The command shown now, while it runs. */
  get running(): boolean {
    return Boolean(this.cmd && !this.cmd.result);
  }

  dispose(): void {
    this.detach();
    this.terminal.dispose();
    this.write.dispose();
    this.close.dispose();
  }

  private out(text: string): void {
    if (this.opened) this.write.fire(text);
    else this.queued.push(text);
  }

  private detach(): void {
    for (const s of this.subs) s.dispose();
    this.subs = [];
  }
}

function exitLine(r: CommandResult): string {
  const took = r.durationMs < 1000 ? `${r.durationMs} ms` : `${(r.durationMs / 1000).toFixed(1)} s`;
  if (r.error) return `could not start: ${r.error}`;
  if (r.timedOut) return `killed at its timeout after ${took}`;
  if (r.cancelled) return `stopped after ${took}`;
  const end = r.signal ? `${r.signal}` : `exit ${r.exitCode}`;
  return r.interrupted ? `interrupted · ${end} · ${took}` : `${end} · ${took}`;
}

/** Opens terminals for the commands of every runner given to `watch`. */
export class TerminalMirror implements vscode.Disposable {
  private foreground: MirrorTerminal | undefined;
  private readonly background = new Set<MirrorTerminal>();

  /** Mirrors every command `runner` starts from now on. */
  watch(runner: { onDidStart(listener: (cmd: RunningCommand) => void): Disposable }): Disposable {
    return runner.onDidStart((cmd) => this.mirror(cmd));
  }

  mirror(cmd: RunningCommand): void {
    if (cmd.background) {
      const term: MirrorTerminal = new MirrorTerminal(`Yoke: ${title(cmd.command)}`, () => this.background.delete(term));
      this.background.add(term);
      term.show(cmd);
      return;
    }
    if (!this.foreground || this.foreground.closed) {
      const term: MirrorTerminal = new MirrorTerminal("Yoke", () => {
        if (this.foreground === term) this.foreground = undefined;
      });
      this.foreground = term;
    }
    this.foreground.show(cmd);
  }

  dispose(): void {
    this.foreground?.dispose();
    for (const t of this.background) t.dispose();
    this.background.clear();
  }
}

function title(command: string): string {
  const flat = printable(command.replace(/\s+/g, " ").trim(), { keepNewlines: false });
  return flat.length > MAX_TITLE ? `${flat.slice(0, MAX_TITLE - 1)}…` : flat;
}
