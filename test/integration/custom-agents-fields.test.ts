// Claude Code's further agent fields through full `yoke run` sessions with the scripted model
// (issue 23): the agent's body replaces Yoke's prose in its system prompt (the harness parts kept),
// `skills` are preloaded in full, and `permissionMode` applies — never looser than the user allows:
// a repository agent's bypassPermissions is ignored with a note (its command is asked, so refused
// here, and never runs), while the user's own agent in acceptEdits writes without asking. Plugin
// commands named as single files in plugin.json run as /plugin:command. Agent files are written from
// Claude Code's sub-agent and plugin reference.
import { existsSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { subagentDepthOf as depthOf, systemPromptOf as system } from "../support/scripted-run";
import { writeWithParents as write } from "../support/workspace";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});
beforeAll(() => ensureBuilt(), 120_000);

type Json = Record<string, unknown>;

function byDepth(queues: Record<number, ScriptedTurn[]>) {
  return async (r: RecordedRequest): Promise<ScriptedTurn> => queues[depthOf(r)]?.shift() ?? { text: "(no more turns)" };
}

function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-fields-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  write(join(ws, "README.md"), "# app\n");
  write(
    join(ws, ".claude", "agents", "releaser.md"),
    "---\nname: releaser\ndescription: Prepares a release\ntools: Bash, Read\npermissionMode: bypassPermissions\nskills:\n  - release-notes\n---\nYou prepare releases (RELEASER-PROMPT).\n",
  );
  write(join(ws, ".claude", "skills", "release-notes", "SKILL.md"), "---\nname: release-notes\ndescription: Write release notes\n---\nGroup changes by kind (RELEASE-NOTES-SKILL-BODY).\n");
  write(join(home, ".claude", "agents", "scribe.md"), "---\nname: scribe\ndescription: Writes notes files\ntools: Write, Read\npermissionMode: acceptEdits\n---\nYou write notes (SCRIBE-PROMPT).\n");
  return { ws, home, sessions: join(dir, "sessions") };
}

const cli = (s: ReturnType<typeof setup>, url: string, prompt: string) => runCli([...scriptedRunArgs(url, s.ws, s.sessions), prompt], { env: { HOME: s.home } });

describe("custom agents: prompt, skills, permissionMode", () => {
  it("a repository agent's body replaces Yoke's prose, its skill is preloaded, its bypassPermissions is ignored with a note (the command is asked, refused, never runs)", async () => {
    const s = setup();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Release", prompt: "Prepare the release.", subagent_type: "releaser" } }] }, { text: "Done." }],
        1: [{ toolCalls: [{ name: "run_command", input: { command: "touch released.txt" } }] }, { text: "Could not run the command." }],
      }),
    });
    const r = await cli(s, server.openaiBaseUrl, "release it");
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => depthOf(q) === 1);
    expect(child.length).toBeGreaterThanOrEqual(1);
    const sys = system(child[0]!);
    // The agent's prose, not Yoke's: identity line and "How to work" gone; the harness parts kept.
    expect(sys).toContain("RELEASER-PROMPT");
    expect(sys).not.toContain("You are Yoke, a coding agent");
    expect(sys).not.toContain("How to work:");
    expect(sys).toContain(`Workspace root: ${s.ws}`);
    expect(sys).toContain("`LINE#HH|text`");
    expect(sys).toContain("You are a sub-agent (depth 1)");
    expect(sys).toContain('Skill "release-notes" (preloaded for this agent):\nGroup changes by kind (RELEASE-NOTES-SKILL-BODY).');
    // The parent's own prompt is Yoke's.
    expect(system(server.requests[0]!)).toContain("You are Yoke, a coding agent");
    // bypassPermissions from the repository: ignored, said so; the command was asked (no terminal: refused) and never ran.
    expect(r.stderr).toContain('permissionMode "bypassPermissions" is ignored: an agent from the repository may not loosen your permission mode (default)');
    expect(existsSync(join(s.ws, "released.txt"))).toBe(false);
    const result = (child[1]!.body.messages as Json[]).find((m) => m.role === "tool") as { content: string };
    expect(result.content).not.toContain("exit 0");
  }, 120_000);

  it("the user's own agent with permissionMode acceptEdits writes a file without being asked", async () => {
    const s = setup();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Notes", prompt: "Write NOTES.md.", subagent_type: "scribe" } }] }, { text: "Done." }],
        1: [{ toolCalls: [{ name: "write_file", input: { path: "NOTES.md", content: "written by scribe\n" } }] }, { text: "Wrote NOTES.md." }],
      }),
    });
    const r = await cli(s, server.openaiBaseUrl, "write the notes");
    expect(r.code, r.stderr).toBe(0);
    expect(system(server.requests.find((q) => depthOf(q) === 1)!)).toContain("SCRIBE-PROMPT");
    expect(readFileSync(join(s.ws, "NOTES.md"), "utf8")).toBe("written by scribe\n");
    expect(r.stderr).not.toContain("is ignored");
  }, 120_000);

  it("without the agent's mode the same write is asked and refused (the contrast: the mode is what allowed it)", async () => {
    const s = setup();
    write(join(s.home, ".claude", "agents", "scribe.md"), "---\nname: scribe\ndescription: Writes notes files\ntools: Write, Read\n---\nYou write notes (SCRIBE-PROMPT).\n");
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Notes", prompt: "Write NOTES.md.", subagent_type: "scribe" } }] }, { text: "Done." }],
        1: [{ toolCalls: [{ name: "write_file", input: { path: "NOTES.md", content: "written by scribe\n" } }] }, { text: "Could not write." }],
      }),
    });
    const r = await cli(s, server.openaiBaseUrl, "write the notes");
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(s.ws, "NOTES.md"))).toBe(false);
  }, 120_000);

  it("a plugin command named as a single file in plugin.json runs as /plugin:command, its text expanded for the model", async () => {
    const s = setup();
    const market = join(s.ws, "..", "market");
    const kit = join(market, "kit");
    write(join(kit, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "kit", commands: ["./custom/special.md"] }));
    write(join(kit, "custom", "special.md"), "---\ndescription: A special command\n---\nDo the special thing with $ARGUMENTS (SPECIAL-CMD-BODY).\n");
    write(join(kit, "custom", "not-listed.md"), "NOT-LISTED-BODY\n");
    write(join(market, ".claude-plugin", "marketplace.json"), JSON.stringify({ name: "m", owner: { name: "t" }, plugins: [{ name: "kit", source: "./kit" }] }));
    const env = { env: { HOME: s.home } };
    expect((await runCli(["plugins", "marketplace", "add", market], env)).code).toBe(0);
    expect((await runCli(["plugins", "install", "kit@m"], env)).code).toBe(0);
    server = await startScriptedLlmServer({ script: async () => ({ text: "ok" }) });
    const r = await cli(s, server.openaiBaseUrl, "/kit:special widgets");
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.stringify(server.requests[0]!.body.messages);
    expect(sent).toContain("Do the special thing with widgets (SPECIAL-CMD-BODY).");
    // The listing names it with its origin; the file the manifest did not name is not a command.
    const list = JSON.parse((await runCli(["lessons", "list", "--cwd", s.ws, "--json"], env)).stdout) as { items: Array<{ kind: string; name: string; origin: string; plugin?: string }> };
    // (The workspace's own skill is a command too, /release-notes, as Claude Code runs skills.)
    expect(list.items.filter((i) => i.kind === "command" && i.origin === "plugin").map((i) => [i.name, i.origin, i.plugin])).toEqual([["/special", "plugin", "kit@m"]]);
  }, 120_000);
});
