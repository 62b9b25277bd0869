// Verification through the real CLI: a scripted model (OpenAI wire), the real sandboxed command
// runner (bwrap/firejail as installed), real files. verification.command runs before the agent may
// finish; failures go back to the model at most maxReflections times; verification.lintCommand
// reports only the problems the agent's edits introduced.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/core/events";
import { parseLog } from "../../src/core/session/session-log";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];

function workspace(files: Record<string, string>, verification: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), "yoke-verify-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(join(ws, ".yoke"), { recursive: true });
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(ws, rel), text);
  writeFileSync(join(ws, ".yoke", "settings.json"), JSON.stringify({ verification }));
  return { ws, sessions: join(dir, "sessions"), home: join(dir, "home") };
}

function events(sessions: string): SessionEvent[] {
  const files = readdirSync(sessions).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  return parseLog(readFileSync(join(sessions, files[0]!), "utf8").split("\n").filter(Boolean)).events;
}

function lastUserText(req: RecordedRequest): string {
  return readExchange(req).userText;
}

async function run(ws: string, sessions: string, home: string, prompt: string) {
  mkdirSync(home, { recursive: true });
  return runCli([...scriptedRunArgs(server!.openaiBaseUrl, ws, sessions), "--permission-mode", "bypassPermissions", prompt], { env: { HOME: home } });
}

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

const CHECK = "sh check.sh";
const CHECK_SH = 'echo "result.txt says: $(cat result.txt)"\ntest "$(cat result.txt)" = ok\n';

describe("verification.command", () => {
  it("sends a failing check back to the model at most 3 times, then stops and names the check and its last output", async () => {
    const { ws, sessions, home } = workspace({ "check.sh": CHECK_SH }, { command: CHECK });
    let writes = 0;
    server = await startScriptedLlmServer({
      script: (req) => {
        const ex = readExchange(req);
        if (ex.steps.some((s) => s.name === "write_file")) return { text: "Done: result.txt is written." };
        writes++;
        return { toolCalls: [{ name: "write_file", input: { path: "result.txt", content: `broken ${writes}\n` } }] };
      },
    });
    const r = await run(ws, sessions, home, "Make the check pass.");
    expect(r.code, r.stderr + r.stdout).toBe(1);
    // The model wrote four times: the first try and three reflections; the fourth failure stopped the loop.
    expect(writes).toBe(4);
    expect(readFileSync(join(ws, "result.txt"), "utf8")).toBe("broken 4\n");

    // What the model was told each time: the check, the attempt, the real output of the sandboxed run.
    const nudges = server.requests.map(lastUserText).filter((t) => t.startsWith("The check"));
    const distinct = [...new Set(nudges)];
    expect(distinct).toHaveLength(3);
    distinct.forEach((text, i) => {
      expect(text).toContain("The check `sh check.sh` (verification.command, run in the sandbox before you may finish) failed: exit code 1 after");
      expect(text).toContain("You are not done yet.");
      expect(text).toContain(`result.txt says: broken ${i + 1}`);
      expect(text).toMatch(/Output of command c\d+ \(read all of it with command_output \{"id":"c\d+"\}\):/);
      if (i < 2) expect(text).toContain(`The check runs again when you finish (attempt ${i + 1} of 3; after 3 failed attempts the user decides how to go on).`);
      else expect(text).toContain("This was the last attempt (3 of 3): if the check fails again, the user decides how to go on.");
    });

    const log = events(sessions);
    const checks = log.flatMap((e) => (e.type === "verification" && e.kind === "check" ? [e] : []));
    expect(checks.map((c) => [c.status, c.exitCode, c.attempt])).toEqual([
      ["failed", 1, 1],
      ["failed", 1, 2],
      ["failed", 1, 3],
      ["failed", 1, 4],
    ]);
    expect(checks[3]!.snippet).toContain("result.txt says: broken 4");
    const last = log.filter((e) => e.type === "status").at(-1);
    expect(last?.type === "status" && last.state).toBe("done");
    const stop = last?.type === "status" ? (last.detail ?? "") : "";
    expect(stop).toContain("The check `sh check.sh` (verification.command) still fails after 3 attempts to fix it, so Yoke stopped the agent: last run exit code 1 after");
    expect(stop).toContain(`command ${checks[3]!.outputRef}, full output in ${checks[3]!.logPath}`);
    expect(stop).toContain("Decide how to go on");
    // The CLI shows the evidence and the stop.
    expect(r.stdout).toContain("✗ check `sh check.sh` failed (exit 1,");
    expect(r.stdout).toContain("sent back to the model (1 of 3)");
    expect(r.stdout).toContain("the user decides");
    expect(r.stdout).toContain("■ The check `sh check.sh` (verification.command) still fails after 3 attempts");
    // The output reference is real: the runner's log of that run holds the output.
    expect(readFileSync(checks[3]!.logPath!, "utf8")).toContain("result.txt says: broken 4");
  }, 120_000);

  it("lets the agent finish when the check passes, with the evidence recorded and printed", async () => {
    const { ws, sessions, home } = workspace({ "check.sh": CHECK_SH }, { command: CHECK });
    let fixed = false;
    server = await startScriptedLlmServer({
      script: (req) => {
        const ex = readExchange(req);
        if (ex.steps.some((s) => s.name === "write_file")) return { text: "Done." };
        if (lastUserText(req).startsWith("The check")) {
          fixed = true;
          return { toolCalls: [{ name: "write_file", input: { path: "result.txt", content: "ok\n" } }] };
        }
        return { toolCalls: [{ name: "write_file", input: { path: "result.txt", content: "almost\n" } }] };
      },
    });
    const r = await run(ws, sessions, home, "Make the check pass.");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(fixed).toBe(true);
    const checks = events(sessions).flatMap((e) => (e.type === "verification" && e.kind === "check" ? [e] : []));
    expect(checks.map((c) => c.status)).toEqual(["failed", "passed"]);
    const pass = checks[1]!;
    expect(pass).toMatchObject({ source: "verification.command", command: CHECK, exitCode: 0 });
    expect(pass.outputRef).toMatch(/^c\d+$/);
    expect(pass.snippet).toContain("result.txt says: ok");
    expect(r.stdout).toMatch(/✓ check `sh check\.sh` passed \(exit 0, [\d.]+ m?s\) · output c\d+/);
    // The evidence comes after the final answer.
    const log = events(sessions);
    const answer = log.findLastIndex((e) => e.type === "assistant_message");
    expect(log.findIndex((e) => e.seq === pass.seq)).toBeGreaterThan(answer);
  }, 120_000);

  it("does not run the check when the agent changed nothing", async () => {
    const { ws, sessions, home } = workspace({ "check.sh": CHECK_SH }, { command: CHECK });
    server = await startScriptedLlmServer({ script: [{ text: "Nothing to change." }] });
    const r = await run(ws, sessions, home, "Just tell me about it.");
    expect(r.code, r.stderr).toBe(0);
    expect(events(sessions).some((e) => e.type === "verification")).toBe(false);
  }, 60_000);
});

describe("verification.lintCommand (the CLI's diagnostics)", () => {
  // Prints "file:line: error: TODO left: <text>" for each TODO: the shape eslint -f unix, ruff, gcc… share.
  const LINT = "grep -Hn TODO {files} | sed 's/^\\([^:]*\\):\\([0-9]*\\):\\(.*\\)$/\\1:\\2: error: TODO left: \\3/'";

  it("tells the model only the problems its edit introduced, run in the sandbox", async () => {
    const { ws, sessions, home } = workspace({ "a.txt": "// TODO old one\nline\n" }, { lintCommand: LINT });
    server = await startScriptedLlmServer({
      script: (req) => {
        const sent = JSON.stringify(req.body.messages);
        if (!sent.includes('"name":"read_file"')) return { toolCalls: [{ name: "read_file", input: { path: "a.txt" } }] };
        if (!sent.includes('"name":"write_file"')) {
          // A line above the old problem moves it; one new problem is added.
          return { toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "header\n// TODO old one\nline\n// TODO new one\n" } }] };
        }
        return { text: "Done." };
      },
    });
    const r = await run(ws, sessions, home, "Edit a.txt.");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const told = server.requests.at(-1)!;
    const msgs = JSON.stringify(told.body.messages);
    expect(msgs).toContain("Your last edits introduced 1 error in the files you changed (reported by the verification.lintCommand; problems that were there before your edits are left out):");
    expect(msgs).toContain("- a.txt:4 error: TODO left: // TODO new one\\nFix them before you finish, or say why they are expected.");
    expect(msgs).not.toContain("TODO left: // TODO old one");
    const diag = events(sessions).flatMap((e) => (e.type === "verification" && e.kind === "diagnostics" ? [e] : []));
    expect(diag).toHaveLength(1);
    expect(diag[0]).toMatchObject({ status: "failed", source: "verification.lintCommand", files: ["a.txt"], problems: 1 });
    expect(r.stdout).toContain("✗ 1 new problem in a.txt (verification.lintCommand");
  }, 120_000);
});
