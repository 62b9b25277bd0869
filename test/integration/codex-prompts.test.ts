// Codex's custom prompts (~/.codex/prompts/*.md, or $CODEX_HOME/prompts), written from Codex's
// documentation: `/prompts:NAME` runs the file's text with `$1`…`$9`, `$ARGUMENTS`, upper-case named
// placeholders given as KEY=value, and `$$`; its `description` and `argument-hint` are listed. A full
// `yoke run` with the scripted model; what reached the model is asserted.
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { writeWithParents as write } from "../support/workspace";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});
beforeAll(() => ensureBuilt(), 120_000);

describe("Codex custom prompts", () => {
  it("/prompts:NAME expands positional, $ARGUMENTS, named KEY=value and $$; the listing shows it; /NAME alone is not a command", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-codex-prompts-")));
    temps.push(dir);
    const ws = join(dir, "ws");
    const home = join(dir, "home");
    write(join(ws, "README.md"), "# app\n");
    write(
      join(home, ".codex", "prompts", "draftpr.md"),
      '---\ndescription: Prep a branch, commit, and open a draft PR\nargument-hint: [FILES=<paths>] [PR_TITLE="<title>"]\n---\nCreate a branch named dev/$1. Stage $FILES and open a draft PR titled $PR_TITLE (cost: $$5). All: $ARGUMENTS. Missing: $TICKET.\n',
    );
    const sessions = join(dir, "sessions");
    server = await startScriptedLlmServer({ script: [{ text: "Drafted." }, { text: "Plain." }] });
    const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), '/prompts:draftpr feature-x FILES=src/a.ts PR_TITLE="Add a"'], { env: { HOME: home, CODEX_HOME: "" } });
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.stringify(server.requests[0]!.body.messages);
    expect(sent).toContain("Create a branch named dev/feature-x. Stage src/a.ts and open a draft PR titled Add a (cost: $5). All: feature-x. Missing: [TICKET — not given");
    // Codex runs it only as /prompts:NAME: a bare /draftpr is sent as typed.
    const plain = await runCli([...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "/draftpr feature-x"], { env: { HOME: home, CODEX_HOME: "" } });
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("/draftpr feature-x");
    expect(JSON.stringify(server.requests[1]!.body.messages)).not.toContain("Create a branch");
    const listed = await runCli(["lessons", "list", "--cwd", ws, "--json"], { env: { HOME: home, CODEX_HOME: "" } });
    const items = (JSON.parse(listed.stdout) as { items: Array<{ kind: string; name: string; description?: string; source: string }> }).items;
    expect(items.find((i) => i.kind === "command" && i.name === "/prompts:draftpr")).toMatchObject({
      description: "Prep a branch, commit, and open a draft PR",
      source: "~/.codex/prompts/draftpr.md",
    });
  }, 120_000);
});
