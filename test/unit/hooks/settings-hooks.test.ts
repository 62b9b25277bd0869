import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { combineWithHooks, createHookRunner } from "../../../src/core/hooks/run-hooks";
import { createNodeHookRunner } from "../../../src/node/hook-exec";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

describe("hooks from settings files", () => {
  it("runs a Claude Code PreToolUse hook from .claude/settings.json and combines it with the gate", async () => {
    const w = createPermissionWorkspace({ permissions: { allow: ["Bash(npm run test:*)"] } });
    mkdirSync(join(w.ws, ".claude/hooks"), { recursive: true });
    writeFileSync(
      join(w.ws, ".claude/hooks/no-watch.sh"),
      `#!/bin/sh\ninput=$(cat)\ncase "$input" in *--watch*) echo "do not use --watch: it never ends" >&2; exit 2;; esac\nexit 0\n`,
      { mode: 0o755 },
    );
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
    await runner.run({ command: "printf %s \"$YOKE_X\" > env.txt", cwd: w.ws, stdin: "", timeoutMs: 5000, env: { YOKE_X: "42" } });
    expect(readFileSync(join(w.ws, "env.txt"), "utf8")).toBe("42");
  });
});
