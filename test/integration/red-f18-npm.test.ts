/**
 * Red team F (session 18) on gate18b's reading of npm's configuration — through FULL SESSIONS (the built
 * CLI's `yoke run --trust`, a scripted model over real HTTP), as root and as the unprivileged user, with
 * bwrap and firejail, in bypassPermissions under `Bash(rm -rf:*)` (an argument rule: only the gate holds it,
 * the sandbox lets rm start). Each attack ran `rm -rf` with the real npm 11 on the gate18b build:
 *
 * 1. Keys as ini reads them: npm's ini unquotes and cuts comments in the KEY too — `"editor"=…`,
 *    `editor ;x=…` are npm's editor; Yoke matched the key as written.
 * 2. Variables the line sets for npm: `PREFIX=p npm edit foo` (npm's global prefix: p/etc/npmrc),
 *    `DESTDIR=d npm edit foo` (d/usr/etc/npmrc for node in /usr), `VAR='rm …' npm edit foo` under a committed
 *    `editor=${VAR}` — Yoke read the host's values.
 * 3. A folder reached through a link: npm starts in the physical folder (process.cwd()) and finds its project
 *    (and its `.npmrc`) above the link's target — `cd lnk && npm edit foo`; Yoke walked the link's own path.
 *
 * The ordinary `npm explore foo -- CMD` and `npm edit foo` under a harmless editor still run. The plain-bash
 * control below shows each attack line deletes its folder.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();
const VICTIMS = ["v1", "v2", "v3", "v4", "v5", "v6"];
/** npm's global prefix for the node that runs it (dirname(dirname(execPath))), with DESTDIR put before it. */
const NODE_PREFIX = dirname(dirname(process.execPath)).replace(/^\/+/, "");
const ENV = { OPENAI_API_KEY: "sk-redf18", YOKE_REDF_EDITOR: "true" };

function project(dir: string, npmrc?: string): Record<string, string> {
  return {
    [`${dir}package.json`]: '{"name":"app","version":"1.0.0","dependencies":{"foo":"1.0.0"}}\n',
    [`${dir}node_modules/foo/package.json`]: '{"name":"foo","version":"1.0.0"}\n',
    ...(npmrc === undefined ? {} : { [`${dir}.npmrc`]: npmrc }),
  };
}

function files(): Record<string, string> {
  return {
    "README.md": "hi\n",
    ...project(""),
    ...project("a/", '"editor"=rm -rf ../v1\n'),
    ...project("b/", "editor ;x=rm -rf ../v2\n"),
    "p/etc/npmrc": "editor=rm -rf v3\n",
    ...project("c/", "editor=${YOKE_REDF_EDITOR}\n"),
    [`d/${NODE_PREFIX}/etc/npmrc`]: "editor=rm -rf v5\n",
    ...project("e/", "editor=touch edited.txt\n"),
    // Behind a link (made by an earlier command, SETUP): npm starts in the link's target and finds its project above it.
    ...project("deep/b/", "editor=rm -rf ../../../v6\n"),
    "deep/b/c/keep.txt": "",
    ...Object.fromEntries(VICTIMS.map((v) => [`${v}/a.js`, `keep ${v}\n`])),
  };
}

const SETUP = ["ln -s deep/b/c lnk"];
const ATTACKS = ["cd a && npm edit foo", "cd b && npm edit foo", "PREFIX=p npm edit foo", "cd c && YOKE_REDF_EDITOR='rm -rf ../v4' npm edit foo", "DESTDIR=d npm edit foo", "cd lnk && npm edit foo"];
const ORDINARY = ["npm explore foo -- 'ls package.json > listed.txt'", "cd e && npm edit foo"];

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-redf18-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    it.skipIf(!!unusable)(
      "bypassPermissions under Bash(rm -rf:*): quoted/commented .npmrc keys, PREFIX/DESTDIR/${VAR} set on the line and a .npmrc above a link's target delete nothing; the ordinary npm explore and npm edit run",
      async () => {
        const ws = committedWorkspace(join(base, `ws-${Math.random().toString(36).slice(2, 8)}`), files(), id);
        const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
        writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm -rf:*)"] } }));
        chownTree(settings, id);
        const script: ScriptedTurn[] = [...SETUP, ...ATTACKS, ...ORDINARY, "echo ran > control.txt"].map(bash);
        const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, { settings, env: ENV });
        expect(r.code, r.stderr).toBe(0);
        expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
        const lost = VICTIMS.filter((v) => !existsSync(join(ws, v, "a.js")));
        expect(lost, r.told.slice(0, 6000)).toEqual([]);
        expect(r.told).toMatch(/Denied by the rule Bash\(rm -rf:\*\)/);
        // The ordinary forms ran.
        expect(readFileSync(join(ws, "node_modules/foo/listed.txt"), "utf8")).toMatch(/package\.json/);
        expect(existsSync(join(ws, "e/edited.txt")), r.told.slice(0, 6000)).toBe(true);
      },
    );
  });
});

describe("control: the same command lines in plain bash (real npm)", () => {
  const ws = mkdtempSync(join(tmpdir(), "yoke-redf18-ctl-"));
  temps.push(ws);
  const fresh = () => {
    rmSync(ws, { recursive: true, force: true });
    mkdirSync(ws);
    for (const [rel, text] of Object.entries(files())) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
    for (const c of SETUP) spawnSync("bash", ["-c", c], { cwd: ws });
  };
  // A clean environment as the sessions get (spawnAs): npx/npm, which start the test runner, set npm_config_* (globalconfig…).
  const run = (c: string) =>
    spawnSync("bash", ["-c", c], {
      cwd: ws,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 120_000,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", ...ENV, HOME: join(ws, ".home") },
    });

  it("each attack deletes its folder", () => {
    for (const [i, a] of ATTACKS.entries()) {
      fresh();
      const r = run(a);
      expect(existsSync(join(ws, VICTIMS[i]!, "a.js")), `${a}: ${r.stderr.slice(0, 400)}`).toBe(false);
    }
  }, 300_000);

  it("each ordinary form does its work", () => {
    fresh();
    for (const c of ORDINARY) expect(run(c).status, c).toBe(0);
    expect(existsSync(join(ws, "node_modules/foo/listed.txt"))).toBe(true);
    expect(existsSync(join(ws, "e/edited.txt"))).toBe(true);
  }, 300_000);
});
