/**
 * The headless hosts' watch of the gate's files (core/permissions/gate-files.ts) over the real
 * WorkspaceFs watch port (src/node/node-fs.ts, fs.watch on each folder, not its tree): an ignore
 * file, a settings file in a `.claude` folder made after the watch started, and Cursor's hooks file
 * reload the gate; a file the gate does not read does not; nothing after dispose.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GATE_FILE_PATTERNS, GATE_IGNORE_FILES, watchGateFolders } from "../../../src/core/permissions/gate-files";
import { createNodeWorkspaceFs } from "../../../src/node/node-fs";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error(`never happened: ${what}`);
}

describe("the gate's files, watched through the WorkspaceFs port", () => {
  it("reloads on an ignore file, a settings file in a folder made later, and Cursor's hooks file; not on other files", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-gate-watch-")));
    temps.push(root);
    mkdirSync(join(root, ".cursor"));
    const fs = createNodeWorkspaceFs(root);
    let reloads = 0;
    const gate = { reload: async () => void reloads++ };
    const w = watchGateFolders([root], gate, (dir, onChange) => fs.watch!(dir, onChange, { recursive: false }));
    try {
      writeFileSync(join(root, ".cursorignore"), "secrets/\n");
      await until(() => reloads >= 1, ".cursorignore");
      let seen = reloads;
      mkdirSync(join(root, ".claude"));
      await until(() => reloads > seen, ".claude made");
      seen = reloads;
      writeFileSync(join(root, ".claude/settings.json"), '{"permissions":{"deny":["Read(./.env)"]}}');
      await until(() => reloads > seen, ".claude/settings.json");
      seen = reloads;
      writeFileSync(join(root, ".cursor/hooks.json"), '{"version":1,"hooks":{}}');
      await until(() => reloads > seen, ".cursor/hooks.json");
      // A file the gate does not read, then a marker it does: only the marker's reload comes.
      seen = reloads;
      writeFileSync(join(root, "notes.txt"), "x");
      writeFileSync(join(root, ".cursor/rules.txt"), "x");
      writeFileSync(join(root, ".rooignore"), "x\n");
      await until(() => reloads > seen, ".rooignore");
    } finally {
      w.dispose();
    }
    const after = reloads;
    writeFileSync(join(root, ".clineignore"), "y\n");
    await new Promise((r) => setTimeout(r, 100));
    expect(reloads).toBe(after);
  });

  it("watches every ignore file Yoke reads, and the panel's patterns name the same files", () => {
    expect(GATE_IGNORE_FILES).toEqual(expect.arrayContaining([".cursorignore", ".clineignore", ".rooignore"]));
    expect(GATE_FILE_PATTERNS.at(-1)).toBe(`{${GATE_IGNORE_FILES.join(",")}}`);
  });
});
