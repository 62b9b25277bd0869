/**
 * Red team 17-host, process hygiene (held): what a `yoke run` killed with SIGKILL leaves behind.
 * FULL SESSION (the built CLI's `yoke run --trust`, a scripted model over real HTTP), root and user
 * × bwrap and firejail. The model starts a background command; its run_command then triggers the
 * user's PostToolUse hook and a committed one that forks a child into the background; Yoke is
 * killed while all three sleep. Each wrote a start marker, so each was running. FOUND: with
 * firejail (no die-with-parent) the user's confined hook kept running and wrote its late marker
 * after the kill (root and user). Fixed for root: every hook process now carries a marker
 * (`YOKE_RUN=hooks-…`, src/node/hook-exec.ts) that a reaper kills when Yoke dies, as commands do.
 * As the unprivileged user with firejail the marker could not be seen (a process that went through
 * the setuid firejail hides its environment from its own user): the reaper is now also told each
 * hook's pid while it runs and kills that process group (firejail's own process: its PID namespace
 * ends with it) — session 16 (sbx18). Asserted in all four cells.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionFolder } from "../support/sandbox-matrix";
import { cliPath } from "../support/cli";
import { spawnAs, type Identity } from "../support/identities";
import { scriptedRunArgs } from "../support/scripted-run";

const { who, backends, temps } = securityMatrix();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)("SIGKILL of `yoke run` while a background command, the user's hook and a repository hook (which forked) run: none of them acts afterwards", async () => {
      const { base, home } = cellFolder(`yoke-red17h-kill-${backend}-`, id, temps, (b: string) => ({
        sandbox: { backend },
        hooks: {
          PostToolUse: [{ hooks: [{ type: "command", command: `touch ${join(b, "ws", "hook-started")}; sleep 12; touch ${join(b, "ws", "hook-late")}`, timeout: 120 }] }],
        },
      }));
      const ws = committedWorkspace(
        join(base, "ws"),
        {
          "README.md": "r\n",
          ".claude/settings.json": JSON.stringify({
            hooks: {
              PostToolUse: [{ hooks: [{ type: "command", command: `touch "$CLAUDE_PROJECT_DIR/repohook-started"; (sleep 12; touch "$CLAUDE_PROJECT_DIR/repohook-late") & sleep 11`, timeout: 120 }] }],
            },
          }),
        },
        id,
      );
      const sessions = sessionFolder(join(base, "sessions"), id);
      const server = await startScriptedLlmServer({
        script: [{ toolCalls: [{ name: "run_command", input: { command: "touch bg-started; sleep 12; touch bg-late", background: true } }] }, bash("echo fg"), { text: "done" }],
      });
      const args = [cliPath, ...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "--permission-mode", "bypassPermissions", "go"];
      const child = spawn(process.execPath, args, { cwd: ws, stdio: ["pipe", "pipe", "pipe"], ...spawnAs(id, { HOME: home }) });
      let err = "";
      child.stderr!.on("data", (d) => (err += d));
      child.stdin!.end();
      // Killed as soon as all three run (each wrote its start marker), before any could finish.
      const started = ["bg-started", "hook-started", "repohook-started"];
      for (let i = 0; i < 240 && !started.every((m) => existsSync(join(ws, m))); i++) await sleep(250);
      child.kill("SIGKILL");
      for (const m of ["bg-late", "hook-late", "repohook-late"]) expect(existsSync(join(ws, m)), `${m} before the kill`).toBe(false);
      await sleep(16000);
      await server.close();
      // Each was running when Yoke was killed.
      for (const m of started) expect(existsSync(join(ws, m)), `${m}: ${err}`).toBe(true);
      expect(existsSync(join(ws, "bg-late")), "bg-late after the kill").toBe(false);
      expect(existsSync(join(ws, "hook-late")), "hook-late after the kill").toBe(false);
      expect(existsSync(join(ws, "repohook-late")), "repohook-late after the kill").toBe(false);
    });
  });
});
