/**
 * gate18b (session 18): the gate's open items of session 17 that a corpus line cannot show.
 *
 * 1. npm's `editor` / `shell` / `script-shell` settings are read from npm's configuration (core/permissions/
 *    npm-config.ts through the gate's `npmConfig` port) instead of asking wherever a deny rule exists: the
 *    ordinary `npm explore PKG -- CMD` and `npm edit PKG` run under an unrelated deny rule, and a `.npmrc`
 *    (project, user, `--userconfig`) or `npm_config_*` naming `cat .env` or `rm -rf` is denied; what the
 *    reader is unsure of still asks. The reader is checked against the real npm (`npm config get`).
 * 2. ed seen only as a wrapper's candidate (`flock f ed x <<EOF`, `setsid ed`) is read like a direct ed
 *    when the wrapper hands it the line's input.
 * 3. A wrapper given a chain of wrappers (`setsid` + 1,990 × `nice`) stops following it at the word budget
 *    (the time is in the bench: permissions-adversarial's "wrapper given a wrapper chain").
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import type { NpmConfigPort } from "../../../src/core/permissions/context";
import { npmSettingValues, parseNpmrc } from "../../../src/core/permissions/npm-config";
import { nodeNpmConfig, readSmallText } from "../../../src/node/npm-config";
import { nodeListDir, nodeRealPath } from "../../../src/node/settings/files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

const bash = (command: string) => ({ tool: "run_command", permission: "Bash", input: { command }, mutates: true });

interface Setup {
  rules: Record<string, unknown>;
  /** Files below the workspace, with their text. */
  files?: Record<string, string>;
  /** Files below the home folder. */
  homeFiles?: Record<string, string>;
  env?: Record<string, string>;
  /** false: no npm configuration port (the gate as before). */
  port?: boolean;
}

function gateWith(s: Setup) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-gate18b-")));
  const ws = join(root, "ws");
  const home = join(root, "home");
  const write = (base: string, files: Record<string, string>) => {
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(base, rel)), { recursive: true });
      writeFileSync(join(base, rel), text);
    }
  };
  write(ws, { "package.json": '{"name":"app"}\n', "node_modules/foo/package.json": '{"name":"foo"}\n', ".env": "SECRET=1\n", "src/a.js": "x\n", "f.txt": "text\n", ...s.files });
  write(home, s.homeFiles ?? {});
  const npmConfig: NpmConfigPort = { readText: readSmallText, env: s.env ?? {}, globalFiles: [join(root, "global/etc/npmrc")] };
  const gate = createPermissionGate({
    cwd: ws,
    home,
    realPath: nodeRealPath,
    listDir: nodeListDir,
    loadSources: async () => [{ info: { kind: "extra", label: "test", baseDir: ws }, value: { permissions: s.rules } }],
    shellWasm: () => loadShellWasm(),
    ...(s.port === false ? {} : { npmConfig }),
  });
  return Object.assign(gate, { ws });
}

const DENY = { deny: ["Bash(rm -rf:*)", "Read(**/.env)"] };
const UNRELATED = { deny: ["Bash(rm -rf:*)"] };

describe("npm's program settings read from its configuration", () => {
  it("lets the ordinary npm explore and npm edit run under an unrelated deny rule (they asked in session 17)", async () => {
    const gate = gateWith({ rules: UNRELATED, env: { EDITOR: "vim" } });
    for (const c of ["npm explore foo -- ls", "npm explore foo -- 'ls package.json > listed.txt'", "npm edit foo", "npm edit foo --userconfig /dev/null"])
      expect(await gate.check(bash(c), "bypassPermissions"), c).toMatchObject({ decision: "allow" });
    // Without the port the settings are not known: as before.
    const before = gateWith({ rules: UNRELATED, port: false });
    const d = await before.check(bash("npm edit foo"), "bypassPermissions");
    expect(d).toMatchObject({ decision: "ask", rule: "Bash(rm -rf:*)" });
    expect(d.reason).toMatch(/npm edit runs the program its editor setting names/);
  });

  it("denies what a project .npmrc, the user's, --userconfig's or npm_config_* names", async () => {
    const cases: Array<[Setup, string, string]> = [
      [{ rules: DENY, files: { ".npmrc": "script-shell=cat .env #\n" } }, "npm explore foo -- ls", "Read(**/.env)"],
      [{ rules: DENY, files: { ".npmrc": "editor = cat .env #\n" } }, "npm edit foo", "Read(**/.env)"],
      [{ rules: DENY, files: { ".npmrc": "editor=vim\r\neditor=rm -rf src\r\n" } }, "npm edit foo", "Bash(rm -rf:*)"],
      [{ rules: DENY, files: { ".npmrc": 'editor = "rm -rf src"\n' } }, "npm edit foo", "Bash(rm -rf:*)"],
      [{ rules: DENY, files: { ".npmrc": "editor = rm -rf src ; a comment\n" } }, "npm edit foo", "Bash(rm -rf:*)"],
      [{ rules: DENY, files: { ".npmrc": "editor='\"cat .env\"'\n" } }, "npm edit foo", "Read(**/.env)"],
      [{ rules: DENY, files: { ".npmrc": "\ufeffeditor = cat .env\n" } }, "npm edit foo", "Read(**/.env)"],
      [{ rules: DENY, files: { ".npmrc": "editor[]=cat .env\n" } }, "npm edit foo", "Read(**/.env)"],
      [{ rules: DENY, homeFiles: { ".npmrc": "editor=cat .env\n" } }, "npm edit foo", "Read(**/.env)"],
      [{ rules: DENY, files: { "u.rc": "editor=cat .env\n" } }, "npm edit foo --userconfig u.rc", "Read(**/.env)"],
      [{ rules: DENY, files: { ".npmrc": "userconfig=u.rc\n", "u.rc": "editor=cat .env\n" } }, "npm edit foo", "Read(**/.env)"],
      [{ rules: DENY, env: { npm_config_EDITOR: "cat .env" } }, "npm edit foo", "Read(**/.env)"],
      [{ rules: DENY, env: { NPM_CONFIG_USERCONFIG: "/nonexistent", EV: "cat .env" }, files: { ".npmrc": "editor=${EV}\n" } }, "npm edit foo", "Read(**/.env)"],
      [{ rules: DENY, env: { EDITOR: "rm -rf src" } }, "npm edit foo", "Bash(rm -rf:*)"],
      // In a parent folder of the workspace (npm's project folder may be a workspace root above it).
      [{ rules: DENY, files: { "sub/package.json": "{}\n", ".npmrc": "editor=cat .env\n" } }, "cd sub && npm edit foo", "Read(**/.env)"],
    ];
    for (const [setup, command, rule] of cases) {
      const d = await gateWith(setup).check(bash(command), "bypassPermissions");
      expect(d, `${command} with ${JSON.stringify(setup.files ?? setup.homeFiles ?? setup.env)}`).toMatchObject({ decision: "deny", rule });
    }
  });

  it("asks where it cannot be sure, saying why", async () => {
    const unsure: Array<[Setup, string, RegExp]> = [
      [{ rules: DENY, files: { ".npmrc": "editor=${NOT_SET}\n" } }, "npm edit foo", /names a variable Yoke does not know/],
      [{ rules: DENY, files: { ".npmrc": "[editor]\nx=1\n" } }, "npm edit foo", /is not a string/],
      [{ rules: DENY }, "echo 'editor=cat .env' > .npmrc && npm edit foo", /setting names/],
      [{ rules: DENY }, "npm_config_editor='cat .env' npm edit foo", /setting names/],
      [{ rules: DENY }, "EDITOR='cat .env' npm edit foo", /setting names/],
      [{ rules: DENY }, "npm edit foo --globalconfig g.rc", /setting names/],
      [{ rules: DENY }, "npm explore foo", /reads its commands from the input/],
    ];
    for (const [setup, command, why] of unsure) {
      const d = await gateWith(setup).check(bash(command), "bypassPermissions");
      expect(d.decision, command).toBe("ask");
      expect(d.reason, command).toMatch(why);
    }
    // A FIFO named .npmrc (an earlier command's mkfifo) is no file: asked, and the check does not hang.
    const fifo = gateWith({ rules: DENY });
    if (spawnSync("mkfifo", [join(fifo.ws, ".npmrc")]).status === 0) {
      const f = await fifo.check(bash("npm edit foo"), "bypassPermissions");
      expect(f.decision).toBe("ask");
      expect(f.reason).toMatch(/which Yoke cannot read/);
    }
    // An unreadable .npmrc (a folder by that name).
    const gate = gateWith({ rules: DENY, files: { ".npmrc/x": "" } });
    const d = await gate.check(bash("npm edit foo"), "bypassPermissions");
    expect(d.decision).toBe("ask");
    expect(d.reason).toMatch(/which Yoke cannot read/);
  });

  it("reads ini with npm's ini: comments, quotes, escapes, the last of duplicate keys; sections and other cases are no setting", () => {
    const keys = new Set(["editor"]);
    const read = (...lines: string[]) => parseNpmrc(lines.join("\n"), keys, {});
    expect(read("; c", "# c", "Editor = a ; b", "editor = p\\;q").values.get("editor")).toEqual(["p;q"]);
    expect(read("editor='q r'").values.get("editor")).toEqual(["q r"]);
    expect(read('editor="x\\u0079"').values.get("editor")).toEqual(["xy"]);
    expect(read('editor="bad\\q"').values.get("editor")).toEqual(['"bad\\q"']);
    // npm 11 compares keys exactly and ignores sections: these set no editor (npm config get says vi).
    expect(read("EDITOR=a", "[s]", "editor=b").values.get("editor")).toBeUndefined();
    // A key alone is `true`: no program.
    expect(read("editor").values.get("editor")).toBeUndefined();
    expect(read("editor=a", "editor").unknown).toEqual([]);
  });

  it("allows the edit where npm reads no program from the file (checked against npm 11 in npm-ini-differential)", async () => {
    // (`'rm -rf src' ; …`: ini keeps the quotes before a comment, npm edit spawns the program `'rm`.)
    for (const text of ["EDITOR=rm -rf src\n", "[section]\neditor = rm -rf src\n", "editor=rm -rf src\neditor=vim\n", "editor = 'rm -rf src' ; a comment\n"]) {
      const d = await gateWith({ rules: DENY, files: { ".npmrc": text } }).check(bash("npm edit foo"), "bypassPermissions");
      expect(d.decision, text).toBe("allow");
    }
  });

  const haveNpm = spawnSync("npm", ["--version"], { encoding: "utf8" }).status === 0;
  it.skipIf(!haveNpm)(
    "agrees with the real npm: the value npm config get reports is among the values read",
    async () => {
      const texts = [
        'editor = "cat .env" ; x',
        "editor='\"cat .env\"'",
        'editor="cat\\q .env"',
        "editor = cat .env #",
        "editor=cat .env ; x",
        'editor = "cat .env"',
        "editor='cat .env'",
        "EDITOR = cat .e\\#nv",
        "editor=cat ${EV}",
        "  editor  =  cat   .env  ",
      ];
      for (const text of texts) {
        const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-gate18b-npm-")));
        writeFileSync(join(dir, "package.json"), "{}\n");
        writeFileSync(join(dir, ".npmrc"), `${text}\n`);
        const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home"), EV: ".env" };
        const real = spawnSync("npm", ["config", "get", "editor"], { cwd: dir, env, encoding: "utf8" });
        expect(real.status, real.stderr).toBe(0);
        const ours = await npmSettingValues(["editor"], dir, { readText: readSmallText, env, home: env.HOME, globalFiles: [] });
        expect(ours.unknown, text).toEqual([]);
        expect(ours.values.editor, text).toContain(real.stdout.trim());
      }
    },
    120_000,
  );

  it("reads the real files through the node port (a missing file is no layer; /dev/null is empty)", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-gate18b-port-")));
    writeFileSync(join(dir, ".npmrc"), "editor=nano\n");
    expect(await readSmallText(join(dir, ".npmrc"))).toBe("editor=nano\n");
    expect(await readSmallText(join(dir, "none"))).toBeUndefined();
    expect(await readSmallText("/dev/null")).toBe("");
    expect(await readSmallText(dir)).toBeNull();
    const port = nodeNpmConfig({});
    const v = await npmSettingValues(["editor"], dir, { ...port, home: join(dir, "home") });
    expect(v.values.editor).toEqual(expect.arrayContaining(["nano", "vi"]));
  });
});

describe("ed as a wrapper's candidate, with the input the wrapper hands it", () => {
  it("reads its escapes like a direct ed's: the ordinary edit runs, an escape meets the rules", async () => {
    const gate = gateWith({ rules: DENY });
    const edit = "1s/text/edited/\nw\nq";
    for (const c of [
      `flock f ed -s f.txt <<'EOF'\n${edit}\nEOF`,
      `setsid ed -s f.txt <<< $'${edit.replace(/\n/g, "\\n")}'`,
      `printf '1s/a/b/\\nw\\n' | setsid ed -s f.txt`,
      `taskset 3 ed -s f.txt <<EOF\n!ls\nq\nEOF`,
    ])
      expect(await gate.check(bash(c), "bypassPermissions"), c).toMatchObject({ decision: "allow" });
    expect(await gate.check(bash("flock f ed -s f.txt <<EOF\n!cat .env\nq\nEOF"), "bypassPermissions")).toMatchObject({ decision: "deny", rule: "Read(**/.env)" });
    expect(await gate.check(bash("printf '!rm -rf src\\n' | setsid ed -s f.txt"), "bypassPermissions")).toMatchObject({ decision: "deny", rule: "Bash(rm -rf:*)" });
    expect(await gate.check(bash("setsid nice ed -s f.txt <<EOF\n!cat .env\nEOF"), "bypassPermissions")).toMatchObject({ decision: "deny", rule: "Read(**/.env)" });
  });

  it("asks where the wrapper or a word before ed may give it another input", async () => {
    const gate = gateWith({ rules: DENY });
    for (const c of ["setsid runner ed -s f.txt <<EOF\n!ls\nEOF", "flock f psql ed -s f.txt <<EOF\n!ls\nEOF", "flock f ed -s f.txt < cmds", "xterm -e ed -s f.txt <<EOF\n!ls\nEOF"]) {
      const d = await gate.check(bash(c), "bypassPermissions");
      expect(d.decision, c).toBe("ask");
    }
  });
});

describe("a wrapper given a chain of wrappers", () => {
  it("follows the chain's readings only up to the word budget, then asks where a deny rule exists", async () => {
    const gate = gateWith({ rules: UNRELATED });
    const d = await gate.check(bash(`setsid ${"nice ".repeat(1990)}ls`), "bypassPermissions");
    expect(d.decision).toBe("ask");
    expect(d.reason).toMatch(/more words than Yoke follows as that command|nests more than 64 wrappers/);
    // A short chain is still read through.
    expect(await gate.check(bash(`setsid ${"nice ".repeat(10)}rm -rf src`), "bypassPermissions")).toMatchObject({ decision: "deny", rule: "Bash(rm -rf:*)" });
    expect(await gate.check(bash(`setsid ${"nice ".repeat(10)}ls`), "bypassPermissions")).toMatchObject({ decision: "allow" });
  });
});
