/**
 * gate18 (session 17): the parts of the fixes a corpus line cannot show — ed's escape reading against
 * the real GNU ed (what it hands to `sh -c`), the reasons the model is told (flock does not "run with
 * sudo"; the program that raised privileges is named), and that the compiler/JVM/make/npm readings
 * leave their ordinary forms allowed in every mode the docs promise.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { edEscapes } from "../../../src/core/permissions/shell/ed-escapes";
import { nodeListDir, nodeRealPath } from "../../../src/node/settings/files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

const bash = (command: string) => ({ tool: "run_command", permission: "Bash", input: { command }, mutates: true });

function gateWith(rules: Record<string, unknown>) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-gate18-")));
  const ws = join(root, "ws");
  for (const f of ["src/a.c", ".env", "README.md"]) {
    mkdirSync(dirname(join(ws, f)), { recursive: true });
    writeFileSync(join(ws, f), "x\n");
  }
  return createPermissionGate({
    cwd: ws,
    home: join(root, "home"),
    realPath: nodeRealPath,
    listDir: nodeListDir,
    loadSources: async () => [{ info: { kind: "extra", label: "test", baseDir: ws }, value: { permissions: rules } }],
    shellWasm: () => loadShellWasm(),
  });
}

const haveEd = spawnSync("ed", ["--version"]).status === 0;

describe("ed's shell escapes, read as GNU ed hands them to sh -c", () => {
  it("reads !CMD, r/w/e !CMD after addresses, g/RE/!CMD, % and \\%, and !!", () => {
    const r = edEscapes(["!echo A % B", "!echo C \\% D", "!!", "r !date", "1,$w !wc -l", "e !ls", "g/x/!touch y", "s/a/!b/", "q"].join("\n"), "f");
    // (`e !ls` is read although the real ed refuses it on a modified buffer: more commands than run, never fewer.)
    expect(r.commands).toEqual(["echo A f B", "echo C % D", "echo C % D", "date", "wc -l", "ls", "touch y"]);
    expect(r.unknown).toEqual([]);
  });

  it("cannot place % without a file name, or after a command that renames the file, nor !! with no escape before it", () => {
    expect(edEscapes("!cat %\n", undefined).unknown).toHaveLength(1);
    expect(edEscapes("f other\n!cat %\n", "f").unknown).toHaveLength(1);
    expect(edEscapes("!!\n", "f").unknown).toHaveLength(1);
  });

  const haveStrace = spawnSync("strace", ["-V"]).status === 0;
  it.skipIf(!haveEd || !haveStrace)("agrees with the real ed on what each escape runs (traced: the line ed hands to sh -c)", () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-gate18-ed-"));
    writeFileSync(join(dir, "f"), "x\n");
    const input = ["!echo A % B", "!echo C \\% D", "!!", "!! E", "r !date", "1,$w !wc -l", "g/x/!touch y", "q"].join("\n");
    const r = spawnSync("strace", ["-f", "-qq", "-e", "trace=execve", "-s", "300", "ed", "-s", "f"], { cwd: dir, input: `${input}\n`, encoding: "utf8" });
    const seen = [...r.stderr.matchAll(/execve\("\/bin\/sh", \["sh", "-c", "((?:[^"\\]|\\.)*)"\]/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
    expect(seen.length).toBeGreaterThan(5);
    expect(seen).toEqual(edEscapes(input, "f").commands);
  });
});

describe("what the model is told", () => {
  it("flock is not read as elevating; sudo, doas and su are named", async () => {
    const gate = gateWith({ deny: ["Read(**/.env)"] });
    const flock = await gate.check(bash("flock /dev/null gcc -c src/a.c"), "acceptEdits");
    expect(flock.decision).toBe("ask");
    expect(flock.reason).not.toMatch(/sudo/);
    expect((await gate.check(bash("sudo cat README.md"), "acceptEdits")).reason).toMatch(/it runs with sudo/);
    expect((await gate.check(bash("doas ls"), "acceptEdits")).reason).toMatch(/it runs with doas/);
    expect((await gate.check(bash("su -c 'cat README.md'"), "acceptEdits")).reason).toMatch(/it runs with su\b/);
  });

  it("names what a compiler, the JVM, make and ed read when it runs", async () => {
    const gate = gateWith({ deny: ["Read(**/.env)"] });
    expect((await gate.check(bash("gcc -B b/ -c src/a.c"), "bypassPermissions")).reason).toMatch(/runs its stages \(cc1, as, ld\) from another folder \(-B b\/\)/);
    expect((await gate.check(bash("gcc -specs=s.specs src/a.c"), "bypassPermissions")).reason).toMatch(/spec strings/);
    expect((await gate.check(bash("java @o A.java"), "bypassPermissions")).reason).toMatch(/java reads more options from @o/);
    expect((await gate.check(bash("make CFLAGS='-O2 -g'"), "bypassPermissions")).reason).toMatch(/make is given CFLAGS=-O2 -g, which a recipe may run/);
    expect((await gate.check(bash("ed -s f <<< '!!'"), "bypassPermissions")).reason).toMatch(/repeats an escape Yoke cannot place/);
  });
});

describe("ordinary forms stay allowed", () => {
  it("in bypassPermissions under deny rules", async () => {
    const gate = gateWith({ deny: ["Read(**/.env)", "Bash(rm -rf:*)"] });
    for (const c of [
      "gcc -O2 -Wall -c src/a.c -o a.o",
      "setsid gcc-12 -c src/a.c",
      "x86_64-w64-mingw32-gcc -O2 -c src/a.c",
      "clang -fuse-ld=lld src/a.c -o a",
      "gcc -fplugin=annobin -c src/a.c",
      "java -Xmx2g -jar app.jar",
      "make CC=clang -j4",
      "make test V=1",
      // (`npm edit lodash` asks since red team A: a committed .npmrc may name the editor; with --editor given it is read.)
      "npm edit lodash --editor=vim",
      "echo '!ls > listed.txt' | ed -s README.md",
      "printf '%s\\n' 1d w q | ed -s README.md",
      "taskset 1 bash -c 'cat README.md'",
      "docker exec -it web sh",
      "flock /tmp/l make test",
    ])
      expect({ c, d: (await gate.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, d: "allow" });
  });

  it("the real ed ran the ordinary escape (a control for the line above)", () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-gate18-edrun-"));
    writeFileSync(join(dir, "README.md"), "hi\n");
    if (!haveEd) return;
    execFileSync("bash", ["-c", "echo '!ls > listed.txt' | ed -s README.md"], { cwd: dir });
    expect(readFileSync(join(dir, "listed.txt"), "utf8")).toMatch(/README\.md/);
  });
});
