// A Roo Code global custom mode in a real VS Code (code-server): the mode lives where Roo keeps it,
// in the running VS Code's own user data (`--user-data-dir U`: U/User/globalStorage/
// rooveterinaryinc.roo-cline/settings/custom_modes.yaml), not in ~/.config/Code. Yoke's panel finds
// it beside its own global storage, and when the (scripted) model asks for the mode through `task`,
// the sub-agent's model gets the mode's role and instructions and the mode's rules, Roo's way: the
// user's ~/.roo/rules-{slug}/ then the project's .roo/rules-{slug}/.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

type Json = Record<string, unknown>;
const systemOf = (req: RecordedRequest) => String(((req.body.messages as Json[] | undefined)?.[0] as Json | undefined)?.content ?? "");
const isChild = (req: RecordedRequest) => systemOf(req).includes("You are a sub-agent (depth 1)");
const hasToolResult = (req: RecordedRequest) => (req.body.messages as Json[]).some((m) => m.role === "tool");

function script(req: RecordedRequest): ScriptedTurn {
  if (isChild(req)) return { text: "High tide at 06:12 (TIDE-CHILD-ANSWER)." };
  if (!hasToolResult(req)) return { text: "Asking the tide keeper.", toolCalls: [{ name: "task", input: { description: "Tide times", prompt: "When is high tide?", subagent_type: "tide-keeper" } }] };
  return { text: "The tide keeper says high tide is at 06:12." };
}

const MODES = [
  "customModes:",
  "  - slug: tide-keeper",
  "    name: Tide keeper",
  "    roleDefinition: You keep the tide tables (GLOBAL-ROO-ROLE).",
  "    whenToUse: Questions about tide times",
  "    customInstructions: Answer in local time (GLOBAL-ROO-INSTRUCTIONS).",
  "    groups: [read]",
  "",
].join("\n");

describe("Roo Code global modes in code-server", () => {
  const vs = useYokeVscode({
    name: "roo-global-modes",
    model: { script },
    userFiles: { "globalStorage/rooveterinaryinc.roo-cline/settings/custom_modes.yaml": MODES },
    files: { ".roo/rules-tide-keeper/01-project.md": "Use the harbour's gauge (PROJECT-MODE-RULE).\n", "notes/tides.md": "tides\n" },
  });

  it("a global mode from the running VS Code's user data is an agent whose role, instructions and rules reach its model", async () => {
    // The user's own rules for the mode (Roo's ~/.roo/rules-{slug}/), in the home code-server runs with.
    mkdirSync(join(vs.server.home, ".roo", "rules-tide-keeper"), { recursive: true });
    writeFileSync(join(vs.server.home, ".roo", "rules-tide-keeper", "mine.md"), "Round to the minute (USER-MODE-RULE).\n");
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await sendPrompt(frame, "When is high tide?");
    await waitForAssistantText(frame, "high tide is at 06:12", 120_000);
    await waitForState(frame, "done");
    await shot("answered");

    const { llm } = vs;
    const parent = llm.requests.filter((r) => !isChild(r));
    const child = llm.requests.filter(isChild);
    // The parent's model is offered the mode by its whenToUse (the task tool's description).
    expect(JSON.stringify(parent[0]!.body.tools)).toContain("tide-keeper");
    expect(JSON.stringify(parent[0]!.body.tools)).toContain("Questions about tide times");
    expect(child.length).toBeGreaterThan(0);
    const sys = systemOf(child[0]!);
    for (const m of ["GLOBAL-ROO-ROLE", "GLOBAL-ROO-INSTRUCTIONS", "USER-MODE-RULE", "PROJECT-MODE-RULE"]) expect(sys, m).toContain(m);
    // Roo's order: the user's rules folder, then the project's.
    expect(sys.indexOf("USER-MODE-RULE")).toBeLessThan(sys.indexOf("PROJECT-MODE-RULE"));
    // The mode's text is the sub-agent's, never the parent conversation's.
    for (const r of parent) expect(JSON.stringify(r.body)).not.toContain("GLOBAL-ROO-ROLE");
    expect(JSON.stringify(parent.at(-1)!.body)).toContain("TIDE-CHILD-ANSWER");
  });
});
