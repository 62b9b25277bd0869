// The terminal's "I finished in the browser" for a -32042 (URL elicitation required) wait
// (src/cli/elicitor.ts urlDone): Enter says the user finished; the question is withdrawn when the
// wait ends otherwise (the server's word, the timeout). No terminal: no elicitor at all.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createTerminalElicitor } from "../../../src/cli/elicitor";

function tty() {
  const input = Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.ReadStream;
  const out = new PassThrough();
  let text = "";
  out.on("data", (d: Buffer) => (text += d.toString()));
  return { input, output: out as unknown as NodeJS.WriteStream, text: () => text, type: (s: string) => (input as unknown as PassThrough).write(s) };
}

describe("terminal urlDone", () => {
  it("says what Yoke waits for and resolves on Enter", async () => {
    const t = tty();
    const el = createTerminalElicitor(t.input, t.output)!;
    const done = el.urlDone!({ server: "links", where: "https://auth.example.com", timeoutMs: 120_000 }, new AbortController().signal);
    await new Promise((r) => setTimeout(r, 20));
    expect(t.text()).toContain('Waiting for "links" to hear that you finished at https://auth.example.com (at most 120 s).');
    expect(t.text()).toContain("Press Enter when you have finished in the browser: ");
    t.type("\n");
    await expect(done).resolves.toBeUndefined();
  });
  it("withdrawn when the wait ends otherwise: rejects, and a later Enter is not read by it", async () => {
    const t = tty();
    const el = createTerminalElicitor(t.input, t.output)!;
    const ac = new AbortController();
    const done = el.urlDone!({ server: "links", where: "https://auth.example.com", timeoutMs: 5_000 }, ac.signal);
    ac.abort();
    await expect(done).rejects.toThrow();
  });
  it("no terminal: no elicitor (a headless run waits for the server or the timeout)", () => {
    const input = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.ReadStream;
    expect(createTerminalElicitor(input, new PassThrough() as unknown as NodeJS.WriteStream)).toBeUndefined();
  });
});
