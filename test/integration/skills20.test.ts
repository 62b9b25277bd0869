// Issue 23, session 20: skills as Claude Code runs them (code.claude.com/docs/en/skills), through
// full `yoke run` sessions with the scripted model, and one in-process session with a user who answers:
// - `@NAME` of a skill with `context: fork` runs it in a sub-agent (as `/NAME` does): the skill's text is
//   the sub-agent's task, and this conversation's model gets only the answer;
// - a skill the MODEL loads (load_skill) has its `` !`cmd` `` lines run before its text is sent, through
//   the gate of a command's `!` lines: the user's own skill's allowed-tools grant them, a repository's
//   skill's are asked (refused headless: nothing runs), and asked once for the load when someone answers;
// - a plugin's skill is `PLUGIN:NAME`: a project skill of the same name does not hide it; both are
//   listed, and load_skill takes either name.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/core/events";
import { skillPreprocessor } from "../../src/core/custom-commands";
import { guidanceExtension } from "../../src/core/guidance";
import { AgentSession } from "../../src/core/loop/agent-session";
import type { PermissionQuestion } from "../../src/core/loop/types";
import { silentLogger } from "../../src/core/ports";
import { createProvider } from "../../src/core/providers/create";
import { createBuiltinTools } from "../../src/core/tools/builtin";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { createNodeServices } from "../../src/node/agent-services";
import { createNodeGuidanceFiles } from "../../src/node/guidance-files";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";
import { createFileSessionStore } from "../../src/node/session-store";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs, subagentDepthOf, systemPromptOf } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];
const sessions: AgentSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.end();
  server = await closeServerAndRemoveTemps(server, temps);
});
beforeAll(() => ensureBuilt(), 120_000);

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A workspace and a home; `~/` names a file of the home. */
function setup(files: Record<string, string>) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-skills20-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  write(join(ws, "README.md"), "# app\n");
  mkdirSync(home, { recursive: true });
  for (const [rel, text] of Object.entries(files)) write(rel.startsWith("~/") ? join(home, rel.slice(2)) : join(ws, rel), text);
  return { dir, ws, home, sessions: join(dir, "sessions") };
}

const run = (s: ReturnType<typeof setup>, message: string, mode = "default") =>
  runCli([...scriptedRunArgs(server!.openaiBaseUrl, s.ws, s.sessions), "--permission-mode", mode, message], { env: { HOME: s.home } });

const yoke = (s: ReturnType<typeof setup>, args: string[]) => runCli(args, { env: { HOME: s.home }, cwd: s.ws });

const bodyOf = (r: RecordedRequest) => JSON.stringify(r.body);
const load = (name: string): ScriptedTurn => ({ toolCalls: [{ name: "load_skill", input: { name } }] });

describe("skills as Claude Code runs them", () => {
  it("@NAME of a skill with context: fork runs it in the named agent: the skill's text is its task, the model gets only the answer", async () => {
    const s = setup({
      ".claude/skills/probe/SKILL.md": "---\nname: probe\ndescription: Probe the tree\ncontext: fork\nagent: reviewer\n---\nPROBE-FORK-BODY: list the files and report.\n",
      ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code\ntools: Read\n---\nYou are the REVIEWER-PROMPT agent.\n",
    });
    server = await startScriptedLlmServer({
      script: async (r) => (subagentDepthOf(r) === 1 ? { text: "PROBE-CHILD-ANSWER-7" } : { text: "Parent done." }),
    });
    const r = await run(s, "please run @probe on this repository");
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    const parent = server.requests.filter((q) => subagentDepthOf(q) === 0);
    expect(child.length).toBe(1);
    expect(systemPromptOf(child[0]!)).toContain("REVIEWER-PROMPT");
    expect(bodyOf(child[0]!)).toContain("PROBE-FORK-BODY");
    // The parent: the answer, not the skill's text (its task is the sub-agent's, not instructions here).
    expect(parent.length).toBe(1);
    expect(bodyOf(parent[0]!)).toContain("PROBE-CHILD-ANSWER-7");
    expect(bodyOf(parent[0]!)).not.toContain("PROBE-FORK-BODY");
    expect(systemPromptOf(parent[0]!)).not.toContain("REVIEWER-PROMPT");
  }, 240_000);

  it("a skill the model loads runs its ! lines through the gate: the user's skill's allowed-tools grant them; a repository's skill's are asked (headless: refused, nothing runs)", async () => {
    const s = setup({
      "~/.claude/skills/stamp/SKILL.md":
        "---\nname: stamp\ndescription: Stamp the tree\nallowed-tools: Bash(touch:*)\n---\nUSER-STAMP-BODY\nStamp: !`touch user-stamped.txt && echo USER-STAMP-$((6*7))`\n",
      ".claude/skills/pstamp/SKILL.md":
        "---\nname: pstamp\ndescription: Stamp the tree from the repository\nallowed-tools: Bash(touch:*)\n---\nPROJECT-STAMP-BODY\nStamp: !`touch project-stamped.txt && echo PROJECT-STAMP-$((6*7))`\n",
    });
    server = await startScriptedLlmServer({ script: [load("stamp"), load("pstamp"), { text: "done" }] });
    const r = await run(s, "stamp the tree");
    expect(r.code, r.stderr).toBe(0);
    const last = bodyOf(server.requests.at(-1)!);
    // The user's skill: granted by its allowed-tools, run; its output (not the line) reached the model.
    expect(existsSync(join(s.ws, "user-stamped.txt"))).toBe(true);
    expect(last).toContain("USER-STAMP-BODY");
    expect(last).toContain("USER-STAMP-42");
    expect(last).not.toContain("echo USER-STAMP");
    // The repository's skill: its allowed-tools grant nothing by themselves; asked, refused headless, not run.
    expect(existsSync(join(s.ws, "project-stamped.txt")), "a repository skill's ! line ran without the user's approval").toBe(false);
    expect(last).toContain("PROJECT-STAMP-BODY");
    expect(last).not.toContain("PROJECT-STAMP-42");
    expect(last).toMatch(/The command `touch project-stamped\.txt[^`]*` was not run/);
  }, 240_000);

  it("a skill a sub-agent loads reaches that sub-agent (as load_skill's result; before, only the main conversation got it), its ! lines unrun", async () => {
    const s = setup({
      "~/.claude/skills/stamp/SKILL.md":
        "---\nname: stamp\ndescription: Stamp the tree\nallowed-tools: Bash(touch:*)\n---\nSTAMP-BODY\nStamp: !`touch child-stamped.txt && echo CHILD-STAMP-$((6*7))`\n",
    });
    server = await startScriptedLlmServer({
      script: async (r) => {
        const child = subagentDepthOf(r) === 1;
        const n = server!.requests.filter((q) => (subagentDepthOf(q) === 1) === child).length;
        if (child) return n === 1 ? load("stamp") : { text: "CHILD-DONE" };
        return n === 1 ? { toolCalls: [{ name: "task", input: { description: "stamp", prompt: "Load the stamp skill." } }] } : { text: "done" };
      },
    });
    const r = await run(s, "delegate the stamp");
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    expect(child.length).toBe(2);
    expect(bodyOf(child[1]!)).toContain("STAMP-BODY");
    expect(bodyOf(child[1]!)).toContain("a sub-agent loaded this skill");
    expect(bodyOf(child[1]!)).not.toContain("CHILD-STAMP-42");
    expect(existsSync(join(s.ws, "child-stamped.txt"))).toBe(false);
    // The main conversation did not get the sub-agent's skill.
    const parent = server.requests.filter((q) => subagentDepthOf(q) === 0);
    expect(bodyOf(parent.at(-1)!)).not.toContain("STAMP-BODY");
  }, 240_000);

  it("a plugin's skill is PLUGIN:NAME: a project skill of the same name does not hide it; both are listed and both load", async () => {
    const s = setup({ ".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy the project the repository's way\n---\nPROJECT-DEPLOY-BODY\n" });
    const market = join(s.dir, "market");
    const kit = join(market, "plugins", "shipkit");
    write(join(kit, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "shipkit", version: "1.0.0", description: "Shipping helpers" }));
    write(
      join(kit, "skills", "deploy", "SKILL.md"),
      "---\nname: deploy\ndescription: Deploy with the shipkit pipeline\nallowed-tools: Bash(bash:*)\n---\nPLUGIN-DEPLOY-BODY from ${CLAUDE_PLUGIN_ROOT}/bin\nPipeline: !`bash ${CLAUDE_PLUGIN_ROOT}/bin/hello.sh`\n",
    );
    write(join(kit, "bin", "hello.sh"), 'echo "PLUGIN-HELLO-$((5*5))"\n');
    write(join(market, ".claude-plugin", "marketplace.json"), JSON.stringify({ name: "ship-market", owner: { name: "Team" }, plugins: [{ name: "shipkit", source: "./plugins/shipkit" }] }));
    expect((await yoke(s, ["plugins", "marketplace", "add", market])).code).toBe(0);
    const inst = await yoke(s, ["plugins", "install", "shipkit@ship-market"]);
    expect(inst.code, inst.stderr).toBe(0);
    server = await startScriptedLlmServer({ script: [load("shipkit:deploy"), load("deploy"), load("nosuch"), { text: "done" }] });
    const r = await run(s, "deploy it");
    expect(r.code, r.stderr).toBe(0);
    const first = bodyOf(server.requests[0]!);
    expect(first).toMatch(/shipkit:deploy[^"]*Deploy with the shipkit pipeline/);
    expect(first).toMatch(/- deploy[^"]*Deploy the project the repository's way/);
    const after = (i: number) => bodyOf(server!.requests[i]!);
    // load_skill "shipkit:deploy": the plugin's text (its root substituted); "deploy": the project's.
    expect(after(1)).toContain("PLUGIN-DEPLOY-BODY from ");
    expect(after(1)).toContain(`shipkit`);
    expect(after(1)).not.toContain("${CLAUDE_PLUGIN_ROOT}");
    expect(after(1)).not.toContain("PROJECT-DEPLOY-BODY");
    // Its ! line ran the plugin's own script, in the sandbox (the plugin's folder read-only there), granted by the plugin's allowed-tools.
    expect(after(1)).toContain("PLUGIN-HELLO-25");
    expect(after(2)).toContain("PROJECT-DEPLOY-BODY");
    // An unknown name lists both.
    expect(after(3)).toMatch(/No skill named \\"nosuch\\"\. Available: [^"]*\bdeploy\b[^"]*shipkit:deploy|No skill named \\"nosuch\\"\. Available: [^"]*shipkit:deploy[^"]*\bdeploy\b/);
    // `@shipkit:deploy` in a message sends the plugin's skill (not the project's).
    await server.close();
    server = await startScriptedLlmServer({ script: [{ text: "ok" }] });
    const named = await run(s, "deploy it as @shipkit:deploy says");
    expect(named.code, named.stderr).toBe(0);
    expect(bodyOf(server.requests[0]!)).toContain("PLUGIN-DEPLOY-BODY");
    expect(bodyOf(server.requests[0]!)).not.toContain("PROJECT-DEPLOY-BODY");
  }, 240_000);
});

describe("a repository skill's allowed-tools, with a user who answers", () => {
  it("are asked once for the load (both ! lines then run); refused, neither runs and the model is told", async () => {
    for (const allow of [true, false]) {
      const s = setup({
        ".claude/skills/twin/SKILL.md":
          "---\nname: twin\ndescription: Two stamps\nallowed-tools: Bash(touch:*)\n---\nTWIN-BODY\nA: !`touch twin-a.txt && echo TWIN-A-$((2*21))`\nB: !`touch twin-b.txt && echo TWIN-B-$((2*21))`\n",
      });
      server = await startScriptedLlmServer({ script: [load("twin"), { text: "done" }] });
      const node = createNodeServices({ cwd: s.ws, sessionDir: s.sessions, trusted: true, home: s.home });
      const questions: PermissionQuestion[] = [];
      const approver = {
        ask: async (q: PermissionQuestion) => {
          questions.push(q);
          return allow ? { decision: "allow" as const } : { decision: "deny" as const, message: "not these" };
        },
      };
      const session = await AgentSession.create({
        store: createFileSessionStore(s.sessions),
        provider: createProvider({ provider: "openai-compatible", baseUrl: server.openaiBaseUrl, model: "scripted", apiKey: "k" }),
        tools: createBuiltinTools(),
        services: (x) => ({ fs: createNodeWorkspaceFs(s.ws), search: createRipgrepSearcher(), log: silentLogger, access: node.access, ...node.commands(x) }),
        approver,
        gate: node.gate,
        permissionMode: "default",
        retry: { maxRetries: 0 },
        compaction: false,
        extensions: [
          guidanceExtension({
            files: createNodeGuidanceFiles({ home: s.home, builtinDir: null }),
            preprocess: skillPreprocessor({ approver, check: (q, m) => node.gate.check(q, m) }),
          }),
        ],
      });
      sessions.push(session);
      await session.send("two stamps please");
      // load_skill itself (a session-class tool) is not asked; the skill's grants are, once, for both
      // lines; refused, each line is then asked as usual (and refused here).
      const asked = questions.filter((q) => q.tool === "run_command");
      expect(asked.map((q) => q.summary)).toEqual(
        allow
          ? ["this skill asks for: Bash(touch:*)"]
          : ["this skill asks for: Bash(touch:*)", 'the skill "twin" (project): touch twin-a.txt && echo TWIN-A-$((2*21))', 'the skill "twin" (project): touch twin-b.txt && echo TWIN-B-$((2*21))'],
      );
      expect(asked[0]!.reason).toContain('the skill "twin" (project) asks for: Bash(touch:*)');
      const last = bodyOf(server.requests.at(-1)!);
      expect(existsSync(join(s.ws, "twin-a.txt"))).toBe(allow);
      expect(existsSync(join(s.ws, "twin-b.txt"))).toBe(allow);
      if (allow) {
        expect(last).toContain("TWIN-A-42");
        expect(last).toContain("TWIN-B-42");
      } else {
        expect(last).not.toContain("TWIN-A-42");
        expect(last).toMatch(/was not run: the user refused it/);
      }
      const notes = session
        .events()
        .filter((e): e is Extract<SessionEvent, { type: "extension" }> => e.type === "extension")
        .map((e) => e.detail ?? "");
      expect(notes.some((d) => d.includes('the skill "twin" (project): !`touch twin-a.txt'))).toBe(true);
      await session.end();
      sessions.splice(sessions.indexOf(session), 1);
      server = await closeServerAndRemoveTemps(server, []);
    }
  }, 240_000);
});
