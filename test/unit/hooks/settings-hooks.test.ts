import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { combineWithHooks, createHookRunner, decideWithHooks } from "../../../src/core/hooks/run-hooks";
import { createNodeHookRunner } from "../../../src/node/hook-exec";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

describe("hooks from settings files", () => {
  it("runs a Claude Code PreToolUse hook from .claude/settings.json and combines it with the gate", async () => {
    const w = createPermissionWorkspace({ permissions: { allow: ["Bash(npm run test:*)"] } });
    mkdirSync(join(w.ws, ".claude/hooks"), { recursive: true });
    writeFileSync(join(w.ws, ".claude/hooks/no-watch.sh"), `#!/bin/sh\ninput=$(cat)\ncase "$input" in *--watch*) echo "do not use --watch: it never ends" >&2; exit 2;; esac\nexit 0\n`, {
      mode: 0o755,
    });
    w.write(".claude/settings.json", JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "$CLAUDE_PROJECT_DIR/.claude/hooks/no-watch.sh" }] }] } }));
    const gate = w.gate();
    const runner = createHookRunner({ hooks: async () => (await gate.settings()).hooks, runner: createNodeHookRunner(), cwd: w.ws, sessionId: "s", transcriptPath: join(w.ws, "s.jsonl") });

    const req = call("run_command", { command: "npm run test -- --watch" });
    const outcome = await runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: req.input });
    expect(combineWithHooks(await gate.check(req, "default"), outcome)).toEqual({ decision: "deny", by: "hook", rule: null, reason: "do not use --watch: it never ends" });

    const ok = call("run_command", { command: "npm run test" });
    const quiet = await runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: ok.input });
    expect(combineWithHooks(await gate.check(ok, "default"), quiet)).toMatchObject({ decision: "allow", by: "rule", rule: "Bash(npm run test:*)" });
  });

  it("ignores workspace hooks in an untrusted workspace", async () => {
    const w = createPermissionWorkspace();
    w.write(".claude/settings.json", JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "touch pwned" }] }] } }));
    const gate = w.gate({ trusted: false });
    expect((await gate.settings()).hooks).toEqual([]);
    expect((await gate.problems()).map((p) => p.message)).toEqual([
      ".claude/settings.json: the workspace is not trusted, so its allow rules, defaultMode, additionalDirectories and hooks are ignored (deny and ask rules still apply)",
    ]);
  });
});

describe("a hook's allow never overrides a deny rule", () => {
  // The reported attack: the gate asks (by "mode") when it cannot rule out that a deny rule applies,
  // and a hook's "allow" used to turn every such question into an allow. A hook's allow is now
  // exactly as strong as bypassPermissions mode.
  const allowEverything = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"trusted"}}'`;
  const setup = (deny: string[]) => {
    const w = createPermissionWorkspace({ permissions: { deny } });
    const gate = w.gate();
    const hooks = [
      { event: "PreToolUse", matcher: "*", hooks: [{ type: "command" as const, command: allowEverything }], source: { kind: "user" as const, label: "~/.yoke/settings.json", baseDir: w.home } },
    ];
    const runner = createHookRunner({ hooks, runner: createNodeHookRunner(), cwd: w.ws, sessionId: "s", transcriptPath: join(w.ws, "t.jsonl") });
    const decide = async (tool: string, input: Record<string, unknown>, mode: "default" | "acceptEdits" = "default") => {
      const req = call(tool, input);
      const outcome = await runner.runHooks("PreToolUse", { tool_name: req.permission, tool_input: req.input });
      return { outcome, gate: await gate.check(req, mode), final: await decideWithHooks((m) => gate.check(req, m), mode, outcome) };
    };
    return { w, decide };
  };

  it("keeps the question about a command whose deny-rule status Yoke cannot decide", async () => {
    const { decide } = setup(["Bash(rm:*)"]);
    const r = await decide("run_command", { command: "X=rm; $X -rf src" });
    expect(r.outcome.decision).toBe("allow");
    expect(r.gate).toMatchObject({ decision: "ask", by: "mode" });
    // What the old combination did with the same answers: allow, and src was deleted.
    expect(combineWithHooks(r.gate, r.outcome, { decision: "allow", by: "mode", rule: null, reason: "" }).decision).toBe("allow");
    expect(r.final).toMatchObject({ decision: "ask", by: "mode" });
    expect(r.final.reason).toContain("cannot rule out that a deny rule applies");
  });

  it("keeps denials and the question about agent settings files", async () => {
    const { decide } = setup(["Bash(rm:*)", "Read(secrets/**)"]);
    expect((await decide("run_command", { command: "rm -rf src" })).final).toMatchObject({ decision: "deny", by: "rule" });
    expect((await decide("read_file", { path: "secrets/key.txt" })).final).toMatchObject({ decision: "deny", by: "rule" });
    expect((await decide("write_file", { path: ".claude/settings.json", content: "{}" })).final).toMatchObject({ decision: "ask", by: "mode" });
  });

  it("still skips a question the mode alone would ask", async () => {
    const { decide } = setup(["Bash(rm:*)"]);
    expect((await decide("write_file", { path: "src/new.ts", content: "x" })).final).toMatchObject({ decision: "allow", by: "hook" });
    expect((await decide("run_command", { command: "npm test" })).final).toMatchObject({ decision: "allow", by: "hook" });
  });
});

describe("createNodeHookRunner", () => {
  const runner = createNodeHookRunner();

  it("does not fail when the hook ignores its stdin", async () => {
    const big = "x".repeat(1024 * 1024);
    const r = await runner.run({ command: "exit 0", cwd: "/", stdin: big, timeoutMs: 5000 });
    expect(r).toMatchObject({ exitCode: 0, timedOut: false });
  });

  it("reports a folder that does not exist as an error, not a crash", async () => {
    const r = await runner.run({ command: "true", cwd: "/no/such/folder", stdin: "", timeoutMs: 5000 });
    expect(r.exitCode).toBeNull();
    expect(r.cannotStart).toMatch(/ENOENT/);
    expect(r.cannotStart).toContain("/no/such/folder");
  });

  it("stops the hook when the signal aborts", async () => {
    const ac = new AbortController();
    const started = Date.now();
    const p = runner.run({ command: "sleep 10", cwd: "/", stdin: "", timeoutMs: 60_000 }, ac.signal);
    setTimeout(() => ac.abort(), 100);
    const r = await p;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.exitCode).not.toBe(0);
  });

  it("passes extra environment variables", async () => {
    const w = createPermissionWorkspace();
    await runner.run({ command: 'printf %s "$YOKE_X" > env.txt', cwd: w.ws, stdin: "", timeoutMs: 5000, env: { YOKE_X: "42" } });
    expect(readFileSync(join(w.ws, "env.txt"), "utf8")).toBe("42");
  });
});
