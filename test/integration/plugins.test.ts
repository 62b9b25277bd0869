// Claude Code plugins through the built CLI: a marketplace from a local folder and one from a
// file:// git repository (cloned with real git), installs from a relative folder and from a git
// URL, and full `yoke run` sessions with the scripted model showing what each enabled plugin
// contributes — its agent in the task tool, its skill to the model — while its hook does not run
// until the user approves the plugin (a marker file the hook writes), runs after, stops again when
// the plugin changes, and everything goes away when the plugin is disabled. The plugin and
// marketplace files are written from Claude Code's plugin and marketplace reference.
import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";
import { scriptedRunArgs } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { systemPromptOf as system, taskDescriptionOf as taskDescription, toolsOf as tools } from "../support/scripted-run";
import { writeWithParents as write } from "../support/workspace";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});
beforeAll(() => ensureBuilt(), 120_000);

type Json = Record<string, unknown>;
const isChild = (r: RecordedRequest) => /You are a sub-agent \(depth/.test(system(r));

function gitRepo(dir: string) {
  const g = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd: dir, stdio: "pipe" });
  g("init", "-q");
  g("add", "-A");
  g("commit", "-q", "-m", "plugin");
}

function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-plugins-")));
  temps.push(dir);
  const home = join(dir, "home");
  const ws = join(dir, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, "README.md"), "# app\n");
  // In the workspace: a plugin's hook runs confined (docs/hooks.md), where the workspace is what it may write.
  const marker = join(ws, "hook-ran.txt");

  // A local marketplace: one plugin in a relative folder, one from a file:// git repository.
  const market = join(dir, "market");
  const kit = join(market, "plugins", "reviewer-kit");
  write(join(kit, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "reviewer-kit", version: "1.2.0", description: "Review helpers", author: { name: "Team" } }));
  write(
    join(kit, "agents", "security-reviewer.md"),
    "---\nname: security-reviewer\ndescription: Reviews code for security issues. Use after changes to auth code.\ntools: Read, Grep\n---\nYou check for injection and secrets (SECURITY-REVIEWER-PROMPT).\n",
  );
  write(
    join(kit, "skills", "xlsx-helper", "SKILL.md"),
    "---\nname: xlsx-helper\ndescription: Build Excel spreadsheets with formula columns\n---\nUse openpyxl; write formulas as strings (XLSX-SKILL-BODY).\n",
  );
  write(join(kit, "commands", "review.md"), "---\ndescription: Review the diff\n---\nReview $ARGUMENTS\n");
  write(join(kit, "scripts", "mark.sh"), `#!/bin/bash\necho "plugin hook ran" >> ${JSON.stringify(marker)}\necho "root=$CLAUDE_PLUGIN_ROOT" >> ${JSON.stringify(marker + ".env")}\n`);
  chmodSync(join(kit, "scripts", "mark.sh"), 0o755);
  write(
    join(kit, "hooks", "hooks.json"),
    JSON.stringify({ description: "marks", hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "bash ${CLAUDE_PLUGIN_ROOT}/scripts/mark.sh" }] }] } }),
  );

  const remote = join(dir, "remote-kit");
  write(join(remote, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "remote-kit", version: "0.3.0", agents: "./custom/agents/" }));
  write(join(remote, "custom", "agents", "remote-agent.md"), '---\ndescription: Agent from a git plugin\ncapabilities: ["review"]\n---\n# Remote agent\nREMOTE-AGENT-PROMPT\n');
  gitRepo(remote);

  write(
    join(market, ".claude-plugin", "marketplace.json"),
    JSON.stringify({
      name: "team-tools",
      owner: { name: "Team" },
      plugins: [
        { name: "reviewer-kit", source: "./plugins/reviewer-kit", description: "Review helpers" },
        { name: "remote-kit", source: { source: "url", url: `file://${remote}` }, description: "From git" },
      ],
    }),
  );
  return { dir, home, ws, market, marker, sessions: join(dir, "sessions") };
}

type Setup = ReturnType<typeof setup>;
const yoke = (s: Setup, args: string[]) => runCli(args, { env: { HOME: s.home }, cwd: s.ws });

async function session(s: Setup, script: ScriptedTurn[]): Promise<{ requests: RecordedRequest[]; stderr: string }> {
  const queue = [...script];
  server = await startScriptedLlmServer({ script: async (r) => (isChild(r) ? { text: "child done" } : (queue.shift() ?? { text: "done" })) });
  const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, s.ws, s.sessions), "Check the project"], {
    env: { HOME: s.home },
  });
  expect(r.code, r.stderr).toBe(0);
  const requests = server.requests;
  await server.close();
  server = undefined;
  return { requests, stderr: r.stderr };
}

describe("yoke plugins", () => {
  it("adds a local marketplace, installs from a folder and from a file:// git repository; a plugin's agent and skill reach the model; its hook runs only after approval, stops when the plugin changes, and disable removes all of it", async () => {
    const s = setup();
    const added = await yoke(s, ["plugins", "marketplace", "add", s.market]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('Added marketplace "team-tools" with 2 plugins: reviewer-kit, remote-kit');

    const inst = await yoke(s, ["plugins", "install", "reviewer-kit@team-tools"]);
    expect(inst.code, inst.stderr).toBe(0);
    expect(inst.stdout).toContain("Installed and enabled reviewer-kit@team-tools (1.2.0): commands, agents, skills, hooks");
    const installedRoot = join(s.home, ".yoke", "plugins", "cache", "team-tools", "reviewer-kit");
    expect(inst.stdout).toContain(`hook UserPromptSubmit: bash ${installedRoot}/scripts/mark.sh`);
    expect(inst.stdout).toContain("yoke plugins approve reviewer-kit@team-tools");
    const git = await yoke(s, ["plugins", "install", "remote-kit@team-tools"]);
    expect(git.code, git.stderr).toBe(0);
    expect(existsSync(join(s.home, ".yoke", "plugins", "cache", "team-tools", "remote-kit", "custom", "agents", "remote-agent.md"))).toBe(true);
    expect(existsSync(join(s.home, ".yoke", "plugins", "cache", "team-tools", "remote-kit", ".git"))).toBe(false);
    expect(JSON.parse(readFileSync(join(s.home, ".yoke", "settings.json"), "utf8"))).toEqual({ enabledPlugins: { "reviewer-kit@team-tools": true, "remote-kit@team-tools": true } });

    const listed = JSON.parse((await yoke(s, ["plugins", "list", "--json"])).stdout) as { installed: Array<{ id: string; enabled: boolean; hooksAndServers?: string }> };
    expect(listed.installed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: "reviewer-kit@team-tools", enabled: true, hooksAndServers: "waiting for approval" }),
        expect.objectContaining({ id: "remote-kit@team-tools", enabled: true }),
      ]),
    );

    // Before approval: agents and skill are there, the hook did not run.
    let run = await session(s, [
      { toolCalls: [{ name: "load_skill", input: { name: "xlsx-helper" } }] },
      { toolCalls: [{ name: "task", input: { description: "Security review", prompt: "Review README.md", subagent_type: "reviewer-kit:security-reviewer" } }] },
      { text: "ok" },
    ]);
    const child = run.requests.filter(isChild);
    expect(child).toHaveLength(1);
    expect(system(child[0]!)).toContain("SECURITY-REVIEWER-PROMPT");
    expect(tools(child[0]!).map((t) => t.function.name)).not.toContain("run_command");
    const first = run.requests[0]!;
    expect(taskDescription(first)).toContain("- reviewer-kit:security-reviewer: Reviews code for security issues. Use after changes to auth code. (Tools: Read, Grep)");
    expect(taskDescription(first)).toContain("- remote-kit:remote-agent: Agent from a git plugin (Tools: all of yours)");
    expect(JSON.stringify(first.body)).toContain("xlsx-helper");
    expect(JSON.stringify(run.requests[1]!.body)).toContain("XLSX-SKILL-BODY");
    expect(run.stderr).toContain("plugins: reviewer-kit@team-tools has hooks or MCP servers that do not run until you approve them: yoke plugins approve reviewer-kit@team-tools");
    expect(existsSync(s.marker)).toBe(false);

    // After approval: the hook runs (with ${CLAUDE_PLUGIN_ROOT} as the installed folder).
    const ok = await yoke(s, ["plugins", "approve", "reviewer-kit"]);
    expect(ok.code, ok.stderr).toBe(0);
    run = await session(s, [{ text: "ok" }]);
    expect(readFileSync(s.marker, "utf8")).toBe("plugin hook ran\n");
    expect(run.stderr).not.toContain("approve them");
    // The script reads CLAUDE_PLUGIN_ROOT from its environment, as Claude Code sets it for plugin hooks.
    expect(readFileSync(`${s.marker}.env`, "utf8")).toBe(`root=${installedRoot}\n`);

    // A changed plugin is a new plugin: its hook waits for a new approval.
    rmSync(s.marker);
    appendFileSync(join(installedRoot, "scripts", "mark.sh"), 'echo "changed" >> /dev/null\n');
    run = await session(s, [{ text: "ok" }]);
    expect(existsSync(s.marker)).toBe(false);
    expect(run.stderr).toContain("yoke plugins approve reviewer-kit@team-tools");
    expect((await yoke(s, ["plugins", "approve", "reviewer-kit@team-tools"])).code).toBe(0);

    // Disabled: no agent, no skill, no hook.
    const off = await yoke(s, ["plugins", "disable", "reviewer-kit"]);
    expect(off.code, off.stderr).toBe(0);
    run = await session(s, [{ text: "ok" }]);
    expect(taskDescription(run.requests[0]!)).not.toContain("security-reviewer");
    expect(taskDescription(run.requests[0]!)).toContain("remote-agent");
    expect(JSON.stringify(run.requests[0]!.body)).not.toContain("xlsx-helper");
    expect(existsSync(s.marker)).toBe(false);

    // Removed: gone from disk and from the settings.
    const rm = await yoke(s, ["plugins", "remove", "reviewer-kit"]);
    expect(rm.code, rm.stderr).toBe(0);
    expect(existsSync(installedRoot)).toBe(false);
    expect(JSON.parse(readFileSync(join(s.home, ".yoke", "settings.json"), "utf8"))).toEqual({ enabledPlugins: { "remote-kit@team-tools": true } });
  }, 240_000);

  it("a marketplace from a file:// git repository is cloned with git, and its relative plugin installs; bad input is refused with exit 1", async () => {
    const s = setup();
    gitRepo(s.market);
    const added = await yoke(s, ["plugins", "marketplace", "add", `file://${s.market}`]);
    expect(added.code, added.stderr).toBe(0);
    expect(existsSync(join(s.home, ".yoke", "plugins", "marketplaces", "team-tools", ".claude-plugin", "marketplace.json"))).toBe(true);
    const inst = await yoke(s, ["plugins", "install", "reviewer-kit@team-tools"]);
    expect(inst.code, inst.stderr).toBe(0);
    expect(existsSync(join(s.home, ".yoke", "plugins", "cache", "team-tools", "reviewer-kit", "agents", "security-reviewer.md"))).toBe(true);

    const missing = await yoke(s, ["plugins", "install", "nope@team-tools"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('marketplace "team-tools" has no plugin "nope" (it has: reviewer-kit, remote-kit)');
    const noMarket = await yoke(s, ["plugins", "install", "x@elsewhere"]);
    expect(noMarket.code).toBe(1);
    expect(noMarket.stderr).toContain('no marketplace named "elsewhere"');
    const badGit = await yoke(s, ["plugins", "marketplace", "add", `file://${join(s.dir, "no-such-repo")}`]);
    expect(badGit.code).toBe(1);
    expect(badGit.stderr).toMatch(/git clone .* failed/);
    expect((await yoke(s, ["plugins", "frobnicate"])).code).toBe(2);
  }, 120_000);

  it("a workspace's extraKnownMarketplaces is offered, not added; installing from it adds it (the user's command)", async () => {
    const s = setup();
    write(
      join(s.ws, ".claude", "settings.json"),
      JSON.stringify({ extraKnownMarketplaces: { "team-tools": { source: { source: "directory", path: s.market } } }, enabledPlugins: { "reviewer-kit@team-tools": true } }),
    );
    const trust = await yoke(s, ["trust", s.ws]);
    expect(trust.code, trust.stderr).toBe(0);
    const list = await yoke(s, ["plugins", "list"]);
    expect(list.stdout).toContain("team-tools");
    expect(list.stdout).toContain("named in settings (extraKnownMarketplaces), not added");
    expect(existsSync(join(s.home, ".yoke", "plugins", "known_marketplaces.json"))).toBe(false);
    const inst = await yoke(s, ["plugins", "install", "reviewer-kit@team-tools"]);
    expect(inst.code, inst.stderr).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(s.home, ".yoke", "plugins", "known_marketplaces.json"), "utf8")) as Json)).toEqual(["team-tools"]);
  }, 120_000);
});

describe("a plugin's MCP server", () => {
  it("does not start before the user approves the plugin; after approval its tools reach the model (${CLAUDE_PLUGIN_ROOT} in its args)", async () => {
    const s = setup();
    const kit = join(s.market, "plugins", "reviewer-kit");
    // The server program ships in the plugin; it loads the test's real SDK server by absolute path.
    write(join(kit, "server.cjs"), `require(${JSON.stringify(join(__dirname, "..", "support", "mcp-probe-server.cjs"))});\n`);
    write(join(kit, ".mcp.json"), JSON.stringify({ mcpServers: { probe: { command: process.execPath, args: ["${CLAUDE_PLUGIN_ROOT}/server.cjs"] } } }));
    expect((await yoke(s, ["plugins", "marketplace", "add", s.market])).code).toBe(0);
    const inst = await yoke(s, ["plugins", "install", "reviewer-kit@team-tools"]);
    expect(inst.code, inst.stderr).toBe(0);
    expect(inst.stdout).toContain(`MCP server probe: ${process.execPath} ${join(s.home, ".yoke", "plugins", "cache", "team-tools", "reviewer-kit")}/server.cjs`);

    const names = (r: RecordedRequest) => tools(r).map((t) => t.function.name);
    let run = await session(s, [{ text: "ok" }]);
    expect(names(run.requests[0]!).filter((n) => n.startsWith("mcp__"))).toEqual([]);
    const before = JSON.parse((await yoke(s, ["mcp", "list", "--json"])).stdout) as { servers: Array<{ name: string }> };
    expect(before.servers.map((x) => x.name)).not.toContain("probe");

    expect((await yoke(s, ["plugins", "approve", "reviewer-kit"])).code).toBe(0);
    run = await session(s, [{ text: "ok" }]);
    expect(names(run.requests[0]!)).toEqual(expect.arrayContaining(["mcp__probe__lines"]));
  }, 120_000);
});

describe.each(identities().list)("a plugin's hook before and after approval, as $label", (who: Identity) => {
  it("an installed, enabled plugin's hook does not run until the user approves it; a workspace's enabledPlugins in an untrusted folder runs nothing", async () => {
    const s = setup();
    chownTree(s.dir, who);
    const as = (args: string[]) => runCliAs(who, args, { cwd: s.ws, env: { HOME: s.home } });
    expect((await as(["plugins", "marketplace", "add", s.market])).code).toBe(0);
    expect((await as(["plugins", "install", "reviewer-kit@team-tools"])).code).toBe(0);
    // Installed but switched off by the user; the repository turns it back on in its committed settings.
    expect((await as(["plugins", "disable", "reviewer-kit"])).code).toBe(0);
    write(join(s.ws, ".claude", "settings.json"), JSON.stringify({ enabledPlugins: { "reviewer-kit@team-tools": true } }));
    chownTree(s.ws, who);
    server = await startScriptedLlmServer({ script: async () => ({ text: "ok" }) });
    const run = (trust: boolean) =>
      as(["run", ...(trust ? ["--trust"] : []), "--provider", "openai-compatible", "--base-url", server!.openaiBaseUrl, "--model", "m", "--cwd", s.ws, "--session-dir", s.sessions, "Check"]);
    // Untrusted folder: the workspace's enabledPlugins do not count at all.
    let r = await run(false);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(s.marker)).toBe(false);
    expect(JSON.stringify(server.requests.map((q) => q.body))).not.toContain("xlsx-helper");
    // Trusted: the workspace may enable the installed plugin (its skill is there) but its hook still waits for the user.
    r = await run(true);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(s.marker)).toBe(false);
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("xlsx-helper");
    expect(r.stderr).toContain("yoke plugins approve reviewer-kit@team-tools");
    // The user approves: now it runs.
    expect((await as(["plugins", "approve", "reviewer-kit"])).code).toBe(0);
    r = await run(true);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(s.marker, "utf8")).toBe("plugin hook ran\n");
  }, 120_000);
});
