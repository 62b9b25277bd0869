/**
 * Red team F (session 18) on the npm configuration reader (core/permissions/npm-config.ts): npm's ini reads
 * KEYS as it reads values (quotes, JSON escapes, comments), and a command line may set the variables npm reads
 * itself (PREFIX, DESTDIR) or a .npmrc expands. Checked against the real npm 11 (`npm config get editor`);
 * the full-session proof (real npm deleting under Bash(rm -rf:*) on the old build) is
 * test/integration/red-f18-npm.test.ts.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { npmSettingValues } from "../../../src/core/permissions/npm-config";
import { readSmallText } from "../../../src/node/npm-config";
import { nodeListDir, nodeRealPath } from "../../../src/node/settings/files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

const bash = (command: string) => ({ tool: "run_command", permission: "Bash", input: { command }, mutates: true });
const HOST_ENV = { PATH: "/usr/bin:/bin", USER: "root", LANG: "C.UTF-8" };

function gateWith(files: Record<string, string>, env: Record<string, string> = {}, links: Record<string, string> = {}) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-redf18-")));
  const ws = join(root, "ws");
  const home = join(root, "home");
  for (const [rel, text] of Object.entries({ "package.json": '{"name":"app"}\n', "node_modules/foo/package.json": "{}\n", "src/a.js": "x\n", ...files })) {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  }
  for (const [link, target] of Object.entries(links)) symlinkSync(target, join(ws, link));
  mkdirSync(home, { recursive: true });
  return createPermissionGate({
    cwd: ws,
    home,
    realPath: nodeRealPath,
    listDir: nodeListDir,
    loadSources: async () => [{ info: { kind: "extra", label: "test", baseDir: ws }, value: { permissions: { deny: ["Bash(rm -rf:*)"] } } }],
    shellWasm: () => loadShellWasm(),
    npmConfig: { readText: readSmallText, env: { ...HOST_ENV, ...env }, globalFiles: [join(root, "g/etc/npmrc")] },
  });
}

const KEYS = ['"editor"', "'editor'", "editor ;c", "editor#c", '"\\u0065ditor"', '  "editor"  ', "editor[]"];

describe(".npmrc keys as npm's ini reads them", () => {
  it("denies what a quoted, escaped or commented key names", async () => {
    for (const k of KEYS) {
      const d = await gateWith({ ".npmrc": `${k}=rm -rf src\n` }).check(bash("npm edit foo"), "bypassPermissions");
      expect(d, k).toMatchObject({ decision: "deny", rule: "Bash(rm -rf:*)" });
    }
    // Another key (a section's, a longer name) names no program; the ordinary edit runs.
    for (const text of ["editors=rm -rf src\n", "[x]editor=rm -rf src\n", "editor=vim\n", '"Editor"=rm -rf src\n'])
      expect(await gateWith({ ".npmrc": text }).check(bash("npm edit foo"), "bypassPermissions"), text).toMatchObject({ decision: "allow" });
  });

  const haveNpm = spawnSync("npm", ["--version"], { encoding: "utf8" }).status === 0;
  it.skipIf(!haveNpm)(
    "agrees with the real npm: the editor npm config get reports is among the values read",
    async () => {
      // (npm matches keys in their case; so does Yoke since it reads with npm's ini — session 19.)
      for (const k of KEYS.filter((key) => !key.endsWith("[]") && key === key.toLowerCase())) {
        const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-redf18-npm-")));
        writeFileSync(join(dir, "package.json"), "{}\n");
        writeFileSync(join(dir, ".npmrc"), `${k}=cat .env\n`);
        const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home") };
        const real = spawnSync("npm", ["config", "get", "editor"], { cwd: dir, env, encoding: "utf8" });
        expect(real.status, real.stderr).toBe(0);
        expect(real.stdout.trim(), k).toBe("cat .env");
        const ours = await npmSettingValues(["editor"], dir, { readText: readSmallText, env, home: env.HOME, globalFiles: [] });
        expect(ours.values.editor, k).toContain("cat .env");
      }
    },
    120_000,
  );
});

describe("variables the line sets for npm", () => {
  it("asks when the line names a variable npm reads itself or a .npmrc expands, saying why", async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ "p/etc/npmrc": "editor=rm -rf src\n" }, "PREFIX=p npm edit foo"],
      [{ "p/etc/npmrc": "editor=rm -rf src\n" }, "export PREFIX=p; npm edit foo"],
      [{ "d/usr/etc/npmrc": "editor=rm -rf src\n" }, "DESTDIR=d npm edit foo"],
      [{ ".npmrc": "editor=${USER}\n" }, "USER='rm -rf src' npm edit foo"],
      [{ ".npmrc": "editor=${LANG}\n" }, "export LANG='rm -rf src'; npm edit foo"],
      [{ ".npmrc": "userconfig=${LANG}\n" }, "LANG=u.rc npm edit foo"],
      // npm's own input as its configuration (the real npm reads the piped text).
      [{}, "printf 'editor=rm -rf src\\n' | npm edit foo --userconfig /dev/stdin"],
      [{ ".npmrc": "globalconfig=/proc/self/fd/0\n" }, "npm edit foo < e.rc"],
    ];
    for (const [files, command] of cases) {
      const d = await gateWith(files).check(bash(command), "bypassPermissions");
      expect(d.decision, command).toBe("ask");
      expect(d.reason, command).toMatch(/npm edit runs the program its editor setting names|a file of its own process/);
    }
    // A variable no file expands, set on the line, changes nothing npm reads: the edit runs.
    expect(await gateWith({ ".npmrc": "editor=vim\n" }).check(bash("LANG=C npm edit foo"), "bypassPermissions")).toMatchObject({ decision: "allow" });
  });

  it("reads the host's own PREFIX and DESTDIR as npm does", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-redf18-pfx-")));
    mkdirSync(join(dir, "p/etc"), { recursive: true });
    writeFileSync(join(dir, "p/etc/npmrc"), "editor=from-prefix\n");
    mkdirSync(join(dir, "d/g/etc"), { recursive: true });
    writeFileSync(join(dir, "d/g/etc/npmrc"), "editor=from-destdir\n");
    const src = { readText: readSmallText, home: join(dir, "home"), globalFiles: ["/g/etc/npmrc"] };
    expect((await npmSettingValues(["editor"], dir, { ...src, env: { PREFIX: join(dir, "p") } })).values.editor).toContain("from-prefix");
    expect((await npmSettingValues(["editor"], dir, { ...src, env: { DESTDIR: "d" } })).values.editor).toContain("from-destdir");
    expect((await npmSettingValues(["editor"], dir, { ...src, env: {} })).variables).toEqual(expect.arrayContaining(["PREFIX", "DESTDIR", "HOME", "EDITOR"]));
  });
});

describe("a folder reached through a link", () => {
  it("reads the configuration npm reads from the physical folder (its project above the link's target, relative --userconfig)", async () => {
    const project = { "deep/b/package.json": "{}\n", "deep/b/node_modules/foo/package.json": "{}\n", "deep/b/c/keep.txt": "" };
    const links = { lnk: "deep/b/c" };
    for (const c of ["cd lnk && npm edit foo", "cd -P lnk && npm edit foo", "cd lnk; npm edit foo"]) {
      const d = await gateWith({ ...project, "deep/b/.npmrc": "editor=rm -rf ../../../src\n" }, {}, links).check(bash(c), "bypassPermissions");
      expect(d, c).toMatchObject({ decision: "deny", rule: "Bash(rm -rf:*)" });
    }
    const u = await gateWith({ ...project, "deep/b/u.rc": "editor=rm -rf src\n" }, {}, links).check(bash("cd lnk && npm edit foo --userconfig ../u.rc"), "bypassPermissions");
    expect(u).toMatchObject({ decision: "deny", rule: "Bash(rm -rf:*)" });
    // The same folders with a harmless editor: the edit runs.
    const ok = await gateWith({ ...project, "deep/b/.npmrc": "editor=vim\n" }, {}, links).check(bash("cd lnk && npm edit foo"), "bypassPermissions");
    expect(ok).toMatchObject({ decision: "allow" });
  });
});
