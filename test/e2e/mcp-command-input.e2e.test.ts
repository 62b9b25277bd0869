// VS Code `inputs` of `type: "command"` in a real VS Code (code-server): the user's own profile
// mcp.json (User/mcp.json) defines a stdio server (the real server-everything from the npm registry)
// whose environment takes `${input:token}`, the value of a command another extension contributes
// (test/e2e/fixtures/token-command, as an auth extension's "get token" command). Yoke runs that
// command through vscode.commands.executeCommand (src/host/mcp.ts) with the file's `args`, and the
// server gets the value: its get-env tool, called by the scripted model, shows it, and that is what
// reaches the model. A repository's .vscode/mcp.json naming the same command is never run (the
// command's log has the user's call alone) and its server is not started.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { packageFixture } from "./support/fixture-extension";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const RUN = `${process.pid}-${Math.random().toString(36).slice(2)}`;
const MINE = [process.execPath, EVERYTHING, "stdio", `--yoke-e2e=mine-${RUN}`];
const THEIRS = [process.execPath, EVERYTHING, "stdio", `--yoke-e2e=theirs-${RUN}`];
const TOOL = "mcp__mine__get-env";
const TOKEN = "token-for-ada-5521";

/** Live processes whose command line is argv. */
function pidsOf(argv: string[]): number[] {
  const want = argv.join("\0");
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return readFileSync(`/proc/${n}/cmdline`, "utf8").replace(/\0$/, "") === want && readFileSync(`/proc/${n}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
      } catch {
        return false;
      }
    })
    .map(Number);
}

function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  const step = ex.steps.find((s) => s.name === TOOL);
  if (!step) return { text: "Reading the server's environment.", toolCalls: [{ name: TOOL, input: {} }] };
  const token = /SERVICE_TOKEN"?\s*:\s*"([^"]*)"/.exec(step.output)?.[1] ?? "(none)";
  return { text: `The server's SERVICE_TOKEN is ${token}.` };
}

const mcpJson = (argv: string[], name: string) =>
  JSON.stringify({
    inputs: [{ id: "token", type: "command", command: "yokeTestAuth.getToken", args: { account: name === "mine" ? "ada" : "mallory" } }],
    servers: { [name]: { type: "stdio", command: argv[0], args: argv.slice(1), env: { SERVICE_TOKEN: "${input:token}" } } },
  });

describe("MCP command inputs in code-server", () => {
  const dir = mkdtempSync(join(tmpdir(), "yoke-e2e-cmd-input-"));
  const calls = join(dir, "calls.jsonl");
  const vs = useYokeVscode({
    name: "mcp-command-input",
    model: { script },
    userFiles: { "mcp.json": mcpJson(MINE, "mine") },
    files: { ".vscode/mcp.json": mcpJson(THEIRS, "theirs") },
    launch: () => ({ env: { YOKE_TOKEN_FIXTURE_LOG: calls }, extensions: [packageFixture("token-command", dir)] }),
  });

  it("the user's mcp.json command input runs the other extension's command with its args, and the server gets the value; a repository's is never run", async () => {
    const { llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(560);
    await sendPrompt(frame, "what token does the server have?");
    const card = frame.locator(`[data-testid=permission-card][data-tool="${TOOL}"]`);
    await card.waitFor({ timeout: 90_000 });
    await frame.locator("[data-testid=allow-once]").click();
    await waitForAssistantText(frame, `The server's SERVICE_TOKEN is ${TOKEN}.`, 90_000);
    await waitForState(frame, "done");
    await shot("command-input-token");

    // What reached the model: the server's own answer, with the command's value in it.
    const last = readExchange(llm.requests.at(-1)!);
    expect(last.steps.find((s) => s.name === TOOL)?.output).toContain(TOKEN);
    // The command ran once, for the user's file, with that file's args; never for the repository's.
    expect(existsSync(calls)).toBe(true);
    const ran = readFileSync(calls, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { args: unknown });
    expect(ran).toEqual([{ args: { account: "ada" } }]);
    expect(pidsOf(MINE)).toHaveLength(1);
    expect(pidsOf(THEIRS)).toEqual([]);
  });
});
