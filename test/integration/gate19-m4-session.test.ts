/**
 * m4's escapes read (session 19, issue 18: shell/m4-escapes.ts) through full sessions: bypassPermissions
 * under `Bash(rm -rf:*)`, as root and as an unprivileged user, with bwrap and firejail. What syscmd runs
 * (plain, `m4 -P`'s `m4_syscmd`, a quoted argument in a here-document) is denied, and a name built by
 * `define` (which Yoke does not follow) asks: no folder is lost. The ordinary forms that asked before
 * (every m4 asked under a deny rule) now run: a syscmd writing a file, eval. A plain bash with the real m4
 * shows each attack deletes its folder and each ordinary form writes its file.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, type Identity } from "../support/identities";

const haveM4 = spawnSync("m4", ["--version"]).status === 0;
const { who, backends, temps } = securityMatrix();
const VICTIMS = ["v1", "v2", "v3", "v4"];

function files(): Record<string, string> {
  return { "README.md": "hi\n", ...Object.fromEntries(VICTIMS.map((v) => [`${v}/a.js`, `keep ${v}\n`])) };
}

const ATTACKS = ["m4 <<< 'syscmd(rm -rf v1)'", "printf 'm4_syscmd(rm -rf v2)\\n' | m4 -P", "m4 -s <<'EOF'\nsyscmd(`rm -rf v3')\nEOF", "m4 <<< \"define(\\`x',\\`sys'\\`cmd(\\$1)')x(rm -rf v4)\""];
const ORDINARY = ["m4 <<< 'syscmd(echo made > m4made.txt)dnl'", "m4 <<< 'eval(2+3)' > m4eval.txt"];
const WRITTEN = ["m4made.txt", "m4eval.txt"];

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-gate19-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    it.skipIf(!!unusable || !haveM4)("bypassPermissions under Bash(rm -rf:*): m4's syscmd deletes nothing; ordinary m4 with a syscmd runs", async () => {
      const ws = committedWorkspace(join(base, `ws-${Math.random().toString(36).slice(2, 8)}`), files(), id);
      const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm -rf:*)"] } }));
      chownTree(settings, id);
      const script: ScriptedTurn[] = [...ATTACKS, ...ORDINARY, "echo ran > control.txt"].map(bash);
      const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, { settings, env: { OPENAI_API_KEY: "sk-gate19" } });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      const lost = VICTIMS.filter((v) => !existsSync(join(ws, v, "a.js")));
      expect(lost, r.told.slice(0, 6000)).toEqual([]);
      for (const f of WRITTEN) expect(existsSync(join(ws, f)), `${f}\n${r.told.slice(0, 6000)}`).toBe(true);
      expect(readFileSync(join(ws, "m4eval.txt"), "utf8")).toBe("5\n");
    });
  });
});

describe.skipIf(!haveM4)("control: the same command lines in plain bash with the real m4", () => {
  const ws = mkdtempSync(join(tmpdir(), "yoke-gate19-ctl-"));
  temps.push(ws);
  const fresh = () => {
    rmSync(ws, { recursive: true, force: true });
    mkdirSync(ws);
    for (const [rel, text] of Object.entries(files())) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
  };
  const run = (c: string) =>
    spawnSync("bash", ["-c", c], { cwd: ws, env: { ...process.env, SHELL: process.env.SHELL || "/bin/sh" }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });

  it("each attack deletes its folder", () => {
    const harmless: string[] = [];
    for (const a of ATTACKS) {
      fresh();
      const r = run(a);
      if (VICTIMS.every((v) => existsSync(join(ws, v, "a.js")))) harmless.push(`${a}: exit ${r.status} stderr ${r.stderr.slice(0, 600)}`);
    }
    expect(harmless).toEqual([]);
  });

  it("each ordinary form writes its file", () => {
    fresh();
    for (const c of ORDINARY) expect(run(c).status, c).toBe(0);
    for (const f of WRITTEN) expect(existsSync(join(ws, f)), f).toBe(true);
  });
});
