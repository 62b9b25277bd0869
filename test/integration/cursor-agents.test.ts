// Cursor's subagents (`.cursor/agents/*.md`, `~/.cursor/agents/*.md`), written from Cursor's subagents
// documentation (name, description, model, readonly, is_background), through a full `yoke run` with
// the scripted model: the model is offered the agent by its description, the agent's body is its
// system prompt, `readonly: true` keeps it from writing (plan mode: the write is refused, the file is
// not created), and what Yoke does not apply is said on the file (`yoke lessons list`).
import { existsSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs, subagentDepthOf as depthOf, systemPromptOf as system } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { writeWithParents as write } from "../support/workspace";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});
beforeAll(() => ensureBuilt(), 120_000);

type Json = Record<string, unknown>;
const byDepth =
  (queues: Record<number, ScriptedTurn[]>) =>
  async (r: RecordedRequest): Promise<ScriptedTurn> =>
    queues[depthOf(r)]?.shift() ?? { text: "(no more turns)" };
const tools = (r: RecordedRequest) => JSON.stringify((r.body.tools as Json[] | undefined) ?? []);

describe("Cursor subagents", () => {
  it("a project .cursor/agents file is offered by its description; readonly keeps it from writing; the user's ~/.cursor/agents one runs with its own prompt", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-cursor-agents-")));
    temps.push(dir);
    const ws = join(dir, "ws");
    const home = join(dir, "home");
    write(join(ws, "README.md"), "# app\n");
    // Cursor's documented shape: the name defaults to the file name.
    write(
      join(ws, ".cursor", "agents", "verifier.md"),
      "---\ndescription: Validates completed work independently; use after tasks are marked done\nmodel: inherit\nreadonly: true\nis_background: true\ntools: Read\n---\nYou are a skeptical validator (VERIFIER-PROMPT). Check that the work really is done.\n",
    );
    write(join(home, ".cursor", "agents", "scout.md"), "---\nname: scout\ndescription: Looks around the repository and reports\nmodel: fast\n---\nYou scout (SCOUT-PROMPT).\n");
    const sessions = join(dir, "sessions");
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [
          { toolCalls: [{ name: "task", input: { description: "Verify", prompt: "Verify the work, then note it in verified.txt.", subagent_type: "verifier" } }] },
          { toolCalls: [{ name: "task", input: { description: "Scout", prompt: "Scout the repo.", subagent_type: "scout" } }] },
          { text: "Done." },
        ],
        1: [{ toolCalls: [{ name: "write_file", input: { path: "verified.txt", content: "ok\n" } }] }, { text: "Could not write." }, { text: "SCOUT-REPORT" }],
      }),
    });
    const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "--permission-mode", "acceptEdits", "verify the work"], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    // Offered to the model by name and description (the task tool lists the custom agents).
    const offered = tools(server.requests[0]!);
    expect(offered).toContain("verifier: Validates completed work independently; use after tasks are marked done");
    expect(offered).toContain("scout: Looks around the repository and reports");
    const child = server.requests.filter((q) => depthOf(q) === 1);
    expect(system(child[0]!)).toContain("VERIFIER-PROMPT");
    // readonly: the write is refused though the session is in acceptEdits; nothing was written.
    expect(existsSync(join(ws, "verified.txt"))).toBe(false);
    const refused = ((child[1]!.body.messages as Json[]).find((m) => m.role === "tool") as { content: string }).content;
    expect(refused).toMatch(/plan/i);
    // The user's Cursor agent: its own prompt; `model: fast` is not a model Yoke can choose (the session's is used).
    expect(system(child[2]!)).toContain("SCOUT-PROMPT");
    expect(child[2]!.body.model).toBe("m");

    // What is not applied is said on the file.
    const listed = await runCli(["lessons", "list", "--cwd", ws], { env: { HOME: home } });
    expect(listed.stdout).toContain("verifier");
    expect(listed.stdout).toContain('not applied: "is_background"');
    expect(listed.stdout).toContain('not applied: "tools" is not a Cursor subagent field');
    expect(listed.stdout).toContain('not applied: "model: fast"');
  }, 180_000);
});
