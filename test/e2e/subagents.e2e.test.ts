// A sub-agent in a real VS Code: the (scripted) parent model calls `task`; the child session — a
// separate conversation with read-only tools — reads a file and answers; the panel shows the child
// nested and collapsible under the task card, the parent's transcript gets the distilled result,
// and the child's tool output never reaches the parent model's requests.
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { expandToolCard, sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const SECRET = "QUOKKA-5521-only-the-child-saw-this";
const ANSWER = "notes/tides.md:1 says the tidal period is 12 h 25 min.";

type Json = Record<string, unknown>;
const systemOf = (req: RecordedRequest) => String(((req.body.messages as Json[] | undefined)?.[0] as Json | undefined)?.content ?? "");
const isChild = (req: RecordedRequest) => systemOf(req).includes("You are a sub-agent (depth 1)");
const toolNames = (req: RecordedRequest) => ((req.body.tools as Array<{ function?: { name?: string } }> | undefined) ?? []).map((t) => t.function?.name ?? "");
const hasToolResult = (req: RecordedRequest) => (req.body.messages as Json[]).some((m) => m.role === "tool");

function script(req: RecordedRequest): ScriptedTurn {
  if (isChild(req)) {
    if (!hasToolResult(req)) return { toolCalls: [{ name: "read_file", input: { path: "notes/tides.md" } }] };
    return { text: ANSWER };
  }
  if (!hasToolResult(req))
    return { text: "I'll ask a sub-agent.", toolCalls: [{ name: "task", input: { description: "Find the tide period", prompt: "Read notes/tides.md and report the tidal period with its line." } }] };
  return { text: "The sub-agent found it: the tidal period is 12 h 25 min." };
}

describe("sub-agents in code-server", () => {
  const vs = useYokeVscode({ name: "subagents", model: { script }, files: { "notes/tides.md": `Tidal period: 12 h 25 min. Marker ${SECRET}\n` } });

  it("shows the sub-agent nested under its task call, its result in the parent's transcript, and keeps its tool output out of the parent's context", async () => {
    const { llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(560);

    await sendPrompt(frame, "What is the tidal period in the notes?");
    await waitForAssistantText(frame, "the tidal period is 12 h 25 min", 90_000);
    await waitForState(frame, "done");
    await shot("answered");

    // The nested view: right under the task card, collapsed, expandable to the child's steps.
    const card = frame.locator("[data-testid=tool-card][data-tool-name=task]");
    await card.waitFor({ state: "visible", timeout: 30_000 });
    const callId = await card.getAttribute("data-id");
    const sub = frame.locator("[data-testid=subagent]");
    await sub.waitFor({ state: "visible", timeout: 30_000 });
    expect(await sub.getAttribute("data-call-id")).toBe(callId);
    expect(await sub.getAttribute("data-status")).toBe("completed");
    expect(await card.evaluate((el) => el.nextElementSibling?.getAttribute("data-testid"))).toBe("subagent");
    expect(await sub.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    expect(await sub.locator("summary").textContent()).toContain("Find the tide period");
    await sub.locator("summary").click();
    const step = sub.locator("[data-testid=subagent-step]");
    await step.first().waitFor({ state: "visible", timeout: 15_000 });
    expect(await step.count()).toBe(1);
    expect(await step.first().textContent()).toContain("read_file");
    // Steps are one-line summaries, never the output the child saw.
    expect(await sub.textContent()).not.toContain(SECRET);
    await shot("subagent-expanded");
    await sub.locator("summary").click();
    expect(await sub.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);

    // The parent's transcript: the task card's result is the distilled answer.
    const output = await expandToolCard(frame, "task");
    expect(output).toMatch(/^Sub-agent "Find the tide period" completed \(2 turns, 1 tool call; session [\w.-]+\)\./);
    expect(output).toContain("Files read: notes/tides.md");
    expect(output).toContain(ANSWER);
    expect(output).not.toContain(SECRET);
    await shot("task-card-expanded");

    // What each model received: the child read the file (marker included); the parent never saw it.
    const child = llm.requests.filter(isChild);
    const parent = llm.requests.filter((r) => !isChild(r));
    expect(child).toHaveLength(2);
    expect(parent).toHaveLength(2);
    expect(JSON.stringify(child[1]!.body)).toContain(SECRET);
    expect(toolNames(child[0]!)).toContain("read_file");
    expect(toolNames(child[0]!)).not.toContain("write_file");
    expect(toolNames(child[0]!)).not.toContain("run_command");
    for (const r of parent) expect(JSON.stringify(r.body)).not.toContain(SECRET);
    expect(JSON.stringify(parent[1]!.body)).toContain(ANSWER);

    // The history lists the sub-agent's session right under the session that started it, indented.
    await frame.locator("[data-testid=history] summary").click();
    const items = frame.locator("[data-testid=session-item]");
    await expect.poll(() => items.count(), { timeout: 15_000 }).toBe(2);
    const rows = await items.evaluateAll((els) => els.map((e) => ({ title: e.querySelector(".session-title")?.textContent ?? "", sub: e.classList.contains("sub-session") })));
    expect(rows).toEqual([
      { title: expect.stringContaining("What is the tidal period") as unknown as string, sub: false },
      { title: expect.stringMatching(/^↳ sub-agent: /) as unknown as string, sub: true },
    ]);
    expect(await items.nth(1).evaluate((el) => parseFloat(getComputedStyle(el).paddingLeft))).toBeGreaterThan(await items.nth(0).evaluate((el) => parseFloat(getComputedStyle(el).paddingLeft)));
    await shot("history-nested");
  });
});
