/**
 * Parse-or-ask at the bounds (issue 18): an input too large to analyse within the time bound asks
 * (plan mode: denies; bypassPermissions: asks where a deny rule exists) and is never allowed —
 * including inputs that would be allowed if analysed (read-only commands, file edits in
 * acceptEdits). Just under the bounds the same shapes are analysed and allowed, so the bounds do
 * not over-block. Decisions only: the time per input is measured in `npm run bench`
 * (src/bench/permissions-adversarial.ts), never here.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PermissionMode } from "../../../src/core/loop/types";
import { estimateSize, MAX_COMMAND_LENGTH, MAX_COMMAND_STATEMENTS, MAX_COMMAND_TOKENS } from "../../../src/core/permissions/evaluate-bash";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { analyseFlow, MAX_FLOW_STEPS } from "../../../src/core/permissions/shell/flow";
import { initShellParser } from "../../../src/core/permissions/shell/parser";
import { nodeListDir, nodeRealPath } from "../../../src/node/settings/files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

const bash = (command: string) => ({ tool: "run_command", permission: "Bash", input: { command }, mutates: true });

function workspace(rules: Record<string, unknown>) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bounds-")));
  const ws = join(root, "ws");
  for (const f of ["src/a.ts", "tests/t.ts", ".env"]) {
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

/** Read-only command lines over each bound (n units) — allowed when analysed, so an ask is the bound's. */
const SHAPES: Record<string, (n: number) => string> = {
  "commands (&&)": (n) => Array.from({ length: n }, () => "ls src").join(" && "),
  "commands (lines)": (n) => Array.from({ length: n }, () => "ls src").join("\n"),
  "pipeline stages": (n) => `cat src/a.ts${" | grep a".repeat(n)}`,
  words: (n) => `echo ${"ab ".repeat(n)}`,
  "path arguments": (n) => `cat ${"src/a.ts ".repeat(n)}`,
  "bracket globs in one word": (n) => `ls ${"[a-z]".repeat(n)}`,
  "brace expansions": (n) => `echo ${"{a,b}".repeat(n)}`,
  "parameter expansions": (n) => `echo "${"${x:-a}".repeat(n)}"`,
};

describe("parse-or-ask at the bounds", () => {
  const modesAsk: PermissionMode[] = ["default", "acceptEdits"];

  for (const [name, make] of Object.entries(SHAPES)) {
    it(`${name}: just under the bounds it is analysed and allowed; over them it asks in every mode (never allowed)`, async () => {
      const gate = workspace({ deny: ["Bash(rm:*)", "Read(./.env)"] });
      // The largest n still analysed, then the first n over the bounds.
      const within = (n: number) => {
        const c = make(n);
        const s = estimateSize(c);
        return c.length <= MAX_COMMAND_LENGTH && s.statements <= MAX_COMMAND_STATEMENTS && s.tokens <= MAX_COMMAND_TOKENS;
      };
      let n = 1;
      while (within(n * 2)) n *= 2;
      let hi = n * 2;
      while (hi - n > 1) {
        const mid = Math.floor((n + hi) / 2);
        if (within(mid)) n = mid;
        else hi = mid;
      }
      const under = await gate.check(bash(make(n)), "default");
      expect(under.reason).not.toMatch(/too large/);
      expect(under.decision, under.reason).toBe("allow");

      const over = make(hi);
      for (const mode of modesAsk) {
        const d = await gate.check(bash(over), mode);
        expect(d, mode).toMatchObject({ decision: "ask", by: "mode" });
        expect(d.reason).toMatch(/^The command is too large to analyse \(more than (500 commands|2000 words)\), so it needs approval\.$/);
      }
      // bypassPermissions allows everything no deny rule forbids, but cannot rule the deny rules out here: it asks.
      expect(await gate.check(bash(over), "bypassPermissions")).toMatchObject({ decision: "ask" });
      expect(await gate.check(bash(over), "plan")).not.toMatchObject({ decision: "allow" });
      // 1 MB of the same shape: refused at once, by length.
      let big = hi;
      while (make(big).length <= MAX_COMMAND_LENGTH) big *= 2;
      const huge = make(big).slice(0, 1_000_000);
      expect(await gate.check(bash(huge), "acceptEdits")).toMatchObject({ decision: "ask", by: "mode" });
    });
  }

  it("a line the estimate takes for a here-document it is not (`$((1<<2))`, `<<<`) is still held to the commands bound, counted in the parsed tree (red team round 4)", async () => {
    const gate = workspace({ deny: ["Bash(rm:*)"] });
    const body = Array.from({ length: MAX_COMMAND_STATEMENTS + 50 }, (_, i) => `echo a${i}`).join("\n");
    for (const head of ["echo $((1<<2))", "cat <<<X", "echo '<<EOF'"]) {
      const line = `${head}\n${body}`;
      // The estimate is fooled: it skips the lines after the false start of a here-document…
      expect(estimateSize(line).statements, head).toBeLessThanOrEqual(MAX_COMMAND_STATEMENTS);
      // …the parsed tree is not: the line asks in every mode, as over the estimate's bound.
      for (const mode of ["default", "bypassPermissions"] as PermissionMode[]) {
        expect(await gate.check(bash(line), mode), `${head} ${mode}`).toMatchObject({
          decision: "ask",
          reason: `The command is too large to analyse (more than ${MAX_COMMAND_STATEMENTS} commands), so it needs approval.`,
        });
      }
    }
    // The words bound too: one command of more words than the bound after the false start.
    const words = `echo $((1<<2))\ncat ${"src/a.ts ".repeat(MAX_COMMAND_TOKENS + 100)}`;
    expect(estimateSize(words).tokens).toBeLessThanOrEqual(MAX_COMMAND_TOKENS);
    expect(await gate.check(bash(words), "default")).toMatchObject({
      decision: "ask",
      reason: `The command is too large to analyse (more than ${MAX_COMMAND_TOKENS} words), so it needs approval.`,
    });
    // Just under the bound the same shape is analysed (read-only: allowed).
    const under = `echo $((1<<2))\n${Array.from({ length: MAX_COMMAND_STATEMENTS - 10 }, (_, i) => `echo a${i}`).join("\n")}`;
    expect((await gate.check(bash(under), "default")).decision).toBe("allow");
  });

  it("nesting deeper than the bound asks, outside and inside an unquoted here-document", async () => {
    const gate = workspace({ deny: ["Bash(rm:*)"] });
    for (const command of [
      `echo ${"$(echo ".repeat(65)}x${")".repeat(65)}`,
      `cat <<EOF\n${"$(echo ".repeat(65)}x${")".repeat(65)}\nEOF`,
      `cat <<EOF\n$((${"a[".repeat(65)}1${"]".repeat(65)}))\nEOF`,
    ]) {
      for (const mode of ["default", "acceptEdits", "bypassPermissions"] as PermissionMode[]) {
        expect(await gate.check(bash(command), mode), `${mode}: ${command.slice(0, 40)}`).toMatchObject({ decision: "ask", by: "mode" });
      }
    }
    // A quoted here-document's body is data: any size and nesting is analysed (and allowed in acceptEdits).
    const quoted = `cat > notes.md <<'EOF'\n${"$(echo ".repeat(200)}x${")".repeat(200)}\n${"[a-z]".repeat(5000)}\nEOF`;
    expect(await gate.check(bash(quoted), "acceptEdits")).toMatchObject({ decision: "allow" });
  });

  it("control flow too large to follow asks (every folder unknown), even for commands that would be allowed", async () => {
    const gate = workspace({ deny: ["Bash(rm:*)", "Read(./.env)"] });
    // 240 nested loops: past the flow's statement depth, each loop re-walks what is below it with
    // an unknown folder, and the loops multiply that — the flow's step budget stops it.
    const nested = (depth: number) => `${"for i in 1; do ".repeat(depth)}ls src${"; done".repeat(depth)}`;
    const command = nested(240);
    const s = estimateSize(command);
    expect(s.statements).toBeLessThanOrEqual(MAX_COMMAND_STATEMENTS);
    expect(s.tokens).toBeLessThanOrEqual(MAX_COMMAND_TOKENS);
    const parser = await initShellParser(() => loadShellWasm());
    const tree = parser.parse(command)!;
    try {
      expect(analyseFlow(tree.rootNode, ["/w"], "/h")).toEqual({ cwdAt: new Map(), tooComplex: true });
    } finally {
      tree.delete();
    }
    expect(MAX_FLOW_STEPS).toBeGreaterThan(1000);
    for (const mode of ["default", "acceptEdits", "bypassPermissions"] as PermissionMode[]) {
      const d = await gate.check(bash(command), mode);
      expect(d.decision, `${mode}: ${d.reason}`).toBe("ask");
    }
    expect((await gate.check(bash(command), "default")).reason).toMatch(/control flow is too large to follow/);
    expect((await gate.check(bash(command), "plan")).decision).toBe("deny");
    // A few nested loops are followed as before: the same command is allowed.
    expect(await gate.check(bash(nested(5)), "default")).toMatchObject({ decision: "allow" });
  });

  it("the strings a command runs (bash -c, eval) are held to the bounds, added up over every level", async () => {
    const gate = workspace({ deny: ["Bash(rm:*)"] });
    // Inside single quotes the line itself counts as one word; the string it runs is parsed again.
    const inner = Array.from({ length: 600 }, () => "ls src").join("; ");
    for (const command of [`bash -c '${inner}'`, `bash -c '${"eval ".repeat(3000)}ls'`, `eval '${"ls src; ".repeat(300)}' && bash -c '${"ls src; ".repeat(300)}'`]) {
      for (const mode of ["default", "acceptEdits", "bypassPermissions"] as PermissionMode[]) {
        const d = await gate.check(bash(command), mode);
        expect(d.decision, `${mode}: ${command.slice(0, 30)}`).toBe("ask");
      }
      expect((await gate.check(bash(command), "default")).reason).toMatch(/too large to analyse/);
    }
    // A small one is analysed as before.
    expect(await gate.check(bash(`bash -c '${"ls src; ".repeat(20)}'`), "default")).toMatchObject({ decision: "allow" });
  });
});
