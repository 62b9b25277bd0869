import { describe, expect, it } from "vitest";
import { renderTerminalText, TerminalLineRenderer } from "../../../src/core/commands/terminal-text";

describe("renderTerminalText", () => {
  it("removes colour codes when the output is coloured", () => {
    expect(renderTerminalText("\x1b[31mred\x1b[0m and \x1b[1;32mgreen\x1b[m\n")).toEqual(["red and green"]);
  });

  it("keeps only the final state of a line when a progress bar redraws it with \\r", () => {
    const raw = "Downloading  10%\rDownloading  55%\rDownloading 100%\ndone\n";
    expect(renderTerminalText(raw)).toEqual(["Downloading 100%", "done"]);
  });

  it("shows what a terminal shows when a shorter redraw does not erase the line", () => {
    expect(renderTerminalText("abcdef\rxy\n")).toEqual(["xycdef"]);
  });

  it("erases the rest of the line when a redraw uses ESC[K or ESC[2K", () => {
    expect(renderTerminalText("installing packages...\r\x1b[Kdone\n")).toEqual(["done"]);
    expect(renderTerminalText("50% [=====     ]\x1b[2K\rok\n")).toEqual(["ok"]);
  });

  it("treats CRLF line ends (pseudo-terminal output) as plain newlines", () => {
    expect(renderTerminalText("one\r\ntwo\r\n")).toEqual(["one", "two"]);
  });

  it("drops window-title and hyperlink sequences", () => {
    const raw = "\x1b]0;my title\x07see \x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\ here\n";
    expect(renderTerminalText(raw)).toEqual(["see link here"]);
  });

  it("handles escape sequences split across chunks", () => {
    const lines: string[] = [];
    const r = new TerminalLineRenderer((l) => lines.push(l));
    for (const part of ["\x1b", "[3", "1mre", "d\x1b[", "0m\n"]) r.push(part);
    expect(lines).toEqual(["red"]);
  });

  it("cuts a very long line and says how much was cut", () => {
    const [line] = renderTerminalText("x".repeat(2500) + "\n", 1000);
    expect(line).toBe("x".repeat(1000) + " … [1500 more characters on this line]");
  });

  it("emits the unfinished last line only at end()", () => {
    const lines: string[] = [];
    const r = new TerminalLineRenderer((l) => lines.push(l));
    r.push("a\nb");
    expect(lines).toEqual(["a"]);
    expect(r.partial()).toBe("b");
    r.end();
    expect(lines).toEqual(["a", "b"]);
  });
});
