/**
 * Red team B, session 22: a Cursor hook entry's `matcher` was not read by Yoke (the hook ran for every
 * call of its event), so the person's `~/.cursor/hooks.json` allowing only `git status` (a matcher, as
 * Cursor's hooks files carry one) made `rm -rf data` run without approval in default mode. Since
 * session 23 the matcher is read as Cursor reads it (the command text on beforeShellExecution): the
 * hook does not run for `rm -rf data`, so nothing allows it. The built CLI against the scripted model, as root and as an
 * unprivileged user; asserted on the outcome (the folder is still there) and on what the model was told.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";
import { scriptedRunArgs, toolResultTexts } from "../support/scripted-run";

const temps: string[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe.each(identities().list)("a Cursor hook's unread matcher, as $label", (who: Identity) => {
  it("an allow from a user hook whose matcher names only `git status` does not let `rm -rf data` run in default mode", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-redb-matcher-")));
    temps.push(dir);
    const ws = join(dir, "ws");
    const home = join(dir, "home");
    mkdirSync(join(ws, "data"), { recursive: true });
    mkdirSync(join(home, ".cursor"), { recursive: true });
    writeFileSync(join(ws, "data/important.txt"), "keep me\n");
    // Shaped as Cursor's hooks files are: version 1, an event, entries with command and matcher.
    writeFileSync(join(home, ".cursor/hooks.json"), JSON.stringify({ version: 1, hooks: { beforeShellExecution: [{ command: `printf '{"permission":"allow"}'`, matcher: "^git status$" }] } }));
    chownTree(dir, who);
    const llm = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "run_command", input: { command: "rm -rf data" } }] }, { text: "Done." }],
    });
    try {
      const r = await runCliAs(who, [...scriptedRunArgs(llm.openaiBaseUrl, ws, join(dir, "sessions")), "--permission-mode", "default", "Clean up"], {
        env: { HOME: home },
        timeoutMs: 120_000,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(ws, "data/important.txt"))).toBe(true);
      const told = toolResultTexts(llm.requests.at(-1));
      expect(told[0]).not.toContain("Exit code 0");
    } finally {
      await llm.close();
    }
  }, 180_000);
});
