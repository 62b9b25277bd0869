// Session 23 (gitnew23, issue 18): a file a nested repository's configuration names (a linked worktree's
// config.worktree `core.fsmonitor = tools/x.sh`) was a read-only mount point in the sandbox (gitcfg22), and so was
// every folder above it: `git worktree remove wt1` failed with "Device or resource busy" and left wt1 behind with a
// `.git` naming nothing. Now such a file inside a nested working tree is not mounted: it is stamped before the
// command, checked as it changes and when the command ends, and moved to the quarantine if it was written. Full
// sessions of the built CLI against the scripted model (bypassPermissions), root and the unprivileged user × bwrap and
// firejail, one session per cell (4/4 failed on the base build with EBUSY). Outcomes: the worktree is removed; the
// script a planting script wrote is not where git runs it, and the person's own `git status` in the other worktree on
// the host runs nothing the agent wrote.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("under %s", (backend, unusable) => {
    it.skipIf(!!unusable)("git worktree remove works; a planted fsmonitor script of a nested worktree is moved out", async () => {
      const { base, home } = cellFolder(`yoke-gitnew23-${backend}-`, id, temps, { sandbox: { backend } });
      const ws = join(base, "ws");
      const marker = join(base, "fsmonitor-ran");
      committedWorkspace(ws, { "README.md": "r\n" }, id);
      // As the workspace's owner (git refuses a repository another user owns).
      const asOwner = { uid: id.uid, gid: id.gid, env: { PATH: process.env.PATH, HOME: home } };
      const own = "#!/bin/sh\nexit 1\n";
      execFileSync(
        "sh",
        [
          "-c",
          [
            "git config extensions.worktreeConfig true",
            "git worktree add -q wt1",
            "git worktree add -q wt2",
            "git -C wt1 config --worktree core.fsmonitor tools/x.sh",
            "git -C wt2 config --worktree core.fsmonitor tools/x.sh",
            "mkdir -p wt1/tools wt2/tools",
            `printf '${own.replace(/\n/g, "\\n")}' > wt1/tools/x.sh`,
            `printf '${own.replace(/\n/g, "\\n")}' > wt2/tools/x.sh`,
            "chmod +x wt1/tools/x.sh wt2/tools/x.sh",
          ].join(" && "),
        ],
        { cwd: ws, ...asOwner },
      );
      writeFileSync(join(base, "plant"), `#!/bin/sh\necho ran >> ${marker}\nexit 1\n`);
      const r = await sessionAs(id, home, ws, join(base, "sessions"), [
        // Alone on their lines: git's own linked-folder work (confine.gitLinked) is a command of its own.
        bash("git worktree remove --force wt1"),
        // The sandbox's side: a script the gate does not read writes the file (the gate asks for a write it names).
        { toolCalls: [{ name: "write_file", input: { path: "plant.sh", content: `cat ${join(base, "plant")} > wt2/tools/x.sh\necho PLANT-END\n` } }] },
        bash("sh plant.sh"),
        bash("echo made > ok.txt && echo CONTROL-END"),
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.told).toContain("CONTROL-END");
      expect.soft(r.told).not.toContain("Device or resource busy");
      expect.soft(existsSync(join(ws, "wt1")), "wt1 was removed").toBe(false);
      // The planted script is not where git runs it; the person's git status there runs nothing the agent wrote.
      expect.soft(existsSync(join(ws, "wt2/tools/x.sh")) ? readFileSync(join(ws, "wt2/tools/x.sh"), "utf8") : "(moved out)").not.toContain("echo ran");
      execFileSync("git", ["-C", join(ws, "wt2"), "status", "--short"], { uid: id.uid, gid: id.gid, env: { PATH: process.env.PATH, HOME: home }, stdio: "pipe" });
      expect.soft(existsSync(marker), "wt2's fsmonitor ran what the agent wrote").toBe(false);
      expect.soft(r.told).toContain("nested repository's git configuration names it");
      expect(readFileSync(join(ws, "ok.txt"), "utf8")).toBe("made\n");
    });
  });
});
