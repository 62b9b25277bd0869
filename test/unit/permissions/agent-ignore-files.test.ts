/**
 * Other agents' ignore files as the gate reads them (core/permissions/ignore-files.ts), through a
 * real gate over an in-memory file tree: gitignore's matching (folders, `!` exceptions, anchoring),
 * Cline's `!include`, Cursor's files above the workspace, files that never un-ignore each other's
 * paths, `.cursorindexingignore` not enforced, and commands naming ignored paths in part.
 */
import { describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import type { PermissionCheck } from "../../../src/core/loop/types";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

function gateOver(files: Record<string, string>, cwd = "/w", more: { ignoreSettleMs?: number; unreadable?: Set<string> } = {}) {
  return createPermissionGate({
    cwd,
    home: "/home/u",
    loadSources: async () => [],
    shellWasm: () => loadShellWasm(),
    readText: async (p) => (more.unreadable?.has(p) ? undefined : files[p]),
    ...(more.unreadable ? { realPath: async (p: string) => (p in files || more.unreadable!.has(p) ? p : undefined) } : {}),
    ...(more.ignoreSettleMs !== undefined ? { ignoreSettleMs: more.ignoreSettleMs } : {}),
  });
}

const read = (path: string): PermissionCheck => ({ tool: "read_file", permission: "Read", input: { file_path: path }, mutates: false });
const edit = (path: string): PermissionCheck => ({ tool: "write_file", permission: "Write", input: { file_path: path }, mutates: true });
const bash = (command: string): PermissionCheck => ({ tool: "run_command", permission: "Bash", input: { command }, mutates: true });

describe("agents' ignore files in the gate", () => {
  it("reads gitignore's syntax: folders, extensions, exceptions, anchoring, escapes", async () => {
    const gate = gateOver({ "/w/.rooignore": "node_modules/\n*.log\n!keep.log\n/top.txt\ndocs/**/*.md\n\\!bang\n# a comment\n" });
    const d = async (p: string) => (await gate.check(read(p), "bypassPermissions")).decision;
    expect(await d("node_modules/x/index.js")).toBe("deny");
    expect(await d("node_modules")).toBe("deny");
    expect(await d("a/b/debug.log")).toBe("deny");
    expect(await d("keep.log")).toBe("allow");
    expect(await d("top.txt")).toBe("deny");
    expect(await d("sub/top.txt")).toBe("allow");
    expect(await d("docs/a/b/guide.md")).toBe("deny");
    expect(await d("other/guide.md")).toBe("allow");
    expect(await d("!bang")).toBe("deny");
    expect(await d("src/main.ts")).toBe("allow");
    // Case folded (stricter on a case-sensitive disk), the real path too.
    expect(await d("NODE_MODULES/x")).toBe("deny");
  });

  it("denies Edit and Write of an ignored path, and names the file, line and tool", async () => {
    const gate = gateOver({ "/w/.cursorignore": "\nsecrets/\n" });
    const r = await gate.check(edit("secrets/k.txt"), "bypassPermissions");
    expect(r).toMatchObject({ decision: "deny", rule: "secrets/" });
    expect(r.reason).toBe(
      "Permission to write secrets/k.txt is denied by the rule secrets/ (.cursorignore:2, Cursor's ignore file). Continue without this file, or ask the user to change that ignore file.",
    );
    expect(await gate.deniedBy("Read", "/w/secrets/k.txt")).toBe("secrets/");
    expect(await gate.deniedBy("Read", "/w/src/a.ts")).toBeNull();
  });

  it("reads Cline's !include lines (relative to the workspace) and reports one it cannot read", async () => {
    const gate = gateOver({ "/w/.clineignore": "!include .gitignore\n!include nope.txt\n*.secret\n", "/w/.gitignore": "dist/\n" });
    expect((await gate.check(read("dist/a.js"), "default")).reason).toContain("dist/ (.gitignore:1 (included by .clineignore), Cline's ignore file)");
    expect((await gate.check(read("x.secret"), "default")).reason).toContain("(.clineignore:3, Cline's ignore file)");
    expect((await gate.problems()).map((p) => p.message)).toEqual([".clineignore:2: !include nope.txt: /w/nope.txt cannot be read; its patterns are not used"]);
    // In Cursor's and Roo's files `!include x` is an ordinary exception line.
    const other = gateOver({ "/w/.rooignore": "!include .gitignore\n", "/w/.gitignore": "dist/\n" });
    expect((await other.check(read("dist/a.js"), "default")).decision).toBe("allow");
  });

  it("reads Cursor's files in the folders above the workspace (relative to their own folder); Cline's and Roo's only in the workspace", async () => {
    const gate = gateOver({ "/.cursorignore": "w/private/\n", "/w/..x": "", "/.rooignore": "*\n", "/.clineignore": "*\n" }, "/w");
    expect((await gate.check(read("private/a.txt"), "default")).reason).toContain("(/.cursorignore:1, Cursor's ignore file)");
    expect((await gate.check(read("public/a.txt"), "default")).decision).toBe("allow");
  });

  it("one file's exception never un-ignores another file's path; .cursorindexingignore and Windsurf's .codeiumignore restrict nothing", async () => {
    const gate = gateOver({ "/w/.cursorignore": "*.env\n", "/w/.rooignore": "!prod.env\n", "/w/.cursorindexingignore": "src/\n", "/w/.codeiumignore": "lib/\n" });
    expect((await gate.check(read("prod.env"), "default")).decision).toBe("deny");
    expect((await gate.check(read("src/a.ts"), "default")).decision).toBe("allow");
    expect((await gate.check(read("lib/a.ts"), "default")).decision).toBe("allow");
  });

  it("a changed ignore file counts once the gate reloads (the panel reloads it when the file changes); a sub-folder's .cursorignore is not read, as in Cursor", async () => {
    const files: Record<string, string> = { "/w/sub/.cursorignore": "*.txt\n" };
    const gate = gateOver(files, "/w", { ignoreSettleMs: 0 });
    expect((await gate.check(read("notes/a.log"), "default")).decision).toBe("allow");
    expect((await gate.check(read("sub/a.txt"), "default")).decision).toBe("allow");
    files["/w/.cursorignore"] = "*.log\n";
    await gate.reload();
    expect((await gate.check(read("notes/a.log"), "default")).reason).toContain(".cursorignore:1");
    delete files["/w/.cursorignore"];
    // Removing it loosens: it counts once a second read finds it gone too (ignore-reads.ts).
    await gate.reload();
    expect((await gate.check(read("notes/a.log"), "default")).decision).toBe("deny");
    await gate.reload();
    expect((await gate.check(read("notes/a.log"), "default")).decision).toBe("allow");
  });

  it("Gemini CLI's .geminiignore (its docs' examples: /packages/, apikeys.txt, *.md with !README.md) denies reading and changing; its shell is not governed; no tool's file in a sub-folder is read", async () => {
    const gate = gateOver({
      "/w/.geminiignore": "# Exclude your /packages/ directory and all subdirectories\n/packages/\n# Exclude your apikeys.txt file\napikeys.txt\n*.md\n!README.md\n",
      // Each tool documents the workspace root's file only: these are not read.
      "/w/sub/.geminiignore": "*.ts\n",
      "/w/sub/.clineignore": "*.ts\n",
      "/w/sub/.rooignore": "*.ts\n",
      "/w/sub/.cursorignore": "*.ts\n",
    });
    const d = async (p: string) => (await gate.check(read(p), "bypassPermissions")).decision;
    expect((await gate.check(read("packages/a/index.js"), "bypassPermissions")).reason).toContain("(.geminiignore:2, Gemini CLI's ignore file)");
    expect(await d("config/apikeys.txt")).toBe("deny");
    expect(await d("docs/guide.md")).toBe("deny");
    expect(await d("README.md")).toBe("allow");
    expect((await gate.check(edit("packages/b.js"), "bypassPermissions")).decision).toBe("deny");
    expect((await gate.check(bash("cat config/apikeys.txt"), "bypassPermissions")).decision).toBe("allow");
    expect(await d("sub/main.ts")).toBe("allow");
  });

  it("a reload that reads an ignore file emptied, cut short mid-save or unreadable keeps its rules; a new line applies at once; a real loosening edit applies once it reads the same again after the settle time", async () => {
    const files: Record<string, string> = { "/w/.cursorignore": "secrets/\n*.log\n" };
    const unreadable = new Set<string>();
    const gate = gateOver(files, "/w", { ignoreSettleMs: 60_000, unreadable });
    const d = async (p: string) => (await gate.check(read(p), "bypassPermissions")).decision;
    expect(await d("secrets/key.txt")).toBe("deny");
    // An editor's save: the file emptied, then half written, each seen by a reload.
    for (const partial of ["", "secr", "secrets/\n"]) {
      files["/w/.cursorignore"] = partial;
      await gate.reload();
      expect(await d("secrets/key.txt"), JSON.stringify(partial)).toBe("deny");
      expect(await d("build.log"), JSON.stringify(partial)).toBe("deny");
    }
    // The whole new text, with a line added: the addition applies at once, nothing was lifted.
    files["/w/.cursorignore"] = "secrets/\n*.log\n*.pem\n";
    await gate.reload();
    expect(await d("id.pem")).toBe("deny");
    expect(await d("build.log")).toBe("deny");
    // A new `!` exception loosens too: held.
    files["/w/.cursorignore"] = "secrets/\n*.log\n*.pem\n!build.log\n";
    await gate.reload();
    expect(await d("build.log")).toBe("deny");
    // Unreadable (exists, cannot be read): the last rules stay, however often it is read.
    unreadable.add("/w/.cursorignore");
    for (let i = 0; i < 3; i++) await gate.reload();
    expect(await d("secrets/key.txt")).toBe("deny");
    expect(await d("id.pem")).toBe("deny");
    // A clean read again: the file as it is now.
    unreadable.delete("/w/.cursorignore");
    files["/w/.cursorignore"] = "secrets/\n*.log\n*.pem\n*.key\n";
    await gate.reload();
    expect(await d("a.key")).toBe("deny");
    // The person's own loosening edit counts once the same text is read again after the settle time.
    const roo: Record<string, string> = { "/w/.rooignore": "secrets/\n" };
    const quick2 = gateOver(roo, "/w", { ignoreSettleMs: 0 });
    expect((await quick2.check(read("secrets/a"), "bypassPermissions")).decision).toBe("deny");
    roo["/w/.rooignore"] = "";
    await quick2.reload();
    expect((await quick2.check(read("secrets/a"), "bypassPermissions")).decision).toBe("deny");
    await quick2.reload();
    expect((await quick2.check(read("secrets/a"), "bypassPermissions")).decision).toBe("allow");
  });

  it("a command naming an ignored path is denied; one naming it only in part asks; others are untouched", async () => {
    const gate = gateOver({ "/w/.rooignore": "config/secrets.json\n" });
    expect((await gate.check(bash("cat config/secrets.json"), "default")).reason).toContain("the command reads config/secrets.json");
    expect((await gate.check(bash('cat "config/$NAME"'), "default")).decision).toBe("ask");
    expect((await gate.check(bash("cat README.md"), "default")).decision).toBe("allow");
  });

  it("commands are held to what each tool holds its own to: Cursor's terminal is not governed; Cline's and Roo's reading commands are, their writes are not", async () => {
    const cursor = gateOver({ "/w/.cursorignore": "dist/\nsecrets/\n" });
    // The file tools refuse; a command does not (Cursor documents its terminal as not governed by .cursorignore).
    expect((await cursor.check(read("dist/cli.js"), "default")).decision).toBe("deny");
    expect((await cursor.check(bash("node dist/cli.js --help"), "bypassPermissions")).decision).toBe("allow");
    expect((await cursor.check(bash("cat secrets/a.txt"), "default")).reason).not.toContain("ignore file");
    const cline = gateOver({ "/w/.clineignore": "dist/\n" });
    expect((await cline.check(bash("cat dist/cli.js"), "bypassPermissions")).reason).toContain("(.clineignore:1, Cline's ignore file)");
    expect((await cline.check(bash("rm -rf dist"), "bypassPermissions")).decision).toBe("allow");
  });

  it("a command that only might read an ignored path runs, as in Cline and Roo Code: code given inline, the whole history; one naming the path is still refused (red team B)", async () => {
    // A .clineignore as repositories ship it: node_modules/ and build output. Cline checks the named
    // arguments of its file-reading commands only, so `git diff` or `python3 -c` run there.
    const ignores: Record<string, string> = { "/w/.clineignore": "node_modules/\ndist/\n.env\n" };
    const gateHolding = (held: string[]) =>
      createPermissionGate({ cwd: "/w", home: "/home/u", loadSources: async () => [], shellWasm: () => loadShellWasm(), readText: async (p) => ignores[p], gitObjectPaths: async () => held });
    // git holds no ignored file (node_modules/ and .env are not committed): nothing git prints can be one.
    const gate = gateHolding(["/w/src/a.ts", "/w/package.json"]);
    for (const c of ["git diff", "git log -p", "git grep TODO", "git log -p -- src/", "python3 -c 'print(1)'", "node -e 'console.log(1)'", "env A=1 node -e 1"])
      expect((await gate.check(bash(c), "bypassPermissions")).decision, c).toBe("allow");
    // What names an ignored path is refused (or asks when only partly known), history included.
    for (const c of ["cat .env", "git show HEAD:.env", "git log -p -- node_modules/", "git diff -- dist/a.js", "ls node_modules"])
      expect((await gate.check(bash(c), "bypassPermissions")).reason, c).toContain("(.clineignore:");
    expect((await gate.check(bash('cat "node_modules/$X"'), "bypassPermissions")).decision).toBe("ask");
    // A pathspec known only in part (magic, a run-time value) may name one: it still asks.
    for (const c of ["git log -p -- ':(glob)**/.env'", 'git log -p -- "$X"']) expect((await gate.check(bash(c), "bypassPermissions")).decision, c).not.toBe("allow");
    // git holds an ignored file (.env committed): what git prints may be it under any name (a quoted
    // pathspec is a glob to git), so reading git's contents asks, as for a settings Read rule.
    const holding = gateHolding(["/w/src/a.ts", "/w/.env"]);
    for (const c of ["git diff", "git log -p -- '.en*'", "git grep TOKEN"]) expect((await holding.check(bash(c), "bypassPermissions")).decision, c).toBe("ask");
    expect((await holding.check(bash("python3 -c 'print(1)'"), "bypassPermissions")).decision).toBe("allow");
    // A settings Read deny rule keeps asking for inline code (its files are hidden in the sandbox; the history is not).
    const withRule = createPermissionGate({
      cwd: "/w",
      home: "/home/u",
      loadSources: async () => [{ info: { kind: "extra", label: "test", baseDir: "/w" }, value: { permissions: { deny: ["Read(./.env)"] } } }],
      shellWasm: () => loadShellWasm(),
      readText: async () => undefined,
    });
    expect((await withRule.check(bash("git diff"), "bypassPermissions")).decision).toBe("ask");
    expect((await withRule.check(bash("python3 -c 'print(1)'"), "bypassPermissions")).decision).toBe("ask");
  });

  it("an ignore file is a protected path: changing it asks in every mode", async () => {
    const gate = gateOver({ "/w/.rooignore": "x\n" });
    for (const name of [".rooignore", ".cursorignore", ".clineignore"]) {
      const r = await gate.check(edit(name), "bypassPermissions");
      expect(r.decision, name).toBe("ask");
      expect(r.reason).toContain("an agent's ignore file");
    }
  });
});
