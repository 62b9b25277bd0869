// Compaction in a real VS Code: the panel shows the context meter of the session, "Yoke: Compact
// Context" from the command palette compacts it, and the transcript shows the divider with what was kept.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

/** Each message: read the notes file it names, then answer with a decision. */
function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  const file = /notes-\d+\.txt/.exec(ex.userText)?.[0];
  if (file && !ex.steps.some((s) => s.name === "read_file")) return { toolCalls: [{ name: "read_file", input: { path: file } }] };
  return { text: `I decided to keep the tide model as it is because the README explains it. (${ex.userText.slice(0, 20)})` };
}

describe("compaction in code-server", () => {
  const vs = useYokeVscode({ name: "compaction", model: { script } });

  it("shows the context meter, compacts from the palette and shows the divider", async () => {
    const shot = vs.screenshots();
    // Files large enough that compacting the earlier reads frees a clear amount (the last four
    // tool results are always kept as they are).
    const prompts = ["Read notes-1.txt. Never change the tide constants.", ...[2, 3, 4, 5, 6].map((n) => `Read notes-${n}.txt.`)];
    for (let n = 1; n <= 6; n++) {
      writeFileSync(vs.path(`notes-${n}.txt`), Array.from({ length: 300 }, (_, i) => `Note ${n}.${i}: the tide table for station ${i * 7} was checked on day ${i % 28}.`).join("\n") + "\n");
    }
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(560);
    for (const [i, text] of prompts.entries()) {
      await sendPrompt(frame, text);
      await frame.locator("[data-testid=message-user]", { hasText: text }).waitFor();
      await waitForState(frame, "done");
      expect(i).toBeGreaterThanOrEqual(0);
    }
    const meter = frame.locator("[data-testid=context-meter]");
    await meter.waitFor({ state: "visible", timeout: 30_000 });
    expect(await frame.locator("[data-testid=context-meter-label]").textContent()).toMatch(/^Context [\d.]+k? \/ [\d.]+k.*auto-compacts at 80 %/);
    await shot("meter");
    await vs.runCommand("Yoke: Compact Context");
    const divider = frame.locator("[data-testid=compaction-divider]");
    await divider.waitFor({ state: "visible", timeout: 30_000 });
    const text = (await divider.textContent()) ?? "";
    expect(text).toContain("Compacted on request");
    expect(text).toMatch(/Kept: .*of your messages verbatim/);
    await shot("divider");
    // The next request starts with the summary and carries the constraint verbatim.
    const before = vs.llm.requests.length;
    await sendPrompt(frame, "What did we decide?");
    // The state was already "done": wait for the new request, not only for the state.
    await expect.poll(() => vs.llm.requests.length, { timeout: 30_000 }).toBeGreaterThan(before);
    await waitForState(frame, "done");
    const last = vs.llm.requests.at(-1)!;
    const body = JSON.stringify(last.body);
    expect(body).toContain("The earlier part of this session was compacted");
    expect(body).toContain("Never change the tide constants.");
  }, 240_000);
});
