/**
 * Where a hook runs (issue 18): confined by default; the opt-out counts only from the user's own
 * settings; the paths a hook's command line names are kept readable; a confined hook that cannot
 * have its sandbox is a hook that could not run, with the reason and the opt-out.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHookRunner, hookSandbox, mayUnconfineHook } from "../../../src/core/hooks/run-hooks";
import type { HookGroupConfig, SettingsSourceInfo } from "../../../src/core/permissions/types";
import type { HookCommandRequest } from "../../../src/core/hooks/types";
import { createNodeHookRunner } from "../../../src/node/hook-exec";
import { hookReadablePaths, hookWrittenFiles, type HookSandbox } from "../../../src/node/hook-sandbox";
import { hookLinePaths, hookShellParser } from "../../../src/node/hook-words";
import { checkSandboxSettings, SandboxSettingsError } from "../../../src/node/commands/session-runner";

const src = (kind: SettingsSourceInfo["kind"], extra: Partial<SettingsSourceInfo> = {}): SettingsSourceInfo => ({ kind, label: kind, baseDir: "/", ...extra });
const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe("who may run a hook outside the sandbox", () => {
  it("the user's own files, managed settings and --settings files; never the project's, a local project file or a plugin", () => {
    for (const k of ["user", "claude-user", "vscode", "managed", "extra"] as const) expect(mayUnconfineHook(src(k)), k).toBe(true);
    for (const k of ["project", "claude", "vscode-workspace"] as const) expect(mayUnconfineHook(src(k)), k).toBe(false);
    expect(mayUnconfineHook(src("project-local", { checkedIn: false }))).toBe(false);
    expect(mayUnconfineHook(src("claude-local"))).toBe(false);
    // A plugin's hooks come as a "user" source marked shared, with CLAUDE_PLUGIN_ROOT.
    expect(mayUnconfineHook(src("user", { checkedIn: true, hookEnv: { CLAUDE_PLUGIN_ROOT: "/p" } }))).toBe(false);
  });

  it("confined by default; the user's false runs it on the host; a project's false is ignored; true always confines", () => {
    expect(hookSandbox({ sandboxOff: [], sandboxOn: false })).toEqual({ sandbox: true });
    expect(hookSandbox({ sandboxOff: [src("user", { label: "~/.yoke/settings.json" })], sandboxOn: false })).toMatchObject({
      sandbox: false,
      unconfinedBy: '"sandbox": false in ~/.yoke/settings.json',
    });
    const project = src("claude", { label: ".claude/settings.json" });
    expect(hookSandbox({ sandboxOff: [project], sandboxOn: false })).toEqual({ sandbox: true, ignored: [project] });
    expect(hookSandbox({ sandboxOff: [], sandboxOn: false }, "off")).toMatchObject({ sandbox: false });
    expect(hookSandbox({ sandboxOff: [], sandboxOn: true }, "off")).toEqual({ sandbox: true });
  });

  it("passes the decision to the command runner, and notes an ignored opt-out", async () => {
    const seen: HookCommandRequest[] = [];
    const hook = (command: string, sandbox?: boolean) => ({ type: "command" as const, command, ...(sandbox === undefined ? {} : { sandbox }) });
    const groups: HookGroupConfig[] = [
      { event: "Stop", matcher: "", hooks: [hook("mine", false), hook("theirs", false), hook("plain")], source: src("user") },
      { event: "Stop", matcher: "", hooks: [hook("theirs", false)], source: src("claude", { label: ".claude/settings.json" }) },
    ];
    // "theirs" is defined by the user too (with false): the user chose the host for it.
    const r = createHookRunner({
      hooks: groups,
      runner: { run: async (req) => (seen.push(req), { exitCode: 0, stdout: "", stderr: "", timedOut: false }) },
      cwd: "/w",
      sessionId: "s",
      transcriptPath: "/t",
    });
    const out = await r.runHooks("Stop", {});
    const by = Object.fromEntries(seen.map((q) => [q.command, q.sandbox]));
    expect(by).toEqual({ mine: false, theirs: false, plain: true });
    expect(out.notes?.join("\n")).toContain('hook "theirs": its "sandbox": false in .claude/settings.json is ignored, so it runs in the sandbox');
  });

  it('"sandbox" must be true or false, and sandbox.hooks "on" or "off"', () => {
    expect(() => checkSandboxSettings({ hooks: "no" as never })).toThrow(SandboxSettingsError);
    expect(() => checkSandboxSettings({ hooks: "off" })).not.toThrow();
  });
});

/** The absolute paths a line names (read with the gate's parser), and those it writes. */
const named = async (line: string, env: Record<string, string>, cwd = "/") => {
  const r = hookLinePaths(await hookShellParser(), line, { env, cwd, home: env.HOME! });
  return { all: r.paths.map((p) => p.path), written: r.paths.filter((p) => p.written).map((p) => p.path) };
};

describe("the paths a hook's command line names", () => {
  it("keeps a script's hooks folder readable, any other script only itself, never another folder, credentials or the workspace", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-hookpaths-"));
    temps.push(base);
    const home = join(base, "home");
    const ws = join(base, "ws");
    for (const d of [".claude/hooks/lib", ".ssh", ".local/share/hooks", ".local/share/keyrings", ".config/app"]) mkdirSync(join(home, d), { recursive: true });
    mkdirSync(ws, { recursive: true });
    for (const f of [".claude/hooks/v.py", "top.sh", ".ssh/id_rsa", ".local/share/x.sh", ".local/share/hooks/y.sh", ".local/share/keyrings/login.keyring", ".config/app/run.sh"])
      writeFileSync(join(home, f), "");
    writeFileSync(join(ws, "log.txt"), "");
    const env = { HOME: home, CLAUDE_PROJECT_DIR: ws };
    const line = [
      `python3 ~/.claude/hooks/v.py && bash "$HOME/top.sh" --key=~/.ssh/id_rsa >> "$CLAUDE_PROJECT_DIR/log.txt"; cat ~/missing`,
      `bash ~/.local/share/x.sh; sh $HOME/.local/share/hooks/y.sh; ls ~/.local/share ~/.config; cat ~/.local/share/keyrings/login.keyring; cd ~/.config/app && ./run.sh`,
    ].join("; ");
    const got = hookReadablePaths((await named(line, env)).all, env, [home], [ws]);
    expect(got.sort()).toEqual([join(home, ".claude", "hooks"), join(home, ".config/app/run.sh"), join(home, ".local/share/hooks/y.sh"), join(home, ".local/share/x.sh"), join(home, "top.sh")].sort());
  });

  it("exposes a plugin's own folder for its hooks, a hooks folder linked elsewhere by its target, and never a hooks folder that is a link to the home", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-hookpaths-"));
    temps.push(base);
    const home = join(base, "home");
    const plugin = join(home, ".claude", "plugins", "cache", "m", "fmt", "1.0");
    mkdirSync(join(plugin, "scripts"), { recursive: true });
    writeFileSync(join(plugin, "scripts", "fmt.sh"), "");
    mkdirSync(join(home, "dotfiles", "hooks"), { recursive: true });
    writeFileSync(join(home, "dotfiles", "hooks", "a.sh"), "");
    mkdirSync(join(home, ".yoke"), { recursive: true });
    symlinkSync(join(home, "dotfiles", "hooks"), join(home, ".yoke", "hooks"));
    mkdirSync(join(home, ".claude"), { recursive: true });
    symlinkSync(home, join(home, ".claude", "hooks"));
    writeFileSync(join(home, "b.sh"), "");
    const env = { HOME: home, CLAUDE_PLUGIN_ROOT: plugin };
    const line = `bash "\${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh"; bash ~/.yoke/hooks/a.sh; bash ~/.claude/hooks/b.sh`;
    const got = hookReadablePaths((await named(line, env)).all, env, [home], []);
    expect(got.sort()).toEqual([plugin, join(home, "dotfiles", "hooks")].sort());
  });
});

describe("the files a hook's command line writes", () => {
  it("finds redirection targets and tee's files, not descriptors", async () => {
    const env = { HOME: "/h" };
    expect((await named(`jq -r .tool_input.command >> ~/.claude/log.txt 2>&1`, env)).written).toEqual(["/h/.claude/log.txt"]);
    expect((await named(`cat | tee -a "/tmp/hooks log" x | jq . >/dev/null 2>/tmp/err &> ~/all`, env, "/w")).written.sort()).toEqual(
      ["/tmp/hooks log", "/w/x", "/dev/null", "/tmp/err", "/h/all"].sort(),
    );
    expect((await named(`echo hi >&2; echo tee`, env)).written).toEqual([]);
    // Inside bash -c, after an environment prefix, with a descriptor number glued to the operator.
    expect((await named(`bash -c 'LOG=1 jq . 2>>"$HOME/.claude/logs/e.log"'`, env)).written).toEqual(["/h/.claude/logs/e.log"]);
  });

  it("keeps a log file in the home or /tmp writable (created empty when only its folder exists); never a startup file, settings, hook scripts, credentials or the workspace", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-hookwrites-"));
    temps.push(base);
    const home = join(base, "home");
    const ws = join(base, "ws");
    mkdirSync(join(home, ".claude", "hooks"), { recursive: true });
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(home, ".claude", "old.log"), "x\n");
    const line = [
      `jq . >> ~/.claude/old.log; echo >> ~/.claude/new.log; echo >> ~/nofolder/x.log; echo >> ~/.bashrc; echo >> ~/.ssh/config; echo > "$CLAUDE_PROJECT_DIR/p.log"`,
      `echo >> ~/.claude/settings.json; echo >> ~/.claude/hooks/x.log; echo >> ~/.claude/CLAUDE.md; echo >> ~/.claude.json`,
    ].join("; ");
    const env = { HOME: home, CLAUDE_PROJECT_DIR: ws };
    const got = hookWrittenFiles((await named(line, env)).written, [home], [ws]);
    expect(got.sort()).toEqual([join(home, ".claude", "new.log"), join(home, ".claude", "old.log")]);
    expect(existsSync(join(home, ".claude", "new.log"))).toBe(true);
    for (const f of [".bashrc", ".claude/settings.json", ".claude/hooks/x.log", ".claude.json"]) expect(existsSync(join(home, f)), f).toBe(false);
  });
});

describe("links the agent plants in the workspace (red team round 13)", () => {
  it("a workspace path a hook names is never followed into the home, for reading or writing", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-hooklinks-"));
    temps.push(base);
    const home = join(base, "home");
    const ws = join(base, "ws");
    mkdirSync(join(home, ".config", "app"), { recursive: true });
    mkdirSync(join(home, ".config", "nvim"), { recursive: true });
    mkdirSync(join(ws, "scripts"), { recursive: true });
    writeFileSync(join(home, ".config", "app", "token"), "t\n");
    // The user's hook names $CLAUDE_PROJECT_DIR/scripts/fmt.sh, src and logs/hooks.log; the agent
    // made them links into the home.
    symlinkSync(join(home, ".config", "app", "token"), join(ws, "scripts", "fmt.sh"));
    symlinkSync(join(home, ".config", "app"), join(ws, "src"));
    symlinkSync(join(home, ".config", "nvim"), join(ws, "logs"));
    const line = `bash "$CLAUDE_PROJECT_DIR/scripts/fmt.sh" "$CLAUDE_PROJECT_DIR/src" >> "$CLAUDE_PROJECT_DIR/logs/hooks.log"; cd "$CLAUDE_PROJECT_DIR" && cat scripts/fmt.sh`;
    const env = { HOME: home, CLAUDE_PROJECT_DIR: ws };
    const n = await named(line, env, ws);
    expect(hookReadablePaths(n.all, env, [home], [ws])).toEqual([]);
    expect(hookWrittenFiles(n.written, [home], [ws])).toEqual([]);
    expect(existsSync(join(home, ".config", "nvim", "hooks.log"))).toBe(false);
  });
});

describe("a confined hook without a sandbox", () => {
  it("could not run: the reason and the opt-out, and nothing ran on the host", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-hooknosb-"));
    temps.push(dir);
    const marker = join(dir, "ran");
    const sandbox: HookSandbox = { name: undefined, prepare: async () => ({ unavailable: "no sandbox is available here (install bubblewrap)" }) };
    const runner = createNodeHookRunner({ sandbox });
    const r = await runner.run({ command: `touch ${marker}`, cwd: dir, stdin: "{}", sandbox: true });
    expect(r.cannotStart).toContain("it runs in the sandbox, as the session's commands do, and no sandbox is available here (install bubblewrap)");
    expect(r.cannotStart).toContain('add "sandbox": false to the hook in your own settings');
    expect(existsSync(marker)).toBe(false);
    // Opted out: it runs on the host.
    const host = await runner.run({ command: `touch ${marker}`, cwd: dir, stdin: "{}", sandbox: false });
    expect(host.exitCode).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});
