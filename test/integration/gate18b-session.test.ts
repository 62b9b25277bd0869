/**
 * gate18b (session 18) — through FULL SESSIONS (the built CLI's `yoke run --trust`, a scripted model over
 * real HTTP), as root and as the unprivileged user, with bwrap and firejail, in bypassPermissions under
 * `Bash(rm -rf:*)` (an argument rule: only the gate holds it, the sandbox lets rm start):
 *
 * 1. npm's settings are read from its configuration: a committed `.npmrc` naming `editor=rm -rf v1` makes
 *    `npm edit foo` run `rm -rf v1 node_modules/foo` — denied; the ordinary `npm explore foo -- CMD` (asked
 *    wherever a deny rule existed since session 17) runs again.
 * 2. ed seen only as a wrapper's candidate, its input read: `flock f ed … <<EOF !rm -rf v2` and
 *    `printf '!rm -rf v3\n' | setsid ed …` are denied; the ordinary `flock f ed -s f.txt <<EOF` edit runs.
 *
 * The plain-bash control below shows each attack line deletes its folder.
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
    "f.txt": "text\n",
    ".npmrc": "editor=rm -rf v1\n",
    "package.json": '{"name":"app","version":"1.0.0","dependencies":{"foo":"1.0.0"}}\n',
    "node_modules/foo/package.json": '{"name":"foo","version":"1.0.0"}\n',
    ...Object.fromEntries(VICTIMS.map((v) => [`${v}/a.js`, `keep ${v}\n`])),
  };
}

const ATTACKS = ["npm edit foo", "flock f ed -s f.txt <<'EOF'\n!rm -rf v2\nq\nEOF", "printf '!rm -rf v3\\n' | setsid ed -s README.md"];
const ORDINARY = ["npm explore foo -- 'ls package.json > listed.txt'", "flock f ed -s f.txt <<'EOF'\n1s/text/edited/\nw\nq\nEOF"];

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-gate18b-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    it.skipIf(!!unusable)("bypassPermissions under Bash(rm -rf:*): a .npmrc's editor and ed's escapes behind flock/setsid delete nothing; npm explore and the flock'd ed edit run", async () => {
      const ws = committedWorkspace(join(base, `ws-${Math.random().toString(36).slice(2, 8)}`), files(), id);
      const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm -rf:*)"] } }));
      chownTree(settings, id);
      const script: ScriptedTurn[] = [...ATTACKS, ...ORDINARY, "echo ran > control.txt"].map(bash);
      const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, { settings, env: { OPENAI_API_KEY: "sk-gate18b" } });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      const lost = VICTIMS.filter((v) => !existsSync(join(ws, v, "a.js")));
      expect(lost, r.told.slice(0, 6000)).toEqual([]);
      expect(r.told).toMatch(/Denied by the rule Bash\(rm -rf:\*\)/);
      // The ordinary forms ran.
      expect(readFileSync(join(ws, "node_modules/foo/listed.txt"), "utf8")).toMatch(/package\.json/);
      expect(readFileSync(join(ws, "f.txt"), "utf8")).toBe("edited\n");
    });
  });
});

describe("control: the same command lines in plain bash", () => {
  const ws = mkdtempSync(join(tmpdir(), "yoke-gate18b-ctl-"));
  temps.push(ws);
  const fresh = () => {
    rmSync(ws, { recursive: true, force: true });
    mkdirSync(ws);
    for (const [rel, text] of Object.entries(files())) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
  };
  const run = (c: string) => spawnSync("bash", ["-c", c], { cwd: ws, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000, env: { ...process.env, HOME: join(ws, ".home") } });

  it("each attack deletes its folder", () => {
    for (const [i, a] of ATTACKS.entries()) {
      fresh();
      const r = run(a);
      expect(existsSync(join(ws, VICTIMS[i]!, "a.js")), `${a}: ${r.stderr.slice(0, 400)}`).toBe(false);
    }
  });

  it("each ordinary form does its work", () => {
    fresh();
    for (const c of ORDINARY) expect(run(c).status, c).toBe(0);
    expect(existsSync(join(ws, "node_modules/foo/listed.txt"))).toBe(true);
    expect(readFileSync(join(ws, "f.txt"), "utf8")).toBe("edited\n");
  });
});
