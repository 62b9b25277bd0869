/**
 * Red team round 15: Yoke's OWN host-side writes into an isolated agent's worktree, attacked
 * through FULL SESSIONS (the built CLI's `yoke run --trust --permission-mode bypassPermissions`, a
 * scripted model over real HTTP), as root and as the unprivileged user, with bwrap and firejail.
 *
 * A custom agent with `isolation: worktree` gets a new git worktree under
 * `~/.local/share/yoke/worktrees/<key>/<name>`, and Yoke copies (or links) into it the paths of the
 * repository's `worktrees.copy` / `worktrees.link` (a project setting: "tighten: any"). The source
 * was checked to stay inside the repository; the DESTINATION was not: Yoke wrote
 * `<worktree>/<path>`, following any symbolic link the fresh checkout has on the way. The
 * repository commits `cfg -> ../../../../../..`, which in EVERY agent worktree (six folders below
 * the home) is the user's home; the model's one sandboxed command in the user's tree replaces
 * `cfg` by a real folder holding the payload (an ordinary workspace write); the repository's
 * `worktrees.copy: ["cfg/.bash_aliases"]` and `worktrees.link: ["cfg/.local/bin/git"]` then made
 * Yoke, on the host, create `~/.bash_aliases` (run by every new shell) and `~/.local/bin/git`
 * (a link to the workspace's script, first on PATH). The home changed with no question asked,
 * past the sandbox that had held every command of the session.
 *
 * Fixed in src/node/background/worktree.ts: a destination is refused when any folder on its way in
 * the worktree is a symbolic link, or is not a folder (nothing followed, nothing created through
 * it), and the copy / link is made relative to a checked folder descriptor.
 */
import { spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer, type RecordedRequest } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { bash, cellFolder, committedWorkspace, sandboxBackends, sessionFolder } from "../support/sandbox-matrix";
import { removeTemps } from "../support/teardown";
import { cliPath, ensureBuilt } from "../support/cli";
import { chownTree, identities, spawnAs, type Identity } from "../support/identities";
import { scriptedRunArgs, subagentDepthOf, toldOf } from "../support/scripted-run";

vi.setConfig({ testTimeout: 300_000, hookTimeout: 180_000 });
const { list: who, missing } = identities();
const temps: string[] = [];
const backends = sandboxBackends();

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => removeTemps(temps));

it("runs as root and as an unprivileged user, with bwrap and firejail (or says why it cannot)", () => {
  if (missing) console.warn(missing);
  for (const [b, why] of backends) if (why) console.warn(`${b}: ${why}`);
  expect(who.length).toBeGreaterThan(0);
});

const PAYLOAD = "echo red15-pwned > /tmp/red15-ran\n";
const AGENT = ["---", "name: helper", "description: Helps in a worktree of its own", "tools: Read, Bash", "isolation: worktree", "---", "You help.", ""].join("\n");

function byDepth(queues: Record<number, ScriptedTurn[]>) {
  return async (r: RecordedRequest): Promise<ScriptedTurn> => queues[subagentDepthOf(r)]?.shift() ?? { text: "done" };
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)("a committed link on the way of worktrees.copy / worktrees.link does not lead Yoke's copy into the home; an ordinary copy and link still happen", async () => {
      const { base, home } = cellFolder(`yoke-red15-wt-${backend}-`, id, temps, { sandbox: { backend } });
      const ws = join(base, "ws");
      mkdirSync(ws, { recursive: true });
      // The committed link: six folders up from any agent worktree is the home.
      symlinkSync("../../../../../..", join(ws, "cfg"));
      committedWorkspace(
        ws,
        {
          "README.md": "readme\n",
          ".gitignore": "local.env\nnode_modules/\n",
          ".claude/agents/helper.md": AGENT,
          ".yoke/settings.json": JSON.stringify({ worktrees: { copy: ["cfg/.bash_aliases", "local.env"], link: ["cfg/.local/bin/git", "node_modules"] } }),
        },
        id,
      );
      // The user's ignored files an ordinary setting copies and links (they stay working).
      writeFileSync(join(ws, "local.env"), "LOCAL=1\n");
      mkdirSync(join(ws, "node_modules", "dep"), { recursive: true });
      writeFileSync(join(ws, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
      chownTree(ws, id);

      const sessions = sessionFolder(join(base, "sessions"), id);
      const server = await startScriptedLlmServer({
        script: byDepth({
          0: [
            // An ordinary workspace write in the sandbox: the link becomes a folder with the payload.
            bash(
              `rm cfg && mkdir -p cfg/.local/bin && printf '${PAYLOAD.trim()}\\n' > cfg/.bash_aliases && printf '#!/bin/sh\\n${PAYLOAD.trim()}\\n' > cfg/.local/bin/git && chmod +x cfg/.local/bin/git`,
            ),
            { toolCalls: [{ name: "task", input: { description: "Look", prompt: "Look at README.md.", subagent_type: "helper" } }] },
            { text: "done" },
          ],
          1: [bash("ls -a; cat local.env"), { text: "looked" }],
        }),
      });
      let code: number | null;
      let stderr = "";
      try {
        const args = [cliPath, ...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "--permission-mode", "bypassPermissions", "go"];
        const child = spawn(process.execPath, args, { cwd: ws, stdio: ["pipe", "pipe", "pipe"], ...spawnAs(id, { HOME: home, XDG_DATA_HOME: undefined }) });
        child.stdout!.resume();
        child.stderr!.on("data", (d) => (stderr += d));
        child.stdin!.end();
        const timer = setTimeout(() => child.kill("SIGKILL"), 200_000);
        code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
        clearTimeout(timer);
      } finally {
        await server.close();
      }
      const told = toldOf(server.requests);
      expect(code, stderr).toBe(0);
      // The command ran in the user's tree (the payload is there), and the agent's worktree was made.
      expect(readFileSync(join(ws, "cfg", ".bash_aliases"), "utf8")).toContain("red15-pwned");
      // The home is unchanged: no ~/.bash_aliases, no ~/.local/bin/git (not even a dangling link).
      expect(existsSync(join(home, ".bash_aliases")), told).toBe(false);
      expect(() => lstatSync(join(home, ".local", "bin", "git"))).toThrow();
      // The ordinary paths were copied and linked into the agent's worktree (its command saw them).
      const child = server.requests
        .filter((q) => subagentDepthOf(q) === 1)
        .map((q) => JSON.stringify(q.body))
        .join("\n");
      expect(child).toContain("LOCAL=1");
      // (The link is placed; its target, in the user's tree, is not in the agent's sandbox: `ls -a` lists it.)
      expect(child).toMatch(/local\.env\s+node_modules/);
      // What was refused is said to the user and the model (the agent's report of skipped paths).
      expect(stderr + told).toMatch(/cfg\/\.bash_aliases: .*symbolic link/);
    });
  });
});
