/**
 * An ignore file written during a `yoke run` counts from the next call (issue 23, session 24): the
 * built CLI against the scripted model over HTTP, as root and as an unprivileged user. The person
 * writes a `.cursorignore` (Cursor's docs: `secrets/`, a folder) between two of the model's reads;
 * the CLI's watch (core/permissions/gate-files.ts over the WorkspaceFs watch port) reloads the gate,
 * and the second read is refused naming the file and line: that file's content is in no request.
 * Before, the CLI watched nothing and the second read went through.
 */
import { chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";
import { toolResultTexts } from "../support/scripted-run";

const temps: string[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const BEFORE = "READ-BEFORE-THE-IGNORE-FILE-4b1";
const AFTER = "IGNORED-SINCE-MID-SESSION-5c2";

describe.each(identities().list)("an ignore file written mid-session counts from the next call, as $label", (who: Identity) => {
  it("the read after the person writes .cursorignore is denied, naming it; the one before went through", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-ignore-watch-")));
    temps.push(dir);
    const ws = join(dir, "ws");
    const home = join(dir, "home");
    const sessions = join(dir, "sessions");
    for (const d of [join(ws, "secrets"), home, sessions]) mkdirSync(d, { recursive: true });
    writeFileSync(join(ws, "secrets/first.txt"), `${BEFORE}\n`);
    writeFileSync(join(ws, "secrets/second.txt"), `${AFTER}\n`);
    chownTree(dir, who);

    const script = (req: RecordedRequest): ScriptedTurn => {
      const results = toolResultTexts(req).length;
      if (results === 0) return { toolCalls: [{ name: "read_file", input: { path: "secrets/first.txt" } }] };
      if (results === 1) {
        // The person saves a .cursorignore while the model thinks; the model's answer comes a moment
        // later (the watch's event and the gate's reload take milliseconds).
        const file = join(ws, ".cursorignore");
        writeFileSync(file, "# keep secrets from the agent\nsecrets/\n");
        const owner = statSync(ws);
        chownSync(file, owner.uid, owner.gid);
        return { toolCalls: [{ name: "read_file", input: { path: "secrets/second.txt" } }], delayMs: 1_500 };
      }
      return { text: "Done." };
    };
    const llm = await startScriptedLlmServer({ script });
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
          ws,
          "--session-dir",
          sessions,
          "--permission-mode",
          "bypassPermissions",
          "Read the secrets",
        ],
        { env: { HOME: home }, timeoutMs: 120_000 },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(llm.requests).toHaveLength(3);
      const told = toolResultTexts(llm.requests.at(-1));
      // Before the ignore file: read. After it: refused, naming the file and its line.
      expect(told[0]).toContain(BEFORE);
      expect(told[1]).toContain("denied by the rule secrets/ (.cursorignore:2, Cursor's ignore file)");
      const everything = llm.requests.map((q) => JSON.stringify(q.body)).join("\n");
      expect(everything).not.toContain(AFTER);
    } finally {
      await llm.close();
    }
  }, 180_000);
});
