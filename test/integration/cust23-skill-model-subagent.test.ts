/**
 * Session 23, cust23: a skill's `model` (Claude Code's skill front matter) holds for the turn of the
 * session that loaded it. Session 22 left a lead: a sub-agent loading a skill with a `model` might
 * switch its parent's model until the parent's turn ends (the model switch is the session's). Checked
 * here: it does not — a sub-agent's load applies no model (noted in the log), and the parent keeps
 * its own skill's model through the sub-agent's load and end.
 * A full `yoke run` against the scripted model over HTTP; asserted on the model name each request used.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt, runCli } from "../support/cli";
import { subagentDepthOf } from "../support/scripted-run";

const temps: string[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const skill = (name: string, model: string) => `---\nname: ${name}\ndescription: The ${name} skill\nmodel: ${model}\n---\n${name.toUpperCase()}-BODY\n`;

describe("a skill's model loaded in a sub-agent", () => {
  it("does not change the parent's model: the parent keeps its own skill's model during and after the sub-agent", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-cust23-model-")));
    temps.push(base);
    const ws = join(base, "ws");
    const home = join(base, "home");
    mkdirSync(ws, { recursive: true });
    write(join(home, ".claude/skills/parent-skill/SKILL.md"), skill("parent-skill", "m-parent"));
    write(join(home, ".claude/skills/child-skill/SKILL.md"), skill("child-skill", "m-child"));
    const queues: Record<number, ScriptedTurn[]> = {
      0: [
        { toolCalls: [{ name: "load_skill", input: { name: "parent-skill" } }] },
        { toolCalls: [{ name: "task", input: { description: "look", prompt: "Look around." } }] },
        { text: "Parent done." },
      ],
      1: [{ toolCalls: [{ name: "load_skill", input: { name: "child-skill" } }] }, { text: "Child done." }],
    };
    const llm = await startScriptedLlmServer({ script: async (q: RecordedRequest) => queues[subagentDepthOf(q)]?.shift() ?? { text: "(no more turns)" } });
    try {
      const r = await runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", llm.openaiBaseUrl, "--model", "m", "--cwd", ws, "--session-dir", join(base, "sessions"), "go"], {
        env: { HOME: home, OPENAI_API_KEY: "k" },
      });
      expect(r.code, r.stderr).toBe(0);
      const models = (depth: number) => llm.requests.filter((q) => subagentDepthOf(q) === depth).map((q) => q.body.model);
      // The parent: its own skill's model from the load to the end of its turn, also after the sub-agent's load and end.
      expect(models(0)).toEqual(["m", "m-parent", "m-parent"]);
      // The sub-agent: the model of the moment it started (the parent's), before and after its load;
      // a sub-agent's load applies no model (the log says so), as docs/custom-commands.md says.
      expect(models(1)).toEqual(["m-parent", "m-parent"]);
      const log = readdirSync(join(base, "sessions"), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".jsonl"))
        .map((f) => readFileSync(join(base, "sessions", f), "utf8"))
        .join("\n");
      expect(log).toContain("not applied: its model (a sub-agent loaded it;");
    } finally {
      await llm.close();
    }
  }, 180_000);
});
