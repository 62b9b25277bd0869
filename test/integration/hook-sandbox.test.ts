/**
 * A confined hook keeps the hook protocol of a host hook (issue 18): the payload on stdin, stdout and
 * stderr apart, the exit status as the hook gave it, and a timeout that stops everything the hook
 * started — through the real bwrap and firejail backends (src/node/hook-sandbox.ts + hook-exec.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createNodeHookRunner } from "../../src/node/hook-exec";
import { createHookSandbox } from "../../src/node/hook-sandbox";
import { sandboxBackends } from "../support/sandbox-matrix";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe.each(sandboxBackends())("a confined hook (%s)", (backend, unusable) => {
  const setup = () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-hooksb-"));
    temps.push(base);
    const ws = join(base, "ws");
    const home = join(base, "home");
    mkdirSync(join(ws, ".git"), { recursive: true });
    mkdirSync(join(home, ".claude", "hooks"), { recursive: true });
    writeFileSync(join(home, "secret.txt"), "s3cret\n");
    writeFileSync(join(home, ".claude", "hooks", "echo.sh"), 'read -r line; echo "{\\"systemMessage\\": \\"got $line\\"}"; echo "to stderr" >&2; exit 3\n');
    const sandbox = createHookSandbox({ workspace: ws, settings: { backend }, quarantineDir: join(base, "q"), home });
    return { base, ws, home, runner: createNodeHookRunner({ sandbox }) };
  };

  it.skipIf(unusable)("gets its stdin, keeps stdout and stderr apart, gives its exit status; finds its script in the hidden home, not the home's other files", async () => {
    const { ws, home, runner } = setup();
    const r = await runner.run({ command: `bash ${home}/.claude/hooks/echo.sh`, cwd: ws, stdin: "hello\n", sandbox: true, timeoutMs: 60_000, fromUser: true });
    expect(r.ranIn).toBe(backend);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('{"systemMessage": "got hello"}\n');
    expect(r.stderr.split("\n")[0]).toBe("to stderr");
    // The failure says where it ran and how to opt out.
    expect(r.confinement).toContain(`it ran confined, in the ${backend} sandbox`);
    // Only what the command line names is kept readable (here ~/.claude/hooks, by name).
    const secret = await runner.run({
      command: `cat "$(printf %s ${home})/secret.txt"; ls ${home}/.claude/hooks; echo "[$YOKE_SANDBOX]"`,
      cwd: ws,
      stdin: "",
      sandbox: true,
      timeoutMs: 60_000,
      fromUser: true,
    });
    expect(secret.stdout).not.toContain("s3cret");
    expect(secret.stdout).toContain(`[${backend}]`);
    // A path the command computes is not seen (nor kept readable); the folder of a named script is.
    expect(secret.stdout).toContain("echo.sh\n");
    // A hook not of the user's own settings (a repository's, red team round 13) names home files in
    // vain: neither a file it names nor the user's hook folder is kept readable for it.
    const repo = await runner.run({ command: `cat ${home}/secret.txt; ls ${home}/.claude/hooks; echo "[$YOKE_SANDBOX]"`, cwd: ws, stdin: "", sandbox: true, timeoutMs: 60_000 });
    expect(repo.stdout).toContain(`[${backend}]`);
    expect(repo.stdout).not.toContain("s3cret");
    expect(repo.stdout).not.toContain("echo.sh");
  });

  it.skipIf(unusable)("writes the workspace but not its protected paths, and a timeout stops all of it", async () => {
    const { ws, runner } = setup();
    const w = await runner.run({ command: "echo ok > out.txt; echo x > .git/config; echo $?", cwd: ws, stdin: "", sandbox: true, timeoutMs: 60_000 });
    expect(readFileSync(join(ws, "out.txt"), "utf8")).toBe("ok\n");
    expect(existsSync(join(ws, ".git", "config"))).toBe(false);
    const started = Date.now();
    const t = await runner.run({ command: "(sleep 4; touch late.txt) & sleep 30", cwd: ws, stdin: "", sandbox: true, timeoutMs: 1000 });
    expect(t.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(15_000);
    await new Promise((res) => setTimeout(res, 5000));
    expect(existsSync(join(ws, "late.txt"))).toBe(false);
    expect(w.exitCode).toBe(0);
  });
});
