// Red team 15: what the CLI prints of the model's, a command's, the repository's or an MCP server's
// words reaches the terminal with no control character (src/cli/printable.ts), so a command line
// cannot erase the permission question and draw another in its place.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createTerminalApprover } from "../../src/cli/approver";
import { printable } from "../../src/cli/printable";
import { createConsoleRenderer } from "../../src/cli/render";

const ESC = "\u001b";
const FAKE = `${ESC}[3A${ESC}[G${ESC}[J? Allow read_file {"file_path":"README.md"} (reading it needs approval)? [y/N/message] ${ESC}[8m`;

describe("printable", () => {
  it("shows ESC, C0/C1 controls, DEL and bidi controls as visible escapes; keeps newlines, tabs, emoji joiners", () => {
    expect(printable(`a${ESC}[2Kb\u0007c\u009bd\u007fe\u202ef\u2066g`)).toBe("a\\x1b[2Kb\\x07c\\x9bd\\x7fe\\u202ef\\u2066g");
    expect(printable("one\n\ttwo\r\nthree")).toBe("one\n\ttwo\nthree");
    expect(printable("x\ry")).toBe("x\\ry");
    expect(printable("one\ntwo", { keepNewlines: false })).toBe("one\\ntwo");
    expect(printable("👩‍💻 ok")).toBe("👩‍💻 ok");
  });
});

describe("the terminal's permission question", () => {
  it("names the command that would run, with no control character of it reaching the terminal", async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.ReadStream;
    let shown = "";
    const output = new PassThrough() as unknown as NodeJS.WriteStream;
    (output as unknown as PassThrough).on("data", (d: Buffer) => {
      shown += d.toString();
      if (shown.includes("[y/N/message]")) (input as unknown as PassThrough).write("n\n");
    });
    const command = `rm -rf src "${FAKE}"`;
    const answer = await createTerminalApprover(input, output).ask(
      { callId: "c1", tool: "run_command", permission: "Bash", input: { command }, reason: `\`${command}\` needs approval (rm is not a known read-only command)`, summary: command, readOnly: false },
      new AbortController().signal,
    );
    expect(answer.decision).toBe("deny");
    expect(shown).not.toContain(ESC);
    expect(shown).toContain("rm -rf src");
    expect(shown).toContain("\\x1b[3A");
  });

  it("a question for the whole run (a project command's allowed-tools) says what y and N do: allowed for this run, or each call asked", async () => {
    const ask = async (reply: string) => {
      const input = Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.ReadStream;
      let shown = "";
      const output = new PassThrough() as unknown as NodeJS.WriteStream;
      (output as unknown as PassThrough).on("data", (d: Buffer) => {
        shown += d.toString();
        if (shown.includes("[y/N]")) (input as unknown as PassThrough).write(`${reply}\n`);
      });
      const answer = await createTerminalApprover(input, output).ask(
        {
          callId: "c1",
          tool: "write_file",
          permission: "Write",
          input: { file_path: "/w/a.md" },
          reason: `/commit (project) asks for: Write, Bash(git add:*). Allow them until it ends?${ESC}[2K`,
          summary: "this command asks for: Write, Bash(git add:*)",
          readOnly: false,
          forRun: { grants: ["Write", "Bash(git add:*)"] },
        },
        new AbortController().signal,
      );
      return { answer, shown };
    };
    const yes = await ask("y");
    expect(yes.answer).toEqual({ decision: "allow" });
    expect(yes.shown).toContain("y = allow for this run (Write, Bash(git add:*)), N = ask each time [y/N]");
    // Not the per-call question ("Allow write_file …?"), and no message answer (nothing is denied).
    expect(yes.shown).not.toContain("Allow write_file");
    expect(yes.shown).not.toContain("[y/N/message]");
    expect(yes.shown).not.toContain(ESC);
    expect((await ask("")).answer).toEqual({ decision: "deny" });
    expect((await ask("no thanks")).answer).toEqual({ decision: "deny" });
  });

  it("the session's lines (tool calls, notes, the model's text) carry no control character either", () => {
    let out = "";
    let err = "";
    const sink = (f: (s: string) => void) => ({ write: (s: string) => (f(s), true) }) as unknown as NodeJS.WritableStream;
    const r = createConsoleRenderer(
      sink((s) => (out += s)),
      sink((s) => (err += s)),
    );
    r.delta({ type: "text", text: `Sure.${FAKE}\n` });
    r.event({ type: "assistant_message", toolCalls: [{ id: "c1", name: "run_command", input: { command: `rm -rf src "${FAKE}"` }, summary: `rm -rf src "${FAKE}"` }] } as never);
    r.event({ type: "tool_call", callId: "c1", name: "run_command", input: { command: `rm -rf src "${FAKE}"` } } as never);
    r.event({ type: "tool_result", callId: "c1", output: `done${FAKE}`, isError: false, durationMs: 1 } as never);
    expect(out + err).not.toContain(ESC);
    expect(out).toContain('⏺ run_command rm -rf src "\\x1b[3A');
  });
});
