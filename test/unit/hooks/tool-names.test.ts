// Hooks see Claude Code's tool names: a hook matching "Bash" gets run_command's calls, not those of
// command_output and kill_command (Claude Code's BashOutput and KillShell), which carry only an id.
import { describe, expect, it } from "vitest";
import { AgentSession } from "../../../src/core/loop/agent-session";
import type { HookRunner } from "../../../src/core/hooks/run-hooks";
import type { HookEventFields, HookEventName } from "../../../src/core/hooks/types";
import { silentLogger, type Searcher, type WorkspaceFs } from "../../../src/core/ports";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { createFakeProvider, textTurn, toolTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";

describe("tool names in hooks", () => {
  it("gives command_output and kill_command their Claude Code names", async () => {
    const seen: Array<{ event: HookEventName; fields: HookEventFields }> = [];
    const runner: HookRunner = {
      async runHooks(event, fields = {}) {
        seen.push({ event, fields });
        return { event, blocked: false, additionalContext: [], userMessages: [], errors: [], results: [] };
      },
    };
    const s = await AgentSession.create({
      store: createMemoryStore(),
      provider: createFakeProvider([toolTurn({ id: "a", name: "command_output", input: { id: "c1" } }, { id: "b", name: "kill_command", input: { id: "c1" } }), textTurn("ok")]),
      tools: createBuiltinTools(),
      services: { fs: { root: "/ws" } as WorkspaceFs, search: {} as Searcher, log: silentLogger },
      approver: { ask: async () => ({ decision: "allow" }) },
      hooks: () => runner,
      permissionMode: "bypassPermissions",
      retry: { maxRetries: 0 },
    });
    await s.send("check the server");
    const pre = seen.filter((h) => h.event === "PreToolUse").map((h) => [h.fields.tool_name, h.fields.tool_input]);
    expect(pre).toEqual([
      ["BashOutput", { id: "c1" }],
      ["KillShell", { id: "c1" }],
    ]);
  });
});
