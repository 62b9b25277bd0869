/**
 * Code inside data (issue 18): every construct in which bash evaluates a word again — as
 * arithmetic or as a variable name — first runs in real bash, in a temporary folder, to show that
 * it really runs the code hidden in its data (a marker file appears); then the gate must ask for
 * it (default and bypassPermissions with a deny rule) and deny it in plan mode. Forms that look
 * alike but are safe in bash (`test x -eq 1` does not evaluate arithmetic) stay allowed, and are
 * checked with bash too.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { nodeListDir, nodeRealPath } from "../../../src/node/settings-files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-code-in-data-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const ws = join(root, "ws");
mkdirSync(join(ws, "src"), { recursive: true });
writeFileSync(join(ws, "src/a.ts"), "x\n");
writeFileSync(join(ws, "README.md"), "hello\n");

const gate = createPermissionGate({
  cwd: ws,
  home: join(root, "home"),
  realPath: nodeRealPath,
  listDir: nodeListDir,
  loadSources: async () => [{ info: { kind: "extra", label: "test", baseDir: ws }, value: { permissions: { deny: ["Bash(rm:*)", "Read(./.env)"] } } }],
  shellWasm: () => loadShellWasm(),
});
const check = (command: string, mode: "default" | "plan" | "bypassPermissions") => gate.check({ tool: "run_command", permission: "Bash", input: { command }, mutates: true }, mode);

/** Runs the command in real bash in a fresh folder; true when the marker command ran. */
function bashRunsIt(command: string): boolean {
  const dir = mkdtempSync(join(root, "bash-"));
  writeFileSync(join(dir, "f"), "a[$(touch hit)]\n");
  try {
    execFileSync("bash", ["-c", command], { cwd: dir, stdio: "ignore", timeout: 10_000 });
  } catch {
    // Many of these end in an error after the substitution ran: the marker is what counts.
  }
  return existsSync(join(dir, "hit"));
}

const P = "a[$(touch hit)]";
/** Each runs `touch hit` in bash 5 although no command line part names it as a command. */
const EVALUATED = [
  `test -v '${P}'`,
  `[ -v '${P}' ]`,
  `printf -v '${P}' x`,
  `read '${P}' < /dev/null`,
  `sleep 0 & wait -p '${P}' -n`,
  `declare '${P}=1'`,
  `f() { local '${P}=1'; }; f`,
  `typeset '${P}=1'`,
  `a=(1 2); unset '${P}'`,
  `let '${P}'`,
  `x='${P}'; echo $((x))`,
  `x='${P}'; echo $(( $x ))`,
  `x='${P}'; echo $[x]`,
  `x='${P}'; (( x ))`,
  `x='${P}'; for ((i=x; 0; )); do :; done`,
  `x='${P}'; [[ $x -eq 1 ]]`,
  `x='${P}'; [[ x -eq 1 ]]`,
  `x='${P}'; s=abc; echo \${s:1:x}`,
  `x='${P}'; a[x]=1`,
  `x='${P}'; a=(1 2); echo \${a[x]}`,
  `x='${P}'; echo \${!x}`,
  `x='${P}'; declare -n r=x; echo $((r))`,
  `declare -n r='${P}'; echo $r`,
  `declare -i n; n='${P}'`,
  `declare -i n='${P}'`,
  `x='${P}'; y=x; echo $((y))`,
  `x='${P}'; declare -a b=([x]=1)`,
  `echo $(( $(cat f) ))`,
  `read -r n < f; echo $((n))`,
  `cp f '${P}'; for g in a*; do echo $((g)); done`,
  `echo '${P}'; echo $((_))`,
  `x='${P}' bash -c 'echo $((x))'`,
  `export x='${P}'; bash -c 'echo $((x))'`,
];

/** Look alike, but bash does not evaluate these (checked below), and ordinary arithmetic. */
const NOT_EVALUATED = [`test '${P}' -eq 1`, `[ '${P}' -eq 1 ]`, `x='${P}'; test $x -eq 1`, `shift '${P}'`, `printf %d '${P}'`];
const ORDINARY = [
  "x=5; echo $((x + 1))",
  "for i in 1 2 3; do echo $((i * 2)); done",
  "i=0; i=$((i + 1)); echo $i",
  "echo $(( $(nproc) * 2 ))",
  "s=abcdef; echo ${s:1:2}",
  "n=3; [[ $n -gt 2 ]] && echo big",
  "test -v HOME && echo set",
  "a=(x y); echo ${a[1]}",
];

describe("code inside data", () => {
  it.each(EVALUATED)("bash runs the code in %s, and the gate asks (plan: denies)", async (command) => {
    expect(bashRunsIt(command), "real bash runs the marker").toBe(true);
    expect((await check(command, "default")).decision).toBe("ask");
    expect((await check(command, "bypassPermissions")).decision).toBe("ask");
    expect((await check(command, "plan")).decision).toBe("deny");
  });

  it.each(NOT_EVALUATED)("bash does not evaluate %s", (command) => {
    expect(bashRunsIt(command)).toBe(false);
  });

  it.each(ORDINARY)("ordinary arithmetic stays read-only: %s", async (command) => {
    expect(bashRunsIt(command)).toBe(false);
    const d = await check(command, "plan");
    expect(d.decision, d.reason).toBe("allow");
  });

  it("tells the model why, naming the construct", async () => {
    const d = await check(`test -v 'a[$(rm -rf src)]'`, "default");
    expect(d.reason).toContain("test -v");
    expect(d.reason).toContain("$(rm -rf src)");
    const v = await check(`x='a[$(id)]'; echo $((x))`, "default");
    expect(v.reason).toContain("bash evaluates the value of x as code");
  });
});
