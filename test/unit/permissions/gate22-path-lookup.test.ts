/**
 * Session 22, gate22 (issue 18): the session PATH lookup (evaluate-bash.ts workspaceProgram) against real bash.
 * A folder, a broken link or a file the user may not execute in a system folder is passed over by bash
 * (findcmd.c), which goes on to a later entry — here a relative one the agent can write. gate21 took such a
 * name as found there. Differential: the same PATH and files, `type -P NAME` in bash as each identity vs the
 * gate's answer (`yoke permissions check`, plan mode, as that identity): the gate must say the name comes
 * from a writable entry exactly when bash's answer is the workspace's file.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { identities, runCliAs, spawnAs, chownTree } from "../../support/identities";

const NAMES = ["nox", "adir", "broken", "ok", "owneronly", "otheronly"];
const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe.each(identities().list.map((w) => [w.label, w] as const))("as %s", (_label, id) => {
  it("says a name comes from the workspace's PATH entry exactly when bash runs the workspace's file", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-gate22-path-")));
    temps.push(base);
    chmodSync(base, 0o755);
    const sys = join(base, "sys");
    mkdirSync(sys);
    writeFileSync(join(sys, "nox"), "#!/bin/sh\n");
    chmodSync(join(sys, "nox"), 0o644);
    mkdirSync(join(sys, "adir"));
    symlinkSync(join(base, "nowhere"), join(sys, "broken"));
    for (const [n, mode] of [
      ["ok", 0o755],
      ["owneronly", 0o744],
      ["otheronly", 0o641],
    ] as const) {
      writeFileSync(join(sys, n), "#!/bin/sh\n");
      chmodSync(join(sys, n), mode);
    }
    const ws = join(base, "ws");
    mkdirSync(join(ws, "tools"), { recursive: true });
    for (const n of NAMES) {
      writeFileSync(join(ws, "tools", n), "#!/bin/sh\necho WS\n");
      chmodSync(join(ws, "tools", n), 0o755);
    }
    spawnSync("git", ["init", "-q", ws]);
    chownTree(ws, id);
    const PATH = `${sys}:tools:/usr/bin:/bin`;
    const disagree: string[] = [];
    let workspaceSide = 0;
    for (const n of NAMES) {
      const b = spawnSync("/bin/bash", ["-c", `type -P ${n}`], { cwd: ws, encoding: "utf8", ...spawnAs(id, { PATH }) });
      const bashSays = b.stdout.trim().startsWith("tools/");
      if (bashSays) workspaceSide++;
      const r = await runCliAs(id, ["permissions", "check", "--tool", "Bash", "--input", JSON.stringify({ command: `${n} README.md` }), "--cwd", ws, "--mode", "plan", "--json"], {
        env: { PATH: `${PATH}:${process.env.PATH}` },
      });
      const gateSays = r.stdout.includes("is looked up on the command path");
      if (bashSays !== gateSays) disagree.push(`${n}: bash ${b.stdout.trim() || b.stderr.trim()}, gate ${r.stdout.slice(0, 300)} ${r.stderr.slice(0, 300)}`);
    }
    expect(disagree).toEqual([]);
    // The folder, the broken link and the file no one may execute are passed over by bash for every identity.
    expect(workspaceSide).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
