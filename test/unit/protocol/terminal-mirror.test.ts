// The terminal mirror against a stand-in for VS Code's terminal API and a scripted RunningCommand.
import { describe, expect, it, vi } from "vitest";
import type { CommandResult, RunningCommand } from "../../../src/core/commands/types";

interface FakeTerminal {
  name: string;
  pty: {
    onDidWrite(cb: (s: string) => void): void;
    open(dims?: { columns: number; rows: number }): void;
    close(): void;
    handleInput?(data: string): void;
    setDimensions?(d: { columns: number; rows: number }): void;
  };
  shown: boolean[];
  text: string;
}

const terminals: FakeTerminal[] = [];

vi.mock("vscode", async () => {
  const base = (await import("./fake-vscode")).createFakeVscode();
  return {
    ...base,
    ThemeIcon: class {
      constructor(readonly id: string) {}
    },
    window: {
      ...base.window,
      createTerminal: (opts: { name: string; pty: FakeTerminal["pty"] }) => {
        const t: FakeTerminal = { name: opts.name, pty: opts.pty, shown: [], text: "" };
        opts.pty.onDidWrite((s) => (t.text += s));
        terminals.push(t);
        return { show: (preserveFocus: boolean) => t.shown.push(preserveFocus), dispose() {} };
      },
    },
  };
});

const { TerminalMirror } = await import("../../../src/host/terminal-mirror");

/** A command whose output and end the test drives. */
function fakeCommand(command: string, opts: { background?: boolean; mode?: "pty" | "pipe"; output?: string } = {}) {
  const data = new Set<(s: string) => void>();
  const exits = new Set<(r: CommandResult) => void>();
  const calls: string[] = [];
  let result: CommandResult | undefined;
  const cmd = {
    id: "c1",
    command,
    background: opts.background ?? false,
    mode: opts.mode ?? "pty",
    get result() {
      return result;
    },
    onData(cb: (s: string) => void, o?: { replay?: boolean }) {
      if (o?.replay && opts.output) cb(opts.output);
      data.add(cb);
      return { dispose: () => data.delete(cb) };
    },
    onExit(cb: (r: CommandResult) => void) {
      exits.add(cb);
      return { dispose: () => exits.delete(cb) };
    },
    interrupt: () => calls.push("interrupt"),
    resize: (c: number, r: number) => calls.push(`resize ${c}x${r}`),
  } as unknown as RunningCommand;
  return {
    cmd,
    calls,
    write: (s: string) => data.forEach((cb) => cb(s)),
    exit: (r: Partial<CommandResult>) => {
      result = { exitCode: 0, signal: null, timedOut: false, cancelled: false, durationMs: 1500, ...r };
      exits.forEach((cb) => cb(result!));
    },
  };
}

describe("TerminalMirror", () => {
  it("shows the command line, replayed and live output, Ctrl+C and the end in one Yoke terminal", () => {
    terminals.length = 0;
    const mirror = new TerminalMirror();
    const a = fakeCommand("npm test", { output: "\x1b[32mearly\x1b[0m\r\n" });
    mirror.mirror(a.cmd);
    const term = terminals[0]!;
    expect(term.name).toBe("Yoke");
    expect(term.shown).toEqual([true]); // preserveFocus
    term.pty.open({ columns: 100, rows: 30 });
    a.write("live\r\n");
    term.pty.handleInput?.("\x03");
    a.exit({ exitCode: 130, interrupted: true });
    expect(a.calls).toEqual(["resize 100x30", "interrupt"]);
    expect(term.text).toBe("\x1b[2m$ npm test\x1b[0m\r\n\x1b[32mearly\x1b[0m\r\nlive\r\n^C\r\n\x1b[2m[interrupted · exit 130 · 1.5 s]\x1b[0m\r\n");

    const b = fakeCommand("ls", { mode: "pipe" });
    mirror.mirror(b.cmd);
    b.write("a\nb\n");
    expect(terminals).toHaveLength(1); // sequential foreground commands share the terminal
    expect(term.text).toContain("─".repeat(24));
    expect(term.text.endsWith("\x1b[2m$ ls\x1b[0m\r\na\r\nb\r\n")).toBe(true);
    expect(b.calls).toEqual(["resize 100x30"]);
    mirror.dispose();
  });

  it("gives each background command a terminal of its own, and a closed Yoke terminal is made anew", () => {
    terminals.length = 0;
    const mirror = new TerminalMirror();
    mirror.mirror(fakeCommand("npm run dev", { background: true }).cmd);
    expect(terminals.map((t) => t.name)).toEqual(["Yoke: npm run dev"]);
    mirror.mirror(fakeCommand("echo 1").cmd);
    terminals[1]!.pty.close();
    mirror.mirror(fakeCommand("echo 2").cmd);
    expect(terminals.map((t) => t.name)).toEqual(["Yoke: npm run dev", "Yoke", "Yoke"]);
    mirror.dispose();
  });

  it("issue 18: the command line's ESC sequences and bidi controls are shown as escapes (the terminal would act on them); the output is the program's own", () => {
    terminals.length = 0;
    const mirror = new TerminalMirror();
    // Raw, this erases the line, sets the clipboard (OSC 52) and reverses "crs".
    const command = "rm -rf \u202ecrs/ \x1b[2K\r\x1b]52;c;cm0gLXJmIH4=\x07echo ok\nls";
    const a = fakeCommand(command, { background: true, output: "\x1b[32mok\x1b[0m\r\n" });
    mirror.mirror(a.cmd);
    const term = terminals[0]!;
    term.pty.open({ columns: 100, rows: 30 });
    expect(term.text).toBe("\x1b[2m$ rm -rf \\u202ecrs/ \\x1b[2K\\r\\x1b]52;c;cm0gLXJmIH4=\\x07echo ok\r\n  ls\x1b[0m\r\n\x1b[32mok\x1b[0m\r\n");
    expect(term.name.startsWith("Yoke: rm -rf \\u202ecrs/ \\x1b[2K \\x1b]52;c;")).toBe(true); // one line, cut with "…"
    // eslint-disable-next-line no-control-regex
    expect(term.name).not.toMatch(/[\u001b\u0007\u202e\r\n]/);
    mirror.dispose();
  });
});
