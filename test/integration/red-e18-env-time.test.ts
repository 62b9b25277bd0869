/**
 * Red team E (session 18): two classes the differential checker's new productions (grammar18e.ts) found,
 * through FULL SESSIONS (the built CLI's `yoke run --trust`, a scripted model over real HTTP), as root and
 * as the unprivileged user, with bwrap and firejail, in bypassPermissions under `Bash(rm -rf:*)` and
 * `Bash(rm -f:*)` (argument rules: only the gate holds them; the sandbox lets rm start):
 *
 * 1. An environment word that is not an identifier: `env 'BASH_FUNC_ls%%=() { rm -f v1/a.js; }' bash -c ls` —
 *    bash imports the exported function and runs it for `ls`; the gate read the word as env's program
 *    (its name held the `rm`, which was never looked at).
 * 2. A wrapper's valued option read as a flag: `env --uns ls rm -rf v2` (GNU env's abbreviation of
 *    `--unset`), `env -vu ls rm -rf v3` (a cluster), GNU time's `--f ls` and `-qo ls`: the value `ls` was
 *    taken for the program, a read-only one, and `rm` for its arguments.
 * 3. A runner's `-c` spelled as getopt_long reads it: `script -q --comm 'rm -rf v6' /dev/null` (only `-c` and
 *    the whole `--command` word were read as script's command).
 * 4. A shell's `-c` script is the first operand after all its options: `bash -co errexit 'rm -rf v7'`,
 *    `sh -c -- 'rm -rf v8'` (the word after `-c` — `errexit`, `--` — was read as the script).
 *
 * On the session-17 build every attack deleted its folder in all four cells; now the gate denies (no one
 * answers in `yoke run`, so nothing runs), while the ordinary forms next to them still run.
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

const VICTIMS = ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"];

function files(): Record<string, string> {
  return { "README.md": "hi\n", ...Object.fromEntries(VICTIMS.map((v) => [`${v}/a.js`, `keep ${v}\n`])) };
}

/** Each attack: the denied `rm -rf vN` (`rm -f v1/a.js`) runs through an exported function or past a wrapper's option value. */
const ATTACKS = [
  "env 'BASH_FUNC_ls%%=() { rm -f v1/a.js; }' bash -c ls",
  "env --uns ls rm -rf v2",
  "env -vu ls rm -rf v3",
  "/usr/bin/time --f ls rm -rf v4",
  "/usr/bin/time -qo ls rm -rf v5",
  "script -q --comm 'rm -rf v6' /dev/null",
];

/** The ordinary forms next to them, which must still run (each writes its file). */
const ORDINARY = [
  "env -u HOME ls > listed.txt",
  "env FOO=1 bash -c 'echo $FOO' > foo.txt",
  "/usr/bin/time -f %e -o timed.txt ls",
  "time -p ls > timep.txt",
  "script -q --command='ls > scripted.txt' /dev/null",
  "bash -o pipefail -c 'ls | wc -l > counted.txt'",
];
const WRITTEN = ["listed.txt", "foo.txt", "timed.txt", "timep.txt", "scripted.txt", "counted.txt"];

function workspace(base: string, id: Identity): string {
  const ws = join(base, `ws-${Math.random().toString(36).slice(2, 8)}`);
  return committedWorkspace(ws, files(), id);
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-rede18-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    it.skipIf(!!unusable)(
      "bypassPermissions under Bash(rm -rf:*): an exported function by env, env's and GNU time's option values delete nothing; the ordinary env and time lines still run",
      async () => {
        const ws = workspace(base, id);
        const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
        writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm -rf:*)", "Bash(rm -f:*)"] } }));
        chownTree(settings, id);
        const script: ScriptedTurn[] = [...ATTACKS, ...ORDINARY, "echo ran > control.txt"].map(bash);
        const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, { settings, env: { OPENAI_API_KEY: "sk-rede18" } });
        expect(r.code, r.stderr).toBe(0);
        expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
        const lost = VICTIMS.filter((v) => !existsSync(join(ws, v, "a.js")));
        expect(lost, r.told.slice(0, 6000)).toEqual([]);
        for (const f of WRITTEN) expect(existsSync(join(ws, f)), `${f}\n${r.told.slice(0, 6000)}`).toBe(true);
        expect(readFileSync(join(ws, "listed.txt"), "utf8")).toMatch(/README\.md/);
        expect(readFileSync(join(ws, "foo.txt"), "utf8")).toBe("1\n");
        // What the model was told names the rule (the `rm` lines) and the exported function.
        expect(r.told).toMatch(/Bash\(rm -rf:\*\)/);
        expect(r.told).toMatch(/it sets BASH_FUNC_ls%% for the command, which changes what runs/);
      },
    );
  });
});

// A plain bash shows the attacks are real (no Yoke), and the ordinary forms write their files.
describe("control: the same command lines in plain bash", () => {
  const ws = mkdtempSync(join(tmpdir(), "yoke-rede18-ctl-"));
  temps.push(ws);
  const fresh = () => {
    rmSync(ws, { recursive: true, force: true });
    mkdirSync(ws);
    for (const [rel, text] of Object.entries(files())) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
  };
  const run = (c: string) => spawnSync("bash", ["-c", c], { cwd: ws, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });

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
