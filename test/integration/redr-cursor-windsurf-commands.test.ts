// Red team R (session 20): Cursor's commands (`.cursor/commands/*.md`, `~/.cursor/commands/*.md`:
// the file name is the command, its text is sent with what the user typed after it) and Windsurf's
// workflows (`.windsurf/workflows/*.md`, `~/.codeium/windsurf/global_workflows/*.md`: `/name`, a
// `description` in the frontmatter) run as `/name args` in a full session. Before: "/name" reached
// the model as typed and the files' text never did.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest } from "../../src/demo/types";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "yoke-redr-cmds-"));
  temps.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

type Msg = { role: string; content?: unknown };
/** Every user message of the request (the typed message and the guidance block beside it). */
const lastUser = (r: RecordedRequest) =>
  (r.body.messages as Msg[])
    .filter((x) => x.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");

describe("Cursor commands and Windsurf workflows", () => {
  it("/name args sends the file's text with the arguments; the user's own folders too; a sub-folder is not a command", async () => {
    const ws = tree({
      ".cursor/commands/open-pr.md": "# Open a pull request\nCURSOR-CMD-BODY: commit, push, open the PR.\n",
      ".cursor/commands/drafts/unused.md": "NESTED-CURSOR-BODY\n",
      ".windsurf/workflows/release.md": "---\ndescription: Cut a release\nauto_execution_mode: 1\n---\nWINDSURF-WF-BODY: bump, tag, push.\n",
    });
    const home = tree({
      ".cursor/commands/standup.md": "USER-CURSOR-BODY\n",
      ".codeium/windsurf/global_workflows/triage.md": "---\ndescription: Triage issues\n---\nUSER-WINDSURF-BODY\n",
    });
    const run = async (message: string) => {
      const server = await startScriptedLlmServer({ script: [{ text: "ok" }] });
      try {
        const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, ws, join(home, "sessions")), "--json", message], { env: { HOME: home, OPENAI_API_KEY: "test" }, cwd: ws });
        expect(r.code, r.stderr).toBe(0);
        return lastUser(server.requests[0]!);
      } finally {
        await server.close();
      }
    };
    const pr = await run("/open-pr for issue 12");
    expect(pr).toContain("CURSOR-CMD-BODY");
    expect(pr).toContain("for issue 12");
    const rel = await run("/release v2");
    expect(rel).toContain("WINDSURF-WF-BODY");
    expect(rel).toContain("v2");
    expect(await run("/standup")).toContain("USER-CURSOR-BODY");
    expect(await run("/triage")).toContain("USER-WINDSURF-BODY");
    expect(await run("/unused")).not.toContain("NESTED-CURSOR-BODY");
  }, 180_000);
});
