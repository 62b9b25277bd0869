import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CommandLog } from "../../../src/node/commands/log-file";

const dirs: string[] = [];
function newLog(): CommandLog {
  const dir = mkdtempSync(join(tmpdir(), "yoke-log-"));
  dirs.push(dir);
  return new CommandLog(join(dir, "c1.log"));
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("CommandLog", () => {
  it("keeps every raw byte in the file, colours included", () => {
    const log = newLog();
    log.write(Buffer.from("\x1b[31mred\x1b[0m\n"));
    log.close();
    expect(readFileSync(log.path, "utf8")).toBe("\x1b[31mred\x1b[0m\n");
  });

  it("reads pages of lines from any line, across the index checkpoints", () => {
    const log = newLog();
    for (let i = 1; i <= 1000; i++) log.write(Buffer.from(`line ${i}\n`));
    expect(log.totalLines).toBe(1000);
    const page = log.read(600, 3, 10_000);
    expect(page).toEqual({ lines: ["line 600", "line 601", "line 602"], from: 600, to: 602, totalLines: 1000, more: true });
    const last = log.read(999, 10, 10_000);
    expect(last.lines).toEqual(["line 999", "line 1000"]);
    expect(last.more).toBe(false);
  });

  it("counts and returns a last line without a newline", () => {
    const log = newLog();
    log.write(Buffer.from("a\nb\npartial"));
    expect(log.totalLines).toBe(3);
    expect(log.read(2, 10, 1000).lines).toEqual(["b", "partial"]);
  });

  it("stops at the byte budget and cuts a huge line with a count", () => {
    const log = newLog();
    log.write(Buffer.from("x".repeat(200_000) + "\nnext\n"));
    const page = log.read(1, 10, 1000);
    expect(page.lines).toEqual(["x".repeat(1000) + " … [199000 more bytes on this line]"]);
    expect(page.more).toBe(true);
  });

  it("stops logging at its size limit and says so in the log", () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-log-"));
    dirs.push(dir);
    const log = new CommandLog(join(dir, "c1.log"), 10);
    log.write(Buffer.from("12345678\nabcdef\n"));
    log.write(Buffer.from("more\n"));
    log.close();
    expect(readFileSync(log.path, "utf8")).toBe("12345678\na\n[yoke: the log stopped at 10 bytes; later output was not kept]\n");
    expect(log.truncated).toBe(true);
    expect(log.read(1, 10, 1000).lines).toEqual(["12345678", "a", "[yoke: the log stopped at 10 bytes; later output was not kept]"]);
  });

  it("returns nothing past the end", () => {
    const log = newLog();
    log.write(Buffer.from("one\n"));
    expect(log.read(5, 10, 1000)).toEqual({ lines: [], from: 5, to: 4, totalLines: 1, more: false });
  });
});
