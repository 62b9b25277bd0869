/**
 * The hook runner against Claude Code's contract, with real bash commands and real files: exit
 * codes and JSON, fail-closed guards, exec form, `if`, async hooks, bounded output, shared
 * settings files that may restrict but not loosen.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createHookRunner, DEFAULT_HOOK_TIMEOUT_S, permissionRequestAnswer } from "../../../src/core/hooks/run-hooks";
import type { HookCommandRunner } from "../../../src/core/hooks/types";
import type { HookGroupConfig, SettingsSourceInfo } from "../../../src/core/permissions/types";
import { createNodeHookRunner } from "../../../src/node/hook-exec";

const user: SettingsSourceInfo = { kind: "user", label: "~/.yoke/settings.json", baseDir: "/" };
const shared: SettingsSourceInfo = { kind: "claude", label: ".claude/settings.json", baseDir: "/", checkedIn: true };

type Hook = HookGroupConfig["hooks"][number];
function group(event: string, hooks: Array<Partial<Hook> & { command: string }>, opts: { matcher?: string; source?: SettingsSourceInfo } = {}): HookGroupConfig {
  return { event, matcher: opts.matcher ?? "", hooks: hooks.map((h) => ({ type: "command" as const, ...h })), source: opts.source ?? user };
}

function setup(groups: HookGroupConfig[], extra: Partial<Parameters<typeof createHookRunner>[0]> = {}) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "yoke-parity-")));
  const runner = createHookRunner({ hooks: groups, runner: createNodeHookRunner(), cwd, sessionId: "s-1", transcriptPath: join(cwd, "t.jsonl"), ...extra });
  return { cwd, runner };
}

const json = (v: unknown) => `echo '${JSON.stringify(v)}'`;
const bash = { tool_name: "Bash", tool_input: { command: "git push" } };

describe("command hooks run in bash", () => {
  it("understands bash syntax that /bin/sh (dash) does not", async () => {
    const cmd = `input=$(cat); arr=(a b c); if [[ "$input" == *git* ]] && [[ \${#arr[@]} -eq 3 ]]; then grep -q push <<< "$input" && { echo "no pushing" >&2; exit 2; }; fi`;
    const { runner } = setup([group("PreToolUse", [{ command: cmd }], { matcher: "Bash" })]);
    expect(await runner.runHooks("PreToolUse", bash)).toMatchObject({ blocked: true, decision: "deny", message: "no pushing" });
  });

  it("a bash syntax error is the hook's failure, never a message appended to the model's result", async () => {
    const { runner } = setup([group("PostToolUse", [{ command: "if then fi (" }])]);
    const post = await runner.runHooks("PostToolUse", { tool_name: "Bash", tool_input: { command: "ls" }, tool_response: {} });
    expect(post.blocked).toBe(false);
    expect(post.message).toBeUndefined();
    expect(post.errors[0]).toMatch(/could not run: the command is not valid bash: .*syntax error/);
  });

  it("the same syntax error on a guard event blocks and says why", async () => {
    const { runner } = setup([group("PreToolUse", [{ command: "if then fi (" }])]);
    const pre = await runner.runHooks("PreToolUse", bash);
    expect(pre).toMatchObject({ blocked: true, decision: "deny" });
    expect(pre.message).toMatch(/^The PreToolUse hook "if then fi \(" \(~\/\.yoke\/settings\.json\) could not run \(the command is not valid bash: .*\), so this was blocked/);
  });
});

describe("a guard that cannot start fails closed", () => {
  it("blocks PreToolUse, UserPromptSubmit and PermissionRequest when the script is missing (exit 127)", async () => {
    const missing = "/no/such/dir/guard.sh";
    const { runner } = setup(["PreToolUse", "UserPromptSubmit", "PermissionRequest"].map((e) => group(e, [{ command: missing }])));
    const pre = await runner.runHooks("PreToolUse", bash);
    expect(pre).toMatchObject({ blocked: true, decision: "deny" });
    expect(pre.message).toContain("could not run (command not found (exit status 127): bash: line 1: /no/such/dir/guard.sh: No such file or directory)");
    expect((await runner.runHooks("UserPromptSubmit", { prompt: "hi" })).blocked).toBe(true);
    expect(permissionRequestAnswer(await runner.runHooks("PermissionRequest", bash))).toMatchObject({ decision: "deny" });
  });

  it("blocks when the script is not executable (exit 126)", async () => {
    const { cwd, runner } = setup([group("PreToolUse", [{ command: "./guard.sh" }])]);
    writeFileSync(join(cwd, "guard.sh"), "#!/bin/bash\nexit 0\n");
    chmodSync(join(cwd, "guard.sh"), 0o644);
    const pre = await runner.runHooks("PreToolUse", bash);
    expect(pre.blocked).toBe(true);
    expect(pre.message).toMatch(/could not run \(not executable \(exit status 126\)/);
  });

  it("blocks when an exec-form program does not exist", async () => {
    const { runner } = setup([group("PreToolUse", [{ command: "/no/such/program", args: ["x"] }])]);
    const pre = await runner.runHooks("PreToolUse", bash);
    expect(pre.blocked).toBe(true);
    expect(pre.message).toMatch(/\/no\/such\/program was not found/);
  });

  it("is only a reported error on events that do not guard anything", async () => {
    const { runner } = setup([group("PostToolUse", [{ command: "/no/such/hook.sh" }]), group("Stop", [{ command: "/no/such/hook.sh" }])]);
    const post = await runner.runHooks("PostToolUse", { tool_name: "Bash", tool_input: {}, tool_response: {} });
    expect(post.blocked).toBe(false);
    expect(post.errors[0]).toMatch(/could not run: command not found/);
    expect((await runner.runHooks("Stop", {})).blocked).toBe(false);
  });

  it("a timeout lets the action through, unless the hook says onFailure: block", async () => {
    const { runner } = setup([group("PreToolUse", [{ command: "sleep 5", timeout: 0.2 }])]);
    expect((await runner.runHooks("PreToolUse", bash)).blocked).toBe(false);
    const strict = setup([group("PreToolUse", [{ command: "sleep 5", timeout: 0.2, onFailure: "block" }])]);
    const pre = await strict.runner.runHooks("PreToolUse", bash);
    expect(pre).toMatchObject({ blocked: true, decision: "deny" });
    expect(pre.message).toContain("timed out after 0.2 s");
  });
});

describe("exit codes and JSON", () => {
  it("lets JSON on stdout decide on any exit status (exit 1 + deny denies)", async () => {
    const { runner } = setup([
      group("PreToolUse", [{ command: `${json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "policy" } })}; exit 1` }]),
    ]);
    expect(await runner.runHooks("PreToolUse", bash)).toMatchObject({ blocked: true, decision: "deny", message: "policy" });
  });

  it("on exit 2, a JSON reason wins over stderr, and a JSON allow cannot undo the block", async () => {
    const { runner } = setup([
      group("PreToolUse", [{ command: `${json({ hookSpecificOutput: { permissionDecision: "allow", permissionDecisionReason: "the reason from JSON" } })}; echo stderr text >&2; exit 2` }]),
    ]);
    expect(await runner.runHooks("PreToolUse", bash)).toMatchObject({ blocked: true, decision: "deny", message: "the reason from JSON" });
  });

  it("exit 1 without JSON is a non-blocking error showing stderr's first line", async () => {
    const { runner } = setup([group("PreToolUse", [{ command: "printf 'first\\nsecond\\n' >&2; exit 1" }])]);
    const pre = await runner.runHooks("PreToolUse", bash);
    expect(pre.blocked).toBe(false);
    expect(pre.decision).toBeUndefined();
    expect(pre.errors).toEqual(["hook \"printf 'first\\nsecond\\n' >&2; exit 1\" (~/.yoke/settings.json): failed with exit status 1: first"]);
  });

  it("passes PreToolUse additionalContext, defer as ask, and an unknown decision asks (fail closed)", async () => {
    const ctx = setup([group("PreToolUse", [{ command: json({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "prod database: be careful" } }) }])]);
    expect((await ctx.runner.runHooks("PreToolUse", bash)).additionalContext).toEqual(["prod database: be careful"]);
    const defer = setup([group("PreToolUse", [{ command: json({ hookSpecificOutput: { permissionDecision: "defer" } }) }])]);
    expect((await defer.runner.runHooks("PreToolUse", bash)).decision).toBe("ask");
    const odd = setup([group("PreToolUse", [{ command: json({ hookSpecificOutput: { permissionDecision: "Deny" } }) }])]);
    const out = await odd.runner.runHooks("PreToolUse", bash);
    expect(out.decision).toBe("ask");
    expect(out.errors[0]).toContain('permissionDecision "Deny" is not allow, ask, deny or defer');
  });

  it("PostToolUse: decision block adds the reason, updatedToolOutput replaces what the model sees, exit 2 gives stderr", async () => {
    const { runner } = setup([
      group("PostToolUse", [{ command: json({ decision: "block", reason: "lint failed: 3 errors", hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: "redacted" } }) }]),
    ]);
    expect(await runner.runHooks("PostToolUse", { tool_name: "Edit", tool_input: {}, tool_response: {} })).toMatchObject({
      blocked: true,
      message: "lint failed: 3 errors",
      updatedToolOutput: "redacted",
    });
  });

  it("PermissionRequest: allow and deny through decision.behavior; interrupt stops", async () => {
    const allow = setup([group("PermissionRequest", [{ command: json({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } }) }])]);
    expect(permissionRequestAnswer(await allow.runner.runHooks("PermissionRequest", bash))).toEqual({ decision: "allow" });
    const deny = setup([
      group("PermissionRequest", [{ command: json({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "not on main", interrupt: true } } }) }]),
    ]);
    const out = await deny.runner.runHooks("PermissionRequest", bash);
    expect(permissionRequestAnswer(out)).toEqual({ decision: "deny", message: "not on main", interrupt: true });
    const silent = setup([group("PermissionRequest", [{ command: "exit 0" }])]);
    expect(permissionRequestAnswer(await silent.runner.runHooks("PermissionRequest", bash))).toBeUndefined();
  });

  it("gives Stop hooks' block reason to the model and ignores a matcher on Stop", async () => {
    const { runner } = setup([group("Stop", [{ command: json({ decision: "block", reason: "tests fail" }) }], { matcher: "Bash" })]);
    expect(await runner.runHooks("Stop", { stop_hook_active: false, last_assistant_message: "done" })).toMatchObject({ blocked: true, message: "tests fail" });
  });
});

describe("hook output given to the model is bounded", () => {
  it("keeps head and tail of a 1 MiB stderr within a few KB and says how much was left out", async () => {
    const { runner } = setup([group("PreToolUse", [{ command: `head -c 1048576 /dev/zero | tr '\\0' 'x' >&2; echo END-OF-STDERR >&2; exit 2` }])]);
    const pre = await runner.runHooks("PreToolUse", bash);
    expect(pre.blocked).toBe(true);
    expect(pre.message!.length).toBeLessThan(4_200);
    expect(pre.message).toMatch(/^x{100}/);
    expect(pre.message).toContain("END-OF-STDERR");
    expect(pre.message).toMatch(/\[… [\d,]+ characters of hook output left out …\]/);
  });

  it("caps additionalContext at 10,000 characters", async () => {
    const { runner } = setup([group("UserPromptSubmit", [{ command: `head -c 50000 /dev/zero | tr '\\0' 'y'` }])]);
    const out = await runner.runHooks("UserPromptSubmit", { prompt: "hi" });
    expect(out.additionalContext[0]!.length).toBeLessThan(10_100);
  });
});

describe("if, args, async, timeouts", () => {
  it("runs a hook only when its `if` rule matches, through the injected matcher", async () => {
    const seen: unknown[] = [];
    const { cwd, runner } = setup([group("PreToolUse", [{ command: "touch ran-$RANDOM", if: "Bash(git *)" }])], {
      ifMatcher: (rule, tool, input) => {
        seen.push([rule, tool, input]);
        return String(input.command).startsWith("git ");
      },
    });
    await runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "npm test" } });
    expect(readdir(cwd)).toEqual([]);
    await runner.runHooks("PreToolUse", bash);
    expect(readdir(cwd)).toHaveLength(1);
    expect(seen[0]).toEqual(["Bash(git *)", "Bash", { command: "npm test" }]);
  });

  it("runs exec form without a shell, expanding ${CLAUDE_PROJECT_DIR}", async () => {
    const { cwd } = setup([]);
    writeFileSync(join(cwd, "argv.sh"), '#!/bin/bash\nprintf "%s\\n" "$@" > "$CLAUDE_PROJECT_DIR/argv.txt"\n', { mode: 0o755 });
    const r = createHookRunner({
      hooks: [group("PreToolUse", [{ command: "${CLAUDE_PROJECT_DIR}/argv.sh", args: ["a b", "$HOME", "; rm -rf /", "${CLAUDE_PROJECT_DIR}"] }])],
      runner: createNodeHookRunner(),
      cwd,
      sessionId: "s",
      transcriptPath: "t",
    });
    await r.runHooks("PreToolUse", bash);
    expect(readFileSync(join(cwd, "argv.txt"), "utf8")).toBe(`a b\n$HOME\n; rm -rf /\n${cwd}\n`);
  });

  it("uses a 600 s default timeout", async () => {
    const seen: Array<number | undefined> = [];
    const fake: HookCommandRunner = { run: async (req) => (seen.push(req.timeoutMs), { exitCode: 0, stdout: "", stderr: "", timedOut: false }) };
    const r = createHookRunner({ hooks: [group("Stop", [{ command: "a" }, { command: "b", timeout: 5 }])], runner: fake, cwd: "/w", sessionId: "s", transcriptPath: "t" });
    await r.runHooks("Stop");
    expect(DEFAULT_HOOK_TIMEOUT_S).toBe(600);
    expect(seen).toEqual([600_000, 5_000]);
  });

  it("runs async hooks in the background: they cannot block, their context comes with the next request", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "yoke-async-hooks-")), "finished");
    const { runner } = setup([
      group("PostToolUse", [
        {
          command: `sleep 1.5; touch ${marker}; ${json({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "background lint: 2 warnings" }, systemMessage: "lint ran" })}`,
          async: true,
        },
        { command: "sleep 1.5; echo 'look at the failing test' >&2; exit 2", asyncRewake: true },
        { command: "sleep 1.3; echo blocked >&2; exit 2", async: true },
      ]),
    ]);
    const post = await runner.runHooks("PostToolUse", { tool_name: "Bash", tool_input: {}, tool_response: {} });
    // The call returned before the hooks finished (an order, not a timing: the marker is written when the first one ends).
    expect(existsSync(marker)).toBe(false);
    expect(post.blocked).toBe(false);
    expect(runner.takeAsyncOutput()).toEqual({ additionalContext: [], userMessages: [], rewake: [] });
    const want = { additionalContext: ["background lint: 2 warnings"], userMessages: ["lint ran"], rewake: ["look at the failing test"] };
    const got: { additionalContext: string[]; userMessages: string[]; rewake: string[] } = { additionalContext: [], userMessages: [], rewake: [] };
    for (let i = 0; i < 100 && JSON.stringify(got) !== JSON.stringify(want); i++) {
      await new Promise((r) => setTimeout(r, 100));
      const o = runner.takeAsyncOutput();
      got.additionalContext.push(...o.additionalContext);
      got.userMessages.push(...o.userMessages);
      got.rewake.push(...o.rewake);
    }
    expect(got).toEqual(want);
  });

  it("stops background hooks when the session closes", async () => {
    const { cwd, runner } = setup([group("SessionStart", [{ command: "sleep 2; touch late.txt", async: true }])]);
    await runner.runHooks("SessionStart", { source: "startup" });
    const t = Date.now();
    await runner.close();
    expect(Date.now() - t).toBeLessThan(1500);
    await new Promise((r) => setTimeout(r, 2300));
    expect(existsSync(join(cwd, "late.txt"))).toBe(false);
  });
});

describe("settings files shared with the repository may restrict, never loosen", () => {
  const allowAll = json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "repo says fine" } });

  it("a checked-in hook's allow is no opinion; its deny and ask still count", async () => {
    const a = setup([group("PreToolUse", [{ command: allowAll }], { source: shared })]);
    const out = await a.runner.runHooks("PreToolUse", bash);
    expect(out.decision).toBeUndefined();
    expect(out.notes?.[0]).toContain('its "allow" is ignored');
    const d = setup([group("PreToolUse", [{ command: json({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "no" } }) }], { source: shared })]);
    expect((await d.runner.runHooks("PreToolUse", bash)).decision).toBe("deny");
    const k = setup([group("PreToolUse", [{ command: json({ hookSpecificOutput: { permissionDecision: "ask" } }) }], { source: shared })]);
    expect((await k.runner.runHooks("PreToolUse", bash)).decision).toBe("ask");
  });

  it("the same hook in the user's own settings keeps its allow", async () => {
    const { runner } = setup([group("PreToolUse", [{ command: allowAll }], { source: shared }), group("PreToolUse", [{ command: allowAll }], { source: user })]);
    expect((await runner.runHooks("PreToolUse", bash)).decision).toBe("allow");
  });

  it("a checked-in PermissionRequest allow answers nothing", async () => {
    const { runner } = setup([group("PermissionRequest", [{ command: json({ hookSpecificOutput: { decision: { behavior: "allow" } } }) }], { source: shared })]);
    expect(permissionRequestAnswer(await runner.runHooks("PermissionRequest", bash))).toBeUndefined();
  });

  it("a guard hook of a type Yoke cannot run makes matching calls ask", async () => {
    const g: HookGroupConfig = { event: "PreToolUse", matcher: "Bash", hooks: [], unsupported: [{ type: "prompt" }], source: shared };
    const { runner } = setup([g]);
    const out = await runner.runHooks("PreToolUse", bash);
    expect(out.decision).toBe("ask");
    expect(out.decisionReason).toContain('a PreToolUse hook of type "prompt" in .claude/settings.json cannot run in Yoke');
    expect((await runner.runHooks("PreToolUse", { tool_name: "Edit", tool_input: {} })).decision).toBeUndefined();
  });
});

describe("the payload is what Claude Code sends", () => {
  it("absolute file_path, the hashline edit as old/new text, tool_use_id, and the transcript synced first", async () => {
    let synced = 0;
    const { cwd, runner } = setup([group("PreToolUse", [{ command: "cat > payload.json" }])], {
      transcript: { sync: () => void synced++ },
      readText: async (p) => readFileSync(p, "utf8"),
    });
    writeFileSync(join(cwd, "a.ts"), "one\ntwo\nthree\n");
    const { claudeEditInput } = await import("../../../src/core/hooks/claude-shapes");
    const input = claudeEditInput("a.ts", [{ op: "replace", pos: "2#ZZ", lines: ["TWO", "2b"] }]);
    const out = await runner.runHooks("PreToolUse", { tool_name: "Edit", tool_input: input, tool_use_id: "toolu_1", permission_mode: "default" });
    const payload = JSON.parse(readFileSync(join(cwd, "payload.json"), "utf8"));
    expect(payload).toEqual({
      tool_name: "Edit",
      tool_input: { file_path: join(cwd, "a.ts"), old_string: "two", new_string: "TWO\n2b" },
      tool_use_id: "toolu_1",
      permission_mode: "default",
      session_id: "s-1",
      transcript_path: join(cwd, "t.jsonl"),
      cwd,
      hook_event_name: "PreToolUse",
    });
    expect(out.toolInput).toEqual(payload.tool_input);
    expect(synced).toBe(1);
  });

  it("PostToolUse gets the edit's input as PreToolUse saw it: the old text from before the edit", async () => {
    const { cwd, runner } = setup([group("PostToolUse", [{ command: "jq -c .tool_input > post.json" }])], { readText: async (p) => readFileSync(p, "utf8") });
    writeFileSync(join(cwd, "a.ts"), "one\ntwo\n");
    const { claudeEditInput } = await import("../../../src/core/hooks/claude-shapes");
    const input = claudeEditInput("a.ts", [{ op: "replace", pos: "2#ZZ", lines: ["TWO"] }]);
    await runner.runHooks("PreToolUse", { tool_name: "Edit", tool_input: input, tool_use_id: "t1" });
    writeFileSync(join(cwd, "a.ts"), "one\nTWO\n"); // the tool ran
    await runner.runHooks("PostToolUse", { tool_name: "Edit", tool_input: input, tool_use_id: "t1", tool_response: {} });
    expect(JSON.parse(readFileSync(join(cwd, "post.json"), "utf8"))).toEqual({ file_path: join(cwd, "a.ts"), old_string: "two", new_string: "TWO" });
  });

  it("hooks see the user's environment (outside the command sandbox) and CLAUDE_PROJECT_DIR", async () => {
    const { cwd, runner } = setup([group("SessionStart", [{ command: 'cat "$YOKE_TEST_SECRET_FILE"; echo " $CLAUDE_PROJECT_DIR"' }])]);
    writeFileSync(join(cwd, "home-secret.txt"), "from-home");
    process.env.YOKE_TEST_SECRET_FILE = join(cwd, "home-secret.txt");
    try {
      expect((await runner.runHooks("SessionStart", { source: "startup" })).additionalContext).toEqual([`from-home ${cwd}`]);
    } finally {
      delete process.env.YOKE_TEST_SECRET_FILE;
    }
  });
});

function readdir(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.startsWith("ran-"));
}
