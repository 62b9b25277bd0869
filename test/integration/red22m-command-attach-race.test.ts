/**
 * Red team 22-merged: a command's `@file` was read by name after its checks.
 *
 * A command's `@path` (Claude) or `#file:path` (Copilot) attaches a workspace file: attachFile
 * (src/core/custom-commands/extension.ts) looks at it (a regular file), asks the permission gate
 * (which resolves links: a link to `.env` is denied under `Read(**\/.env)`), then read it with
 * `fs.readFile` — by name, following whatever link is there by then. A command the model left
 * running in the background that swaps `d` (regular files) with `e` (the same names as links to
 * `../.env`) in a loop (renameat2 exchange) put the Read-denied `.env` into the request when the
 * user then typed the repository's `/rev` (`@d/n1.md … @d/n60.md`) — root and user, before the fix.
 *
 * Fixed: the attachment is read from the file the gate checked, by descriptor, without following a
 * link (WorkspaceFs.readChecked on its resolved path); a file that changed is not attached, saying so.
 */
import { spawn } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { chownTree, runCliAs, spawnAs, type Identity } from "../support/identities";
import { scriptedRunArgs } from "../support/scripted-run";
import { cellFolder, committedWorkspace, securityMatrix, sessionFolder } from "../support/sandbox-matrix";

const { who, temps } = securityMatrix();
const tag = Math.random().toString(36).slice(2, 8);
const SECRET = `sk-red22m-attach-${tag}`;
const FILES = 60;

/** Swaps `d` and `e` (renameat2 RENAME_EXCHANGE, x86-64 system call 316) until killed. */
const FLIP = 'my ($a, $b) = ("d", "e"); while (1) { syscall(316, -100, $a, -100, $b, 2); }';

async function runCommand(id: Identity, home: string, ws: string, sessions: string, message: string): Promise<string> {
  const llm = await startScriptedLlmServer({ script: [{ text: "done" }] });
  try {
    const r = await runCliAs(id, [...scriptedRunArgs(llm.openaiBaseUrl, ws, sessions), message], { env: { HOME: home }, cwd: ws });
    expect(r.code, r.stderr).toBe(0);
    return JSON.stringify(llm.requests.map((q) => q.body));
  } finally {
    await llm.close();
  }
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it("a command's @files swapped for links to the Read-denied .env while it expands never bring the secret; without the swap they attach (control)", async () => {
    const { base, home } = cellFolder("yoke-red22m-attach-", id, temps, { permissions: { deny: ["Read(**/.env)"] } });
    const refs = Array.from({ length: FILES }, (_, i) => `@d/n${i}.md`).join(" ");
    const ws = committedWorkspace(join(base, "ws"), { "README.md": "# app\n", ".claude/commands/rev.md": `Review these notes: ${refs}\n` }, id);
    writeFileSync(join(ws, ".env"), `API_TOKEN=${SECRET}\n`);
    mkdirSync(join(ws, "d"));
    mkdirSync(join(ws, "e"));
    for (let i = 0; i < FILES; i++) {
      writeFileSync(join(ws, "d", `n${i}.md`), `plain note ${i}\n`);
      symlinkSync("../.env", join(ws, "e", `n${i}.md`));
    }
    chownTree(base, id);
    const sessions = sessionFolder(join(base, "sessions"), id);

    // Control: no swap — every note is attached.
    const plain = await runCommand(id, home, ws, sessions, "/rev");
    expect(plain).toContain("plain note 0");
    expect(plain).toContain(`plain note ${FILES - 1}`);

    // The swap loop runs (as the background command would), the user types /rev a few times.
    const flipper = spawn("perl", ["-e", FLIP], { cwd: ws, stdio: "ignore", ...spawnAs(id, {}) });
    try {
      let refused = 0;
      for (let round = 0; round < 4; round++) {
        const bodies = await runCommand(id, home, ws, sessions, "/rev");
        expect(bodies.includes(SECRET), `round ${round}: the Read-denied .env reached the request through a swapped @file`).toBe(false);
        refused += bodies.split("not attached").length - 1;
      }
      // The swap was live: some notes met the links (denied by the gate, or changed while read).
      expect(refused).toBeGreaterThan(0);
    } finally {
      flipper.kill("SIGKILL");
    }
  });
});
