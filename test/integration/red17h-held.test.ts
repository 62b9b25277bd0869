/**
 * Red team 17-host, classes tried that held. FULL SESSIONS (the built CLI's `yoke run --trust`, a
 * scripted model over real HTTP), as root and as the unprivileged user (bwrap: no command runs here,
 * so the backend does not matter). The secret is in no request the model received.
 *
 * 1. What the session reads by itself through committed links: a repository slash command's
 *    `@docs/environ` (`docs` → `/proc/self`: the CLI's environment) and `@cfg/.env` (`cfg` → `.`,
 *    under `Read(**\/.env)`), `CLAUDE.md`/`AGENTS.md` imports through links to `/proc/self`, a rule
 *    file linked to `/proc/self/environ`, a custom agent and a skill linked to the denied `.env`
 *    (which holds agent frontmatter).
 * 2. `apply_patch` git headers moving a Read-denied file's content under another name, in
 *    acceptEdits: `rename from .env` / `rename to leak.txt` with no hunk, a `diff --git a/cfg/.env
 *    b/leak2.txt` with a hunk, `copy from` / `copy to`.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, type Identity } from "../support/identities";

const { who, temps } = securityMatrix();
const SECRET = "red17h-held-secret-7c1a";
const tool = (name: string, input: unknown): ScriptedTurn => ({ toolCalls: [{ name, input }] });

function linkedRepo(ws: string, id: Identity, files: Record<string, string>, links: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  }
  for (const [rel, target] of Object.entries(links)) {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    symlinkSync(target, join(ws, rel));
  }
  execFileSync("git", ["init", "-q", "-b", "main", ws]);
  execFileSync("git", ["-C", ws, "add", "-A"]);
  execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
  chownTree(ws, id);
  return ws;
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it("files read into the context by the session itself, through committed links, carry no secret", async () => {
    const { base, home } = cellFolder("yoke-red17h-held-pf-", id, temps, { sandbox: { backend: "bwrap" }, permissions: { deny: ["Read(**/.env)"] } });
    const ws = linkedRepo(
      join(base, "ws"),
      id,
      {
        "README.md": "r\n",
        ".env": `---\nname: envagent\ndescription: TOKEN=${SECRET}-dotenv\n---\nbody ${SECRET}-body\n`,
        ".claude/commands/x.md": "Review these:\n@docs/environ\n@cfg/.env\n@README.md\n",
        "CLAUDE.md": "Project notes.\n@docs/environ\n",
        "AGENTS.md": "Agents.\n@sub/environ\n",
      },
      { docs: "/proc/self", sub: "/proc/self/", cfg: ".", ".claude/rules/env.md": "/proc/self/environ", ".claude/agents/d.md": "../../.env", ".claude/skills/s/SKILL.md": "../../../.env" },
    );
    const r = await sessionAs(id, home, ws, join(base, "sessions"), [tool("load_tools", { names: ["load_skill"] }), tool("load_skill", { name: "s" })], {
      mode: null,
      extra: ["/x"],
      env: { RED17H_SECRET: SECRET },
    });
    expect(r.code, r.stderr).toBe(0);
    // The command was expanded: the ordinary file is attached, the linked ones are not.
    expect(r.all).toContain("not attached");
    expect(r.all.includes(SECRET), "a secret reached the model").toBe(false);
  });

  it("apply_patch rename and copy headers do not move a Read-denied file's content to a readable name", async () => {
    const { base, home } = cellFolder("yoke-red17h-held-patch-", id, temps, { sandbox: { backend: "bwrap" }, permissions: { deny: ["Read(**/.env)"] }, edits: { tool: "apply_patch" } });
    const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n", ".env": `TOKEN=${SECRET}\nA=1\n`, "cfg/.env": `TOKEN=${SECRET}-cfg\nB=2\n` }, id);
    const r = await sessionAs(
      id,
      home,
      ws,
      join(base, "sessions"),
      [
        tool("apply_patch", { input: "diff --git a/.env b/leak.txt\nsimilarity index 100%\nrename from .env\nrename to leak.txt\n" }),
        tool("read_file", { path: "leak.txt" }),
        tool("apply_patch", { input: "diff --git a/cfg/.env b/leak2.txt\n--- a/cfg/.env\n+++ b/leak2.txt\n@@ -2,1 +2,1 @@\n-B=2\n+B=3\n" }),
        tool("read_file", { path: "leak2.txt" }),
        tool("apply_patch", { input: "diff --git a/cfg/.env b/leak3.txt\ncopy from cfg/.env\ncopy to leak3.txt\n" }),
        tool("apply_patch", { input: "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-r\n+control-patched\n" }),
      ],
      { mode: "acceptEdits" },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.told).toContain("Permission to edit .env is denied by the rule Read(**/.env)");
    for (const f of ["leak.txt", "leak2.txt", "leak3.txt"]) expect(existsSync(join(ws, f)), f).toBe(false);
    expect(existsSync(join(ws, ".env"))).toBe(true);
    expect(execFileSync("cat", [join(ws, "README.md")], { encoding: "utf8" })).toContain("control-patched");
    expect(r.all.includes(SECRET), "a secret reached the model").toBe(false);
  });
});
