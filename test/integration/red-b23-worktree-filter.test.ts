/**
 * Red team B (session 23): Yoke's OWN host-side git in an isolated agent's worktree ran the
 * person's git filter drivers on what the agent wrote — through a FULL SESSION (the built CLI's
 * `yoke run --trust --permission-mode bypassPermissions`, a scripted model over real HTTP), as root
 * and as the unprivileged user.
 *
 * The repository uses nbstripout the way `nbstripout --install` sets it up: `*.ipynb
 * filter=nbstripout` in the attributes and `filter.nbstripout.clean = "/usr/bin/python3" -m
 * nbstripout` in `.git/config` (the person's). A sub-agent with `isolation: worktree` writes, in its
 * own worktree, an ordinary file `nbstripout.py` and changes `a.ipynb` (sandboxed commands, nothing
 * protected). When it ends, Yoke takes its change as a tree (`worktreeTree`: `git add -A` into a
 * private index), on the host: git ran the clean filter in the worktree, `python3 -m` put the
 * worktree first on its module path, and the agent's `nbstripout.py` ran unconfined — it wrote a
 * file in the person's home, which no command of the session can reach. The Agents view's refresh,
 * `yoke agents diff` and merge take the same tree.
 *
 * Fixed in src/node/background/worktree.ts: Yoke's git in an agent's worktree runs with every filter
 * driver the configuration defines turned off (the files are taken as they are), and its diff with
 * no external diff and no textconv.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer, type RecordedRequest } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { bash, cellFolder, committedWorkspace, sandboxBackends, sessionFolder } from "../support/sandbox-matrix";
import { removeTemps } from "../support/teardown";
import { cliPath, ensureBuilt } from "../support/cli";
import { chownTree, identities, spawnAs, type Identity } from "../support/identities";
import { scriptedRunArgs, subagentDepthOf, toldOf } from "../support/scripted-run";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 180_000 });
const { list: who, missing } = identities();
const temps: string[] = [];
// The harm is on the host (Yoke's own git), whatever confines the commands: one backend is enough.
const [backend, unusable] = sandboxBackends()[0]!;
const PYTHON = "/usr/bin/python3";

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => removeTemps(temps));

it("runs as root and as an unprivileged user (or says why it cannot)", () => {
  if (missing) console.warn(missing);
  expect(who.length).toBeGreaterThan(0);
});

const AGENT = ["---", "name: helper", "description: Cleans notebooks in a worktree of its own", "tools: Read, Bash", "isolation: worktree", "---", "You help.", ""].join("\n");

function byDepth(queues: Record<number, ScriptedTurn[]>) {
  return async (r: RecordedRequest): Promise<ScriptedTurn> => queues[subagentDepthOf(r)]?.shift() ?? { text: "done" };
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it.skipIf(!!unusable || !existsSync(PYTHON))("the person's nbstripout filter does not run the agent's nbstripout.py on the host when Yoke takes the agent's change", async () => {
    const { base, home } = cellFolder(`yoke-redb23-filter-`, id, temps, { sandbox: { backend } });
    const ws = join(base, "ws");
    mkdirSync(ws, { recursive: true });
    committedWorkspace(ws, { "README.md": "readme\n", "a.ipynb": '{"cells": []}\n', ".gitattributes": "*.ipynb filter=nbstripout\n", ".claude/agents/helper.md": AGENT }, id);
    // What `nbstripout --install` writes into the repository's configuration (the person's).
    execFileSync("git", ["-c", "safe.directory=*", "-C", ws, "config", "filter.nbstripout.clean", `"${PYTHON}" -m nbstripout`]);
    execFileSync("git", ["-c", "safe.directory=*", "-C", ws, "config", "filter.nbstripout.smudge", "cat"]);
    chownTree(ws, id);
    const marker = join(home, "nbstripout-ran");
    const payload = `import os, sys\\nopen(${JSON.stringify(marker)}, "w").write(os.getcwd())\\nsys.stdout.write(sys.stdin.read())\\n`;

    const sessions = sessionFolder(join(base, "sessions"), id);
    const server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Clean", prompt: "Clean the notebook.", subagent_type: "helper" } }] }, { text: "done" }],
        // Ordinary files in its own worktree, written by a sandboxed command.
        1: [bash(`printf '${payload}' > nbstripout.py && printf '{"cells": [1]}\\n' > a.ipynb && ls`), { text: "cleaned" }],
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
    // The agent's command ran in its worktree (its listing shows the files it wrote)…
    const child = server.requests
      .filter((q) => subagentDepthOf(q) === 1)
      .map((q) => JSON.stringify(q.body))
      .join("\n");
    expect(child).toContain("nbstripout.py");
    // …and the parent was told what it changed (the tree was taken): a.ipynb and nbstripout.py.
    expect(told).toMatch(/a\.ipynb/);
    // The agent's module never ran on the host.
    expect(existsSync(marker), told).toBe(false);
  });
});

// The same rule for the other spellings of a driver (a long-running `process` filter, `required`),
// and for `yoke agents diff`'s patch (a textconv driver): Yoke's own git on the worktree, in-process.
it("a process filter, a required filter and a textconv driver run nothing when Yoke takes and diffs a worktree", async () => {
  const { mkdtempSync, realpathSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { agentPatch, changedFiles, worktreeTree } = await import("../../src/node/background/worktree");
  const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-redb23-wt-")));
  temps.push(base);
  const repo = join(base, "repo");
  const g = (cwd: string, ...a: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd, encoding: "utf8" });
  mkdirSync(repo);
  g(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, ".gitattributes"), "*.dat filter=strip diff=conv\n");
  writeFileSync(join(repo, "a.dat"), "one\n");
  g(repo, "add", "-A");
  g(repo, "commit", "-qm", "init");
  const marker = join(base, "ran");
  const head = g(repo, "rev-parse", "HEAD").trim();
  g(repo, "worktree", "add", "-q", "-b", "agent", join(base, "wt"), head);
  // The person's drivers, naming programs in the folder git runs them in.
  g(repo, "config", "filter.strip.process", "sh ./proc.sh");
  g(repo, "config", "filter.strip.required", "true");
  g(repo, "config", "diff.conv.textconv", "sh ./conv.sh");
  const wt = join(base, "wt");
  // What the agent writes in its worktree: the programs the drivers name, and a changed file.
  writeFileSync(join(wt, "proc.sh"), `echo process >> ${marker}\nexit 1\n`);
  writeFileSync(join(wt, "conv.sh"), `echo textconv >> ${marker}\ncat "$1"\n`);
  writeFileSync(join(wt, "a.dat"), "two\n");
  const tree = await worktreeTree(wt);
  expect((await changedFiles(wt, head, tree)).map((f) => f.path).sort()).toEqual(["a.dat", "conv.sh", "proc.sh"]);
  expect(await agentPatch(wt, head, tree)).toContain("+two");
  expect(existsSync(marker)).toBe(false);
});
