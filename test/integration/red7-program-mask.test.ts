/**
 * Red team round 7, invariant 9 (docs/security.md): a program a whole-program deny rule names
 * cannot start in the sandbox. Each case is a real `yoke run --trust --permission-mode
 * bypassPermissions` session (scripted model over real HTTP) as root and as the unprivileged user,
 * with bwrap and firejail; the commands are ones the gate allows (`sh x.sh`: the program's name is
 * in a file the gate does not read), so only the sandbox's masking stands between the rule and the
 * program. Outcomes only: the file the program would remove is there or not.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, type Identity } from "../support/identities";
import { bash, bypassSessionAs, cellFolder, committedWorkspace, sandboxBackends } from "../support/sandbox-matrix";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 180_000 });
const { list: who } = identities();
const temps: string[] = [];

const backends = sandboxBackends();

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A hard link of perl under another name (Debian ships `perl5.X.Y`), if the machine has one. */
function perlHardLink(): string | undefined {
  try {
    const ino = statSync("/usr/bin/perl").ino;
    return readdirSync("/usr/bin")
      .filter((n) => /^perl5\.\d+\.\d+$/.test(n))
      .find((n) => statSync(join("/usr/bin", n)).ino === ino);
  } catch {
    return undefined;
  }
}
const PERL_LINK = perlHardLink();
/** Another copy of git's binary outside the command path (Debian: git's exec path). */
const GIT_COPY = ["/usr/lib/git-core/git", "/usr/libexec/git-core/git"].find((p) => existsSync(p) && statSync(p).ino !== statSync("/usr/bin/git").ino);

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    let n = 0;

    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-red7-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    const workspace = (name: string, extra: Record<string, string> = {}) => committedWorkspace(join(base, name), { "src/a.js": "keep\n", "src/b.js": "keep\n", "src/c.js": "keep\n", ...extra }, id);
    const settingsFile = (value: unknown) => {
      const p = join(base, `settings-${++n}.json`);
      writeFileSync(p, JSON.stringify(value));
      chownTree(p, id);
      return p;
    };

    const session = (ws: string, script: ScriptedTurn[], settings?: string) => bypassSessionAs(id, home, ws, join(base, `sessions-${++n}`), script, settings);

    it.skipIf(!!unusable || !PERL_LINK)("a hard link of the denied program under another name (Bash(perl:*) → perl5.X.Y) cannot start either", async () => {
      const ws = workspace("hardlink", {
        "x.sh": `${PERL_LINK} -e 'unlink "src/a.js"'\n`,
        "y.sh": `/usr/bin/${PERL_LINK} -e 'unlink "src/b.js"'\n`,
        // Control: the name the rule gives is masked (so the setup enforces the rule at all).
        "z.sh": `perl -e 'unlink "src/c.js"'\n`,
      });
      const r = await session(ws, [bash("sh z.sh"), bash("sh x.sh"), bash("sh y.sh"), bash("echo ran > control.txt")], settingsFile({ permissions: { deny: ["Bash(perl:*)"] } }));
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      expect(existsSync(join(ws, "src/c.js")), "perl itself is masked").toBe(true);
      expect(existsSync(join(ws, "src/a.js")), `${PERL_LINK} (a hard link of perl) ran`).toBe(true);
      expect(existsSync(join(ws, "src/b.js")), `/usr/bin/${PERL_LINK} ran`).toBe(true);
    });

    it.skipIf(!!unusable)("a deny rule spelled Bash(rm*) (which the gate enforces on rm) is enforced by the sandbox too", async () => {
      const ws = workspace("prefix", { "x.sh": "rm -f src/a.js\n" });
      const deny = settingsFile({ permissions: { deny: ["Bash(rm*)"] } });
      const r = await session(ws, [bash("rm -f src/b.js"), bash("sh x.sh"), bash("echo ran > control.txt")], deny);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      expect(existsSync(join(ws, "src/b.js")), "the gate denies rm itself").toBe(true);
      expect(existsSync(join(ws, "src/a.js")), "rm ran from a script the gate allowed").toBe(true);
      if (backend === "bwrap") expect(r.told).toContain("yoke: rm is denied by the permission rule Bash(rm*)");
    });

    it.skipIf(!!unusable)("a deny rule with a leading wildcard (Bash(*rm:*): any program named ...rm) is enforced by the sandbox too", async () => {
      const ws = workspace("leading", { "x.sh": "rm -f src/a.js\n", "y.sh": "/usr/bin/rm -f src/b.js\n" });
      const r = await session(ws, [bash("sh x.sh"), bash("sh y.sh"), bash("echo ran > control.txt"), bash("ls src > list.txt")], settingsFile({ permissions: { deny: ["Bash(*rm:*)"] } }));
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8"), "ordinary commands still run").toBe("ran\n");
      expect(readFileSync(join(ws, "list.txt"), "utf8")).toContain("c.js");
      expect(existsSync(join(ws, "src/a.js")), "rm ran from a script the gate allowed").toBe(true);
      expect(existsSync(join(ws, "src/b.js")), "/usr/bin/rm ran from a script the gate allowed").toBe(true);
      if (backend === "bwrap") expect(r.told).toContain("yoke: rm is denied by the permission rule Bash(*rm:*)");
    });

    it.skipIf(!!unusable)("a deny rule naming the program by its path (Bash(/usr/bin/rm:*)) is enforced by the sandbox too", async () => {
      const ws = workspace("abspath", { "x.sh": "/usr/bin/rm -f src/a.js\n" });
      const r = await session(ws, [bash("/usr/bin/rm -f src/b.js"), bash("sh x.sh"), bash("echo ran > control.txt")], settingsFile({ permissions: { deny: ["Bash(/usr/bin/rm:*)"] } }));
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      expect(existsSync(join(ws, "src/b.js")), "the gate denies /usr/bin/rm itself").toBe(true);
      expect(existsSync(join(ws, "src/a.js")), "/usr/bin/rm ran from a script the gate allowed").toBe(true);
      if (backend === "bwrap") expect(r.told).toContain("yoke: /usr/bin/rm is denied by the permission rule Bash(/usr/bin/rm:*)");
    });

    it.skipIf(!!unusable)("a deny rule on another name of the shell commands run in (Bash(rbash:*): rbash is bash) does not stop every command", async () => {
      const ws = workspace("rbash", { "x.sh": "rbash -c 'echo via-rbash' > rbash.txt\n" });
      const r = await session(ws, [bash("echo ran > control.txt"), bash("ls src > list.txt")], settingsFile({ permissions: { deny: ["Bash(rbash:*)"] } }));
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8"), "ordinary commands still run").toBe("ran\n");
      expect(readFileSync(join(ws, "list.txt"), "utf8")).toContain("a.js");
    });

    it.skipIf(!!unusable)("a deny rule from the committed project settings (.claude/settings.json, trusted folder) masks the program too", async () => {
      const ws = workspace("project", { "x.sh": "rm -f src/a.js\n", ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }) });
      const r = await session(ws, [bash("sh x.sh"), bash("echo ran > control.txt")]);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      expect(existsSync(join(ws, "src/a.js"))).toBe(true);
    });

    // Class: a copy of the denied program's binary outside the folders of the command path (Debian's
    // git exec path holds a second git binary, not a link). Fixed: the copies with the same bytes in
    // the system's program folders are masked with the program (program-copies.ts).
    it.skipIf(!!unusable || !GIT_COPY)("a copy of the denied program outside the command path (Bash(git:*) → /usr/lib/git-core/git) cannot start", async () => {
      const ws = workspace("copy", { "x.sh": `${GIT_COPY} rm -q src/a.js\n` });
      const r = await session(ws, [bash("sh x.sh"), bash("echo ran > control.txt")], settingsFile({ permissions: { deny: ["Bash(git:*)"] } }));
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      expect(existsSync(join(ws, "src/a.js")), `${GIT_COPY} ran`).toBe(true);
    });
  });
});
