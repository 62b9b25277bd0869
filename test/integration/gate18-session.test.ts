/**
 * gate18 (session 17): the gate's open items of issue 18 through FULL SESSIONS (the built CLI's
 * `yoke run --trust`, a scripted model over real HTTP), as root and as the unprivileged user, with bwrap
 * and firejail, in bypassPermissions under `Bash(rm -rf:*)` (an argument rule: only the gate holds it,
 * the sandbox lets rm start):
 *
 * 1. What a compiler driver reads when it runs: `gcc -B DIR` runs DIR/as, `gcc -specs=F` runs the linker
 *    F names; `java @F` reads `-XX:OnOutOfMemoryError=CMD` from F (the JVM runs CMD with `sh -c`).
 * 2. make's command-line variables used as commands in the makefile's recipes: `make CC='rm -rf v4 #'`.
 * 3. npm settings whose value is a program: `npm edit PKG --editor='rm -rf v5'`.
 * 4. ed's shell escape parsed as a command: `echo '!rm -rf v6' | ed -s F` is denied by the rule, while
 *    `echo '!ls > listed.txt' | ed -s F` now runs (session 16 asked wherever a deny rule existed).
 *
 * Before the fix each of 1–3 deleted its folder in every cell (the plain-bash control below shows the lines
 * do it); after it the gate denies or asks (no one answers in `yoke run`, so nothing runs), while the
 * ordinary forms next to them still run.
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

const VICTIMS = ["v1", "v2", "v3", "v4", "v5", "v6"];

function files(): Record<string, string> {
  return {
    "README.md": "hi\n",
    "package.json": '{"name":"app","version":"1.0.0","dependencies":{"foo":"1.0.0"}}\n',
    "node_modules/foo/package.json": '{"name":"foo","version":"1.0.0"}\n',
    "a.c": "int main(void){return 0;}\n",
    "A.java": "class A{public static void main(String[] a){long[] x=new long[1<<28];}}\n",
    Makefile: "all:\n\t$(CC) -c a.c -o a.o\n",
    ...Object.fromEntries(VICTIMS.map((v) => [`${v}/a.js`, `keep ${v}\n`])),
  };
}

/** Each attack: bash runs the denied `rm -rf vN` through what the compiler, make, npm or ed runs. */
const ATTACKS = [
  `mkdir -p b && printf '#!/bin/sh\\nrm -rf v1\\n' > b/as && chmod +x b/as && gcc -B b/ -c -x c /dev/null -o /dev/null`,
  `printf '#!/bin/sh\\nrm -rf v2\\n' > ev && chmod +x ev && printf '*linker:\\n./ev\\n\\n' > s.specs && gcc -specs=s.specs a.c -o prog`,
  `printf '%s\\n' -Xmx16m '"-XX:OnOutOfMemoryError=rm -rf v3"' > o && java @o A.java`,
  "make CC='rm -rf v4 #'",
  "npm edit foo --editor='rm -rf v5'",
  "echo '!rm -rf v6' | ed -s README.md",
];

/** The ordinary forms next to them, which must still run (each writes its file). */
const ORDINARY = ["echo '!ls > listed.txt' | ed -s README.md", "make CC=gcc", "gcc -O2 -c a.c -o b.o", "flock /dev/null gcc -c a.c -o c.o"];
const WRITTEN = ["listed.txt", "a.o", "b.o", "c.o"];

function workspace(base: string, id: Identity): string {
  const ws = join(base, `ws-${Math.random().toString(36).slice(2, 8)}`);
  return committedWorkspace(ws, files(), id);
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-gate18-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    it.skipIf(!!unusable)(
      "bypassPermissions under Bash(rm -rf:*): gcc -B / -specs, java @F, make CC=, npm edit --editor and ed's ! delete nothing; ed's ordinary escape and the compiler lines still run",
      async () => {
        const ws = workspace(base, id);
        const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
        writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm -rf:*)"] } }));
        chownTree(settings, id);
        const script: ScriptedTurn[] = [...ATTACKS, ...ORDINARY, "echo ran > control.txt"].map(bash);
        const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, { settings, env: { OPENAI_API_KEY: "sk-gate18" } });
        expect(r.code, r.stderr).toBe(0);
        expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
        const lost = VICTIMS.filter((v) => !existsSync(join(ws, v, "a.js")));
        expect(lost, r.told.slice(0, 6000)).toEqual([]);
        for (const f of WRITTEN) expect(existsSync(join(ws, f)), `${f}\n${r.told.slice(0, 6000)}`).toBe(true);
        expect(readFileSync(join(ws, "listed.txt"), "utf8")).toMatch(/README\.md/);
        // What the model was told names the rule or the code Yoke cannot see.
        expect(r.told).toMatch(/Bash\(rm -rf:\*\)/);
        expect(r.told).toMatch(/runs its stages \(cc1, as, ld\) from another folder/);
        expect(r.told).toMatch(/reads more options from @o/);
      },
    );
  });
});

// A plain bash shows the attacks are real (no Yoke), and the ordinary forms write their files.
describe("control: the same command lines in plain bash", () => {
  const ws = mkdtempSync(join(tmpdir(), "yoke-gate18-ctl-"));
  temps.push(ws);
  const fresh = () => {
    rmSync(ws, { recursive: true, force: true });
    mkdirSync(ws);
    for (const [rel, text] of Object.entries(files())) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
  };
  const run = (c: string) => spawnSync("bash", ["-c", c], { cwd: ws, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000, env: { ...process.env, EDITOR: "true", VISUAL: "true" } });

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
