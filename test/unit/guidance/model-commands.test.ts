// Session 23 (modelcmd23): custom commands the model may run, listed beside the skills by the
// guidance and run by load_skill through the custom commands (a real session, the scripted provider,
// real files): the listing's budget with 200 commands, the user-only ones neither listed nor run,
// a skill winning over a command of its name, and the arguments filling the command's text.
import { afterEach, describe, expect, it } from "vitest";
import { guidanceExtension, DEFAULT_BUDGET } from "../../../src/core/guidance";
import { customCommandsExtension, modelCommandBridge, parseCommandFile, type CommandSource, type CustomCommand } from "../../../src/core/custom-commands";
import { estimateTokens } from "../../../src/core/guidance/match";
import { AgentSession } from "../../../src/core/loop/agent-session";
import { silentLogger } from "../../../src/core/ports";
import type { ModelMessage } from "../../../src/core/providers/types";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { createFakeProvider, textTurn, toolTurn, type FakeTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

function command(root: string, rel: string, raw: string, format: CommandSource["format"] = "claude", dir = `${root}/.claude/commands`): CustomCommand {
  const c = parseCommandFile({ dir, format, origin: "project" }, rel, raw).command;
  if (!c) throw new Error(`not a command: ${rel}`);
  return c;
}

function session(turns: FakeTurn[], commands: (root: string) => CustomCommand[]) {
  ws = createTempWorkspace({ ".claude/skills/tidy/SKILL.md": "---\nname: tidy\ndescription: the skill tidy\n---\nTIDY-SKILL-BODY\n", "README.md": "x\n" });
  const root = ws.root;
  const provider = createFakeProvider(turns);
  const bridge = modelCommandBridge();
  const list = commands(root);
  return {
    provider,
    create: () =>
      AgentSession.create({
        store: createMemoryStore(),
        provider,
        tools: createBuiltinTools(),
        services: { fs: ws!.fs, search: ws!.search, log: silentLogger },
        approver: { ask: async () => ({ decision: "deny" }) },
        retry: { maxRetries: 0 },
        permissionMode: "bypassPermissions",
        extensions: [
          guidanceExtension({ commands: bridge }),
          customCommandsExtension({
            load: async () => ({ commands: list, problems: [] }),
            check: async () => ({ decision: "allow", by: "mode", reason: "test", rule: null }),
            approver: { ask: async () => ({ decision: "deny" }) },
            bridge,
          }),
        ],
      }),
  };
}

const userTexts = (messages: readonly ModelMessage[]) => messages.filter((m) => m.role === "user").map((m) => (m as { text: string }).text);
const toolTexts = (messages: readonly ModelMessage[]) => JSON.stringify(messages.filter((m) => m.role === "tool"));

describe("custom commands the model may run", () => {
  it("200 commands: listed beside the skills within the skill list's budget, the rest named as left out", async () => {
    const { provider, create } = session([textTurn("ok")], (root) =>
      Array.from({ length: 200 }, (_, i) =>
        command(root, `c${String(i).padStart(3, "0")}.md`, `---\ndescription: command number ${i} does a thing with a fairly long description to fill the list\n---\nBODY-${i}\n`),
      ),
    );
    const s = await create();
    await s.send("hello");
    const list = userTexts(provider.requests[0]!.messages).find((t) => t.includes("load_skill"))!;
    expect(list).toContain("- tidy: the skill tidy");
    expect(list).toContain("- c000: (command) command number 0");
    const shown = list.split("\n").filter((l) => /^- c\d{3}:/.test(l)).length;
    expect(shown).toBeGreaterThan(5);
    expect(shown).toBeLessThan(200);
    expect(list).toMatch(new RegExp(`\\(${200 - shown} more not listed for space`));
    expect(estimateTokens(list)).toBeLessThanOrEqual(DEFAULT_BUDGET.catalogTokens);
    expect(list).not.toContain("BODY-");
  });

  it("load_skill runs one with arguments; disable-model-invocation, no description, another tool's prompt file and a skill's name are not run as commands", async () => {
    const { provider, create } = session(
      [
        toolTurn({ id: "a", name: "load_skill", input: { name: "hello", arguments: "Ada Lovelace" } }),
        toolTurn({ id: "b", name: "load_skill", input: { name: "ship" } }),
        toolTurn({ id: "c", name: "load_skill", input: { name: "blank" } }),
        toolTurn({ id: "d", name: "load_skill", input: { name: "plan" } }),
        toolTurn({ id: "e", name: "load_skill", input: { name: "tidy" } }),
        textTurn("done"),
      ],
      (root) => [
        command(root, "hello.md", "---\ndescription: says hello\nargument-hint: FIRST LAST\n---\nHELLO-BODY to $0 (family $1; all: $ARGUMENTS)\n"),
        command(root, "ship.md", "---\ndescription: ships it\ndisable-model-invocation: true\n---\nSHIP-BODY\n"),
        command(root, "blank.md", ""),
        command(root, "plan.prompt.md", "---\ndescription: plans\n---\nPLAN-BODY\n", "copilot", `${root}/.github/prompts`),
        command(root, "tidy.md", "---\ndescription: the command tidy\n---\nTIDY-COMMAND-BODY\n"),
      ],
    );
    const s = await create();
    await s.send("go");
    const r = provider.requests;
    const list = userTexts(r[0]!.messages).find((t) => t.includes("load_skill"))!;
    expect(list).toContain("- hello: (command, arguments: FIRST LAST) says hello");
    for (const name of ["ship", "blank", "plan"]) expect(list).not.toMatch(new RegExp(`^- ${name}\\b`, "m"));
    expect(list).not.toContain("the command tidy");
    expect(toolTexts(r[1]!.messages)).toContain("HELLO-BODY to Ada (family Lovelace; all: Ada Lovelace)");
    expect(toolTexts(r[2]!.messages)).toContain("disable-model-invocation: true: only the user may run it");
    expect(toolTexts(r[2]!.messages)).not.toContain("SHIP-BODY");
    expect(toolTexts(r[3]!.messages)).toContain("has no description, so it is not offered to the model");
    expect(toolTexts(r[4]!.messages)).toContain("is a copilot prompt file or workflow: only the user runs it");
    expect(toolTexts(r[4]!.messages)).not.toContain("PLAN-BODY");
    // The skill of that name wins (as in Claude Code): its text is loaded, the command's never sent.
    expect(JSON.stringify(r[5]!.messages)).toContain("TIDY-SKILL-BODY");
    expect(JSON.stringify(r[5]!.messages)).not.toContain("TIDY-COMMAND-BODY");
  });
});
