/**
 * Claude Code hooks through full `yoke run` sessions with the scripted model: real hook scripts
 * (a bash guard using jq, a Python hook reading its stdin JSON, a Stop hook reading the
 * transcript) in temp folders, written the way public hook repositories write them. (An `npx …`
 * hook cannot be tried here: there is no registry offline.) Outcomes are checked on disk and in
 * what the model was sent.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { hashlineReady, lineTag } from "../../src/core/edit/hashline";
import { parseLog } from "../../src/core/session/session-log";
import { ensureBuilt, runCli } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";
import { scriptedRunArgs } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];

function workspace(files: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "yoke-hooks-it-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  mkdirSync(ws);
  mkdirSync(home);
  for (const [rel, text] of Object.entries(files)) write(rel.startsWith("~/") ? join(home, rel.slice(2)) : join(ws, rel), text);
  return { dir, ws, home, sessions: join(dir, "sessions") };
}

function write(path: string, text: string) {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  if (path.endsWith(".sh") || path.endsWith(".py")) chmodSync(path, 0o755);
}

/** The tool results the model received in request n (0-based), OpenAI wire. */
function toolResults(n: number): string[] {
  const body = server!.requests[n]!.body as { messages: Array<{ role: string; content: string }> };
  return body.messages.filter((m) => m.role === "tool").map((m) => m.content);
}

function allText(n: number): string {
  return JSON.stringify((server!.requests[n]!.body as { messages: unknown }).messages);
}

function sessionLog(sessions: string) {
  const f = readdirSync(sessions).find((n) => n.endsWith(".jsonl"))!;
  return parseLog(readFileSync(join(sessions, f), "utf8").split("\n").filter(Boolean)).events;
}

const run = (ws: string, sessions: string, home: string, prompt: string, extra: string[] = []) =>
  runCli([...scriptedRunArgs(server!.openaiBaseUrl, ws, sessions), ...extra, prompt], { env: { HOME: home } });

const script = async (turns: ScriptedTurn[]) => (server = await startScriptedLlmServer({ script: turns }));

beforeAll(async () => {
  ensureBuilt();
  await hashlineReady();
}, 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

/** A guard in the style of public hook repositories: jq reads the command, exit 2 blocks. */
const JQ_GUARD = `#!/usr/bin/env bash
set -euo pipefail
input=$(cat)
cmd=$(jq -r '.tool_input.command // empty' <<< "$input")
echo "$cmd" >> "$CLAUDE_PROJECT_DIR/.guard-log"
if [[ "$cmd" =~ rm[[:space:]]+-rf ]]; then
  echo "BLOCKED: rm -rf is not allowed in this repository. Move files to .trash/ instead." >&2
  exit 2
fi
exit 0
`;

describe("hooks from the workspace's .claude/settings.json", () => {
  it("a jq guard blocks rm -rf (the files stay, the model gets the reason); its `if` keeps it from running on other commands", async () => {
    const { ws, sessions, home } = workspace({
      ".claude/hooks/guard.sh": JQ_GUARD,
      ".claude/settings.json": JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', if: "Bash(rm *)" }] }] },
      }),
      "build/out.js": "x",
    });
    await script([{ toolCalls: [{ name: "run_command", input: { command: "echo hello" } }] }, { toolCalls: [{ name: "run_command", input: { command: "rm -rf build" } }] }, { text: "ok" }]);
    const r = await run(ws, sessions, home, "clean up", ["--permission-mode", "bypassPermissions"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(ws, "build/out.js"))).toBe(true);
    expect(toolResults(2).at(-1)).toBe("Permission denied for run_command: BLOCKED: rm -rf is not allowed in this repository. Move files to .trash/ instead.");
    expect(readFileSync(join(ws, ".guard-log"), "utf8")).toBe("rm -rf build\n");
  });

  it("a Python PostToolUse hook gets Claude's Write input and response with absolute paths, and its additionalContext reaches the model", async () => {
    const { ws, sessions, home } = workspace({
      ".claude/hooks/after_write.py": `#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], ".payload.json"), "w") as f:
    json.dump(data, f)
path = data["tool_input"]["file_path"]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "formatter checked " + os.path.basename(path)}}))
`,
      ".claude/settings.json": JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: "python3 .claude/hooks/after_write.py" }] }] } }),
    });
    await script([{ toolCalls: [{ name: "write_file", input: { path: "src/new.ts", content: "export const x = 1;\n" } }] }, { text: "ok" }]);
    const r = await run(ws, sessions, home, "make a file", ["--permission-mode", "acceptEdits"]);
    expect(r.code).toBe(0);
    const payload = JSON.parse(readFileSync(join(ws, ".payload.json"), "utf8"));
    const callId = sessionLog(sessions).find((e) => e.type === "tool_call")!;
    expect(payload).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "Write",
      tool_use_id: (callId as { callId: string }).callId,
      permission_mode: "acceptEdits",
      cwd: ws,
      tool_input: { file_path: join(ws, "src/new.ts"), content: "export const x = 1;\n" },
      tool_response: { type: "create", filePath: join(ws, "src/new.ts"), success: true, content: "export const x = 1;\n" },
    });
    expect(payload.transcript_path).toBe(join(sessions, "transcripts", `${payload.session_id}.jsonl`));
    expect(toolResults(1).at(-1)).toMatch(/^Created src\/new\.ts \(1 line\)\.\n\nformatter checked new\.ts$/);
  });

  it("a protect-files hook sees a hashline edit as old_string/new_string and blocks the edit of .env", async () => {
    const { ws, sessions, home } = workspace({
      ".env": "API_KEY=abc\nDEBUG=0\n",
      ".claude/hooks/protect.sh": `#!/bin/bash
INPUT=$(cat)
FILE_PATH=$(echo "$INPUT" | jq -r '.tool_input.file_path // empty')
echo "$INPUT" | jq -c '.tool_input' > "$CLAUDE_PROJECT_DIR/.edit-input.json"
for pattern in ".env" "package-lock.json" ".git/"; do
  if [[ "$FILE_PATH" == *"$pattern"* ]]; then
    echo "Blocked: $FILE_PATH matches protected pattern '$pattern'" >&2
    exit 2
  fi
done
exit 0
`,
      ".claude/settings.json": JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Edit|MultiEdit|Write", hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/protect.sh' }] }] },
      }),
    });
    const pos = lineTag(2, "DEBUG=0");
    await script([{ toolCalls: [{ name: "edit_file", input: { path: ".env", edits: [{ op: "replace", pos, lines: ["DEBUG=1"] }] } }] }, { text: "ok" }]);
    const r = await run(ws, sessions, home, "turn on debug", ["--permission-mode", "bypassPermissions"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(ws, ".env"), "utf8")).toBe("API_KEY=abc\nDEBUG=0\n");
    expect(JSON.parse(readFileSync(join(ws, ".edit-input.json"), "utf8"))).toEqual({ file_path: join(ws, ".env"), old_string: "DEBUG=0", new_string: "DEBUG=1" });
    expect(toolResults(1).at(-1)).toBe(`Permission denied for edit_file: Blocked: ${join(ws, ".env")} matches protected pattern '.env'`);
  });

  it("a Stop hook reads the Claude-format transcript with jq and keeps the agent going until the tests ran", async () => {
    const { ws, sessions, home } = workspace({
      ".claude/hooks/require-tests.sh": `#!/bin/bash
input=$(cat)
transcript=$(jq -r '.transcript_path' <<< "$input")
jq -r '.last_assistant_message' <<< "$input" >> "$CLAUDE_PROJECT_DIR/.last-messages"
jq -rs '[.[] | select(.type == "assistant") | .message.content[] | select(.type == "text") | .text] | last' "$transcript" >> "$CLAUDE_PROJECT_DIR/.transcript-last"
if jq -e -s 'any(.[]; .type == "assistant" and any(.message.content[]; .type == "tool_use" and .name == "Bash" and (.input.command | contains("npm test"))))' "$transcript" > /dev/null; then
  exit 0
fi
echo '{"decision": "block", "reason": "Run the tests (npm test) before you finish."}'
`,
      ".claude/settings.json": JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: ".claude/hooks/require-tests.sh" }] }] } }),
      "package.json": JSON.stringify({ scripts: { test: "echo all tests pass" } }),
    });
    await script([{ text: "Done, I think." }, { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] }, { text: "Done: tests pass." }]);
    const r = await run(ws, sessions, home, "finish the work", ["--permission-mode", "bypassPermissions"]);
    expect(r.code).toBe(0);
    expect(allText(1)).toContain("A Stop hook asks you to continue: Run the tests (npm test) before you finish.");
    expect(readFileSync(join(ws, ".last-messages"), "utf8")).toBe("Done, I think.\nDone: tests pass.\n");
    expect(readFileSync(join(ws, ".transcript-last"), "utf8")).toBe("Done, I think.\nDone: tests pass.\n");
    expect(server!.requests).toHaveLength(3);
  });

  it("bash inline hooks work, a broken one never reaches the model's results, and a 1 MiB exit-2 stderr is cut to a few KB", async () => {
    const { ws, sessions, home } = workspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PostToolUse: [
            { matcher: "Bash", hooks: [{ type: "command", command: 'input=$(cat); [[ "$input" == *hello* ]] && echo seen >> .bash-ok; exit 0' }] },
            { matcher: "Bash", hooks: [{ type: "command", command: "if then; fi ((" }] },
            { matcher: "Bash", hooks: [{ type: "command", command: "head -c 1048576 /dev/zero | tr '\\0' 'e' >&2; echo TAIL-MARK >&2; exit 2" }] },
          ],
        },
      }),
    });
    await script([{ toolCalls: [{ name: "run_command", input: { command: "echo hello" } }] }, { toolCalls: [{ name: "run_command", input: { command: "echo hello again" } }] }, { text: "ok" }]);
    const r = await run(ws, sessions, home, "say hello", ["--permission-mode", "bypassPermissions"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(ws, ".bash-ok"), "utf8")).toBe("seen\nseen\n");
    for (const result of [toolResults(1).at(-1)!, toolResults(2).at(-1)!]) {
      expect(result).toMatch(/^hello/);
      expect(result).not.toMatch(/syntax error/);
      expect(result).toContain("TAIL-MARK");
      expect(result).toMatch(/characters of hook output left out/);
      expect(result.length).toBeLessThan(6_000);
    }
    expect(r.stdout + r.stderr).toMatch(/not valid bash/);
  });

  it("maps a hook's updatedInput back (timeout in ms → timeout_s), runs the rewritten command, and gives the model its additionalContext", async () => {
    const { ws, sessions, home } = workspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                {
                  type: "command",
                  command: `jq -c '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", additionalContext: "CI runs on Node 20", updatedInput: (.tool_input + {command: (.tool_input.command + " --reporter=dot"), timeout: 30000})}}'`,
                },
              ],
            },
          ],
        },
      }),
    });
    await script([{ toolCalls: [{ name: "run_command", input: { command: "echo testing" } }] }, { text: "ok" }]);
    const r = await run(ws, sessions, home, "test", ["--permission-mode", "bypassPermissions"]);
    expect(r.code).toBe(0);
    expect(sessionLog(sessions).find((e) => e.type === "tool_call")).toMatchObject({ input: { command: "echo testing --reporter=dot", timeout_s: 30 } });
    expect(toolResults(1).at(-1)).toMatch(/^testing --reporter=dot\n[^]*\n\nCI runs on Node 20$/);
  });

  it("fires PostToolUseFailure for a failing command and SessionStart with the source and model", async () => {
    const { ws, sessions, home } = workspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PostToolUseFailure: [
            {
              matcher: "Bash",
              hooks: [
                {
                  type: "command",
                  command: `jq -c '{event: .hook_event_name, error: .error, interrupt: .is_interrupt}' > .failure.json; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"hint: run npm ci first"}}'`,
                },
              ],
            },
          ],
          PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "touch .post-ran" }] }],
          SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: `jq -c '{source, model}' > .start.json; echo 'branch: main'` }] }],
        },
      }),
    });
    await script([{ toolCalls: [{ name: "run_command", input: { command: "echo broken; exit 3" } }] }, { text: "ok" }]);
    const r = await run(ws, sessions, home, "go", ["--permission-mode", "bypassPermissions"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(ws, ".failure.json"), "utf8"))).toMatchObject({ event: "PostToolUseFailure", interrupt: false, error: expect.stringContaining("broken") });
    expect(existsSync(join(ws, ".post-ran"))).toBe(false);
    expect(toolResults(1).at(-1)).toMatch(/\n\nhint: run npm ci first$/);
    expect(JSON.parse(readFileSync(join(ws, ".start.json"), "utf8"))).toEqual({ source: "startup", model: "m" });
    expect(allText(0)).toContain("branch: main");
  });
});

describe.each(identities().list)("hooks in the user's own settings, as $label", (who: Identity) => {
  function userWorkspace(files: Record<string, string>) {
    const w = workspace(files);
    chownTree(w.dir, who);
    return w;
  }
  const runAs = (w: ReturnType<typeof workspace>, prompt: string, mode: string) =>
    runCliAs(who, [...scriptedRunArgs(server!.openaiBaseUrl, w.ws, w.sessions), "--permission-mode", mode, prompt], {
      env: { HOME: w.home },
      timeoutMs: 60_000,
    });

  it("a guard hook in ~/.claude/hooks runs (outside the sandbox, where its script is) and blocks; one whose script is missing blocks too", async () => {
    const w = userWorkspace({
      "~/.claude/hooks/no-curl.sh": `#!/usr/bin/env bash
cmd=$(jq -r '.tool_input.command')
if [[ "$cmd" == *curl* ]]; then echo "no network fetches from the agent" >&2; exit 2; fi
`,
      "~/.yoke/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: "Bash", hooks: [{ type: "command", command: "$HOME/.claude/hooks/no-curl.sh" }] },
            { matcher: "Write", hooks: [{ type: "command", command: "$HOME/.claude/hooks/moved-away.sh" }] },
          ],
        },
      }),
    });
    await script([
      { toolCalls: [{ name: "run_command", input: { command: "curl -s http://127.0.0.1:9/x > fetched.txt" } }] },
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "x" } }] },
      { text: "ok" },
    ]);
    const r = await runAs(w, "fetch it", "bypassPermissions");
    expect(r.stderr).not.toMatch(/Error:/);
    expect(r.code).toBe(0);
    expect(existsSync(join(w.ws, "fetched.txt"))).toBe(false);
    expect(existsSync(join(w.ws, "a.txt"))).toBe(false);
    expect(toolResults(1).at(-1)).toBe("Permission denied for run_command: no network fetches from the agent");
    expect(toolResults(2).at(-1)).toMatch(
      /^Permission denied for write_file: The PreToolUse hook ".*moved-away\.sh" \(~\/\.yoke\/settings\.json\) could not run \(command not found \(exit status 127\)/,
    );
  });

  it("a hook's allow does not get a command past a deny rule it cannot rule out", async () => {
    const w = userWorkspace({
      "src/keep.ts": "keep\n",
      "~/.yoke/settings.json": JSON.stringify({
        permissions: { deny: ["Bash(rm:*)"] },
        hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'` }] }] },
      }),
    });
    await script([{ toolCalls: [{ name: "run_command", input: { command: "X=rm; $X -rf src" } }] }, { text: "ok" }]);
    const r = await runAs(w, "tidy", "default");
    expect(r.code).toBe(0);
    expect(readFileSync(join(w.ws, "src/keep.ts"), "utf8")).toBe("keep\n");
    expect(toolResults(1).at(-1)).toMatch(/^The user denied run_command/);
  });

  it("a PermissionRequest hook answers the question the user would be asked", async () => {
    const w = userWorkspace({
      "~/.yoke/settings.json": JSON.stringify({
        hooks: {
          PermissionRequest: [
            { matcher: "Write", hooks: [{ type: "command", command: `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'` }] },
            {
              matcher: "Bash",
              hooks: [{ type: "command", command: `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"ask in chat first"}}}'` }],
            },
          ],
          Notification: [{ matcher: "permission_prompt", hooks: [{ type: "command", command: 'jq -r .message >> "$HOME/notified.txt"' }] }],
        },
      }),
    });
    await script([
      { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "x\n" } }] },
      { toolCalls: [{ name: "run_command", input: { command: "touch b.txt" } }] },
      { toolCalls: [{ name: "write_file", input: { path: ".claude/settings.json", content: "{}" } }] },
      { toolCalls: [{ name: "edit_file", input: { path: "a.txt", edits: [{ old_string: "x", new_string: "y" }] } }] },
      { text: "ok" },
    ]);
    const r = await runAs(w, "write", "default");
    expect(r, JSON.stringify(r)).toMatchObject({ code: 0 });
    expect(readFileSync(join(w.ws, "a.txt"), "utf8")).toBe("x\n");
    expect(existsSync(join(w.ws, "b.txt"))).toBe(false);
    expect(toolResults(2).at(-1)).toBe("Permission denied for run_command: ask in chat first");
    // The user's own PermissionRequest hook answers for the user, including about agent settings.
    expect(existsSync(join(w.ws, ".claude/settings.json"))).toBe(true);
    // No hook answers for Edit: the user is asked (no terminal: denied), and the Notification hook hears of it.
    expect(readFileSync(join(w.ws, "a.txt"), "utf8")).toBe("x\n");
    expect(toolResults(4).at(-1)).toMatch(/^The user denied edit_file/);
    for (let i = 0; i < 40 && !existsSync(join(w.home, "notified.txt")); i++) await new Promise((res) => setTimeout(res, 50));
    expect(readFileSync(join(w.home, "notified.txt"), "utf8")).toBe("Yoke needs your permission to use Edit\n");
  });
});
