/**
 * Red team A, session 23: package managers' own configuration, and the programs it names, written by
 * a sandboxed command and run by the person's next package-manager command on the host. Before the
 * fix each plant below landed and ran (real corepack 0.34 ran a planted "installed" yarn chosen by
 * `.corepack.env`'s COREPACK_HOME; real npm loaded `.npmrc`'s `node-options=--require ./tools/pre.js`
 * after the command rewrote tools/pre.js; real yarn ran a rewritten `yarnPath` file; pnpm 12 ran
 * `.pnpmfile.mjs` and pnpm-workspace.yaml's pnpmfile/scriptShell). One `yoke sandbox exec` per
 * identity × backend; outcomes: the files unchanged or absent, the person's `npm run` and `corepack
 * yarn` on the host write no marker; control: `src/ok.js` is written.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, spawnAs, type Identity } from "../support/identities";
import { sandboxBackends } from "../support/sandbox-matrix";

const temps: string[] = [];
const who = identities();
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const PRE = "// the team's preload\n";
const RELEASE = 'console.log("4.9.9")\n';

function workspace(owner: Identity) {
  const base = mkdtempSync(join(tmpdir(), "yoke-red23a-"));
  temps.push(base);
  chmodSync(base, 0o755);
  const ws = join(base, "ws");
  const marks = join(base, "marks");
  mkdirSync(marks);
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  };
  put("package.json", JSON.stringify({ name: "a", version: "1.0.0", packageManager: "yarn@1.22.22", scripts: { t: "node -e 0" } }));
  put(".npmrc", "node-options=--require ./tools/pre.js\n");
  put("tools/pre.js", PRE);
  put(".yarnrc.yml", "yarnPath: .yarn/releases/yarn-4.9.9.cjs\n");
  put(".yarn/releases/yarn-4.9.9.cjs", RELEASE);
  execFileSync("git", ["init", "-q", ws]);
  execFileSync("git", ["-C", ws, "add", "-A"]);
  execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-qm", "init"]);
  chownTree(base, owner);
  return { ws, marks };
}

const plant = (marks: string) => {
  const js = (name: string) => `require("fs").writeFileSync(${JSON.stringify(join(marks, name))}, "ran")`;
  return [
    // corepack: an "installed" yarn in the workspace, chosen by COREPACK_HOME from .corepack.env.
    'printf "COREPACK_HOME=%s/.t\\n" "$PWD" > .corepack.env',
    "mkdir -p .t/v1/yarn/1.22.22",
    `echo '{"hash":"x","bin":{"yarn":"y.js"}}' > .t/v1/yarn/1.22.22/.corepack`,
    `echo '${js("corepack")}' > .t/v1/yarn/1.22.22/y.js`,
    // pnpm: its default hook file and its settings file.
    `echo 'import fs from "fs"; fs.writeFileSync(${JSON.stringify(join(marks, "pnpmfile"))}, "ran"); export const hooks = {};' > .pnpmfile.mjs`,
    "printf 'scriptShell: ./tools/sh.sh\\n' > pnpm-workspace.yaml",
    // What the committed .npmrc and .yarnrc.yml name.
    `echo '${js("npm")}' > tools/pre.js`,
    `echo '${js("yarn")}' > .yarn/releases/yarn-4.9.9.cjs`,
    "mkdir -p src && echo ok > src/ok.js",
    "true",
  ].join("; ");
};

describe.each(who.list)("package managers' configuration as $label", (id) => {
  describe.each(sandboxBackends())("%s", (backend, unusable) => {
    it.skipIf(unusable !== undefined)(
      "a command cannot plant .corepack.env, .pnpmfile.mjs, pnpm-workspace.yaml nor rewrite what .npmrc and .yarnrc.yml name",
      async () => {
        const { ws, marks } = workspace(id);
        const r = await runCliAs(id, ["sandbox", "exec", "--backend", backend, "--cwd", ws, "--", "sh", "-c", plant(marks)], { timeoutMs: 90_000 });
        // The control: ordinary work is written.
        expect(readFileSync(join(ws, "src/ok.js"), "utf8"), r.stderr).toBe("ok\n");
        expect(existsSync(join(ws, ".corepack.env"))).toBe(false);
        expect(existsSync(join(ws, ".pnpmfile.mjs"))).toBe(false);
        expect(existsSync(join(ws, "pnpm-workspace.yaml"))).toBe(false);
        expect(readFileSync(join(ws, "tools/pre.js"), "utf8")).toBe(PRE);
        expect(readFileSync(join(ws, ".yarn/releases/yarn-4.9.9.cjs"), "utf8")).toBe(RELEASE);
        // The person's own commands on the host run nothing planted (corepack offline: it may not fetch).
        spawnSync("npm", ["run", "t"], { cwd: ws, timeout: 60_000, ...spawnAs(id) });
        if (spawnSync("corepack", ["--version"], { timeout: 30_000 }).status === 0)
          spawnSync("corepack", ["yarn", "--version"], { cwd: ws, timeout: 60_000, ...spawnAs(id, { COREPACK_ENABLE_NETWORK: "0" }) });
        expect(readdirSync(marks)).toEqual([]);
      },
      120_000,
    );
  });
});

it("runs as root and as an unprivileged user (or says why it cannot)", () => {
  if (who.missing) console.warn(who.missing);
  expect(who.list.length).toBeGreaterThanOrEqual(1);
});
