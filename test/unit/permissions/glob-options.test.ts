/**
 * A pattern that could match a file named like an option that runs code or writes (session 16,
 * planted files): the pattern matcher on its own, then the gate's answers — `find . *` is not
 * read-only (a planted `-fprint` overwrote README.md in real bash), `find . -name *.ts` is.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { globAsCodeOption } from "../../../src/core/permissions/shell/glob-options";
import { literalWord, type Word } from "../../../src/core/permissions/shell/words";
import { nodeListDir, nodeRealPath } from "../../../src/node/settings/files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

/** A word as the parser makes an unquoted pattern (pattern: the text, escapes kept). */
const pat = (text: string): Word => ({ value: text, raw: text, dynamic: false, glob: true, pattern: text });
const words = (...ws: Array<string | Word>) => ws.map((w) => (typeof w === "string" ? literalWord(w) : w));

describe("globAsCodeOption", () => {
  it("finds a pattern that could spell find's actions, and leaves one that cannot", () => {
    expect(globAsCodeOption(words("find", ".", pat("*")))?.option).toBe("-exec");
    expect(globAsCodeOption(words("find", ".", pat("*e")))?.option).toBe("-delete");
    expect(globAsCodeOption(words("find", ".", pat("-[d]*")))?.option).toBe("-delete");
    expect(globAsCodeOption(words("find", ".", pat("?fls")))?.option).toBe("-fls");
    expect(globAsCodeOption(words("find", ".", "-name", pat("*.ts")))).toBeUndefined();
    expect(globAsCodeOption(words("find", "src", "-name", pat("a?.x")))).toBeUndefined();
    // A folder in front: the name cannot begin with a dash.
    expect(globAsCodeOption(words("find", pat("src/*")))).toBeUndefined();
    // Escaped characters are literal: `\*` is the name `*`.
    expect(globAsCodeOption(words("find", ".", pat("\\*")))).toBeUndefined();
  });

  it("reads short clusters, glued values and every prefix of a long option", () => {
    expect(globAsCodeOption(words("sort", pat("*.txt")))?.option).toBe("-o");
    expect(globAsCodeOption(words("sort", pat("-u[o]*")))?.option).toBe("-uo");
    expect(globAsCodeOption(words("tar", "-cf", "a.tar", pat("--ch*")))?.option).toBe("--checkpoint-action");
    expect(globAsCodeOption(words("rg", "x", pat("--p?e=*")))?.option).toBe("--pre");
    expect(globAsCodeOption(words("git", "diff", pat("*")))?.option).toBe("--output");
    expect(globAsCodeOption(words("sed", "-n", "p", pat("{a,-i}")))?.option).toBe("-i");
  });

  it("stops at `--`, and knows nothing of programs without such options", () => {
    expect(globAsCodeOption(words("sort", "--", pat("*")))).toBeUndefined();
    expect(globAsCodeOption(words("ls", pat("*")))).toBeUndefined();
    expect(globAsCodeOption(words("wc", "-l", pat("*")))).toBeUndefined();
    expect(globAsCodeOption(words("git", "add", pat("*")))).toBeUndefined();
  });
});

function gate(rules: Record<string, unknown>) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-globopt-")));
  const ws = join(root, "ws");
  for (const f of ["src/a.ts", "README.md", ".env"]) {
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
const bash = (command: string) => ({ tool: "run_command", permission: "Bash", input: { command }, mutates: true });

describe("the gate and planted option files", () => {
  it("asks for a read-only program given a pattern that could become its writing option; ordinary patterns stay allowed", async () => {
    const g = gate({});
    const find = await g.check(bash("find . *"), "default");
    expect(find.decision).toBe("ask");
    expect(find.reason).toContain("a pattern that could match a file named like its option -exec");
    expect((await g.check(bash("sed -n p *"), "default")).decision).toBe("ask");
    for (const ok of ["find . -name *.ts", "find . -name '*.ts'", "find src -name *.ts -type f", "ls *", "wc -l *", "cat src/*.ts", "sort -- *"])
      expect((await g.check(bash(ok), "default")).decision, ok).toBe("allow");
  });

  it("asks where a deny rule exists in bypassPermissions (the pattern hides what runs)", async () => {
    const g = gate({ deny: ["Bash(rm:*)"] });
    expect(await g.check(bash("find . *"), "bypassPermissions")).toMatchObject({ decision: "ask", rule: "Bash(rm:*)" });
    expect(await g.check(bash("tar -cf /tmp/a.tar *"), "bypassPermissions")).toMatchObject({ decision: "ask", rule: "Bash(rm:*)" });
    expect((await g.check(bash("find . -name *.ts"), "bypassPermissions")).decision).toBe("allow");
  });
});
