// Verification in a real VS Code: the agent writes a TypeScript file with a type error, VS Code's
// built-in TypeScript language features report it, and the model receives that diagnostic (and
// not the problems the file did not get from the agent); before the agent finishes,
// verification.command runs in the sandbox and the panel shows its evidence under the answer.
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const BAD = 'export const count: number = "three";\n';
const told = (req: RecordedRequest) => JSON.stringify(req.body.messages);

function script(req: RecordedRequest): ScriptedTurn {
  const sent = told(req);
  if (!sent.includes('"name":"write_file"')) return { text: "Writing it.", toolCalls: [{ name: "write_file", input: { path: "src/count.ts", content: BAD } }] };
  return { text: "Wrote src/count.ts." };
}

describe("verification after the agent's edits", () => {
  const vs = useYokeVscode({
    name: "verification",
    model: { script },
    // A looser mode counts only from the user's own settings; the workspace's check goes through the gate.
    userSettings: { "yoke.permissionMode": "acceptEdits" },
    workspaceSettings: { "yoke.verification": { command: "test -f src/count.ts && echo verified-count" } },
  });

  it("gives the model the TypeScript error its edit introduced, then runs the check and shows the evidence", async () => {
    const { llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    // A TypeScript file open in the editor, as while working on the project: the language server is up.
    await vs.page.locator(".explorer-folders-view .monaco-list-row", { hasText: "src" }).first().click();
    await vs.page.locator(".explorer-folders-view .monaco-list-row", { hasText: "tides.ts" }).first().click();
    await vs.page.locator(".editor-instance .view-lines", { hasText: "export" }).first().waitFor({ timeout: 30_000 });
    const frame = await vs.openPanel();
    await vs.widenSideBar(520);
    await sendPrompt(frame, "Add a count constant in src/count.ts");
    await waitForAssistantText(frame, "Wrote src/count.ts.", 120_000);
    await waitForState(frame, "done", 60_000);

    // The request after the edit carries the language server's diagnostic for the changed file.
    const after = llm.requests.map(told).find((t) => t.includes("introduced"));
    expect(after, llm.requests.map(told).join("\n\n")).toBeDefined();
    expect(after).toContain("in the files you changed (reported by the language server; problems that were there before your edits are left out):");
    expect(after).toMatch(/- src\/count\.ts:1:\d+ error \(ts 2322\): Type '(string|"three")' is not assignable to type 'number'\./);
    expect(after).toContain("Fix them before you finish, or say why they are expected.");

    // The evidence under the answer: the diagnostics and the check, with its output reference.
    const notices = frame.locator("[data-testid=notice]");
    await notices.filter({ hasText: "check `test -f src/count.ts && echo verified-count` passed" }).first().waitFor({ timeout: 30_000 });
    const all = await notices.allTextContents();
    expect(all.some((t) => /1 new problem in src\/count\.ts \(language server/.test(t))).toBe(true);
    expect(all.some((t) => /✓ check `test -f src\/count\.ts && echo verified-count` passed \(exit 0, [\d.]+ m?s\) · output c\d+/.test(t))).toBe(true);
    await shot("evidence");
  });
});
