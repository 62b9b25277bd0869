// Actions on Yoke's chat panel (inside its webview frame), through the data-testid hooks.
import type { Frame } from "playwright-core";

/** Types `text` into the prompt box and clicks send. */
export async function sendPrompt(frame: Frame, text: string): Promise<void> {
  const input = frame.locator("[data-testid=prompt-input]");
  await input.waitFor({ state: "visible", timeout: 30_000 });
  await input.fill(text);
  await frame.locator("[data-testid=send]").click();
}

/** Waits until an assistant message contains `text`; returns that message's full text. */
export async function waitForAssistantText(frame: Frame, text: string, timeoutMs = 60_000): Promise<string> {
  // The final message, not the one still streaming: its text so far may stop anywhere.
  const msg = frame.locator("[data-testid=message-assistant]:not(.streaming)", { hasText: text }).first();
  await msg.waitFor({ state: "visible", timeout: timeoutMs });
  return (await msg.textContent()) ?? "";
}

/** All texts of the elements matching a data-testid, in order. */
export async function texts(frame: Frame, testid: string): Promise<string[]> {
  return frame.locator(`[data-testid=${testid}]`).allTextContents();
}

/** Opens a tool card (a <details>) and returns the text of its result. */
export async function expandToolCard(frame: Frame, toolName: string): Promise<string> {
  const card = frame.locator(`[data-testid=tool-card][data-tool-name=${toolName}]`).first();
  await card.waitFor({ state: "visible", timeout: 30_000 });
  if (!(await card.evaluate((el) => (el as HTMLDetailsElement).open))) await card.locator("summary").click();
  const output = card.locator("[data-testid=tool-output]");
  await output.waitFor({ state: "visible", timeout: 15_000 });
  return (await output.textContent()) ?? "";
}

/** Waits until the header's status shows `state` (e.g. "done" once a run has finished). */
export async function waitForState(frame: Frame, state: string, timeoutMs = 60_000): Promise<void> {
  await frame.locator(`[data-testid=status][data-state=${state}]`).waitFor({ state: "attached", timeout: timeoutMs });
}

/** The text of the last assistant message. */
export async function lastAssistantText(frame: Frame): Promise<string> {
  return (await frame.locator("[data-testid=message-assistant]").last().textContent()) ?? "";
}
