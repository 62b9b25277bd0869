/**
 * Issue 18, the new-repository window: a repository a command creates was protected only by a walk
 * at least 1 s apart (and when the command ends), and by nothing but that walk in the next
 * command. Through FULL SESSIONS (`yoke run --trust`, scripted model), as root and as the
 * unprivileged user, with bwrap and firejail:
 * - same command: `git init` then a hook and `core.fsmonitor` written at once, the command still
 *   running: the host sees the hook for well under the walk's 1 s (repository-watch.ts checks the
 *   repository as its .git appears and changes), and it ends in quarantine;
 * - next command: the repository an earlier command created gets the `.git` allow-list mounts
 *   (read-only mounts of its config, hooks and info where the sandbox's plan has them) and the
 *   watch on its git folder from the start (repository-watch.ts): a hook, a configuration and a
 *   planted commondir do not survive (the host sees the hook for well under 1 s if at all), a
 *   commit there still works, and the user's own git there runs nothing.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();

const HOOK = "printf '#!/bin/sh\\ntouch \"$HOME/../hook-ran\"\\n'";

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    const cell = () => cellFolder(`yoke-i18nr-${backend}-`, id, temps, { sandbox: { backend } });
    const run = (base: string, home: string, ws: string, commands: string[]) =>
      sessionAs(id, home, ws, join(base, `s-${Math.random().toString(36).slice(2, 8)}`), commands.map(bash), { env: { OPENAI_API_KEY: "sk-i18nr" } });

    it.skipIf(!!unusable)("same command: a hook and core.fsmonitor written right after git init are quarantined within a fraction of the walk's 1 s", async () => {
      const { base, home } = cell();
      // A script file: the gate cannot see what it writes (the sandbox is what must hold).
      const plant = `git init -q nr && ${HOOK} > nr/.git/hooks/pre-commit && chmod +x nr/.git/hooks/pre-commit && git -C nr config core.fsmonitor 'touch ../fsmonitor-ran'; sleep 4; echo done > after.txt\n`;
      const ws = committedWorkspace(join(base, "ws"), { "a.txt": "a\n", "same.sh": plant }, id);
      const hook = join(ws, "nr/.git/hooks/pre-commit");
      const seen: number[] = [];
      // Gone again while the command still ran (after.txt comes 4 s after the plant).
      let goneWhileRunning = false;
      const poll = setInterval(() => {
        if (existsSync(hook)) seen.push(Date.now());
        else if (seen.length && !existsSync(join(ws, "after.txt"))) goneWhileRunning = true;
      }, 20);
      const r = await run(base, home, ws, ["bash same.sh"]);
      clearInterval(poll);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "after.txt"), "utf8")).toBe("done\n");
      expect(existsSync(join(ws, "nr/.git")), r.told.slice(0, 3000)).toBe(false);
      expect(r.told).toMatch(/nr\/\.git[\s\S]*quarantine|quarantine[\s\S]*nr\/\.git/);
      // Taken out while the command still ran (it sleeps 4 s after the plant), not when it ended (never
      // seen at all: taken out between two polls). How soon (the watch: milliseconds; the walk alone:
      // about a second) is a speed figure, not asserted: repository-watch.test.ts shows the event path.
      expect(seen.length === 0 || goneWhileRunning, `seen ${seen.length} times`).toBe(true);
      // The user's git there afterwards runs nothing (the folder is plain now).
      spawnSync("git", ["-C", join(ws, "nr"), "status"], { stdio: "ignore" });
      expect(existsSync(join(ws, "fsmonitor-ran"))).toBe(false);
    });

    it.skipIf(!!unusable)("next command: the repository an earlier command made cannot keep a hook, configuration or commondir; a commit there still works", async () => {
      const { base, home } = cell();
      const first = "git init -q nr && git -C nr -c user.name=t -c user.email=t@t commit -q --allow-empty -m first && echo made > made.txt";
      const second = [
        `${HOOK} > nr/.git/hooks/pre-commit; chmod +x nr/.git/hooks/pre-commit; echo "hook $?" >> tried.txt`,
        "git -C nr config core.fsmonitor 'touch ../fsmonitor-ran'; echo \"config $?\" >> tried.txt",
        "printf '[core]\\n\\tfsmonitor = touch ../fsmonitor-ran\\n' >> nr/.git/config; echo \"append $?\" >> tried.txt",
        'echo ../../elsewhere > nr/.git/commondir; echo "commondir $?" >> tried.txt',
      ];
      // Ordinary work there afterwards (a separate command: a commit racing the plants above could land in the planted commondir's folder).
      const third = "git -C nr -c user.name=t -c user.email=t@t commit -q --allow-empty -m second && echo committed >> tried.txt";
      // A script file: the gate cannot see what it writes.
      const ws = committedWorkspace(join(base, "ws"), { "a.txt": "a\n", "next.sh": `${second.join("; ")}; sleep 2; echo end > next-ended.txt\n` }, id);
      const configNow = () => (existsSync(join(ws, "nr/.git/config")) ? readFileSync(join(ws, "nr/.git/config"), "utf8") : "");
      const hook = join(ws, "nr/.git/hooks/pre-commit");
      const seen: number[] = [];
      let goneWhileRunning = false;
      const poll = setInterval(() => {
        if (existsSync(hook)) seen.push(Date.now());
        else if (seen.length && !existsSync(join(ws, "next-ended.txt"))) goneWhileRunning = true;
      }, 20);
      const r = await run(base, home, ws, [first, "bash next.sh", third]);
      clearInterval(poll);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "made.txt"), "utf8")).toBe("made\n");
      const tried = readFileSync(join(ws, "tried.txt"), "utf8");
      // Each plant either fails (a read-only mount) or is taken out as it lands (the watch); the later commit runs.
      expect(tried, r.told.slice(0, 3000)).toMatch(/committed/);
      // Taken out while the planting command still ran (it sleeps 2 s after the plants), not left for the next.
      expect(seen.length === 0 || goneWhileRunning, `hook seen ${seen.length} times`).toBe(true);
      expect(existsSync(join(ws, "nr/.git/hooks/pre-commit"))).toBe(false);
      expect(existsSync(join(ws, "nr/.git/commondir"))).toBe(false);
      expect(configNow()).not.toMatch(/fsmonitor/);
      expect(execFileSync("git", ["-C", join(ws, "nr"), "-c", "safe.directory=*", "rev-list", "--count", "HEAD"], { encoding: "utf8" }).trim()).toBe("2");
      // The user's own git there (a commit runs the pre-commit hook, status the fsmonitor) runs nothing.
      writeFileSync(join(ws, "nr/f"), "f\n");
      chownTree(join(ws, "nr"), id);
      spawnSync("git", ["-C", join(ws, "nr"), "-c", "safe.directory=*", "status"], { stdio: "ignore" });
      expect(existsSync(join(ws, "fsmonitor-ran"))).toBe(false);
      expect(existsSync(join(base, "hook-ran"))).toBe(false);
    });
  });
});
