// Contract section 3: every command and subcommand answers --help (exit 0) with its usage; --help
// after `--` belongs to the command being run, not to yoke.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { parseLog } from "../../src/core/session/session-log";
import { ensureBuilt, runCli } from "../support/cli";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe("yoke --help", () => {
  it.each([
    [["run", "--help"], "yoke run [options] PROMPT"],
    [["resume", "-h"], "yoke resume SESSION"],
    [["sessions", "--help"], "yoke sessions"],
    [["fork", "--help"], "yoke fork SESSION [TURN]"],
    [["checkpoints", "--help"], "yoke checkpoints list SESSION [--json]"],
    [["checkpoints", "list", "--help"], "yoke checkpoints list SESSION [--json]"],
    [["checkpoints", "restore", "--help"], "yoke checkpoints restore SESSION TURN [--files|--conversation|--both]"],
    [["compact", "--help"], "yoke compact SESSION [--dry-run] [--json]"],
    [["edit", "view", "--help"], "yoke edit view FILE"],
    [["edit", "apply", "x.ts", "--help"], "yoke edit apply FILE"],
    [["permissions", "check", "--help"], "yoke permissions check --tool NAME"],
    [["sandbox", "exec", "--help"], "yoke sandbox exec"],
    [["lessons", "list", "--help"], "yoke lessons list [--cwd DIR] [--json]"],
    [["lessons", "match", "--help"], "yoke lessons match --message TEXT"],
    [["mcp", "--help"], "yoke mcp list [--cwd DIR] [--json]"],
    [["mcp", "list", "--help"], "yoke mcp approve NAME"],
    [["bench", "--help"], "yoke bench [--only SECTION] [--json]"],
    [["acp", "--help"], "yoke acp [--provider P] [--base-url URL]"],
  ])("%j prints its usage and exits 0", async (args, usage) => {
    const r = await runCli(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(usage);
    expect(r.stdout).toContain("Exit status: 0 success, 1 refused or failed, 2 bad usage.");
  });

  it("leaves --help after -- to the command being run", async () => {
    const r = await runCli(["sandbox", "exec", "--backend", "none", "--", "echo", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("--help\n");
  });
});

describe("yoke run --add-dir", () => {
  it("makes a multi-root workspace: the model is told both folders and can read the second", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-adddir-"));
    temps.push(base);
    const [web, api] = [join(base, "web"), join(base, "api")];
    mkdirSync(web);
    mkdirSync(join(api, "src"), { recursive: true });
    writeFileSync(join(api, "src", "server.ts"), "export const port = 8080;\n");
    const server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "read_file", input: { path: "api/src/server.ts" } }] }, { text: "port 8080" }] });
    try {
      const sessions = join(base, "sessions");
      const r = await runCli(["run", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", web, "--add-dir", api, "--session-dir", sessions, "which port?"]);
      expect(r.code, r.stderr).toBe(0);
      const system = JSON.stringify((server.requests[0]!.body as { messages: unknown[] }).messages[0]);
      expect(system).toContain("This workspace has 2 folders");
      expect(system).toContain(`- api: ${api}`);
      const log = parseLog(
        readFileSync(
          join(
            sessions,
            readdirSync(sessions).find((f) => f.endsWith(".jsonl"))!,
          ),
          "utf8",
        )
          .split("\n")
          .filter(Boolean),
      ).events;
      const result = log.find((e) => e.type === "tool_result");
      expect(result).toMatchObject({ isError: false });
      expect(result?.type === "tool_result" && result.output).toContain("File: api/src/server.ts");
    } finally {
      await server.close();
    }
  });

  it("refuses a folder that does not exist (bad usage)", async () => {
    const r = await runCli(["run", "--add-dir", "/nonexistent/folder", "--provider", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1", "hi"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--add-dir /nonexistent/folder: no such folder");
  });
});
