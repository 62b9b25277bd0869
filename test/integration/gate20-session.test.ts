/**
 * Issue 18, session 20 (gate20) through full sessions, as root and as an unprivileged user, with bwrap
 * and firejail, in bypassPermissions under `Bash(rm -rf:*)` and `Read(**\/.env)`:
 * - POSIXLY_CORRECT in Yoke's own environment, and allowed by the person's `sandbox.allowEnv`, never
 *   reaches a command: the gate reads `cat README.md -n` as GNU does (-n an option), and a file named
 *   `-n` (a link to `.env`) is not read — the secret is in no request; cat numbers its line as predicted.
 * - A variable exported earlier on the line (`export`, `declare -x`, `set -a`, `\\export`, `builtin export`,
 *   names from braces, `set -k`) reaches the later command as a prefix assignment does: BASH_ENV exported
 *   so, with a committed script that deletes a folder, deletes nothing; an ordinary export before an
 *   ordinary command still runs.
 * A plain bash (with POSIXLY_CORRECT set) shows each attack does its harm.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { chownTree, type Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const SECRET = "gate20-secret-7f3a";
const VICTIMS = ["v1", "v2", "v3", "v4", "v5", "v6", "v7"];

function files(): Record<string, string> {
  return {
    "README.md": "hi\n",
    ".env": `TOKEN=${SECRET}\n`,
    ...Object.fromEntries(VICTIMS.map((v) => [`${v}/a.js`, `keep ${v}\n`])),
    ...Object.fromEntries(VICTIMS.map((v) => [`${v}.sh`, `rm -rf ${v}\n`])),
  };
}
/** The repository's link named like an option, to the secret. */
const plantLink = (ws: string) => symlinkSync(".env", join(ws, "-n"));

const POSIX = ["cat README.md -n > numbered.txt", 'echo "[${POSIXLY_CORRECT-unset}]" > posix.txt'];
const ATTACKS = [
  "export BASH_ENV=./v1.sh; bash -c true",
  "declare -x BASH_ENV=./v2.sh && bash -c 'echo x'",
  "set -a; BASH_ENV=./v3.sh; bash -c true",
  // Allowed before (session 20, found attacking this change): the builtin as a command, names from braces, set -k.
  "\\export BASH_ENV=./v4.sh; bash -c true",
  "builtin export BASH_ENV=./v5.sh; bash -c true",
  "export BASH_{ENV=./v6.sh,X=1}; bash -c true",
  "set -k; bash -c true BASH_ENV=./v7.sh",
];
const ORDINARY = ["export NODE_ENV=test; echo made > made.txt"];

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-gate20-${backend}-`, id, temps, { sandbox: { backend, allowEnv: ["POSIXLY_CORRECT"] } }));
    });

    it.skipIf(!!unusable)("POSIXLY_CORRECT never reaches a command; exports reach later commands as prefixes do", async () => {
      const ws = committedWorkspace(join(base, `ws-${Math.random().toString(36).slice(2, 8)}`), files(), id);
      plantLink(ws);
      chownTree(ws, id);
      const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm -rf:*)", "Read(**/.env)"] } }));
      chownTree(settings, id);
      const script: ScriptedTurn[] = [...POSIX, ...ATTACKS, ...ORDINARY, "echo ran > control.txt"].map(bash);
      const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, {
        settings,
        env: { OPENAI_API_KEY: "sk-gate20", POSIXLY_CORRECT: "1" },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      // GNU's reading, as the gate predicted: -n numbers the line; the link named -n is not read.
      expect(readFileSync(join(ws, "posix.txt"), "utf8")).toBe("[unset]\n");
      expect(readFileSync(join(ws, "numbered.txt"), "utf8")).toBe("     1\thi\n");
      expect(r.all).not.toContain(SECRET);
      const lost = VICTIMS.filter((v) => !existsSync(join(ws, v, "a.js")));
      expect(lost, r.told.slice(0, 6000)).toEqual([]);
      expect(readFileSync(join(ws, "made.txt"), "utf8")).toBe("made\n");
    });
  });
});

describe("control: the same command lines in plain bash", () => {
  const ws = mkdtempSync(join(tmpdir(), "yoke-gate20-ctl-"));
  temps.push(ws);
  const fresh = () => {
    rmSync(ws, { recursive: true, force: true });
    mkdirSync(ws);
    for (const [rel, text] of Object.entries(files())) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
    plantLink(ws);
  };
  // POSIXLY_CORRECT for cat only: bash in POSIX mode does not read BASH_ENV.
  const run = (c: string, posix = false) =>
    spawnSync("bash", ["-c", c], { cwd: ws, env: { ...process.env, ...(posix ? { POSIXLY_CORRECT: "1" } : {}) }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });

  it("with POSIXLY_CORRECT set, cat reads the link named -n (the secret) and numbers nothing", () => {
    fresh();
    const r = run("cat README.md -n", true);
    expect(r.stdout).toBe(`hi\nTOKEN=${SECRET}\n`);
  });

  it("each export deletes its folder", () => {
    const harmless: string[] = [];
    for (const a of ATTACKS) {
      fresh();
      const r = run(a);
      if (VICTIMS.every((v) => existsSync(join(ws, v, "a.js")))) harmless.push(`${a}: exit ${r.status} stderr ${r.stderr.slice(0, 600)}`);
    }
    expect(harmless).toEqual([]);
  });
});
