// A workspace that is (or holds) the home folder: the gate asks for the home entries the command
// sandbox keeps read-only (homeEntryWritable: dot entries but histories, and bin and go), in every
// mode, for file tools and for the writes the shell analysis names — and only there (red team K,
// session 19; the full sessions are test/integration/redk-home-workspace-files.test.ts).
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { homeEntryWritable, pathInstalls } from "../../../src/core/protected-paths";
import { createSettingsWriter, loadSettingsSources, nodeListDir, nodeRealPath } from "../../../src/node/settings/files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";
import { call } from "../../support/permission-workspace";

const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-homews-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const home = join(base, "home");
mkdirSync(join(home, ".config", "nvim"), { recursive: true });
mkdirSync(join(home, "proj"), { recursive: true });
symlinkSync(join(home, ".config"), join(home, "cfg"));
symlinkSync(home, join(base, "linked-home"));

const gateAt = (cwd: string, homeDir = home) =>
  createPermissionGate({
    cwd,
    home: homeDir,
    realPath: nodeRealPath,
    loadSources: async () => loadSettingsSources({ cwd, home: homeDir, managedDir: null }),
    listDir: nodeListDir,
    shellWasm: () => loadShellWasm(),
    writer: createSettingsWriter(cwd),
  });
const write = (file_path: string) => call("write_file", { file_path, content: "x" });
const bash = (command: string) => call("run_command", { command });

describe("a home-folder workspace", () => {
  it("asks for the entries the sandbox keeps read-only, in every mode, also through a link, another case or a linked home", async () => {
    const gate = gateAt(home);
    for (const f of [
      ".claude.json",
      ".config/Code/User/mcp.json",
      ".bash_aliases",
      ".local/bin/git",
      "bin/ls",
      ".gemini/settings.json",
      ".roo/commands/x.md",
      ".newtool-rc",
      "cfg/Code/User/settings.json",
      ".CLAUDE.json",
      // The package managers' caches: the person's own npx, uvx, pnpm dlx run code from them (home20).
      ".npm/_npx/0123456789abcdef/node_modules/pkg/cli.js",
      ".cache/uv/archive-v0/x/bin/tool",
      ".pnpm-store/v3/x",
      ".yarn/berry/cache/x.zip",
      "go/bin/gopls",
      "node_modules/.bin/create-vite",
      "Library/LaunchAgents/x.plist",
    ])
      for (const mode of ["acceptEdits", "bypassPermissions"] as const) expect((await gate.check(write(f), mode)).decision, `${f} ${mode}`).toBe("ask");
    for (const c of ["echo x > .bash_aliases", "echo {} | tee .claude.json", "cp /bin/true .local/bin/git"]) expect((await gate.check(bash(c), "bypassPermissions")).decision, c).toBe("ask");
    expect((await gateAt(home, join(base, "linked-home")).check(write(".claude.json"), "acceptEdits")).decision).toBe("ask");
    // A folder holding the home: the same entries below it.
    expect((await gateAt(base).check(write("home/.bash_aliases"), "bypassPermissions")).decision).toBe("ask");
  });

  it("leaves ordinary files, histories and a workspace inside a dot entry alone", async () => {
    const gate = gateAt(home);
    for (const f of ["notes.txt", "proj/a.js", ".bash_history", "Documents/x.md", "gopher/x.go"]) expect((await gate.check(write(f), "acceptEdits")).decision, f).toBe("allow");
    expect((await gate.check(bash("echo x > proj.txt && mkdir -p proj/.cache/a"), "bypassPermissions")).decision).toBe("allow");
    // The person's dotfiles opened as the workspace: ordinary there, as the sandbox leaves it writable.
    expect((await gateAt(join(home, ".config", "nvim")).check(write("init.lua"), "acceptEdits")).decision).toBe("allow");
    // A project in the home folder: nothing changes.
    expect((await gateAt(join(home, "proj")).check(write("b.js"), "acceptEdits")).decision).toBe("allow");
  });

  it("is the sandbox's own rule", () => {
    expect([".bash_history", ".viminfo", "proj", "Documents", "gopher"].every(homeEntryWritable)).toBe(true);
    expect(
      [
        ".config",
        ".local",
        ".claude.json",
        ".bash_aliases",
        "bin",
        "go",
        "node_modules",
        "snap",
        "Library",
        "AppData",
        "BIN",
        ".anything-new",
        ".cache",
        ".npm",
        ".pnpm-store",
        ".yarn",
        ".bun",
        ".m2",
        ".gradle",
      ].some(homeEntryWritable),
    ).toBe(false);
  });
});

describe("a home-folder workspace's installs on PATH (red team T, session 20)", () => {
  const pathGate = (cwd: string, searchPath: string) =>
    createPermissionGate({
      cwd,
      home,
      realPath: nodeRealPath,
      loadSources: async () => loadSettingsSources({ cwd, home, managedDir: null }),
      listDir: nodeListDir,
      shellWasm: () => loadShellWasm(),
      searchPath,
    });

  it("names a bin folder's install prefix, another folder itself, never the home or a relative folder", () => {
    expect(pathInstalls(`${home}/miniconda3/bin:${home}/Android/Sdk/platform-tools:${home}/bin:/usr/bin:bin:${home}/x/../y/bin:${home}/flutter/bin/`, home)).toEqual([
      `${home}/miniconda3`,
      `${home}/Android/Sdk/platform-tools`,
      `${home}/bin`,
      `${home}/flutter`,
    ]);
  });

  it("reads a PATH element's leading tilde as bash does when it looks a program up (red team V): ~/x, ~, ~NAME of this home; not ~+ or another's", async () => {
    const name = home.slice(home.lastIndexOf("/") + 1);
    expect(pathInstalls(`~/miniconda3/bin:~/.local/bin/:~${name}/flutter/bin:~:~+/bin:~other/sdk/bin:~x`, home)).toEqual([`${home}/miniconda3`, `${home}/.local`, `${home}/flutter`]);
    const gate = pathGate(home, "~/miniconda3/bin:/usr/bin");
    for (const mode of ["acceptEdits", "bypassPermissions"] as const) expect((await gate.check(write("miniconda3/lib/python3.11/site-packages/zz.pth"), mode)).decision, mode).toBe("ask");
  });

  it("asks for a write beside a program on PATH in the home (a python's .pth), in every mode; a project's own venv stays the project's", async () => {
    const gate = pathGate(home, `${home}/miniconda3/bin:/usr/bin`);
    for (const f of ["miniconda3/lib/python3.11/site-packages/zz.pth", "miniconda3/etc/profile.d/conda.sh", "miniconda3/bin/python3"])
      for (const mode of ["acceptEdits", "bypassPermissions"] as const) expect((await gate.check(write(f), mode)).decision, `${f} ${mode}`).toBe("ask");
    expect((await gate.check(bash("echo 'import os' > miniconda3/lib/python3.11/site-packages/zz.pth"), "bypassPermissions")).decision).toBe("ask");
    expect((await gate.check(write("proj/a.js"), "acceptEdits")).decision).toBe("allow");
    // A project opened as the workspace with its venv activated: nothing changes there.
    expect((await pathGate(join(home, "proj"), `${home}/proj/.venv/bin:/usr/bin`).check(write(".venv/lib/python3.11/site-packages/x.pth"), "acceptEdits")).decision).toBe("allow");
  });
});
