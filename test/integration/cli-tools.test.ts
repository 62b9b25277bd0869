import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];

function workspace(files: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "yoke-tools-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(ws, rel, ".."), { recursive: true });
    writeFileSync(join(ws, rel), text);
  }
  return { ws, sessions: join(dir, "sessions"), home: join(dir, "home") };
}

/** The tool result the model received in request n (0-based), OpenAI wire. */
function toolResult(n: number): string {
  const body = server!.requests[n]!.body as { messages: Array<{ role: string; content: string }> };
  return body.messages.filter((m) => m.role === "tool").at(-1)!.content;
}

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

const base = (url: string, ws: string, sessions: string) => ["run", "--trust", "--provider", "openai-compatible", "--base-url", url, "--model", "m", "--cwd", ws, "--session-dir", sessions];

describe("yoke run with the full tool set", () => {
  it("edits a file with SEARCH/REPLACE and runs a command in the sandbox (acceptEdits + allow rule)", async () => {
    const { ws, sessions, home } = workspace({
      "src/a.ts": "export const a = 1;\n",
      ".yoke/settings.json": JSON.stringify({ permissions: { allow: ["Bash(cat:*)"] } }),
    });
    server = await startScriptedLlmServer({
      script: [
        { toolCalls: [{ name: "edit_file", input: { path: "src/a.ts", edits: [{ old_string: "export const a = 1;", new_string: "export const a = 2;" }] } }] },
        { toolCalls: [{ name: "run_command", input: { command: "cat src/a.ts" } }] },
        { text: "Done." },
      ],
    });
    const r = await runCli([...base(server.openaiBaseUrl, ws, sessions), "--permission-mode", "acceptEdits", "set a to 2"], { env: { HOME: home } });
    expect(r.code).toBe(0);
    expect(readFileSync(join(ws, "src/a.ts"), "utf8")).toBe("export const a = 2;\n");
    expect(toolResult(1)).toContain("Edited src/a.ts: +1 -1 lines (1 edit).");
    expect(toolResult(2)).toContain("export const a = 2;");
    expect(toolResult(2)).toMatch(/exit code 0|exited with 0|exit 0/i);
  });

  it("blocks a command with a PreToolUse hook (exit 2) and gives its stderr to the model", async () => {
    const { ws, sessions, home } = workspace({
      ".claude/settings.json": JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo 'rm is not allowed here, use git clean' >&2; exit 2" }] }] },
      }),
      "junk.txt": "x",
    });
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "run_command", input: { command: "rm junk.txt" } }] }, { text: "Understood." }] });
    const r = await runCli([...base(server.openaiBaseUrl, ws, sessions), "--permission-mode", "bypassPermissions", "clean up"], { env: { HOME: home } });
    expect(r.code).toBe(0);
    expect(existsSync(join(ws, "junk.txt"))).toBe(true);
    expect(toolResult(1)).toBe("Permission denied for run_command: rm is not allowed here, use git clean");
  });

  it("denies by rule even in bypassPermissions mode, naming the rule", async () => {
    const { ws, sessions, home } = workspace({ ".yoke/settings.json": JSON.stringify({ permissions: { deny: ["Bash(git push:*)"] } }) });
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "run_command", input: { command: "FOO=1 g'i't push origin main" } }] }, { text: "ok" }] });
    const r = await runCli([...base(server.openaiBaseUrl, ws, sessions), "--permission-mode", "bypassPermissions", "push"], { env: { HOME: home } });
    expect(r.code).toBe(0);
    expect(toolResult(1)).toMatch(/^Permission denied for run_command: .*Bash\(git push:\*\)/);
  });

  it("refuses to ask when there is no terminal, telling the model how the user can allow it", async () => {
    const { ws, sessions, home } = workspace({});
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "write_file", input: { path: "new.txt", content: "hi\n" } }] }, { text: "ok" }] });
    const r = await runCli([...base(server.openaiBaseUrl, ws, sessions), "make a file"], { env: { HOME: home } });
    expect(r.code).toBe(0);
    expect(existsSync(join(ws, "new.txt"))).toBe(false);
    expect(toolResult(1)).toMatch(/^The user denied write_file: "no one to ask \(not a terminal\)/);
  });
});
