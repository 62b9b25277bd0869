/**
 * Red team 21-gate — through FULL SESSIONS (the built CLI's `yoke run --trust`, a scripted model over
 * real HTTP), as root and as the unprivileged user, with bwrap and firejail, in bypassPermissions
 * under `Bash(rm -rf:*)` (an argument rule: only the gate holds it, the sandbox lets rm start):
 *
 * 1. A known tool's subcommand that runs a command, reached by a spelling the table missed:
 *    `npm explore PKG -- CMD` (npm joins CMD into a shell line; not in the table at all) and
 *    `npm -- exec CMD` (an option before the subcommand: the table looked at the first word only).
 * 2. An interpreter given code by an option or module other than `-c`/`-e`: `python3 -m timeit -s
 *    CODE`, `python3 -i FILE <<< CODE`, `node --import=data:…`, `perl '-MPOSIX;CODE'` — the gate took
 *    each for a script from a file (allowed in bypassPermissions).
 * 3. A make variable definition on the command line that make runs as it reads it: `make 'X!=CMD'`.
 * 4. The input given to a reader by another name (`bash /dev//stdin <<< CMD`, `python3 /dev/fd/0 <<< CODE`):
 *    the gate took it for a script file (code in files, allowed in bypassPermissions).
 *
 * Before the fix each attack deleted its folder in every cell (the plain-bash control below shows the
 * lines do it); after it the gate denies or asks (no one answers in `yoke run`, so nothing runs), while
 * the ordinary forms next to them (`python3 -m json.tool`, `make -s`) still run, `npm explore PKG -- ls` too (it asked in session 17: npm's settings may come from a committed .npmrc, which
 * the gate reads since session 18, gate18b).
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

function files(): Record<string, string> {
  return {
    "README.md": "hi\n",
    "package.json": '{"name":"app","version":"1.0.0","dependencies":{"foo":"1.0.0"}}\n',
    "node_modules/foo/package.json": '{"name":"foo","version":"1.0.0"}\n',
    "data.json": '{"a":1}\n',
    Makefile: "all:\n\t@echo made > made.txt\n",
    "print.pl": 'open(my $f, ">", "perl.txt") or die; print $f "perl\\n";\n',
    ...Object.fromEntries(VICTIMS.map((v) => [`${v}/a.js`, `keep ${v}\n`])),
  };
}
const VICTIMS = ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"];

/** Each attack: bash runs the denied `rm -rf vN`; the gate read a script from a file, or nothing that runs. */
const ATTACKS = [
  "npm explore foo -- rm -rf ../../v1",
  "npm -- exec rm -rf v2",
  `python3 -m timeit -n1 -s 'import os; os.system("rm -rf v3")' pass`,
  `python3 -i /dev/null <<< 'import os; os.system("rm -rf v4")'`,
  `node --import='data:text/javascript,import cp from "child_process"; cp.execSync("rm -rf v5")' /dev/null`,
  `perl '-MPOSIX;system("rm -rf v6");' /dev/null`,
  "make -s 'X!=rm -rf v7'",
  // 4. The input by another name, taken for a script file.
  "bash /dev//stdin <<< 'rm -rf v8'",
  `python3 /dev/fd/0 <<< 'import os; os.system("rm -rf v9")'`,
];

/** The ordinary forms next to them (each writes its file). */
const ORDINARY = ["python3 -m json.tool data.json > json.txt", "npm explore foo -- 'ls package.json > listed.txt'", "make -s", "perl -MPOSIX -Mstrict print.pl"];

function workspace(base: string, id: Identity): string {
  const ws = join(base, `ws-${Math.random().toString(36).slice(2, 8)}`);
  return committedWorkspace(ws, files(), id);
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-red21g-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    it.skipIf(!!unusable)(
      "bypassPermissions under Bash(rm -rf:*): npm explore, npm -- exec, python -m timeit / -i, node --import=data:, perl -M, make X!= and /dev//stdin delete nothing; the ordinary forms still run",
      async () => {
        const ws = workspace(base, id);
        const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
        writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm -rf:*)"] } }));
        chownTree(settings, id);
        const script: ScriptedTurn[] = [...ATTACKS, ...ORDINARY, "echo ran > control.txt"].map(bash);
        const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, { settings, env: { OPENAI_API_KEY: "sk-red21g" } });
        expect(r.code, r.stderr).toBe(0);
        expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
        const lost = VICTIMS.filter((v) => !existsSync(join(ws, v, "a.js")));
        expect(lost, r.told.slice(0, 6000)).toEqual([]);
        // The ordinary forms ran.
        expect(readFileSync(join(ws, "json.txt"), "utf8")).toMatch(/"a": 1/);
        // `npm explore` runs its command with npm's `script-shell` setting, which a committed .npmrc can set (session
        // 17, red team A): the gate reads npm's configuration (session 18, gate18b) and none names a program here.
        expect(readFileSync(join(ws, "node_modules/foo/listed.txt"), "utf8")).toMatch(/package\.json/);
        expect(readFileSync(join(ws, "made.txt"), "utf8")).toBe("made\n");
        expect(readFileSync(join(ws, "perl.txt"), "utf8")).toBe("perl\n");
        expect(r.told).toMatch(/Bash\(rm -rf:\*\)/);
      },
    );
  });
});

// A plain bash shows the attacks are real (no Yoke), and the ordinary forms write their files.
describe("control: the same command lines in plain bash", () => {
  const ws = mkdtempSync(join(tmpdir(), "yoke-red21g-ctl-"));
  temps.push(ws);
  const fresh = () => {
    rmSync(ws, { recursive: true, force: true });
    mkdirSync(ws);
    for (const [rel, text] of Object.entries(files())) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
  };
  // GNU Make runs a command-line `X!=…` with $SHELL from the environment: with SHELL unset (as in CI) it execs
  // "-c" and fails, so the attack is harmless there — a person's terminal always has SHELL (stop 33's CI).
  const env = { ...process.env, SHELL: process.env.SHELL || "/bin/sh" };
  const run = (c: string) => spawnSync("bash", ["-c", c], { cwd: ws, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });

  it("each attack deletes its folder", () => {
    // A line is tried twice, and a line harmless both times is reported with what bash said.
    const harmless: string[] = [];
    for (const a of ATTACKS) {
      const said: string[] = [];
      for (let attempt = 0; attempt < 2; attempt++) {
        fresh();
        const r = run(a);
        if (!VICTIMS.every((v) => existsSync(join(ws, v, "a.js")))) break;
        said.push(`exit ${r.status} ${r.signal ?? ""} ${r.error?.message ?? ""} stdout ${r.stdout.slice(0, 300)} stderr ${r.stderr.slice(0, 600)}`);
      }
      if (said.length === 2) harmless.push(`${a}: ${said.join(" || ")}`);
    }
    expect(harmless).toEqual([]);
  });

  it("each ordinary form writes its file", () => {
    fresh();
    for (const c of ORDINARY) expect(run(c).status, c).toBe(0);
    for (const f of ["json.txt", "node_modules/foo/listed.txt", "made.txt", "perl.txt"]) expect(existsSync(join(ws, f)), f).toBe(true);
  });
});
