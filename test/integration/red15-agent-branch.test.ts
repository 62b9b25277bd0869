/**
 * Red team round 15: what `yoke agents merge --strategy merge` merges is what the user reviewed.
 * FULL SESSION (the built CLI's `yoke run --trust --permission-mode bypassPermissions`, a scripted
 * model over real HTTP), then the user's own `yoke agents diff` and `yoke agents merge`, as root and
 * as the unprivileged user, with bwrap and firejail.
 *
 * An isolated custom agent makes an ordinary change (kept for review as a background agent). The
 * review (`yoke agents diff`) shows the agent's worktree; the merge strategy merged the agent's
 * BRANCH, a ref in the user's `.git/refs`, which commands of the user's own session may write (git's
 * ordinary work). The parent's model, in the sandbox, pointed the agent's branch at a commit
 * adding `.husky/pre-commit` (a protected path: it runs on the user's next commit) and the agent
 * worktree's HEAD (`.git/worktrees/<name>/HEAD`, git's own allow-listed file) at a decoy branch,
 * so Yoke's own commit of the reviewed work went to the decoy. The user reviewed `M app.txt`, ran
 * `yoke agents merge ID --strategy merge`, and git wrote `.husky/pre-commit` into their tree; with
 * husky set up, their next `git commit` ran it on the host.
 *
 * Fixed in src/node/background/merge.ts: the merge strategy merges a commit Yoke makes of the
 * reviewed tree itself (the worktree's state, as `yoke agents diff` shows it) on the agent's base,
 * never the branch as it stands; and like the apply strategy it refuses a change to a protected path
 * or `.git`, which only the user writes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer, type RecordedRequest } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { bash, cellFolder, committedWorkspace, sandboxBackends, sessionFolder } from "../support/sandbox-matrix";
import { removeTemps } from "../support/teardown";
import { ensureBuilt } from "../support/cli";
import { identities, runCliAs, type Identity } from "../support/identities";
import { scriptedRunArgs, subagentDepthOf } from "../support/scripted-run";

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

const AGENT = ["---", "name: helper", "description: Edits in a worktree of its own", "tools: Read, Write, Bash", "isolation: worktree", "---", "You help.", ""].join("\n");

// The parent's command after the agent finished: the agent's branch at a commit adding a husky
// hook, the agent worktree's HEAD at a decoy branch (only git plumbing; every write is git's own).
const FORGE = [
  "set -e",
  "b=$(git for-each-ref --format='%(refname)' refs/heads/yoke/ | head -1)",
  "n=${b#refs/heads/yoke/}",
  "blob=$(printf '#!/bin/sh\\necho red15-hook-ran > hook-ran.txt\\n' | git hash-object -w --stdin)",
  "GIT_INDEX_FILE=forge.idx git read-tree HEAD",
  "GIT_INDEX_FILE=forge.idx git update-index --add --cacheinfo 100755,$blob,.husky/pre-commit",
  "t=$(GIT_INDEX_FILE=forge.idx git write-tree)",
  "c=$(git -c user.name=a -c user.email=a@a commit-tree $t -p HEAD -m 'yoke agent')",
  "rm -f forge.idx",
  "git update-ref $b $c",
  "git update-ref refs/heads/decoy HEAD",
  "printf 'ref: refs/heads/decoy\\n' > .git/worktrees/$n/HEAD",
  "echo forged $b $n",
].join("\n");

function byDepth(queues: Record<number, ScriptedTurn[]>) {
  return async (r: RecordedRequest): Promise<ScriptedTurn> => queues[subagentDepthOf(r)]?.shift() ?? { text: "done" };
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)("yoke agents merge --strategy merge brings in the reviewed change only, never a protected path the session put on the agent's branch", async () => {
      const { base, home } = cellFolder(`yoke-red15-br-${backend}-`, id, temps, { sandbox: { backend } });
      const ws = committedWorkspace(join(base, "ws"), { "app.txt": "one\ntwo\n", ".claude/agents/helper.md": AGENT }, id);
      const sessions = sessionFolder(join(base, "sessions"), id);
      const env = { HOME: home, XDG_DATA_HOME: undefined, OPENAI_API_KEY: "sk-red15" };
      const server = await startScriptedLlmServer({
        script: byDepth({
          0: [{ toolCalls: [{ name: "task", input: { description: "Edit", prompt: "Change two to TWO in app.txt.", subagent_type: "helper" } }] }, bash(FORGE), { text: "done" }],
          1: [{ toolCalls: [{ name: "read_file", input: { path: "app.txt" } }] }, { toolCalls: [{ name: "write_file", input: { path: "app.txt", content: "one\nTWO\n" } }] }, { text: "changed" }],
        }),
      });
      let told: string;
      try {
        const r = await runCliAs(id, [...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "--permission-mode", "bypassPermissions", "go"], { cwd: ws, env, timeoutMs: 200_000 });
        expect(r.code, r.stderr).toBe(0);
        told = JSON.stringify(server.requests.at(-1)?.body ?? {});
      } finally {
        await server.close();
      }
      // The session's command did its part (this is the attack, not the product).
      expect(told).toContain("forged refs/heads/yoke/");
      const agentId = /as background agent ([0-9a-f]{8})/.exec(told)?.[1];
      expect(agentId, told).toBeDefined();
      // What the user reviews: the agent's one change.
      const diff = await runCliAs(id, ["agents", "diff", agentId!, "--cwd", ws], { cwd: ws, env });
      expect(diff.code, diff.stderr).toBe(0);
      expect(diff.stdout).toContain("app.txt");
      expect(diff.stdout).not.toContain(".husky");
      // The user merges what they reviewed.
      const merged = await runCliAs(id, ["agents", "merge", agentId!, "--strategy", "merge", "--cwd", ws], { cwd: ws, env });
      expect(existsSync(join(ws, ".husky", "pre-commit")), merged.stdout + merged.stderr).toBe(false);
      expect(merged.code, merged.stdout + merged.stderr).toBe(0);
      expect(readFileSync(join(ws, "app.txt"), "utf8")).toBe("one\nTWO\n");
      // The user's next commit, with husky set up, runs nothing the session planted.
      mkdirSync(join(ws, ".husky"), { recursive: true });
      execFileSync("git", ["-C", ws, "-c", "safe.directory=*", "-c", "core.hooksPath=.husky", "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-q", "--allow-empty", "-m", "next"]);
      expect(existsSync(join(ws, "hook-ran.txt"))).toBe(false);
    });
  });
});
