/**
 * Cursor's `.cursor/hooks.json` through a whole `yoke run` (issue 23), the built CLI against the
 * scripted model over HTTP, as root and as an unprivileged user, in a trusted workspace: hooks
 * written from Cursor's docs (`{"version": 1, "hooks": {...}}`, Cursor's event names, Cursor's
 * stdin and answers) run on Yoke's hook mechanism. Asserted on outcomes: the beforeShellExecution
 * hook's `deny` stopped `rm` even in bypassPermissions mode (the folder is still there) and its
 * `agent_message` reached the model; the hook got Cursor's input (`hook_event_name`,
 * `workspace_roots`, `command`); beforeReadFile's deny kept a file's content out of every request
 * (exit status 2, Cursor's other way to deny), and a hook is never handed the content of a file a deny
 * rule or ignore file keeps from the model (it could echo it into its answer); afterFileEdit ran after a write with the file and
 * its edit; an event Yoke does not fire is reported, not run. In the same session, Kiro's
 * `.kiro/hooks/*.kiro.hook` (Kiro's docs: runCommand on promptSubmit and agentStop, askAgent's
 * "add to prompt"): the command's stdout and the added prompt reached the model with the user's
 * message, a failing agentStop command's stderr made the agent go on, a disabled hook and a
 * fileEdited one (a new agent loop in Kiro) did not run.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";
import { toolResultTexts } from "../support/scripted-run";

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const temps: string[] = [];
const SECRET = "CURSOR-READ-HOOK-SECRET-4c1";
const IGNORED = "CURSOR-IGNORED-SECRET-5d2";

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function workspace(who: Identity) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-cursor-hooks-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  const sessions = join(dir, "sessions");
  for (const d of [ws, home, sessions]) mkdirSync(d, { recursive: true });
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  };
  write(
    ".cursor/hooks.json",
    JSON.stringify({
      version: 1,
      hooks: {
        beforeShellExecution: [{ command: "bash .cursor/hooks/guard-shell.sh" }],
        beforeReadFile: [{ command: "bash .cursor/hooks/guard-read.sh", timeout: 30 }],
        afterFileEdit: [{ command: "bash .cursor/hooks/after-edit.sh" }],
        afterAgentThought: [{ command: "touch thought-hook-ran" }],
        // Cursor's generic tool hook with its matcher (the tool type): runs for writes only.
        preToolUse: [{ command: "bash .cursor/hooks/pre-write.sh", matcher: "Write" }],
        // Cursor's subagentStart: runs before the subagent is launched and may deny it.
        subagentStart: [{ command: "bash .cursor/hooks/sub-start.sh", matcher: "general-purpose" }],
      },
    }),
  );
  // As in Cursor's docs: read the JSON on stdin, answer with permission, user_message and agent_message.
  write(
    ".cursor/hooks/guard-shell.sh",
    `input=$(cat)
printf '%s' "$input" > logs/shell-hook-input.json
case "$input" in
  *'"command":"rm '*) printf '%s' '{"permission":"deny","user_message":"rm is blocked in this repository","agent_message":"Deleting files is not allowed here; move them to trash/ instead."}' ;;
  *) printf '%s' '{"permission":"allow"}' ;;
esac
`,
  );
  // Exit status 2 denies too; the content Cursor passes is what the hook scans.
  write(
    ".cursor/hooks/guard-read.sh",
    `input=$(cat)
case "$input" in
  *CURSOR-READ-HOOK-SECRET*) echo "this file holds a secret" >&2; exit 2 ;;
  *'/private/'*) printf 'blocked: %s' "$input" >&2; exit 2 ;;
esac
printf '{"permission":"allow"}'
`,
  );
  write(".cursor/hooks/after-edit.sh", `cat > logs/after-edit-input.json\n`);
  write(
    ".cursor/hooks/pre-write.sh",
    `input=$(cat)
printf '%s\\n' "$input" >> logs/pre-tool-input.jsonl
case "$input" in
  *blocked.txt*) printf '%s' '{"permission":"deny","agent_message":"CURSOR-PRETOOL-DENY-a17: not that file."}' ;;
  *) printf '{}' ;;
esac
`,
  );
  write(
    ".cursor/hooks/sub-start.sh",
    `cat > logs/sub-start-input.json
printf '%s' '{"permission":"deny","agent_message":"CURSOR-SUBAGENT-DENY-b28: no subagents here."}'
`,
  );
  const kiro = (name: string, hook: unknown) => write(`.kiro/hooks/${name}.kiro.hook`, JSON.stringify({ version: "1", name, description: name, ...(hook as object) }));
  kiro("context", { enabled: true, when: { type: "promptSubmit" }, then: { type: "runCommand", command: "echo KIRO-CONTEXT-d71" } });
  kiro("conventions", { enabled: true, when: { type: "promptSubmit" }, then: { type: "askAgent", prompt: "KIRO-ADDED-PROMPT-e82: follow the conventions." } });
  kiro("tests", {
    enabled: true,
    when: { type: "agentStop" },
    then: { type: "runCommand", command: 'if [ -e logs/stopped ]; then exit 0; fi; touch logs/stopped; echo "KIRO-TESTS-FAILED-f93" >&2; exit 1' },
  });
  kiro("off", { enabled: false, when: { type: "promptSubmit" }, then: { type: "runCommand", command: "touch logs/disabled-ran" } });
  kiro("on-edit", { enabled: true, when: { type: "fileEdited", patterns: ["*.txt"] }, then: { type: "runCommand", command: "touch logs/edit-hook-ran" } });
  write("logs/.keep", "");
  write("data/important.txt", "keep me\n");
  write("config/prod.env", `TOKEN=${SECRET}\n`);
  write("README.md", "# Widget\n");
  // A file the repository's own .cursorignore keeps from the agent: a hook must not be handed its content (red team B).
  write(".cursorignore", "private/\n");
  write("private/key.txt", `${IGNORED}\n`);
  execFileSync("git", ["init", "-q"], { cwd: ws, env: GIT_ENV });
  chownTree(dir, who);
  return { ws, home, sessions };
}

const SCRIPT: ScriptedTurn[] = [
  { toolCalls: [{ name: "run_command", input: { command: "rm -rf data" } }] },
  { toolCalls: [{ name: "read_file", input: { path: "config/prod.env" } }] },
  { toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
  { toolCalls: [{ name: "read_file", input: { path: "private/key.txt" } }] },
  { toolCalls: [{ name: "write_file", input: { path: "notes.txt", content: "hello\n" } }] },
  { toolCalls: [{ name: "write_file", input: { path: "blocked.txt", content: "no\n" } }] },
  { toolCalls: [{ name: "task", input: { description: "look around", prompt: "List the files." } }] },
  { text: "Done." },
  { text: "Fixed the tests." },
];

describe.each(identities().list)("Cursor's .cursor/hooks.json and Kiro's .kiro/hooks, as $label", (who: Identity) => {
  it("a beforeShellExecution deny stops rm even in bypassPermissions; beforeReadFile's exit 2 keeps a file out; afterFileEdit runs with Cursor's input; Kiro's promptSubmit and agentStop hooks run as Kiro's", async () => {
    const w = workspace(who);
    const llm = await startScriptedLlmServer({ script: SCRIPT });
    try {
      const r = await runCliAs(
        who,
        [
          "run",
          "--trust",
          "--provider",
          "openai-compatible",
          "--base-url",
          llm.openaiBaseUrl,
          "--model",
          "m",
          "--cwd",
          w.ws,
          "--session-dir",
          w.sessions,
          "--permission-mode",
          "bypassPermissions",
          "Tidy up",
        ],
        { env: { HOME: w.home }, timeoutMs: 120_000 },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(llm.requests).toHaveLength(SCRIPT.length);
      const told = toolResultTexts(llm.requests.at(-2));

      // beforeShellExecution: the command did not run, and the model got the hook's agent_message.
      expect(existsSync(join(w.ws, "data/important.txt"))).toBe(true);
      expect(told[0]).toContain("Deleting files is not allowed here; move them to trash/ instead.");
      const shellInput = JSON.parse(readFileSync(join(w.ws, "logs/shell-hook-input.json"), "utf8")) as Record<string, unknown>;
      expect(shellInput).toMatchObject({ hook_event_name: "beforeShellExecution", command: "rm -rf data", workspace_roots: [w.ws], cwd: w.ws });
      expect(typeof shellInput.conversation_id).toBe("string");

      // beforeReadFile: exit 2 denied the read; the secret is in no request; another file was read.
      const everything = llm.requests.map((q) => JSON.stringify(q.body)).join("\n");
      expect(everything).not.toContain(SECRET);
      expect(told[1]).toContain("this file holds a secret");
      expect(told[2]).toContain("# Widget");
      // The .cursorignore'd file: the hook was not handed its content (it echoes its input into the denial), so it reached no request.
      expect(told[3]).toContain("blocked:");
      expect(everything).not.toContain(IGNORED);

      // afterFileEdit: ran after the write, with the file and the edit in Cursor's shape.
      expect(readFileSync(join(w.ws, "notes.txt"), "utf8")).toBe("hello\n");
      const editInput = JSON.parse(readFileSync(join(w.ws, "logs/after-edit-input.json"), "utf8")) as Record<string, unknown>;
      expect(editInput).toMatchObject({ hook_event_name: "afterFileEdit", file_path: join(w.ws, "notes.txt"), edits: [{ old_string: "", new_string: "hello\n" }] });

      // preToolUse with matcher "Write": ran for the two writes only (not the shell command nor the reads),
      // with Cursor's tool type and input; its deny kept blocked.txt unwritten and reached the model.
      const preInputs = readFileSync(join(w.ws, "logs/pre-tool-input.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(preInputs.map((i) => [i.hook_event_name, i.tool_name])).toEqual([
        ["preToolUse", "Write"],
        ["preToolUse", "Write"],
      ]);
      expect(preInputs[0]!.tool_input).toMatchObject({ file_path: join(w.ws, "notes.txt") });
      expect(existsSync(join(w.ws, "blocked.txt"))).toBe(false);
      expect(told[5]).toContain("CURSOR-PRETOOL-DENY-a17: not that file.");
      // subagentStart: denied before the subagent started (no request of its own), with Cursor's input.
      expect(told[6]).toContain("CURSOR-SUBAGENT-DENY-b28: no subagents here.");
      expect(JSON.parse(readFileSync(join(w.ws, "logs/sub-start-input.json"), "utf8"))).toMatchObject({ hook_event_name: "subagentStart", subagent_type: "general-purpose", task: "List the files." });

      // An event Yoke does not fire never runs.
      expect(existsSync(join(w.ws, "thought-hook-ran"))).toBe(false);

      // Kiro: the promptSubmit command's stdout and the added prompt came with the user's message.
      const first = JSON.stringify(llm.requests[0]!.body);
      expect(first).toContain("KIRO-CONTEXT-d71");
      expect(first).toContain("KIRO-ADDED-PROMPT-e82: follow the conventions.");
      // agentStop's failing command: the agent went on with its stderr (one more request), then stopped.
      expect(JSON.stringify(llm.requests.at(-1)!.body)).toContain('The Kiro hook \\"tests\\" returned an error (exit status 1): KIRO-TESTS-FAILED-f93');
      expect(JSON.stringify(llm.requests.at(-2)!.body)).not.toContain("KIRO-TESTS-FAILED-f93");
      // Disabled, and a trigger Yoke does not run: neither ran.
      expect(existsSync(join(w.ws, "logs/disabled-ran"))).toBe(false);
      expect(existsSync(join(w.ws, "logs/edit-hook-ran"))).toBe(false);
    } finally {
      await llm.close();
    }
  }, 180_000);
});
