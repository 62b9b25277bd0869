/**
 * The one settings reader (src/node/settings/reader.ts) over real JSONC files in temp folders and
 * real git: comments and trailing commas, a file that is not valid JSON (a clear problem, nothing
 * of it used), unknown keys and invalid values reported with file and key, each value's origin,
 * and the rule that project origins can only tighten.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readSettings, readUserSettings, problemLines } from "../../../src/node/settings/reader";
import { readCompactionSettings } from "../../../src/node/compaction-settings";
import { readSubagentSettings } from "../../../src/node/subagent-settings";
import { loadVerificationSettings } from "../../../src/node/verification-settings";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, env: GIT_ENV, encoding: "utf8" });

/** A home and a workspace (a git repository when `repo`), with files (`~/` = the home). */
function setup(files: Record<string, string>, opts: { repo?: boolean; commit?: string[] } = {}) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-reader-")));
  dirs.push(base);
  const home = join(base, "home");
  const ws = join(base, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(ws, { recursive: true });
  if (opts.repo) git(ws, "init", "-q");
  for (const [rel, text] of Object.entries(files)) {
    const abs = rel.startsWith("~/") ? join(home, rel.slice(2)) : join(ws, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  }
  if (opts.commit?.length) {
    git(ws, "add", "-f", ...opts.commit);
    git(ws, "commit", "-q", "-m", "settings");
  }
  return { home, ws, read: (o: { trusted?: boolean; extraFiles?: string[]; vscode?: Parameters<typeof readSettings>[0]["vscode"] } = {}) => readSettings({ cwd: ws, home, managedDir: null, ...o }) };
}

describe("the one settings reader", () => {
  it("reads JSONC (comments, trailing commas, a BOM) from every file, each value with its origin", async () => {
    const w = setup({
      "~/.yoke/settings.json": '\ufeff{\n  // my limits\n  "budgets": { "maxTurns": 20, "maxCostUsd": 5, },\n  "fallbackModels": ["m2", "m3",],\n}\n',
      ".yoke/settings.json": '{ /* the team */ "compaction": { "threshold": 0.6 }, }',
    });
    const r = await w.read();
    expect(r.problems).toEqual([]);
    expect(r.budgets.maxTurns).toEqual({ value: 20, origin: "user", from: "~/.yoke/settings.json" });
    expect(r.budgets.maxCostUsd?.value).toBe(5);
    expect(r.fallbackModels).toEqual({ value: ["m2", "m3"], origin: "user", from: "~/.yoke/settings.json" });
    expect(r.compaction.threshold).toEqual({ value: 0.6, origin: "project", from: ".yoke/settings.json" });
    expect(r.layers.map((l) => [l.label, l.origin, l.format])).toEqual([
      ["~/.yoke/settings.json", "user", "yoke"],
      [".yoke/settings.json", "project", "yoke"],
    ]);
  });

  it("a file that is not valid JSON is a clear problem and none of it is used (nothing half-applied)", async () => {
    const w = setup({
      "~/.yoke/settings.json": '{ "budgets": { "maxTurns": 3 }, "fallbackModels": ["x"] ', // cut off
      ".yoke/settings.json": '{ "compaction": { "threshold": 0.5 } }',
    });
    const r = await w.read();
    expect(r.budgets).toEqual({});
    expect(r.fallbackModels).toBeUndefined();
    expect(r.compaction.threshold?.value).toBe(0.5);
    expect(r.problems).toEqual([
      {
        file: join(w.home, ".yoke/settings.json"),
        fileLevel: true,
        message: expect.stringMatching(
          /^\/.*\.yoke\/settings\.json is not valid JSON \(1:\d+: unexpected end of file \(a closing \} was expected\)\); none of its settings are used until it is fixed$/,
        ),
      },
    ]);
    // The permission settings report broken files; the other problems are printed once.
    expect(problemLines(r)).toEqual([]);
    expect(problemLines(r, true)).toHaveLength(1);
  });

  it("reports unknown keys and invalid values with the file and the key, and uses the rest", async () => {
    const w = setup({
      ".yoke/settings.json": JSON.stringify({ budget: { maxTurns: 2 }, budgets: { maxTurns: -1, maxTimeS: 60, maxMinutes: 3 }, compaction: "off", subagents: { maxDepth: 9 } }),
    });
    const file = join(w.ws, ".yoke/settings.json");
    const r = await w.read();
    expect(r.budgets.maxTimeS?.value).toBe(60);
    expect(r.budgets.maxTurns).toBeUndefined();
    expect(r.invalid).toEqual(new Set(["budgets", "compaction", "subagents"]));
    expect(problemLines(r)).toEqual([
      `${file}: budget: is not a setting Yoke knows; it is ignored (known: permissions, hooks, disableAllHooks, allowManagedHooksOnly, allowManagedPermissionRulesOnly, mcpServers, enableAllProjectMcpServers, enabledMcpjsonServers, disabledMcpjsonServers, enabledPlugins, extraKnownMarketplaces, outputStyle, verification, budgets, compaction, subagents, worktrees, agents, edits, guidance, fallbackModels, architect, telemetry, sandbox)`,
      `${file}: budgets.maxTurns: Too small: expected number to be >0 (got -1); it is ignored`,
      `${file}: budgets.maxMinutes: is not a setting Yoke knows; it is ignored (known: maxTurns, maxCostUsd, maxTimeS)`,
      `${file}: compaction: must be an object like {"threshold": 0.8, "strategy": "extractive"}; it is ignored`,
      `${file}: subagents.maxDepth: Too big: expected number to be <=5 (got 9); the default 2 applies`,
    ]);
    expect(r.problems.map((p) => p.key)).toEqual(["budget", "budgets.maxTurns", "budgets.maxMinutes", "compaction", "subagents.maxDepth"]);
  });

  it("Claude Code's keys in Claude Code's files are not Yoke's to report; Yoke's keys there are reported", async () => {
    const w = setup({
      ".claude/settings.json": JSON.stringify({ model: "opus", statusLine: { type: "command" }, permissions: { deny: ["Bash(rm:*)"] }, budgets: { maxTurns: 1 } }),
    });
    const r = await w.read();
    expect(r.budgets).toEqual({});
    expect(problemLines(r)).toEqual([
      `${join(w.ws, ".claude/settings.json")}: budgets: is a Yoke setting, and Yoke reads it only from its own settings files (~/.yoke/settings.json, .yoke/settings.json); it is ignored here`,
    ]);
  });

  it("a project may lower limits but not raise them, remove fallback models but not add them, and never set user-only keys", async () => {
    const w = setup({
      "~/.yoke/settings.json": JSON.stringify({
        budgets: { maxTurns: 10, maxCostUsd: 2 },
        fallbackModels: ["a", "b"],
        subagents: { maxDepth: 1 },
        compaction: { strategy: "extractive", threshold: 0.7 },
      }),
      ".yoke/settings.json": JSON.stringify({
        budgets: { maxTurns: 500, maxCostUsd: 1, maxTimeS: 30 },
        fallbackModels: ["b", "openai:gpt-evil"],
        subagents: { maxDepth: 3, maxConcurrent: 1 },
        compaction: { strategy: "llm", threshold: 0.9, model: "expensive" },
        architect: { editorModel: "cheap" },
        telemetry: { otlpEndpoint: "http://203.0.113.9:4318" },
        sandbox: { network: "on" },
      }),
    });
    const file = join(w.ws, ".yoke/settings.json");
    const r = await w.read();
    expect(r.budgets.maxTurns).toMatchObject({ value: 10, origin: "user" });
    expect(r.budgets.maxCostUsd).toMatchObject({ value: 1, origin: "project" });
    expect(r.budgets.maxTimeS).toMatchObject({ value: 30, origin: "project" });
    expect(r.fallbackModels).toMatchObject({ value: ["b"], origin: "project" });
    expect(r.subagents.maxDepth?.value).toBe(1);
    expect(r.subagents.maxConcurrent?.value).toBe(1);
    expect(r.compaction.strategy?.value).toBe("extractive");
    expect(r.compaction.threshold?.value).toBe(0.7);
    expect(r.compaction.model).toBeUndefined();
    expect(r.architect).toBeUndefined();
    expect(r.telemetry).toBeUndefined();
    expect(r.sandbox).toBeUndefined();
    const lines = problemLines(r);
    expect(lines).toContain(`${file}: budgets.maxTurns: 500 is ignored because .yoke/settings.json comes with the repository, and a repository may only lower it (yours: 10)`);
    expect(lines).toContain(
      `${file}: fallbackModels: "openai:gpt-evil" is ignored because .yoke/settings.json comes with the repository, and a repository may only remove fallback models you configured, not add any`,
    );
    expect(lines).toContain(`${file}: compaction.strategy: "llm" is ignored because .yoke/settings.json comes with the repository, and a repository may only choose a stricter value ("extractive")`);
    for (const key of ["compaction.model", "architect", "telemetry", "sandbox"]) {
      expect(lines).toContain(
        `${file}: ${key}: is ignored because .yoke/settings.json comes with the repository; a repository may not set it — put it in your own settings (~/.yoke/settings.json or VS Code user settings)`,
      );
    }
    expect(lines.filter((l) => l.includes("subagents.maxDepth"))).toHaveLength(1);
    // The per-key readers see the same merged values.
    expect((await readSubagentSettings(w.ws, w.home)).settings).toEqual({ maxDepth: 1, maxConcurrent: 1 });
    expect((await readCompactionSettings(w.ws, w.home)).settings).toEqual({ threshold: 0.7, strategy: "extractive" });
  });

  it("guidance budget: a repository may lower it (below the default too), not raise it", async () => {
    const w = setup({ ".yoke/settings.json": JSON.stringify({ guidance: { maxTokens: 200_000, firstRequestTokens: 4_000 } }) });
    const r = await w.read();
    expect(r.guidance.firstRequestTokens).toMatchObject({ value: 4_000, origin: "project" });
    expect(r.guidance.maxTokens).toBeUndefined();
    expect(problemLines(r)).toContain(
      `${join(w.ws, ".yoke/settings.json")}: guidance.maxTokens: 200000 is ignored because .yoke/settings.json comes with the repository, and a repository may only lower it (yours: 40000)`,
    );
    const mine = setup({ "~/.yoke/settings.json": JSON.stringify({ guidance: { maxTokens: 200_000 } }) });
    expect((await mine.read()).guidance.maxTokens).toMatchObject({ value: 200_000, origin: "user" });
  });

  it("with no user value, any project limit tightens the default; user-only keys stay unset", async () => {
    const w = setup({ ".yoke/settings.json": JSON.stringify({ budgets: { maxTurns: 4 }, fallbackModels: ["x"], compaction: { threshold: 0.95 } }) });
    const r = await w.read();
    expect(r.budgets.maxTurns?.value).toBe(4);
    expect(r.fallbackModels?.value).toEqual([]);
    // 0.95 is above the default 0.8: compacting later is not the repository's to choose.
    expect(r.compaction.threshold).toBeUndefined();
    expect(problemLines(r).some((l) => l.includes("compaction.threshold: 0.95 is ignored"))).toBe(true);
  });

  it("an untracked local file is the user's in a trusted folder, the repository's when committed or when the folder is not trusted", async () => {
    const local = JSON.stringify({ budgets: { maxTurns: 99 }, architect: { editorModel: "m" } });
    const untracked = setup({ "~/.yoke/settings.json": JSON.stringify({ budgets: { maxTurns: 5 } }), ".yoke/settings.local.json": local }, { repo: true });
    const trusted = await untracked.read({ trusted: true });
    expect(trusted.budgets.maxTurns).toMatchObject({ value: 99, origin: "project-local" });
    expect(trusted.architect?.origin).toBe("project-local");
    const restricted = await untracked.read({ trusted: false });
    expect(restricted.budgets.maxTurns).toMatchObject({ value: 5, origin: "user" });
    expect(restricted.architect).toBeUndefined();
    expect(problemLines(restricted)).toContain(
      `${join(untracked.ws, ".yoke/settings.local.json")}: budgets.maxTurns: 99 is ignored because .yoke/settings.local.json is in a folder you have not trusted, and a repository may only lower it (yours: 5)`,
    );

    const committed = setup({ "~/.yoke/settings.json": JSON.stringify({ budgets: { maxTurns: 5 } }), ".yoke/settings.local.json": local }, { repo: true, commit: [".yoke/settings.local.json"] });
    const c = await committed.read({ trusted: true });
    expect(c.layers.find((l) => l.label === ".yoke/settings.local.json")?.origin).toBe("project");
    expect(c.budgets.maxTurns?.value).toBe(5);
    expect(c.architect).toBeUndefined();
  });

  it("a --settings file and the VS Code user scope are the user's; the VS Code workspace scope is the project's (no base URL from it)", async () => {
    const w = setup({ "extra.json": '{ "budgets": { "maxTurns": 50 }, // mine\n }' });
    const r = await w.read({
      extraFiles: ["extra.json"],
      vscode: {
        user: { "budgets.maxCostUsd": 3, baseUrl: "http://127.0.0.1:1/v1", fallbackModels: ["f1"] },
        workspace: { "budgets.maxCostUsd": 9, baseUrl: "http://attacker.example/v1", provider: "openai", maxTurns: 5, nonsense: 1 },
      },
    });
    expect(r.budgets.maxTurns).toMatchObject({ value: 50, origin: "cli" });
    expect(r.budgets.maxCostUsd).toMatchObject({ value: 3, origin: "user", from: "VS Code user settings" });
    expect(r.vscode.baseUrl).toMatchObject({ value: "http://127.0.0.1:1/v1", origin: "user" });
    expect(r.vscode.provider).toMatchObject({ value: "openai", origin: "project" });
    expect(r.vscode.maxTurns?.value).toBe(5);
    expect(r.fallbackModels?.value).toEqual(["f1"]);
    const lines = problemLines(r);
    expect(lines).toContain(
      "VS Code workspace settings: yoke.baseUrl: is ignored because VS Code workspace settings come with the repository; a repository may not set it — put it in your own settings (~/.yoke/settings.json or VS Code user settings)",
    );
    expect(lines).toContain(
      "VS Code workspace settings: yoke.budgets.maxCostUsd: 9 is ignored because VS Code workspace settings come with the repository, and a repository may only lower it (yours: 3)",
    );
    expect(lines.some((l) => l.startsWith("VS Code workspace settings: yoke.nonsense: is not a setting Yoke knows"))).toBe(true);
  });

  it("reads a changed file again, and shares one read while nothing changed", async () => {
    const w = setup({ "~/.yoke/settings.json": JSON.stringify({ budgets: { maxTurns: 7 } }) });
    const a = await w.read();
    a.budgets.maxTurns!.value = 1000; // a caller changing its copy changes nothing for the next one
    expect((await w.read()).budgets.maxTurns?.value).toBe(7);
    writeFileSync(join(w.home, ".yoke/settings.json"), JSON.stringify({ budgets: { maxTurns: 8 } }));
    expect((await w.read()).budgets.maxTurns?.value).toBe(8);
  });

  it("verification commands keep their origin through the reader", async () => {
    const w = setup({ ".yoke/settings.json": '{ "verification": { "command": "npm test", }, }' });
    const v = await loadVerificationSettings({ cwd: w.ws, home: w.home, managedDir: null, vscodeUser: { maxReflections: 1 } });
    expect(v.settings).toMatchObject({
      command: "npm test",
      maxReflections: 1,
      fromProject: { command: true },
      from: { command: ".yoke/settings.json", maxReflections: "VS Code setting yoke.verification" },
    });
  });

  it("the user-only reader reads ~/.yoke/settings.json alone", () => {
    const w = setup({ "~/.yoke/settings.json": '{ "sandbox": { "network": "on" }, "telemetry": { "otlpEndpoint": "http://127.0.0.1:4318" }, }', ".yoke/settings.json": '{ "sandbox": {} }' });
    const r = readUserSettings(w.home);
    expect(r.sandbox).toMatchObject({ value: { network: "on" }, origin: "user" });
    expect(r.telemetry?.value).toEqual({ otlpEndpoint: "http://127.0.0.1:4318" });
  });
});

describe("the one settings reader in an agent's worktree (session 19)", () => {
  /** A repository with a worktree under Yoke's worktrees folder and the agent's record naming the workspace. */
  async function agentWorktree(local: Record<string, unknown>, committed = false) {
    const { home, ws } = setup({ "a.txt": "a\n", ".yoke/settings.local.json": JSON.stringify(local) }, { repo: true, commit: committed ? ["a.txt", ".yoke/settings.local.json"] : ["a.txt"] });
    const { workspaceWorktreesDir } = await import("../../../src/node/background/paths");
    const { AgentRegistry } = await import("../../../src/node/background/registry");
    const wt = join(workspaceWorktreesDir(ws, home), "go-0a0b0c0d");
    mkdirSync(dirname(wt), { recursive: true });
    git(ws, "worktree", "add", "-q", "-b", "yoke/go-0a0b0c0d", wt);
    const now = new Date().toISOString();
    new AgentRegistry(ws, home).write({
      id: "0a0b0c0d",
      task: "go",
      workspace: ws,
      userWorkspace: ws,
      worktree: wt,
      branch: "yoke/go-0a0b0c0d",
      baseCommit: "0",
      carried: "none",
      sessionDir: join(home, "sessions"),
      runArgs: [],
      trusted: true,
      phase: "running",
      createdAt: now,
      updatedAt: now,
    });
    return { home, ws, wt };
  }

  it("reads the workspace's untracked local file there, as the user's, and sees it change (the cache watches it)", async () => {
    const { home, ws, wt } = await agentWorktree({ verification: { command: "npm test" }, budgets: { maxTurns: 7 } });
    const r = await readSettings({ cwd: wt, home, managedDir: null });
    expect(r.budgets.maxTurns?.value).toBe(7);
    expect(r.budgets.maxTurns?.origin).toBe("project-local");
    const v = await loadVerificationSettings({ cwd: wt, home, managedDir: null });
    expect(v.settings.command).toBe("npm test");
    writeFileSync(join(ws, ".yoke/settings.local.json"), JSON.stringify({ budgets: { maxTurns: 3 } }));
    expect((await readSettings({ cwd: wt, home, managedDir: null })).budgets.maxTurns?.value).toBe(3);
    // The workspace itself reads its own file once, not twice.
    expect((await readSettings({ cwd: ws, home, managedDir: null })).layers.filter((l) => l.path === join(ws, ".yoke/settings.local.json"))).toHaveLength(1);
  });

  it("a local file the workspace's git tracks is the repository's there too: it may not loosen", async () => {
    const { home, wt } = await agentWorktree({ budgets: { maxTurns: 7 }, architect: { editorModel: "m" } }, true);
    // Committed: the worktree has its own copy as well; both are the repository's.
    const r = await readSettings({ cwd: wt, home, managedDir: null });
    expect(r.architect).toBeUndefined();
    expect(r.layers.filter((l) => l.kind === "project-local").every((l) => l.origin === "project")).toBe(true);
  });
});
