/** A read-only command's git: diff.external is overridden only where a configuration file sets it (git-env.ts, git-external-diff.ts). */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { readOnlyGitEnv } from "../../../src/core/commands/git-env";
import { externalDiffConfigured } from "../../../src/node/commands/git-external-diff";

it("git diff with a change works under the read-only environment where nothing sets diff.external, and refuses a configured one", () => {
  const dir = mkdtempSync(join(tmpdir(), "yoke-extdiff-"));
  const home = join(dir, "home");
  try {
    execFileSync("mkdir", ["-p", home]);
    const ws = join(dir, "ws");
    execFileSync("git", ["init", "-q", ws]);
    writeFileSync(join(ws, "a"), "a\n");
    execFileSync("git", ["-C", ws, "add", "a"]);
    execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "i"]);
    writeFileSync(join(ws, "a"), "a\nb\n");
    const base = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
    const diff = (env: Record<string, string>) => spawnSync("git", ["diff"], { cwd: ws, env: { ...base, ...env }, encoding: "utf8" });

    expect(externalDiffConfigured(ws, base)).toBe(false);
    const plain = diff(readOnlyGitEnv(base, { externalDiff: false }));
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain("+b");
    // The override itself makes every diff with a change fail: why it is there only when needed.
    expect(diff(readOnlyGitEnv(base)).status).toBe(128);

    const evil = join(dir, "evil.sh");
    writeFileSync(evil, "#!/bin/sh\necho EVIL-RAN\n", { mode: 0o755 });
    execFileSync("git", ["-C", ws, "config", "diff.external", evil]);
    // Remembered for a few seconds per folder: a new folder name sees the change at once.
    const ws2 = `${ws}/.`;
    expect(externalDiffConfigured(ws2, base)).toBe(true);
    const refused = diff(readOnlyGitEnv(base, { externalDiff: true }));
    expect(refused.stdout + refused.stderr).not.toContain("EVIL-RAN");
    expect(refused.stderr).toContain("external diff programs (diff.external) are disabled for read-only commands");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("when git cannot tell (it cannot start there), the override stays", () => {
  // Yoke's own git is found from its own safe PATH (host-programs.ts), not the command's: a folder git cannot start in stands for "cannot tell".
  expect(externalDiffConfigured(join(tmpdir(), "yoke-no-such-folder-for-git"), { PATH: "/nonexistent" })).toBe(true);
});
