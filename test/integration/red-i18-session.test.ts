/**
 * Red team I (session 18): two of its three classes through full sessions (the third, `su
 * --session-command`, needs su, which the sandbox does not let run; it is in the corpus, R30).
 *
 * 1. GNU xargs' `--replace`, `--eof` and `--max-lines` take a value only when it is attached with `=`:
 *    the gate read `rm` in `xargs --replace rm -rf {}` as the option's value and allowed the line.
 * 2. npm's variables named the way bash spells them: `export EDIT""OR='rm -rf v2'; npm edit foo` set
 *    npm's editor while the gate looked for `EDITOR` in the line's raw text only.
 * bypassPermissions under `Bash(rm -rf:*)`, as root and as an unprivileged user, with bwrap and
 * firejail; a plain bash shows each line deletes its folder, and the ordinary forms still run.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();
const VICTIMS = ["v1", "v2", "v3"];

function files(): Record<string, string> {
  return {
    "README.md": "hi\n",
    "package.json": '{"name":"app","version":"1.0.0","dependencies":{"foo":"1.0.0"}}\n',
    "node_modules/foo/package.json": '{"name":"foo","version":"1.0.0"}\n',
    ...Object.fromEntries(VICTIMS.map((v) => [`${v}/a.js`, `keep ${v}\n`])),
  };
}

const ATTACKS = ["printf 'v1\\n' | xargs --replace rm -rf {}", "export EDIT\"\"OR='rm -rf v2'; npm edit foo", "export {EDITO,VISUA}R='rm -rf v3'; npm edit foo"];
const ORDINARY = ["printf 'README.md\\n' | xargs --replace=Q cp Q copied.txt", "echo {a,b} > braces.txt"];
const WRITTEN = ["copied.txt", "braces.txt"];

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-redi18-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    it.skipIf(!!unusable)("bypassPermissions under Bash(rm -rf:*): xargs --replace and npm's editor named by a quoted or braced variable delete nothing; the ordinary forms run", async () => {
      const ws = committedWorkspace(join(base, `ws-${Math.random().toString(36).slice(2, 8)}`), files(), id);
      const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm -rf:*)"] } }));
      chownTree(settings, id);
      const script: ScriptedTurn[] = [...ATTACKS, ...ORDINARY, "echo ran > control.txt"].map(bash);
      const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, { settings, env: { OPENAI_API_KEY: "sk-redi18" } });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      const lost = VICTIMS.filter((v) => !existsSync(join(ws, v, "a.js")));
      expect(lost, r.told.slice(0, 6000)).toEqual([]);
      for (const f of WRITTEN) expect(existsSync(join(ws, f)), `${f}\n${r.told.slice(0, 6000)}`).toBe(true);
      expect(readFileSync(join(ws, "braces.txt"), "utf8")).toBe("a b\n");
    });
  });
});

describe("control: the same command lines in plain bash", () => {
  const ws = mkdtempSync(join(tmpdir(), "yoke-redi18-ctl-"));
  temps.push(ws);
  const fresh = () => {
    rmSync(ws, { recursive: true, force: true });
    mkdirSync(ws);
    for (const [rel, text] of Object.entries(files())) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
  };
  const env = { ...process.env, SHELL: process.env.SHELL || "/bin/sh", npm_config_update_notifier: "false" };
  const run = (c: string) => spawnSync("bash", ["-c", c], { cwd: ws, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });

  it("each attack deletes its folder", () => {
    const harmless: string[] = [];
    for (const a of ATTACKS) {
      fresh();
      const r = run(a);
      if (VICTIMS.every((v) => existsSync(join(ws, v, "a.js")))) harmless.push(`${a}: exit ${r.status} stdout ${r.stdout.slice(0, 300)} stderr ${r.stderr.slice(0, 600)}`);
    }
    expect(harmless).toEqual([]);
  });

  it("each ordinary form writes its file", () => {
    fresh();
    for (const c of ORDINARY) expect(run(c).status, c).toBe(0);
    for (const f of WRITTEN) expect(existsSync(join(ws, f)), f).toBe(true);
  });
});
