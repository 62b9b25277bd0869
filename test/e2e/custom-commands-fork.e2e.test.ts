// A forked command (Claude Code's `context: fork`) typed in the panel: while its sub-agent works the
// person sees it as a task call — a tool card with the sub-agent's progress nested under it — and
// then the answer, built from what the sub-agent returned. The panel draws what the events describe
// (a tool_call and tool_result of the task tool); nothing in it knows about commands.
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest } from "../../src/demo/types";
import { expandToolCard, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

type Json = Record<string, unknown>;
const systemOf = (req: RecordedRequest) => String(((req.body.messages as Json[] | undefined)?.[0] as Json | undefined)?.content ?? "");
const isChild = (req: RecordedRequest) => systemOf(req).includes("You are a sub-agent (depth 1)");
const hasToolResult = (req: RecordedRequest) => (req.body.messages as Json[]).some((m) => m.role === "tool");

function script(req: RecordedRequest): ScriptedTurn {
  if (isChild(req)) {
    if (!hasToolResult(req)) return { toolCalls: [{ name: "read_file", input: { path: "notes/tides.md" } }] };
    return { text: "FORK-ANSWER: the notes give a tidal period of 12 h 25 min." };
  }
  if (JSON.stringify(req.body.messages).includes("FORK-ANSWER")) return { text: "The survey found the tidal period: 12 h 25 min." };
  return { text: "unexpected prompt" };
}

describe("a forked command in code-server", () => {
  const vs = useYokeVscode({
    name: "custom-commands-fork",
    model: { script },
    files: {
      "notes/tides.md": "Tidal period: 12 h 25 min.\n",
      ".claude/commands/survey.md": "---\ndescription: Survey the notes in a sub-agent\ncontext: fork\n---\nSURVEY-BODY: read notes/tides.md and report the tidal period.",
    },
  });

  it("typed as /survey shows the message, then a task card with the sub-agent under it, then the answer (also after a reload)", async () => {
    const { llm } = vs;
    const shot = vs.screenshots("custom-commands-fork");
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(560);
    const input = frame.locator("[data-testid=prompt-input]");
    await input.waitFor({ state: "visible", timeout: 30_000 });
    await input.click();
    await input.pressSequentially("/surv");
    await frame.locator("[data-testid=mention-item]", { hasText: "/survey" }).waitFor({ state: "visible", timeout: 30_000 });
    await input.press("Enter");
    await expect.poll(() => input.inputValue()).toBe("/survey ");
    await input.press("Enter");

    await waitForAssistantText(frame, "The survey found the tidal period: 12 h 25 min.", 90_000);
    await waitForState(frame, "done");
    await shot("answered");

    // In the order things happened, as the person sees it: their /survey, then the fork's card (and
    // the sub-agent under it), then the answer. The card is recorded first (the expansion runs the
    // fork before the message carrying its answer is logged); the message is put above it.
    const sequence = () =>
      frame
        .locator("[data-testid=message-user], [data-testid=tool-card], [data-testid=message-assistant]")
        .evaluateAll((els) =>
          els.map((el) =>
            el.getAttribute("data-testid") === "tool-card" ? `card:${el.getAttribute("data-tool-name")}` : `${el.getAttribute("data-testid")}:${(el.textContent ?? "").trim().slice(0, 20)}`,
          ),
        );
    const expected = ["message-user:/survey", "card:task", "message-assistant:The survey found the"];
    await expect.poll(sequence, { timeout: 30_000 }).toEqual(expected);

    // The fork's card: the task tool's, its description the command, done, with the sub-agent nested right under it.
    const card = frame.locator("[data-testid=tool-card][data-tool-name=task]");
    await card.waitFor({ state: "visible", timeout: 30_000 });
    expect(await card.count()).toBe(1);
    expect(await card.locator("summary").textContent()).toContain("/survey");
    const sub = frame.locator("[data-testid=subagent]");
    await sub.waitFor({ state: "visible", timeout: 30_000 });
    expect(await sub.getAttribute("data-call-id")).toBe(await card.getAttribute("data-id"));
    expect(await sub.getAttribute("data-status")).toBe("completed");
    expect(await card.evaluate((el) => el.nextElementSibling?.getAttribute("data-testid"))).toBe("subagent");
    await sub.locator("summary").click();
    const step = sub.locator("[data-testid=subagent-step]");
    await step.first().waitFor({ state: "visible", timeout: 15_000 });
    expect(await step.first().textContent()).toContain("read_file");
    const output = await expandToolCard(frame, "task");
    expect(output).toContain("FORK-ANSWER");
    await shot("card-expanded");

    // The same order after a window reload (the panel rebuilt from the session log).
    const reloaded = await vs.reloadWindow();
    await reloaded.locator("[data-testid=message-assistant]", { hasText: "The survey found the tidal period" }).waitFor({ timeout: 30_000 });
    const again = await reloaded
      .locator("[data-testid=message-user], [data-testid=tool-card], [data-testid=message-assistant]")
      .evaluateAll((els) =>
        els.map((el) =>
          el.getAttribute("data-testid") === "tool-card" ? `card:${el.getAttribute("data-tool-name")}` : `${el.getAttribute("data-testid")}:${(el.textContent ?? "").trim().slice(0, 20)}`,
        ),
      );
    expect(again).toEqual(expected);

    // The child got the command's text; the parent's model got only the answer (one request, no tool call of its own).
    const child = llm.requests.filter(isChild);
    const parent = llm.requests.filter((r) => !isChild(r));
    expect(JSON.stringify(child[0]!.body.messages)).toContain("SURVEY-BODY");
    expect(parent).toHaveLength(1);
    expect(JSON.stringify(parent[0]!.body.messages)).toContain("FORK-ANSWER");
    expect((parent[0]!.body.messages as Json[]).some((m) => m.role === "tool")).toBe(false);
  });
});
