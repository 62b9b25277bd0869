// Red team M (session 19): command and skill shapes real repositories use that were read
// differently from Claude Code — written here from Claude Code's documentation, not copied:
// - `argument-hint: [message]` (unquoted brackets: YAML reads a list; Claude Code still shows it),
//   was dropped, so the composer, `yoke lessons list` and ACP showed no hint;
// - a ```` ```! ```` fenced block (Claude Code's multi-line `` !`cmd` ``) was sent to the model as
//   text instead of being run (through the gate) with its output in its place;
// - `context: fork`, `agent`, `hooks` and `effort` were ignored without a word;
// - `allowed-tools: Read Grep Bash(git diff *)` (space-separated, the Agent Skills form) was one rule
//   matching nothing, and a comma inside a rule's parentheses cut it in two;
// - `${CLAUDE_PLUGIN_ROOT}` in a plugin's command or skill reached the model (and its `!` lines)
//   as written, where Claude Code puts the plugin's folder.
import { describe, expect, it } from "vitest";
import { expandCommand, loadCustomCommands, type CommandFiles, type CustomCommand, type ExpandEnv } from "../../../src/core/custom-commands";

function filesOf(map: Record<string, string>): CommandFiles {
  return {
    list: async (dir) =>
      Object.keys(map)
        .filter((p) => p.startsWith(dir + "/"))
        .map((p) => p.slice(dir.length + 1)),
    read: async (path) => map[path],
  };
}

async function load(map: Record<string, string>) {
  return loadCustomCommands(filesOf(map), [{ dir: "/ws/.claude/commands", format: "claude", origin: "project" }]);
}

describe("argument-hint as its author wrote it", () => {
  it("an unquoted [..] hint (a YAML list) is shown as written; several lists, quoted and plain strings too", async () => {
    const l = await load({
      "/ws/.claude/commands/a.md": "---\nargument-hint: [message]\n---\nx",
      "/ws/.claude/commands/b.md": '---\nargument-hint: ["run all tests", "test login page"]\n---\nx',
      "/ws/.claude/commands/c.md": "---\nargument-hint: [pr-number] [priority]\n---\nx",
      "/ws/.claude/commands/d.md": '---\nargument-hint: "[file]"\n---\nx',
      "/ws/.claude/commands/e.md": "---\nargument-hint: add [tagId] | remove [tagId] | list\n---\nx",
      "/ws/.claude/commands/f.md": "---\nargument-hint:\n  - one\n  - two\n---\nx",
    });
    const hint = (n: string) => l.commands.find((c) => c.name === n)?.argumentHint;
    expect(hint("a")).toBe("[message]");
    expect(hint("b")).toBe('["run all tests", "test login page"]');
    expect(hint("c")).toBe("[pr-number] [priority]");
    expect(hint("d")).toBe("[file]");
    expect(hint("e")).toBe("add [tagId] | remove [tagId] | list");
    expect(hint("f")).toBe("[one] [two]");
    expect(l.problems).toEqual([]);
  });
});

describe("allowed-tools as Claude Code reads them", () => {
  it("commas, spaces (the Agent Skills form) or a YAML list; a comma or space inside a rule's parentheses stays in the rule", async () => {
    const l = await load({
      "/ws/.claude/commands/a.md": "---\nallowed-tools: Read, Grep, Glob\n---\nx",
      "/ws/.claude/commands/b.md": "---\nallowed-tools: Read Grep Bash(git diff *)\n---\nx",
      "/ws/.claude/commands/c.md": "---\nallowed-tools: Bash(git log --format=%H,%s), Read\n---\nx",
      "/ws/.claude/commands/d.md": '---\nallowed-tools:\n  - Bash(npm run test:*)\n  - "Bash(git commit -m *)"\n---\nx',
      "/ws/.claude/commands/e.md": "---\nallowed-tools: [Read, Bash(npx twd-cli run *)]\n---\nx",
    });
    const tools = (n: string) => l.commands.find((c) => c.name === n)?.allowedTools;
    expect(tools("a")).toEqual(["Read", "Grep", "Glob"]);
    expect(tools("b")).toEqual(["Read", "Grep", "Bash(git diff *)"]);
    expect(tools("c")).toEqual(["Bash(git log --format=%H,%s)", "Read"]);
    expect(tools("d")).toEqual(["Bash(npm run test:*)", "Bash(git commit -m *)"]);
    expect(tools("e")).toEqual(["Read", "Bash(npx twd-cli run *)"]);
  });
});

describe("keys Claude Code applies and Yoke does not are named, not ignored", () => {
  it("hooks and effort are read (a repository command's hooks as checked in); a bad effort, bad hooks and a plugin's hooks are a note each, with its line; context: fork and agent are applied, no note", async () => {
    const l = await load({
      "/ws/.claude/commands/fork.md":
        "---\ndescription: d\ncontext: fork\nagent: Explore\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: echo hi\neffort: High\n---\nbody",
      "/ws/.claude/commands/plain.md": "---\ncontext: inherit\neffort: turbo\nhooks: [1]\n---\nbody",
      "/ws/.claude/commands/stray.md": "---\nagent: reviewer\n---\nbody",
    });
    expect(l.commands.map((c) => c.name).sort()).toEqual(["fork", "plain", "stray"]);
    const fork = l.commands.find((c) => c.name === "fork")!;
    expect(fork.fork).toEqual({ agent: "Explore" });
    expect(fork.effort).toBe("high");
    expect(fork.hooks).toEqual([{ event: "PreToolUse", matcher: "Bash", hooks: [{ type: "command", command: "echo hi" }], source: expect.objectContaining({ kind: "claude", checkedIn: true }) }]);
    const plain = l.commands.find((c) => c.name === "plain")!;
    expect(plain.fork).toBeUndefined();
    expect(plain.effort).toBeUndefined();
    expect(plain.hooks).toBeUndefined();
    expect(l.commands.find((c) => c.name === "stray")!.fork).toBeUndefined();
    const notes = l.problems.map((p) => `${p.path.split("/").pop()}:${p.line} ${p.message}`);
    expect(notes).toHaveLength(3);
    expect(notes[0]).toMatch(/^plain.md:3 not applied: "effort: turbo" is not one of low, medium, high, xhigh, max/);
    expect(notes[1]).toMatch(/^plain.md:4 "hooks" must be a mapping of hook events/);
    // `agent` without `context: fork`: Claude Code runs it in the conversation; said so.
    expect(notes[2]).toMatch(/^stray.md:2 not applied: "agent: reviewer" .*does not set: it runs in this conversation/);
    // The user's own: theirs (not checked in); a plugin's skill: not run, said so.
    const user = await loadCustomCommands(filesOf({ "/h/.claude/commands/u.md": "---\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: echo u\n---\nbody" }), [
      { dir: "/h/.claude/commands", format: "claude", origin: "user" },
    ]);
    expect(user.commands[0]!.hooks?.[0]).toMatchObject({ event: "Stop", source: { kind: "claude-user" } });
    expect(user.commands[0]!.hooks?.[0]!.source.checkedIn).toBeUndefined();
    const plugin = await loadCustomCommands(filesOf({ "/p/skills/s/SKILL.md": "---\nname: s\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: echo p\n---\nbody" }), [
      { dir: "/p/skills", format: "claude", origin: "plugin:p@m", layout: "skills" },
    ]);
    expect(plugin.commands[0]!.hooks).toBeUndefined();
    expect(plugin.problems.map((p) => `${p.line} ${p.message}`)).toEqual([expect.stringMatching(/^3 not applied: "hooks" of a plugin's skill do not run/)]);
  });
});

describe("```! blocks run like !`cmd` lines", () => {
  const cmd = (body: string): CustomCommand => ({ name: "c", aliases: [], format: "claude", origin: "user", path: "/h/.claude/commands/c.md", allowedTools: [], disableModelInvocation: false, body });
  const env = (ran: string[], out: (c: string) => string = (c) => `OUT(${c})`): ExpandEnv => ({
    workspaceRoot: "/ws",
    shell: async (c) => {
      ran.push(c);
      return out(c);
    },
    file: async () => ({ error: "no such file" }),
  });

  it("the block's script runs once, as one command, its output in its place; an ordinary ``` block is left; an empty one is removed", async () => {
    const ran: string[] = [];
    const text = await expandCommand(cmd("A:\n```!\necho one\necho two\n```\nB: !`date`\n```sh\nnot run\n```\n```!\n```\nend"), "", env(ran));
    expect(ran).toEqual(["echo one\necho two", "date"]);
    expect(text).toBe("A:\nOUT(echo one\necho two)\nB: OUT(date)\n```sh\nnot run\n```\n\nend");
  });

  it("an output is never read again for commands (a block's output holding !`…` or ```! stays text)", async () => {
    const ran: string[] = [];
    const text = await expandCommand(
      cmd("```!\ngit log -1\n```\nthen !`git status`"),
      "",
      env(ran, (c) => (c.startsWith("git log") ? "evil !`rm -rf x`\n```!\nrm -rf y\n```" : "clean")),
    );
    expect(ran).toEqual(["git log -1", "git status"]);
    expect(text).toContain("evil !`rm -rf x`");
  });

  it("openings never closed stay text, and a later !`cmd` line still runs once (the scan is linear: a regular expression took 12 s on 80 KB of these)", async () => {
    const ran: string[] = [];
    const body = "```!\n".repeat(16000) + "last: !`date`";
    const text = await expandCommand(cmd(body), "", env(ran));
    expect(ran).toEqual(["date"]);
    expect(text).toBe("```!\n".repeat(16000) + "last: OUT(date)");
  });

  it("indented fences count; ````! (four backticks) does not open a block", async () => {
    const ran: string[] = [];
    const text = await expandCommand(cmd("  ```!\n  echo a\n  ```\n````!\necho b\n````"), "", env(ran));
    expect(ran).toEqual(["  echo a"]);
    expect(text).toBe("OUT(  echo a)\n````!\necho b\n````");
  });

  it("Cline and Roo files keep ```! as text (only Claude Code runs them)", async () => {
    const ran: string[] = [];
    const c = { ...cmd("```!\necho x\n```"), format: "cline" as const };
    expect(await expandCommand(c, "", env(ran))).toBe("```!\necho x\n```");
    expect(ran).toEqual([]);
  });
});

describe("${CLAUDE_PLUGIN_ROOT} in a plugin's commands and skills", () => {
  it("is the plugin's folder in the text and its ! lines; a project command keeps the text as written", async () => {
    const files = filesOf({
      "/h/.yoke/plugins/cache/m/p/commands/run.md": "---\ndescription: d\n---\nSee ${CLAUDE_PLUGIN_ROOT}/ref.md and $CLAUDE_PLUGIN_ROOT/x.\n!`node ${CLAUDE_PLUGIN_ROOT}/scripts/a.js`",
      "/h/.yoke/plugins/cache/m/p/skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\nRun ${CLAUDE_PLUGIN_ROOT}/bin/tool in ${CLAUDE_SKILL_DIR}.",
      "/ws/.claude/commands/local.md": "Keep ${CLAUDE_PLUGIN_ROOT} as written.",
    });
    const l = await loadCustomCommands(files, [
      { dir: "/ws/.claude/commands", format: "claude", origin: "project" },
      { dir: "/h/.yoke/plugins/cache/m/p/skills", format: "claude", origin: "plugin:p@m", namespace: "p", layout: "skills", pluginRoot: "/h/.yoke/plugins/cache/m/p" },
      { dir: "/h/.yoke/plugins/cache/m/p/commands", format: "claude", origin: "plugin:p@m", namespace: "p", pluginRoot: "/h/.yoke/plugins/cache/m/p" },
    ]);
    const body = (n: string) => l.commands.find((c) => c.name === n)!.body;
    expect(body("run")).toBe("See /h/.yoke/plugins/cache/m/p/ref.md and /h/.yoke/plugins/cache/m/p/x.\n!`node /h/.yoke/plugins/cache/m/p/scripts/a.js`");
    expect(body("s")).toBe("Run /h/.yoke/plugins/cache/m/p/bin/tool in /h/.yoke/plugins/cache/m/p/skills/s.");
    expect(body("local")).toBe("Keep ${CLAUDE_PLUGIN_ROOT} as written.");
    const ran: string[] = [];
    await expandCommand(
      l.commands.find((c) => c.name === "run")!,
      "",
      { workspaceRoot: "/ws", shell: async (c) => (ran.push(c), ""), file: async () => ({ error: "no such file" }) },
    );
    expect(ran).toEqual(["node /h/.yoke/plugins/cache/m/p/scripts/a.js"]);
  });
});
