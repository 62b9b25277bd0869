// The composer in code-server (issue 13): an @file mention completed from the keyboard whose
// contents reach the model; while the agent works, a message steered in arrives at the next step,
// a queued one is edited and sent after the task, and a removed one is never sent.
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest } from "../../src/demo/types";
import { readExchange } from "../../src/demo/wire-conversation";
import { waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const TABLE = "# Tide table\n\n| day | high water |\n|-----|------------|\n| Mon | HIGH-WATER-0612 |\n";
const STEER = "Steer: also name the moon";
const QUEUED = "Queued: write the changelog";
const EDITED = "Queued and edited: write the CHANGELOG entry";
const REMOVED = "Queued to remove: delete everything";

/** Resolved by the test once it has typed its messages: the long task's first request waits for it. */
let release: () => void = () => {};
const gate = new Promise<void>((r) => (release = r));

async function script(req: RecordedRequest): Promise<ScriptedTurn> {
  const ex = readExchange(req);
  if (ex.userText === "Summarise the table") return { text: "The table's first high water is HIGH-WATER-0612." };
  if (ex.userText === "Start the long task" && ex.steps.length === 0) {
    await gate;
    return { text: "Reading the README.", toolCalls: [{ name: "read_file", input: { path: "README.md" } }] };
  }
  if (ex.userText === STEER) return { text: "Steered: the moon pulls the tides." };
  if (ex.userText === EDITED) return { text: "Queued answer: CHANGELOG written." };
  return { text: `unexpected prompt: ${ex.userText}` };
}

const allText = (req: RecordedRequest) => JSON.stringify(req.body.messages);
const userContents = (req: RecordedRequest) =>
  ((req.body.messages as Array<{ role: string; content: unknown }>) ?? []).filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));

describe("composer in code-server", () => {
  const vs = useYokeVscode({ name: "composer", model: { script }, files: { "notes/tide-table.md": TABLE }, eachTestStartsIdle: true });

  it("completes an @file mention from the keyboard, and its contents reach the model", async () => {
    const { llm } = vs;
    const shot = vs.screenshots("composer-mention");
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(560);
    const input = frame.locator("[data-testid=prompt-input]");
    await input.waitFor({ state: "visible", timeout: 30_000 });
    await input.click();

    // Escape closes the list without changing the text.
    await input.pressSequentially("@");
    const list = frame.locator("[data-testid=mention-list]");
    await list.waitFor({ state: "visible", timeout: 30_000 });
    await expect.poll(() => frame.locator("[data-testid=mention-item]").count(), { timeout: 30_000 }).toBeGreaterThan(3);
    await input.press("Escape");
    await list.waitFor({ state: "hidden", timeout: 10_000 });
    expect(await input.inputValue()).toBe("@");
    await input.press("Backspace");

    // "@tide" matches src/tides.ts, src/tides.test.ts and notes/tide-table.md: arrow down to the table, Enter picks it.
    await input.pressSequentially("Summarise @tide");
    const target = frame.locator("[data-testid=mention-item]", { hasText: "notes/tide-table.md" });
    await target.waitFor({ state: "visible", timeout: 30_000 });
    expect(await frame.locator("[data-testid=mention-item]").count()).toBeGreaterThan(1);
    for (let i = 0; i < 10 && (await target.getAttribute("aria-selected")) !== "true"; i++) await input.press("ArrowDown");
    expect(await target.getAttribute("aria-selected")).toBe("true");
    await shot("completion");
    await input.press("Enter");
    await list.waitFor({ state: "hidden", timeout: 10_000 });
    const chip = frame.locator("[data-testid=composer-chip]");
    await expect.poll(() => chip.allTextContents()).toEqual(["@notes/tide-table.md"]);
    expect(await input.inputValue()).toBe("Summarise ");
    await input.pressSequentially("the table");
    await shot("chip");
    await input.press("Enter");

    await waitForAssistantText(frame, "HIGH-WATER-0612");
    await waitForState(frame, "done");
    // The sent message shows its chip; the box is empty again.
    const sent = frame.locator("[data-testid=message-user]", { hasText: "Summarise the table" });
    expect(await sent.locator("[data-testid=message-chip]").allTextContents()).toEqual(["@notes/tide-table.md"]);
    expect(await chip.count()).toBe(0);
    // What the model got: the user's words, then the file in its attachment block.
    const req = llm.requests.find((r) => readExchange(r).userText === "Summarise the table")!;
    const users = userContents(req);
    expect(users.at(-2)).toBe("Summarise the table");
    expect(users.at(-1)).toMatch(
      /^<context source="mentions">\n[^]*<attachment kind="file" path="notes\/tide-table.md">\nFile: notes\/tide-table.md \(lines 1-5 of 5\)\n1#[A-Z]{2}\|# Tide table\n[^]*\|\| Mon \| HIGH-WATER-0612 \|\n<\/attachment>/,
    );
    await shot("mention-answered");
  });

  it("steers a message in at the next step; queues, edits and removes messages while the agent works", async () => {
    const { llm } = vs;
    const shot = vs.screenshots("composer-steer");
    const frame = await vs.openPanel();
    const input = frame.locator("[data-testid=prompt-input]");
    const before = llm.requests.length;
    await input.fill("Start the long task");
    await input.press("Enter");
    // The model's first request is out and waits: the agent is working.
    await expect.poll(() => llm.requests.length, { timeout: 30_000 }).toBe(before + 1);
    await frame.locator("[data-testid=steer]").waitFor({ state: "visible", timeout: 30_000 });

    const queued = frame.locator("[data-testid=queued-message]");
    // Enter while it works: steer. The Queue button and Alt+Enter: after the task.
    await input.fill(STEER);
    await input.press("Enter");
    await queued.filter({ hasText: STEER }).waitFor({ timeout: 15_000 });
    await input.fill(QUEUED);
    await frame.locator("[data-testid=queue]").click();
    await input.fill(REMOVED);
    await input.press("Alt+Enter");
    await expect
      .poll(() => queued.evaluateAll((els) => els.map((e) => [e.querySelector("[data-testid=queued-text]")?.textContent, e.getAttribute("data-mode")])))
      .toEqual([
        [STEER, "steer"],
        [QUEUED, "queue"],
        [REMOVED, "queue"],
      ]);

    // Edit the queued one (Enter saves), remove the other.
    await queued.filter({ hasText: QUEUED }).locator("[data-testid=queued-edit]").click();
    const editor = frame.locator("[data-testid=queued-editor]");
    await editor.waitFor({ timeout: 10_000 });
    await editor.fill(EDITED);
    await editor.press("Enter");
    await queued.filter({ hasText: EDITED }).waitFor({ timeout: 15_000 });
    await queued.filter({ hasText: REMOVED }).locator("[data-testid=queued-remove]").click();
    await queued.filter({ hasText: REMOVED }).waitFor({ state: "detached", timeout: 15_000 });
    await shot("queue");
    expect(await queued.count()).toBe(2);

    release();
    await waitForAssistantText(frame, "Steered: the moon pulls the tides.");
    await waitForAssistantText(frame, "Queued answer: CHANGELOG written.");
    await waitForState(frame, "done");
    await queued.first().waitFor({ state: "detached", timeout: 15_000 });
    await shot("delivered");

    const requests = llm.requests.slice(before);
    expect(requests).toHaveLength(3);
    // Request 2 (the next step of the same task): the tool result, then the steered message.
    const second = requests[1]!.body.messages as Array<{ role: string; content: unknown }>;
    const toolAt = second.map((m) => m.role).lastIndexOf("tool");
    expect(toolAt).toBeGreaterThan(0);
    expect(second[toolAt + 1]).toMatchObject({ role: "user", content: STEER });
    expect(second).toHaveLength(toolAt + 2);
    expect(allText(requests[1]!)).not.toContain("CHANGELOG");
    // Request 3: after the task, the edited queued message as a message of its own.
    expect(readExchange(requests[2]!).userText).toBe(EDITED);
    for (const r of llm.requests) {
      expect(allText(r)).not.toContain(REMOVED);
      expect(allText(r)).not.toContain(QUEUED);
    }
    // The transcript says how each arrived.
    expect(await frame.locator("[data-testid=message-user][data-delivery=steered]").allTextContents()).toEqual([expect.stringContaining(STEER)]);
    expect(await frame.locator("[data-testid=message-user][data-delivery=queued]").allTextContents()).toEqual([expect.stringContaining(EDITED)]);
  });
});
