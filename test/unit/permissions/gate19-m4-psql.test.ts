/**
 * m4's `syscmd`/`esyscmd` and psql's `\!`, `\o |`, `\g |`, `\copy … program`, backquotes (session 19,
 * issue 18): read from the text Yoke has, as ed's escapes are, so the commands they run meet every rule
 * (Read rules too: `psql -c '\! cat .env'` was allowed under Read(**\/.env) in bypassPermissions before),
 * and what the readers cannot follow keeps asking. m4's readings are checked against the real m4 in
 * test/integration/gate19-m4-session.test.ts and by the differential checker (scripts/diffcheck.mjs).
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { m4Escapes } from "../../../src/core/permissions/shell/m4-escapes";
import { psqlEscapes } from "../../../src/core/permissions/shell/psql-escapes";
import { nodeListDir, nodeRealPath } from "../../../src/node/settings/files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

const bash = (command: string) => ({ tool: "run_command", permission: "Bash", input: { command }, mutates: true });

function gate(deny: string[] = ["Bash(rm:*)", "Read(**/.env)"]) {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "yoke-gate19-")));
  for (const [rel, text] of Object.entries({ "src/a.js": "x\n", ".env": "SECRET=1\n" })) {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  }
  return createPermissionGate({
    cwd: ws,
    home: join(ws, "home"),
    realPath: nodeRealPath,
    listDir: nodeListDir,
    loadSources: async () => [{ info: { kind: "extra", label: "test", baseDir: ws }, value: { permissions: { deny } } }],
    shellWasm: () => loadShellWasm(),
  });
}

describe("m4's escapes read", () => {
  it("reads syscmd's literal argument (quotes removed, comments kept) and refuses what builds names or reads files", () => {
    expect(m4Escapes("syscmd(rm -rf src)")).toEqual({ commands: ["rm -rf src"], unknown: [] });
    expect(m4Escapes("syscmd(`cat .env')dnl\n").commands).toEqual(["cat .env"]);
    expect(m4Escapes("m4_syscmd( `a, b' , c)").commands).toEqual(["a, b "]);
    expect(m4Escapes("syscmd(echo (a) # x, y\n)").commands).toEqual(["echo (a) # x, y\n"]);
    // A quote in a comment opens nothing: the syscmd after it runs.
    expect(m4Escapes("# don`t\nsyscmd(rm -rf src)").commands).toEqual(["rm -rf src"]);
    // Quoted text is output, never run.
    expect(m4Escapes("`syscmd(rm -rf src)'").commands).toEqual([]);
    // syscmd without parentheses is text in GNU m4.
    expect(m4Escapes("syscmd and esyscmd").commands).toEqual([]);
    for (const text of [
      "define(`x',`sys'`cmd($1)')x(rm -rf src)",
      "changequote([,])syscmd([rm])",
      "include(x.m4)",
      "undivert(`f')",
      "indir(`syscmd',`rm')",
      "maketemp(fooXXXXXX)",
      "syscmd(len(x))",
      "esyscmd(ls)",
      "syscmd(rm",
    ])
      expect(m4Escapes(text).unknown.length, text).toBeGreaterThan(0);
    expect(m4Escapes("undivert(1)divert(2)eval(1+2)").unknown).toEqual([]);
  });

  it("denies, asks and allows as the reading says", async () => {
    const g = gate();
    const cases: Array<[string, string]> = [
      ["m4 <<< 'syscmd(rm -rf src)'", "deny"],
      ["m4 <<< 'syscmd(cat .env)'", "deny"],
      ["printf 'm4_syscmd(cat .env)\\n' | m4 -P", "deny"],
      ["m4 -s --prefix-b <<< 'm4_syscmd(cat .env)'", "deny"],
      ["m4 - <<< 'syscmd(cat .env)'", "deny"],
      ["m4 <<< \"define(\\`x',\\`sys'\\`cmd(\\$1)')x(cat .env)\"", "ask"],
      ["m4 -DX=cat <<< 'syscmd(X .env)'", "not allow"],
      ["m4 -D X=cat <<< 'syscmd(X .env)'", "not allow"],
      ["m4 -DX=cat <<< 'X'", "ask"],
      ["m4 a.m4", "ask"],
      ["m4 -I inc a.m4", "ask"],
      ["cat a.m4 | m4", "ask"],
      ["m4 < a.m4", "ask"],
      ["m4 --debugfile=x <<< 'hi'", "ask"],
      ["m4 -F frozen <<< 'hi'", "ask"],
      ["m4 -R frozen <<< 'hi'", "ask"],
      // (gate22: the file include names is a read the Read rules judge.)
      ["m4 <<< 'include(.env)'", "deny"],
      ["m4 <<< 'esyscmd(echo hi)'", "ask"],
      ["m4 <<< 'hello eval(1+2)'", "allow"],
      ["m4 -DV=1.2 -s <<< 'V'", "allow"],
      ["m4 <<< 'syscmd(ls)dnl'", "allow"],
      ["m4 --version", "allow"],
    ];
    for (const [command, decision] of cases) {
      const d = (await g.check(bash(command), "bypassPermissions")).decision;
      if (decision === "not allow") expect(d, command).not.toBe("allow");
      else expect(d, command).toBe(decision);
    }
  });
});

describe("psql's escapes read", () => {
  it("reads \\!, \\o |, \\g |, \\copy … program and backquotes; refuses files, \\setenv and interpolated backquotes", () => {
    expect(psqlEscapes("\\! rm -rf src").commands).toEqual(["rm -rf src"]);
    expect(psqlEscapes("select 1 \\g |cat .env").commands).toEqual(["cat .env"]);
    expect(psqlEscapes("\\o | cat .env").commands).toEqual(["cat .env"]);
    expect(psqlEscapes("\\copy t from program 'cat ''.env'''").commands).toEqual(["cat '.env'"]);
    expect(psqlEscapes("\\set x `cat .env`").commands).toEqual(["cat .env"]);
    expect(psqlEscapes("select 1;\n\\echo hi").commands).toEqual([]);
    for (const text of ["\\i x.sql", "\\ir x.sql", "\\o out.txt", "\\setenv PATH .", "\\set x `:y`", "\\e", "\\w f", "\\copy t to 'f.csv'", "\\!"])
      expect(psqlEscapes(text).unknown.length, text).toBeGreaterThan(0);
  });

  it("denies, asks and allows as the reading says", async () => {
    const g = gate();
    const cases: Array<[string, string]> = [
      ["psql -c '\\! cat .env'", "deny"],
      ["psql -c 'select 1' -c '\\! rm -rf src'", "deny"],
      ["psql --comm='\\o |cat .env'", "deny"],
      ["psql -Xc '\\echo `cat .env`'", "deny"],
      ["psql <<< '\\! cat .env'", "deny"],
      ["psql -f - <<< '\\! cat .env'", "deny"],
      ["psql -c \"\\\\copy t from program 'rm -rf src'\"", "deny"],
      ["psql -c '\\i x.sql'", "ask"],
      ["psql -f x.sql", "ask"],
      ["psql -c '\\setenv A b'", "ask"],
      ["psql -o out.txt -c 'select 1'", "ask"],
      ["cat x.sql | psql", "ask"],
      ["PSQLRC=rc.sql psql -c 'select 1'", "ask"],
      ["PSQLRC=rc.sql psql -X -c 'select 1'", "allow"],
      ["psql -c 'select 1'", "allow"],
      ["psql -v x=1 --set=y=2 -c 'select :x'", "allow"],
      ["psql -c '\\! ls'", "allow"],
    ];
    for (const [command, decision] of cases) expect((await g.check(bash(command), "bypassPermissions")).decision, command).toBe(decision);
  });
});
