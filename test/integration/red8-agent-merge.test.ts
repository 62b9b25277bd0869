/**
 * Red team round 8: `yoke agents merge` (apply) wrote the agent's files into the user's tree with
 * Node's writeFileSync, which follows a symbolic link. A command of an earlier bypassPermissions
 * session (no deny rule) left an untracked link `notes.sh -> .git/hooks/pre-commit` (an ordinary
 * name; its target does not exist yet); a background agent added `notes.sh` (a script); merging it
 * created `.git/hooks/pre-commit`, executable, and the user's next `git commit` ran it on the host.
 * Real sessions through the built CLI (scripted model over real HTTP), as root and as the
 * unprivileged user; outcome: the hook is not written, nothing runs at the user's commit, and the
 * refusal names the link. The backend plays no part in the merge (it runs on the host): bwrap.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { cliPath, ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, spawnAs, type Identity } from "../support/identities";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 180_000 });
const { list: who } = identities();
const temps: string[] = [];

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it("merging a background agent's file does not write through a link in the user's tree into .git/hooks", async () => {
    // Not under /tmp: the sandbox's /tmp is private, and the worktree's git needs the repository.
    const base = mkdtempSync(join(process.env.YOKE_RED8_BASE ?? "/var/lib", "yoke-red8-merge-"));
    temps.push(base);
    chmodSync(base, 0o755);
    const home = join(base, "home");
    mkdirSync(join(home, ".yoke"), { recursive: true });
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ sandbox: { backend: "bwrap" } }));
    const ws = join(base, "ws");
    mkdirSync(join(ws, "src"), { recursive: true });
    writeFileSync(join(ws, "src/a.js"), "keep\n");
    execFileSync("git", ["init", "-q", "-b", "main", ws]);
    execFileSync("git", ["-C", ws, "add", "-A"]);
    execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
    chownTree(base, id);
    const marker = join(base, "hook-ran");
    const env = { HOME: home };

    const run = async (command: string, extra: string[]) => {
      const server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "run_command", input: { command } }] }, { text: "done" }] });
      try {
        const args = [
          cliPath,
          "run",
          "--trust",
          "--provider",
          "openai-compatible",
          "--base-url",
          server.openaiBaseUrl,
          "--model",
          "m",
          "--cwd",
          ws,
          "--permission-mode",
          "bypassPermissions",
          ...extra,
          "go",
        ];
        const child = spawn(process.execPath, args, { cwd: ws, stdio: ["pipe", "pipe", "pipe"], ...spawnAs(id, env) });
        let stderr = "";
        child.stdout!.on("data", () => undefined);
        child.stderr!.on("data", (d) => (stderr += d));
        child.stdin!.end();
        const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
        expect(code, stderr).toBe(0);
      } finally {
        await server.close();
      }
    };
    // 1. A foreground session leaves the link (an ordinary name, its target missing).
    await run("ln -s .git/hooks/pre-commit notes.sh", []);
    expect(lstatSync(join(ws, "notes.sh")).isSymbolicLink()).toBe(true);
    // 2. A background agent adds notes.sh, a script.
    await run(`rm -f notes.sh; printf '#!/bin/sh\\ntouch ${marker}\\n' > notes.sh && chmod +x notes.sh`, ["--worktree"]);
    const list = await runCliAs(id, ["agents", "list", "--json", "--cwd", ws], { env });
    const agentId = (JSON.parse(list.stdout) as { agents: Array<{ id: string }> }).agents[0]!.id;
    // 3. The user merges it.
    const merged = await runCliAs(id, ["agents", "merge", agentId, "--cwd", ws], { env });
    expect(existsSync(join(ws, ".git/hooks/pre-commit")), merged.stdout + merged.stderr).toBe(false);
    expect(merged.stdout + merged.stderr).toContain("symbolic link");
    // The user's next commit runs nothing.
    spawnSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit", "-q", "--allow-empty", "-m", "x"], { cwd: ws, ...spawnAs(id, env) });
    expect(existsSync(marker)).toBe(false);
    // Control: an ordinary file of an agent still merges.
    await run("echo changed > src/a.js", ["--worktree"]);
    const again = await runCliAs(id, ["agents", "list", "--json", "--cwd", ws], { env });
    const second = (JSON.parse(again.stdout) as { agents: Array<{ id: string; task: string }> }).agents.find((a) => a.id !== agentId)!.id;
    const ok = await runCliAs(id, ["agents", "merge", second, "--cwd", ws], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(spawnSync("cat", [join(ws, "src/a.js")], { encoding: "utf8" }).stdout).toBe("changed\n");
  });
});
