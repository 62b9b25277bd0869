/**
 * Red team K (session 24): a file a protected configuration names is mounted read-only by its name — but
 * a command that made it while nothing named it could give it a second name (a hard link, `ln tools/pre.js
 * src/helper.js`). After the person approved `.npmrc` naming `tools/pre.js` (its content harmless then),
 * a later command wrote `src/helper.js`, which is the same file, and the person's next `npm run t` ran
 * what it wrote. Now a named file with another name is also checked by its stamp, and moved out when it
 * changed. Root and the unprivileged user, bwrap and firejail; outcome asserted (npm ran nothing planted).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath } from "../support/cli";
import { chownTree, spawnAs, type Identity } from "../support/identities";
import { cellFolder, committedWorkspace, securityMatrix } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();

function exec(id: Identity, backend: string, ws: string, home: string, script: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [cliPath, "sandbox", "exec", "--backend", backend, "--cwd", ws, "--", "sh", "-c", script], {
    cwd: ws,
    encoding: "utf8",
    timeout: 120_000,
    ...spawnAs(id, { HOME: home }),
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)("a named file's hard link written by a later command: the person's npm runs nothing planted", () => {
      const { base, home } = cellFolder(`yoke-redk24-hl-${backend}-`, id, temps, { sandbox: { backend } });
      const marks = join(base, "marks");
      mkdirSync(marks);
      chownTree(marks, id);
      const ws = committedWorkspace(
        join(base, "ws"),
        { "package.json": JSON.stringify({ name: "a", version: "1.0.0", scripts: { t: "node -e 0" } }), ".npmrc": "fund=false\n", "src/a.js": "//\n" },
        id,
      );
      // While nothing names it: a harmless tools/pre.js, and a second name for it.
      const first = exec(id, backend, ws, home, "mkdir -p tools && echo '// pre' > tools/pre.js && ln tools/pre.js src/helper.js");
      expect(first.code, first.out).toBe(0);
      // The person approves .npmrc naming tools/pre.js (write_file renames a new file into place).
      writeFileSync(join(ws, ".npmrc.new"), "fund=false\nnode-options=--require ./tools/pre.js\n");
      renameSync(join(ws, ".npmrc.new"), join(ws, ".npmrc"));
      chownTree(join(ws, ".npmrc"), id);
      const evil = `require("fs").writeFileSync(${JSON.stringify(join(marks, "npm"))}, "ran")`;
      const second = exec(id, backend, ws, home, `echo '${evil}' > src/helper.js; echo ok > src/b.js`);
      expect(second.code, second.out).toBe(0);
      // The person's next npm command on the host.
      spawnSync("npm", ["run", "t"], { cwd: ws, timeout: 60_000, ...spawnAs(id, { HOME: home }) });
      expect(readdirSync(marks), `npm ran what the command wrote through the hard link: ${second.out}`).toEqual([]);
      const pre = existsSync(join(ws, "tools/pre.js")) ? readFileSync(join(ws, "tools/pre.js"), "utf8") : "";
      expect(pre).not.toContain("writeFileSync");
      expect(second.out).toContain("hard link");
      // The command's ordinary work stays.
      expect(readFileSync(join(ws, "src/b.js"), "utf8")).toBe("ok\n");
    });

    it.skipIf(!!unusable)("control: a named file with a hard link that no command changes stays, and npm runs it", () => {
      const { base, home } = cellFolder(`yoke-redk24-hl-ok-${backend}-`, id, temps, { sandbox: { backend } });
      const ws = committedWorkspace(join(base, "ws"), { "package.json": JSON.stringify({ name: "a", version: "1.0.0", scripts: { t: "node -e 0" } }), ".npmrc": "fund=false\n" }, id);
      expect(exec(id, backend, ws, home, "mkdir -p tools src && echo '// pre' > tools/pre.js && ln tools/pre.js src/helper.js").code).toBe(0);
      writeFileSync(join(ws, ".npmrc"), "fund=false\nnode-options=--require ./tools/pre.js\n");
      const r = exec(id, backend, ws, home, "cat src/helper.js > /dev/null; echo ok > src/b.js");
      expect(r.code, r.out).toBe(0);
      expect(readFileSync(join(ws, "tools/pre.js"), "utf8")).toBe("// pre\n");
      expect(r.out).not.toContain("moved to");
    });
  });
});
