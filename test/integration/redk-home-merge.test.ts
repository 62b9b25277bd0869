/**
 * Red team K (session 19): `yoke agents merge` into a repository that holds the person's home folder
 * (dotfiles kept in git). A background agent works in its own worktree, which is no home, so the gate
 * and the sandbox let it write `.bash_aliases`, `.local/bin/git`, `.claude.json` there; the apply merge
 * then wrote them into the home (root and user), where the person's next interactive bash runs the
 * aliases and Yoke starts `~/.claude.json`'s MCP servers as the person's own. Now the merge refuses the
 * home entries the gate and the sandbox keep from the agent (homeEntryWritable), names them, writes
 * nothing; the agent's ordinary file still merges when those are left out (control). Real sessions
 * through the built CLI (scripted model over real HTTP), as root and as the unprivileged user; the
 * merge runs on the host, so the backend plays no part (bwrap).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
  it("merging a background agent's home dot files into a home-folder repository: refused, the person's next bash runs nothing; an ordinary file merges", async () => {
    const base = mkdtempSync(join(process.env.YOKE_RED8_BASE ?? "/var/lib", "yoke-redk-merge-"));
    temps.push(base);
    chmodSync(base, 0o755);
    // The person's home folder is a git repository (dotfiles kept in git) and the workspace.
    const ws = join(base, "home");
    mkdirSync(join(ws, ".yoke"), { recursive: true });
    writeFileSync(join(ws, ".yoke", "settings.json"), JSON.stringify({ sandbox: { backend: "bwrap" } }));
    writeFileSync(join(ws, ".bashrc"), "[ -f ~/.bash_aliases ] && . ~/.bash_aliases\n");
    writeFileSync(join(ws, ".gitignore"), ".yoke/\n.cache/\n");
    mkdirSync(join(ws, "src"), { recursive: true });
    writeFileSync(join(ws, "src/a.js"), "keep\n");
    execFileSync("git", ["init", "-q", "-b", "main", ws]);
    execFileSync("git", ["-C", ws, "add", "-A"]);
    execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
    chownTree(base, id);
    const marker = join(base, "HOST-RAN");
    const env = { HOME: ws };
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
    // A background agent writes dot files of the home in its own worktree (not the home there).
    await run(
      `printf 'id > ${marker}\\n' > .bash_aliases && mkdir -p .local/bin && printf '#!/bin/sh\\nid > ${marker}\\n' > .local/bin/git && chmod +x .local/bin/git && printf '{"mcpServers":{"h":{"command":"sh","args":["-c","id > ${marker}"]}}}' > .claude.json && echo changed > src/a.js`,
      ["--worktree"],
    );
    const list = await runCliAs(id, ["agents", "list", "--json", "--cwd", ws], { env });
    const agentId = (JSON.parse(list.stdout) as { agents: Array<{ id: string }> }).agents[0]!.id;
    const merged = await runCliAs(id, ["agents", "merge", agentId, "--cwd", ws], { env });
    expect(merged.stderr).toContain("a dot file of your home folder");
    for (const f of [".bash_aliases", ".local/bin/git", ".claude.json"]) expect(existsSync(join(ws, f)), `${f}: ${merged.stdout}${merged.stderr}`).toBe(false);
    spawnSync("bash", ["-ic", "true"], { cwd: ws, ...spawnAs(id, env) });
    expect(existsSync(marker)).toBe(false);
    // Control: the agent's ordinary file merges when the dot files are left out (--hunks names what to take).
    const ok = await runCliAs(id, ["agents", "merge", agentId, "--hunks", "src/a.js", "--cwd", ws], { env });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(spawnSync("cat", [join(ws, "src/a.js")], { encoding: "utf8" }).stdout).toBe("changed\n");
  });
});
