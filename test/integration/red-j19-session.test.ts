/**
 * Red team J (session 19), through full sessions (`yoke run` with the scripted model), as root and as
 * an unprivileged user, with bwrap and firejail, and a plain-bash control.
 *
 * 1. Options whose value is optional (getopt_long's optional_argument: only `--color=WHEN`, `-w16`)
 *    or absent (`column -t`) were read as taking the NEXT word: `grep --color x .env` and `od -w .env`
 *    printed `.env` (denied by `Read(**\/.env)`) in default mode, the gate taking `.env` for the option's
 *    value. The differential checker's real-table production found it. The secret must reach no request.
 *    On the build before the fix these cells held too, but only because the sandbox hid `.env` from the
 *    command the gate had allowed as read-only ("grep: .env: Permission denied" in every cell): the
 *    second layer contained the gate's wrong reading. The test keeps both layers honest.
 * 2. su's and runuser's `-s PROGRAM`/`--shell=PROGRAM` run PROGRAM with the words after the user:
 *    `su --shell=/usr/bin/rm root -- -rf v2` deleted v2 as root on the host while the gate allowed it under
 *    `Bash(rm:*)` (the glued value was never read as a program). Now it asks.
 * 3. sudo's editor (`SUDO_EDITOR`/`VISUAL`/`EDITOR` with `sudo -e`/`sudoedit`) runs a command the line
 *    names only in a variable: under `Bash(rm:*)` in bypassPermissions nothing may be deleted. These
 *    cells need sudo (CI does not install it): they are skipped, saying so, when it is absent.
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
const SECRET = "sk-live-redj19-0a1b2c3d";
const hasSudo = spawnSync("bash", ["-c", "command -v sudo"]).status === 0;

function files(): Record<string, string> {
  return {
    "README.md": "readme-marker-j19 keep\n",
    ".env": `TOKEN=${SECRET}\n`,
    ...Object.fromEntries(["v1", "v2", "v3"].map((v) => [`${v}/a.js`, `keep ${v}\n`])),
  };
}

const READS = ["grep --color T .env", "grep --colour TOKEN .env", "od -c -w .env", "od --width -c .env", "column -t .env"];
/** Ordinary forms that must still run (their output reaches the model). */
const ORDINARY: readonly string[] = ["grep --color=never readme-marker README.md", "od -w16 -c README.md", "column -t README.md"];
/** su/runuser run `-s PROGRAM` with the words after the user as its arguments (as root: no password). */
const SU = ["su -s /usr/bin/rm root -- -rf v1", "su --shell=/usr/bin/rm root -- -rf v2", "runuser -s/usr/bin/rm root -- -rf v3"];
const SUDO = ["SUDO_EDITOR='rm -rf v1' sudo -e README.md", "export VISUAL='rm -rf v2'; sudo --edit README.md", "EDITOR='rm -rf v3' sudoedit README.md"];

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-redj19-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    it.skipIf(!!unusable)("default mode under Read(**/.env): optional-value options do not print the secret; the ordinary forms run", async () => {
      const ws = committedWorkspace(join(base, `ws-${Math.random().toString(36).slice(2, 8)}`), files(), id);
      const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Read(**/.env)"] } }));
      chownTree(settings, id);
      // Each read after an ordinary command (the ordinary ones must still run between refusals).
      const script: ScriptedTurn[] = READS.flatMap((c, i) => [ORDINARY[i % ORDINARY.length]!, c]).map(bash);
      const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, { mode: "default", settings, env: { OPENAI_API_KEY: "sk-redj19" } });
      expect(r.code, r.stderr).toBe(0);
      // od prints the characters apart (`T   O   K …`): the requests without spaces must not hold it either.
      expect(r.all.includes(SECRET) || r.all.replace(/ +/g, "").includes(SECRET), r.told.slice(0, 8000)).toBe(false);
      // The ordinary forms ran: README's line came back (grep, column), and od's character dump of it.
      expect(r.all.match(/readme-marker-j19\s+keep/g)?.length ?? 0, r.told.slice(0, 8000)).toBeGreaterThanOrEqual(3);
      expect(r.all, r.told.slice(0, 8000)).toMatch(/r\s+e\s+a\s+d\s+m\s+e/);
    });

    it.skipIf(!!unusable)("bypassPermissions under Bash(rm:*): su/runuser -s PROGRAM deletes nothing", async () => {
      const ws = committedWorkspace(join(base, `ws-${Math.random().toString(36).slice(2, 8)}`), files(), id);
      const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
      chownTree(settings, id);
      const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), [...SU, "echo ran > control.txt"].map(bash), {
        settings,
        env: { OPENAI_API_KEY: "sk-redj19" },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      const lost = ["v1", "v2", "v3"].filter((v) => !existsSync(join(ws, v, "a.js")));
      expect(lost, r.told.slice(0, 6000)).toEqual([]);
    });

    it.skipIf(!!unusable || !hasSudo)(`bypassPermissions under Bash(rm:*): sudo's editor variables delete nothing${hasSudo ? "" : " (skipped: sudo is not installed here)"}`, async () => {
      const ws = committedWorkspace(join(base, `ws-${Math.random().toString(36).slice(2, 8)}`), files(), id);
      const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
      chownTree(settings, id);
      const script: ScriptedTurn[] = [...SUDO, "echo ran > control.txt"].map(bash);
      const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, { settings, env: { OPENAI_API_KEY: "sk-redj19" } });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      const lost = ["v1", "v2", "v3"].filter((v) => !existsSync(join(ws, v, "a.js")));
      expect(lost, r.told.slice(0, 6000)).toEqual([]);
    });
  });
});

describe("control: the same command lines in plain bash", () => {
  const ws = mkdtempSync(join(tmpdir(), "yoke-redj19-ctl-"));
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

  it("each read prints the secret (od: its characters)", () => {
    fresh();
    const silent: string[] = [];
    for (const c of READS) {
      const out = run(c).stdout;
      const flat = out.replace(/\s+/g, "");
      if (!out.includes(SECRET) && !flat.includes(SECRET)) silent.push(`${c}: ${out.slice(0, 300)}`);
    }
    expect(silent).toEqual([]);
  });

  it.skipIf(process.getuid?.() !== 0)("as root, each su/runuser -s line deletes its folder (root needs no password)", () => {
    const kept: string[] = [];
    for (const [i, c] of SU.entries()) {
      fresh();
      run(c);
      if (existsSync(join(ws, `v${i + 1}`, "a.js"))) kept.push(c);
    }
    expect(kept).toEqual([]);
  });

  it.skipIf(!hasSudo || process.getuid?.() !== 0)(`as root, each sudo editor line deletes its folder${hasSudo ? "" : " (skipped: sudo is not installed here)"}`, () => {
    const kept: string[] = [];
    for (const [i, c] of SUDO.entries()) {
      fresh();
      run(c);
      if (existsSync(join(ws, `v${i + 1}`, "a.js"))) kept.push(c);
    }
    expect(kept).toEqual([]);
  });
});
