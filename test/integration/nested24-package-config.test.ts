// Session 24 (nested24, issue 18): a sub-project's own package manager configuration. Real npm 11 reads `web/.npmrc`
// for `npm test` in `web/` (web/package.json makes web npm's project folder), and its `script-shell=./sh.sh` runs
// web/sh.sh. Only the workspace top's configurations were read for the files they name: web/sh.sh stayed writable in
// the sandbox, and a command could make a new `api/.npmrc` that stayed. Now the repository walk notes the folders
// holding one (folder-states.ts): what they name is read-only like what the top's name, and one a command writes
// below the top is moved to the quarantine. Full sessions of the built CLI against the scripted model
// (bypassPermissions), root and the unprivileged user × bwrap and firejail, one session per cell; then the person's
// own `npm test` in web/ and api/ on the host, as that identity, runs nothing the agent wrote.
// In the same session: a linked worktree of a branch with submodules holds `.gitmodules`, a protected name, which was
// a read-only mount point: `git worktree remove --force wt1` failed with "Device or resource busy" and left wt1 behind.
// Now a file with a protected name inside a nested working tree is a stamp guard (checked, moved out if written).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();

const SHELL = '#!/bin/sh\nexec /bin/sh "$@"\n';

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("under %s", (backend, unusable) => {
    it.skipIf(!!unusable)(
      "what a sub-project's .npmrc names stays unchanged, a new one is moved out, the person's npm test runs nothing planted; a worktree holding .gitmodules is removed",
      async () => {
        const { base, home } = cellFolder(`yoke-nested24-${backend}-`, id, temps, { sandbox: { backend } });
        const ws = join(base, "ws");
        const mark = join(base, "ran");
        const pkg = (name: string) => JSON.stringify({ name, version: "1.0.0", scripts: { test: "echo TEST-OK" } });
        committedWorkspace(
          ws,
          {
            ".gitmodules": '[submodule "x"]\n\tpath = x\n\turl = https://example.com/x.git\n',
            "package.json": pkg("root"),
            "web/package.json": pkg("web"),
            "web/.npmrc": "script-shell=./sh.sh\n",
            "web/sh.sh": SHELL,
            "api/package.json": pkg("api"),
          },
          id,
        );
        execFileSync("chmod", ["+x", join(ws, "web/sh.sh")]);
        // As the workspace's owner (git refuses a repository another user owns).
        execFileSync("git", ["worktree", "add", "-q", "wt1", "-b", "b1"], { cwd: ws, uid: id.uid, gid: id.gid, env: { PATH: process.env.PATH, HOME: home }, stdio: "pipe" });
        // What the planting script writes (inline: the cell's folder outside the workspace is not visible in the sandbox).
        const plant = `printf '#!/bin/sh\\ntouch ${mark}\\nexec /bin/sh "$@"\\n'`;
        const r = await sessionAs(id, home, ws, join(base, "sessions"), [
          // The sandbox's side: a script the gate does not read writes the files (the gate asks for a write it names).
          {
            toolCalls: [
              {
                name: "write_file",
                input: {
                  path: "plant.sh",
                  content: `${plant} > web/sh.sh\nprintf 'script-shell=./s.sh\\n' > api/.npmrc\n${plant} > api/s.sh\nchmod +x api/s.sh\necho PLANT-END\n`,
                },
              },
            ],
          },
          bash("sh plant.sh"),
          // Alone on its line: git's own linked-folder work (confine.gitLinked) is a command of its own.
          bash("git worktree remove --force wt1"),
          bash("echo made > web/ok.txt && echo CONTROL-END"),
        ]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.told).toContain("PLANT-END");
        expect(r.told).toContain("CONTROL-END");
        expect.soft(readFileSync(join(ws, "web/sh.sh"), "utf8")).toBe(SHELL);
        expect.soft(existsSync(join(ws, "api/.npmrc")), "api/.npmrc is still there").toBe(false);
        expect.soft(r.told).toContain("package manager configuration of a sub-project");
        expect(readFileSync(join(ws, "web/ok.txt"), "utf8")).toBe("made\n");
        expect.soft(r.told).not.toContain("Device or resource busy");
        expect.soft(existsSync(join(ws, "wt1")), "wt1 was removed").toBe(false);
        // The person's own npm test in both sub-projects, on the host as this identity.
        for (const dir of ["web", "api"]) {
          const out = execFileSync("npm", ["test", "--silent"], { cwd: join(ws, dir), uid: id.uid, gid: id.gid, env: { PATH: process.env.PATH, HOME: home }, encoding: "utf8", stdio: "pipe" });
          expect(out).toContain("TEST-OK");
        }
        expect(existsSync(mark), "npm ran the script-shell the agent wrote").toBe(false);
      },
    );
  });
});
