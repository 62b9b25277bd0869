/**
 * A background agent's binary files and executable bits (issue 24 leftovers), through the built CLI
 * with a real agent process, the scripted model and real git: the agent makes a tracked script
 * executable (content unchanged), adds an executable script and writes a binary file. The merge plan
 * (what both Merge back and the editor's review write) marks the binary file and the mode-only
 * change to be taken whole; `yoke agents merge` writes them byte-exact, and the user's files are
 * executable afterwards.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { planAgentChange } from "../../src/node/background/merge";
import { ensureBuilt, runCli } from "../support/cli";

let server: ScriptedServer | undefined;
const temps: string[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });
const BLOB = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff, 0xfe, 0x00, 0x0a, 0x7f]);
const executable = (path: string) => (statSync(path).mode & 0o111) !== 0;

function script(req: RecordedRequest): ScriptedTurn {
  const results = ((req.body as { messages?: Array<{ role: string }> }).messages ?? []).filter((m) => m.role === "tool").length;
  if (results === 0)
    return {
      toolCalls: [
        {
          name: "run_command",
          input: {
            command: `chmod +x run.sh && printf '#!/bin/sh\\necho new\\n' > new.sh && chmod +x new.sh && printf '${[...BLOB].map((b) => `\\${b.toString(8).padStart(3, "0")}`).join("")}' > logo.bin`,
          },
        },
      ],
    };
  return { text: "done" };
}

describe("a background agent's binary files and executable bits", () => {
  it("are planned whole (binary, mode-only) and merged byte-exact with the executable bit", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-binmode-")));
    temps.push(root);
    const home = join(root, "home");
    const ws = join(root, "repo");
    mkdirSync(home);
    mkdirSync(ws);
    git(ws, "init", "-q", "-b", "main");
    writeFileSync(join(ws, "run.sh"), "#!/bin/sh\necho run\n", { mode: 0o644 });
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "initial");
    const env = { HOME: home, XDG_DATA_HOME: undefined };
    server = await startScriptedLlmServer({ script });
    const started = await runCli(
      ["run", "--background", "--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--permission-mode", "bypassPermissions", "--cwd", ws, "make them"],
      { cwd: ws, env },
    );
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    const end = Date.now() + 90_000;
    let record: { state: string; worktree: string; branch: string; baseCommit: string } | undefined;
    for (;;) {
      const list = await runCli(["agents", "list", "--json", "--cwd", ws], { env });
      record = (JSON.parse(list.stdout) as { agents: Array<{ state: string; worktree: string; branch: string; baseCommit: string }> }).agents[0];
      if (record?.state === "finished" || record?.state === "failed") break;
      if (Date.now() > end) throw new Error(`the agent did not finish: ${record?.state}`);
      await new Promise((res) => setTimeout(res, 200));
    }
    expect(record.state).toBe("finished");
    expect(readFileSync(join(record.worktree, "logo.bin"))).toEqual(BLOB);

    const planned = await planAgentChange({ top: ws, worktree: record.worktree, branch: record.branch, baseCommit: record.baseCommit, task: "make them", id });
    expect(planned.ok).toBe(true);
    const plan = planned.ok ? planned.plan : [];
    expect(plan.map((p) => [p.path, p.mode, Boolean(p.binary), Boolean(p.modeOnly)]).sort()).toEqual([
      ["logo.bin", "100644", true, false],
      ["new.sh", "100755", false, false],
      ["run.sh", "100755", false, true],
    ]);

    const merged = await runCli(["agents", "merge", id, "--json", "--cwd", ws], { env });
    expect(merged.code, merged.stderr + merged.stdout).toBe(0);
    expect(readFileSync(join(ws, "logo.bin"))).toEqual(BLOB);
    expect(readFileSync(join(ws, "run.sh"), "utf8")).toBe("#!/bin/sh\necho run\n");
    expect(executable(join(ws, "run.sh"))).toBe(true);
    expect(executable(join(ws, "new.sh"))).toBe(true);
    expect(executable(join(ws, "logo.bin"))).toBe(false);
    expect(git(ws, "diff", "--summary")).toContain("mode change 100644 => 100755 run.sh");
    await runCli(["agents", "discard", id, "--cwd", ws], { env });
  }, 180_000);
});
