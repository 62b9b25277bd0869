/** A temporary workspace and home folder with settings files, and a gate over them (real files, real symlinks). */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createPermissionGate, type YokePermissionGate } from "../../src/core/permissions/gate";
import type { PermissionCheck } from "../../src/core/loop/types";
import type { GitCheckoutTarget } from "../../src/core/permissions/context";
import { yokeToolIdentities } from "../../src/core/tools/catalogue";
import { isReadOnly } from "../../src/core/tools/types";
import { createSettingsWriter, loadSettingsSources, nodeListDir, nodeRealPath } from "../../src/node/settings/files";
import { loadShellWasm } from "../../src/node/tree-sitter-wasm";
import { nodeGitObjectPaths } from "../../src/node/git-object-paths";
import { nodeGitCheckoutTarget } from "../../src/node/git-checkout-target";

export interface PermissionWorkspace {
  root: string;
  ws: string;
  home: string;
  outside: string;
  write(path: string, text: string): void;
  link(path: string, target: string): void;
  gate(opts?: { trusted?: boolean; extraFiles?: string[]; vscodePermissions?: unknown; gitCheckoutTarget?: GitCheckoutTarget }): YokePermissionGate;
}

export function createPermissionWorkspace(settings?: Record<string, unknown>): PermissionWorkspace {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-perm-")));
  const ws = join(root, "ws");
  const home = join(root, "home");
  const outside = join(root, "outside");
  const write = (path: string, text: string) => {
    const abs = path.startsWith("/") ? path : join(ws, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  };
  for (const f of ["src/a.ts", "src/utils/x.ts", "README.md", ".env", "docs/guide.md"]) write(f, "x\n");
  write(join(outside, "o.txt"), "x\n");
  mkdirSync(home, { recursive: true });
  // The user's own (untracked) workspace file: its allow rules apply. A checked-in .yoke/settings.json may only restrict.
  if (settings) write(".yoke/settings.local.json", JSON.stringify(settings));
  return {
    root,
    ws,
    home,
    outside,
    write,
    link(path, target) {
      mkdirSync(dirname(join(ws, path)), { recursive: true });
      symlinkSync(target, join(ws, path));
    },
    gate(opts = {}) {
      return createPermissionGate({
        cwd: ws,
        home,
        realPath: nodeRealPath,
        loadSources: async () => loadSettingsSources({ cwd: ws, home, extraFiles: opts.extraFiles, vscodePermissions: opts.vscodePermissions, managedDir: null }),
        listDir: nodeListDir,
        shellWasm: () => loadShellWasm(),
        writer: createSettingsWriter(ws),
        trusted: opts.trusted,
        gitObjectPaths: nodeGitObjectPaths,
        gitCheckoutTarget: opts.gitCheckoutTarget ?? nodeGitCheckoutTarget,
      });
    },
  };
}

/** A PermissionCheck for a tool call, e.g. call("run_command", {command: "ls"}). */
export function call(tool: string, input: Record<string, unknown>): PermissionCheck {
  // As the permission extension builds it, from what the tool declares (a name no Yoke tool has: a permission name, read-write).
  const declared = yokeToolIdentities().find((t) => t.name === tool);
  return { tool, permission: declared?.permission ?? tool, input, mutates: declared ? !isReadOnly(declared.capabilities) : true };
}
