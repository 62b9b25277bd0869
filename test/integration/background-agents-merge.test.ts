/**
 * Merging a background agent's BRANCH (issue 24: "or merges the branch, the user's choice"):
 * `yoke agents merge ID --strategy merge`, through the built CLI with real git and real agent
 * processes. A branch that conflicts with commits the user made meanwhile is refused with the
 * explanation and nothing changes (HEAD, index, uncommitted and untracked work); a clean one is
 * merged with a merge commit and the user's uncommitted work in other files survives; a git merge
 * that stops (merge.ff=only) or a merge already in progress changes nothing.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli, type CliResult } from "../support/cli";

let server: ScriptedServer | undefined;
const temps: string[] = [];

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });
const SHARED = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";

interface Env {
  home: string;
  ws: string;
}

function setup(): Env {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-merge-")));
  temps.push(root);
  const home = join(root, "home");
  const ws = join(root, "repo");
  mkdirSync(home);
  mkdirSync(ws);
  git(ws, "init", "-q", "-b", "main");
  writeFileSync(join(ws, "shared.txt"), SHARED);
  writeFileSync(join(ws, "guide.md"), "# Demo\n");
  git(ws, "add", "-A");
  git(ws, "commit", "-qm", "initial");
  return { home, ws };
}

const convo = (req: RecordedRequest) => JSON.stringify((req.body as { messages?: unknown }).messages ?? []);
const toolResults = (req: RecordedRequest) => ((req.body as { messages?: Array<{ role: string }> }).messages ?? []).filter((m) => m.role === "tool").length;
const cli = (env: Env, args: string[]): Promise<CliResult> => runCli(args, { cwd: env.ws, env: { HOME: env.home, XDG_DATA_HOME: undefined } });

/** Agents whose tasks name what they write: LINE3 changes line 3 of shared.txt, LINE9 line 9 and adds new.txt. */
function script(req: RecordedRequest): ScriptedTurn {
  const text = convo(req);
  const step = toolResults(req);
  // A file is read before it is written (the edit tools refuse a blind overwrite).
  if (step === 0) return { toolCalls: [{ name: "read_file", input: { path: "shared.txt" } }] };
  if (step > 1) return { text: "done" };
  if (text.includes("LINE3")) return { toolCalls: [{ name: "write_file", input: { path: "shared.txt", content: SHARED.replace("three", "THREE (agent)") } }] };
  if (text.includes("LINE9")) {
    return {
      toolCalls: [
        { name: "write_file", input: { path: "shared.txt", content: SHARED.replace("nine", "NINE (agent)") } },
        { name: "write_file", input: { path: "new.txt", content: "made by the agent\n" } },
      ],
    };
  }
  return { text: "?" };
}

async function startAndFinish(env: Env, prompts: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const p of prompts) {
    const r = await cli(env, [
      "run",
      "--background",
      "--trust",
      "--provider",
      "openai-compatible",
      "--base-url",
      server!.openaiBaseUrl,
      "--model",
      "m",
      "--permission-mode",
      "bypassPermissions",
      "--cwd",
      env.ws,
      p,
    ]);
    expect(r.code, r.stderr).toBe(0);
    ids.push(r.stdout.trim());
  }
  const end = Date.now() + 90_000;
  for (;;) {
    const r = await cli(env, ["agents", "list", "--json", "--cwd", env.ws]);
    const states = (JSON.parse(r.stdout) as { agents: Array<{ state: string }> }).agents.map((a) => a.state);
    if (states.length === ids.length && states.every((s) => s === "finished")) return ids;
    if (Date.now() > end) throw new Error(`agents did not finish: ${states.join(", ")}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** Everything of the user's repository a merge could change. */
function snapshot(env: Env) {
  return {
    head: git(env.ws, "rev-parse", "HEAD").trim(),
    status: git(env.ws, "status", "--porcelain=v1", "--untracked-files=all"),
    index: git(env.ws, "diff", "--cached"),
    shared: readFileSync(join(env.ws, "shared.txt"), "utf8"),
    guide: readFileSync(join(env.ws, "guide.md"), "utf8"),
    scratch: readFileSync(join(env.ws, "scratch.txt"), "utf8"),
    mergeHead: existsSync(join(env.ws, ".git", "MERGE_HEAD")),
  };
}

describe("merging a background agent's branch (--strategy merge)", () => {
  it("refuses a branch that conflicts with the user's commits, changing nothing; merges a clean one, keeping the user's uncommitted work", async () => {
    const env = setup();
    server = await startScriptedLlmServer({ script });
    const [line3, line9] = (await startAndFinish(env, ["LINE3 shout line three", "LINE9 shout line nine"])) as [string, string];
    // Meanwhile the user committed their own line 3, and has uncommitted and untracked work elsewhere.
    writeFileSync(join(env.ws, "shared.txt"), SHARED.replace("three", "three (mine, committed)"));
    git(env.ws, "commit", "-qam", "my line three");
    writeFileSync(join(env.ws, "guide.md"), "# Demo\n\nmy uncommitted words\n");
    writeFileSync(join(env.ws, "scratch.txt"), "untracked scratch\n");
    const before = snapshot(env);

    const refused = await cli(env, ["agents", "merge", line3, "--strategy", "merge", "--json", "--cwd", env.ws]);
    expect(refused.code).toBe(1);
    const doc = JSON.parse(refused.stdout) as { ok: boolean; reason: string; conflicts: Array<{ path: string; detail: string }> };
    expect(doc.ok).toBe(false);
    expect(doc.reason).toContain("not merged: the agent's branch conflicts with your branch; nothing was changed");
    expect(doc.conflicts).toEqual([{ path: "shared.txt", detail: "your branch (commits since the agent started) and the agent's branch change the same lines" }]);
    expect(refused.stderr).toContain("shared.txt: your branch (commits since the agent started) and the agent's branch change the same lines");
    expect(snapshot(env)).toEqual(before);

    const merged = await cli(env, ["agents", "merge", line9, "--strategy", "merge", "--cwd", env.ws]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain(`merged agent ${line9} (merge): `);
    // A merge commit (the user's branch had moved): two parents, the user's commit and the agent's.
    const parents = git(env.ws, "log", "-1", "--format=%P").trim().split(" ");
    expect(parents).toHaveLength(2);
    expect(parents[0]).toBe(before.head);
    expect(git(env.ws, "log", "-1", "--format=%s").trim()).toMatch(new RegExp(`^Merge yoke/line9-shout-line-nine-${line9} \\(yoke agent ${line9}\\)$`));
    expect(readFileSync(join(env.ws, "shared.txt"), "utf8")).toBe(SHARED.replace("three", "three (mine, committed)").replace("nine", "NINE (agent)"));
    expect(readFileSync(join(env.ws, "new.txt"), "utf8")).toBe("made by the agent\n");
    // The user's uncommitted and untracked work is as it was, still uncommitted.
    expect(readFileSync(join(env.ws, "guide.md"), "utf8")).toBe(before.guide);
    expect(readFileSync(join(env.ws, "scratch.txt"), "utf8")).toBe(before.scratch);
    expect(git(env.ws, "status", "--porcelain=v1", "--untracked-files=all")).toBe(before.status);
  }, 180_000);

  it("a git merge that stops (merge.ff=only) or a merge already in progress changes nothing, and says why", async () => {
    const env = setup();
    server = await startScriptedLlmServer({ script });
    const [line9] = (await startAndFinish(env, ["LINE9 shout line nine"])) as [string];
    // The user's branch moved (so only a merge commit would do) and their git allows fast-forwards only.
    writeFileSync(join(env.ws, "guide.md"), "# Demo, committed\n");
    git(env.ws, "commit", "-qam", "guide");
    git(env.ws, "config", "merge.ff", "only");
    writeFileSync(join(env.ws, "scratch.txt"), "untracked scratch\n");
    const before = snapshot(env);
    const stopped = await cli(env, ["agents", "merge", line9, "--strategy", "merge", "--json", "--cwd", env.ws]);
    expect(stopped.code).toBe(1);
    const doc = JSON.parse(stopped.stdout) as { ok: boolean; reason: string };
    expect(doc.reason).toMatch(/^not merged: git merge stopped, changing nothing: .*fast-forward/);
    expect(snapshot(env)).toEqual(before);

    // A merge of the user's own in progress (conflicted): refused before anything is touched.
    git(env.ws, "config", "--unset", "merge.ff");
    git(env.ws, "checkout", "-qb", "side", "HEAD~1");
    writeFileSync(join(env.ws, "guide.md"), "# Demo, on the side\n");
    git(env.ws, "commit", "-qam", "side guide");
    git(env.ws, "checkout", "-q", "main");
    expect(() => git(env.ws, "merge", "side")).toThrow();
    expect(existsSync(join(env.ws, ".git", "MERGE_HEAD"))).toBe(true);
    const head = git(env.ws, "rev-parse", "HEAD").trim();
    const busy = await cli(env, ["agents", "merge", line9, "--strategy", "merge", "--json", "--cwd", env.ws]);
    expect(busy.code).toBe(1);
    expect((JSON.parse(busy.stdout) as { reason: string }).reason).toBe("not merged: your repository is in the middle of a merge; finish or abort it first");
    expect(git(env.ws, "rev-parse", "HEAD").trim()).toBe(head);
    expect(readFileSync(join(env.ws, "guide.md"), "utf8")).toContain("<<<<<<<");
    expect(existsSync(join(env.ws, "new.txt"))).toBe(false);
  }, 180_000);
});
