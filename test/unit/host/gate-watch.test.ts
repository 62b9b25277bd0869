/**
 * The panel's watch on what the permission gate reads (src/host/gate-watch.ts): an edit of
 * `.cursorignore`, `.clineignore` or `.rooignore` (or of a settings file, or Cursor's hooks file) in
 * any workspace folder reloads the gate, so the edit counts from the next call, as in the tools that
 * own those files. A real gate over an in-memory tree; the watcher factory stands in for VS Code's
 * and fires as VS Code's does; the patterns are checked with a glob matcher against the real names.
 */
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import type { PermissionCheck } from "../../../src/core/loop/types";
import { GATE_FILE_PATTERNS, watchGateFiles, type GateFileWatcher } from "../../../src/host/gate-watch";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

const read = (path: string): PermissionCheck => ({ tool: "read_file", permission: "Read", input: { file_path: path }, mutates: false });

describe("the gate's files, watched", () => {
  it("covers the settings files, Cursor's hooks file and the three ignore files, and nothing like them elsewhere", () => {
    const matches = (rel: string) => GATE_FILE_PATTERNS.some((p) => picomatch(p, { dot: true })(rel));
    for (const rel of [".cursorignore", ".clineignore", ".rooignore", ".cursor/hooks.json", ".claude/settings.json", ".claude/settings.local.json", ".yoke/settings.json"])
      expect(matches(rel), rel).toBe(true);
    for (const rel of ["src/.cursorignore", ".gitignore", ".cursor/rules/a.mdc"]) expect(matches(rel), rel).toBe(false);
  });

  it("every workspace folder is watched; an ignore file created or deleted reloads the gate: the next check reads it", async () => {
    const files: Record<string, string> = {};
    const gate = createPermissionGate({ cwd: "/w", home: "/home/u", loadSources: async () => [], shellWasm: () => loadShellWasm(), readText: async (p) => files[p], ignoreSettleMs: 0 });
    const watchers: Array<{ folder: unknown; pattern: string; fire: Record<"change" | "create" | "delete", () => void>; disposed: boolean }> = [];
    const create = (folder: unknown, pattern: string): GateFileWatcher => {
      const w = { folder, pattern, fire: {} as Record<"change" | "create" | "delete", () => void>, disposed: false };
      watchers.push(w);
      const on = (k: "change" | "create" | "delete") => (fn: () => void) => ((w.fire[k] = fn), { dispose() {} });
      return { onDidChange: on("change"), onDidCreate: on("create"), onDidDelete: on("delete"), dispose: () => void (w.disposed = true) };
    };
    let reloads = 0;
    let done!: () => void;
    const reloaded = () => new Promise<void>((r) => (done = r));
    const sub = watchGateFiles(["/w", "/w2"], gate, create, { reloaded: () => (reloads++, done()), failed: (m) => expect.fail(m) });
    expect(watchers.map((w) => [w.folder, w.pattern])).toEqual(["/w", "/w2"].flatMap((f) => GATE_FILE_PATTERNS.map((p) => [f, p])));
    const ignoreWatch = (folder: string) => watchers.find((w) => w.folder === folder && w.pattern.includes(".rooignore"))!;

    expect((await gate.check(read("/w/data/a.csv"), "default")).decision).toBe("allow");
    files["/w/.rooignore"] = "data/\n";
    let next = reloaded();
    ignoreWatch("/w").fire.create();
    await next;
    expect((await gate.check(read("/w/data/a.csv"), "default")).reason).toContain(".rooignore:1");
    delete files["/w/.rooignore"];
    next = reloaded();
    ignoreWatch("/w").fire.delete();
    await next;
    // A removal loosens: it counts once a later read finds the file gone too (core/permissions/ignore-reads.ts).
    expect((await gate.check(read("/w/data/a.csv"), "default")).decision).toBe("deny");
    next = reloaded();
    ignoreWatch("/w").fire.delete();
    await next;
    expect((await gate.check(read("/w/data/a.csv"), "default")).decision).toBe("allow");
    expect(reloads).toBe(3);
    sub.dispose();
    expect(watchers.every((w) => w.disposed)).toBe(true);
  });
});
