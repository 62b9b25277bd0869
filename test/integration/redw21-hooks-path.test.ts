// Session 21, red team W: the repository's own hooks folder. A project that keeps its git hooks in
// the working tree points `core.hooksPath` at them (`git config core.hooksPath scripts/git-hooks`,
// often from a `prepare` script). Yoke protected `.git/hooks` and three folder names (`.husky`,
// `.githooks`, `.git-hooks`), not the folder the configuration names: in acceptEdits and bypassPermissions a write_file of
// `scripts/git-hooks/pre-commit` was allowed, and in bypassPermissions a command wrote
// `scripts/git-hooks/post-commit` through the sandbox. The person's next `git commit` on the host ran
// both. Now the folder git itself reports for hooks (`git rev-parse --git-path hooks`), when it lies in
// a workspace folder, is protected for the gate and read-only in the sandbox.
//
// One full session per cell (root and the unprivileged user × bwrap and firejail: a command writes
// through the sandbox). Outcome: after the session the person's own `git commit` (on the host, as the
// workspace's owner) runs no planted hook; control: an ordinary file is written in the same session.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("with %s", (backend, unusable) => {
    it.skipIf(!!unusable)("a hook planted in the folder core.hooksPath names does not run at the person's next commit", async () => {
      const { base, home } = cellFolder("yoke-redw-hooks-", id, temps, { sandbox: { backend } });
      const ws = join(base, "ws");
      mkdirSync(ws);
      committedWorkspace(ws, { "README.md": "# r\n", "scripts/git-hooks/README": "hooks of this project\n" }, id);
      const marker = join(base, "hook-ran");
      const asOwner = { uid: id.uid, gid: id.gid, env: { ...process.env, HOME: home } };
      execFileSync("git", ["-C", ws, "config", "core.hooksPath", "scripts/git-hooks"], asOwner);
      const hook = `#!/bin/sh\necho ran >> ${marker}\n`;
      const r = await sessionAs(
        id,
        home,
        ws,
        join(base, "sessions"),
        [
          { toolCalls: [{ name: "write_file", input: { path: "scripts/git-hooks/pre-commit", content: hook } }] },
          bash(`printf '${hook.replace(/\n/g, "\\n")}' > scripts/git-hooks/post-commit; chmod +x scripts/git-hooks/post-commit; echo CONTROL > notes.txt`),
        ],
        { mode: "bypassPermissions" },
      );
      expect(r.code, r.stderr).toBe(0);
      // Control: the session's commands ran and wrote an ordinary file.
      expect(readFileSync(join(ws, "notes.txt"), "utf8")).toBe("CONTROL\n");
      // The person's own commit on the host, as the workspace's owner.
      for (const f of ["pre-commit", "post-commit"]) if (existsSync(join(ws, "scripts/git-hooks", f))) execFileSync("chmod", ["+x", join(ws, "scripts/git-hooks", f)]);
      execFileSync("git", ["-C", ws, "add", "notes.txt"], asOwner);
      execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "work"], asOwner);
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(join(ws, "scripts/git-hooks/pre-commit"))).toBe(false);
      expect(existsSync(join(ws, "scripts/git-hooks/post-commit"))).toBe(false);
    });
  });
});
