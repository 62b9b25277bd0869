/**
 * The security corpus of the shell analysis (issue 8): test/fixtures/permissions-attacks.json runs
 * through the CLI code path (`yoke permissions check --json`) in fresh temporary workspaces with
 * real files, a bare repository layout and symlinks; every case must agree (decision, rule and,
 * where given, the sandbox confinement). Then the parts a fixture cannot show: case folding,
 * bounded work, the model-facing reasons.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createCorpusRunner, loadPermissionCorpus } from "../../../src/bench/permissions-corpus";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { probeCaseInsensitive } from "../../../src/node/fs-probes";
import { nodeListDir } from "../../../src/node/settings/files";
import { nodeRealPath } from "../../../src/node/settings/files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

const corpus = loadPermissionCorpus(join(process.cwd(), "test", "fixtures", "permissions-attacks.json"));
const runner = createCorpusRunner(corpus);
afterAll(() => runner.dispose(), 180_000);

const bash = (command: string) => ({ tool: "run_command", permission: "Bash", input: { command }, mutates: true });

function workspace(rules: Record<string, unknown>, opts: { caseInsensitive?: boolean } = {}) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-attack-")));
  const ws = join(root, "ws");
  for (const f of ["src/a.ts", ".env", "secrets/key.txt", ".git/config"]) {
    mkdirSync(dirname(join(ws, f)), { recursive: true });
    writeFileSync(join(ws, f), "x\n");
  }
  return createPermissionGate({
    cwd: ws,
    home: join(root, "home"),
    realPath: nodeRealPath,
    listDir: nodeListDir,
    caseInsensitive: opts.caseInsensitive,
    loadSources: async () => [{ info: { kind: "extra", label: "test", baseDir: ws }, value: { permissions: rules } }],
    shellWasm: () => loadShellWasm(),
  });
}

describe("shell attacks corpus", () => {
  it("covers every class of issue 8 with unique ids", () => {
    expect(new Set(corpus.cases.map((c) => c.id)).size).toBe(corpus.cases.length);
    const categories = new Set(corpus.cases.map((c) => c.category));
    for (const k of [
      "hidden substitutions",
      "git",
      "globs",
      "cd tracking",
      "tilde",
      "bypass",
      "allow rules that run code",
      "run-time arguments",
      "rule semantics",
      "protected paths",
      "other attacks",
    ]) {
      expect(categories.has(k), k).toBe(true);
    }
    for (const m of ["default", "acceptEdits", "plan", "bypassPermissions"])
      expect(
        corpus.cases.some((c) => c.mode === m),
        m,
      ).toBe(true);
  });

  it("agrees with every expected decision, rule and confinement (100%)", async () => {
    const failures: string[] = [];
    for (const c of corpus.cases) {
      const got = await runner.run(c);
      expect(got.exitCode).toBe(0);
      if (!got.agrees)
        failures.push(
          `${c.id} [${c.category}] ${JSON.stringify(c.input.command)} mode=${c.mode}: expected ${JSON.stringify(got.expected)}, got ${got.decision} ${got.rule} ${JSON.stringify(got.confine ?? null)} — ${got.reason}`,
        );
    }
    expect(failures, failures.join("\n")).toEqual([]);
  }, 300_000);
});

describe("case variants on a case-insensitive file system", () => {
  it("folds case in deny rules, sensitive names and protected paths when the file system ignores case", async () => {
    const gate = workspace({ deny: ["Read(./.env)", "Read(./secrets/**)"] }, { caseInsensitive: true });
    expect(await gate.check(bash("cat .ENV"), "bypassPermissions")).toMatchObject({ decision: "deny", rule: "Read(./.env)" });
    expect(await gate.check(bash("cat SECRETS/Key.txt"), "default")).toMatchObject({ decision: "deny", rule: "Read(./secrets/**)" });
    const write = await gate.check(bash("echo x > .GIT/config"), "bypassPermissions");
    expect(write).toMatchObject({ decision: "ask" });
    expect(write.reason).toMatch(/git configuration can run programs/);
  });

  it("on a case-sensitive file system, deny rules still ignore case (fail closed: .ENV is denied too)", async () => {
    const gate = workspace({ deny: ["Read(./.env)"] }, { caseInsensitive: false });
    expect(await gate.check(bash("cat .ENV"), "bypassPermissions")).toMatchObject({ decision: "deny", rule: "Read(./.env)" });
  });

  it("probes the real file system (this one is case-sensitive)", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-case-")));
    writeFileSync(join(dir, "abc"), "");
    expect(probeCaseInsensitive(dir)).toBe(false);
    const empty = realpathSync(mkdtempSync(join(tmpdir(), "yoke-case-")));
    expect(probeCaseInsensitive(empty)).toBe(false);
  });
});

describe("bounded work", () => {
  it("asks for a command larger than 100 KB, or with too many commands or words, saying why", async () => {
    const gate = workspace({ deny: ["Bash(rm:*)"] });
    const big = await gate.check(bash(`echo '${"a".repeat(100_001)}'`), "bypassPermissions");
    expect(big).toEqual({ decision: "ask", by: "mode", rule: null, reason: "The command is too large to analyse (100008 characters; the limit is 100000), so it needs approval." });
    expect((await gate.check(bash(Array.from({ length: 2000 }, () => "echo a").join(" && ")), "bypassPermissions")).reason).toBe(
      "The command is too large to analyse (more than 500 commands), so it needs approval.",
    );
    expect((await gate.check(bash(`cat ${"src/a.ts ".repeat(6000)}`), "default")).reason).toBe("The command is too large to analyse (more than 2000 words), so it needs approval.");
  });

  it("still analyses a large here-document that holds no expansions", async () => {
    const gate = workspace({ deny: ["Bash(rm:*)"] });
    const body = Array.from({ length: 3000 }, (_, i) => `line ${i} with some words`).join("\n");
    expect(await gate.check(bash(`cat > notes.txt <<'EOF'\n${body}\nEOF`), "acceptEdits")).toMatchObject({ decision: "allow" });
    expect(await gate.check(bash(`cat > notes.txt <<'EOF'\n${body}\nEOF\nrm -rf src`), "acceptEdits")).toMatchObject({ decision: "deny", rule: "Bash(rm:*)" });
  });
});

describe("what the model is told", () => {
  it("names the rule and the part it could not see into", async () => {
    const gate = workspace({ deny: ["Bash(rm:*)", "Read(./.env)"] });
    expect(await gate.check(bash("echo 'rm -rf x' | sh"), "bypassPermissions")).toMatchObject({
      decision: "ask",
      rule: "Bash(rm:*)",
      reason:
        "`sh`: sh runs a script read from its input, which Yoke cannot see, so Yoke cannot rule out that the deny rule Bash(rm:*) (test) applies; it needs approval even in bypassPermissions mode.",
    });
    expect((await gate.check(bash("cat $PWD/.env"), "default")).reason).toBe(
      "`cat $PWD/.env` reads $PWD/.env (only known when it runs), which the deny rule Read(./.env) (test) might cover, so it needs approval.",
    );
  });

  // Red team A, session 22: with the name glued to -a the reason showed the option twice ("exec -a -a"x" starts ls").
  it("names exec -a's name once, glued to -a or not", async () => {
    const gate = workspace({ allow: ["Bash(ls:*)"] });
    for (const command of ['exec -a"x" ls', "exec -ax ls", "exec -a x ls", "exec -la x ls"])
      expect((await gate.check(bash(command), "default")).reason, command).toContain("exec -a x starts ls under another name");
  });

  it("says which option an allow rule does not cover", async () => {
    const gate = workspace({ allow: ["Bash(npm run test:*)"] });
    expect((await gate.check(bash("npm run test --script-shell=./x.sh"), "default")).reason).toBe(
      "`npm run test --script-shell=./x.sh` needs approval (the rule Bash(npm run test:*) does not cover --script-shell: it makes npm run another program or another project's scripts).",
    );
  });
});
