/**
 * The session folder where it lies in a workspace folder (session 24, bgprot24): protected whole — a write
 * into it asks in every mode (file tools, commands, a folder above it removed), the sandbox view makes it
 * read-only; a session folder outside the workspace, or the workspace folder itself, changes nothing.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { loadSettingsSources, nodeListDir, nodeRealPath } from "../../../src/node/settings/files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

function gateWith(hostFolder: (w: ReturnType<typeof createPermissionWorkspace>) => string) {
  const w = createPermissionWorkspace();
  mkdirSync(join(w.ws, "sessions"), { recursive: true });
  w.write("sessions/s1.jsonl", "{}\n");
  const gate = createPermissionGate({
    cwd: w.ws,
    home: w.home,
    realPath: nodeRealPath,
    listDir: nodeListDir,
    hostFolders: [hostFolder(w)],
    loadSources: async () => loadSettingsSources({ cwd: w.ws, home: w.home, managedDir: null }),
    shellWasm: () => loadShellWasm(),
  });
  return { w, gate };
}

describe("the session folder in a workspace folder", () => {
  const rows: Array<[string, string, Record<string, unknown>]> = [
    ["write_file into it", "write_file", { path: "sessions/s1.jsonl", content: "x" }],
    ["a redirection appending to a log", "run_command", { command: "printf x >> sessions/s1.jsonl" }],
    ["a glob redirection", "run_command", { command: "printf x >> sessions/*.jsonl" }],
    ["removing a folder above it", "run_command", { command: "rm -rf ./sessions" }],
  ];
  it.each(rows)("%s asks in bypassPermissions, naming the session folder", async (_what, tool, input) => {
    const { gate } = gateWith((w) => join(w.ws, "sessions"));
    const d = await gate.check(call(tool, input), "bypassPermissions");
    expect(d.decision).toBe("ask");
    expect(d.reason).toContain("session folder");
  });

  it("is read-only in the command sandbox; outside the workspace, or the workspace itself, nothing changes", async () => {
    const inside = gateWith((w) => join(w.ws, "sessions"));
    expect((await inside.gate.sandboxProtection()).readOnly).toContain(join(inside.w.ws, "sessions"));
    for (const f of [(w: ReturnType<typeof createPermissionWorkspace>) => join(w.root, "elsewhere"), (w: ReturnType<typeof createPermissionWorkspace>) => w.ws]) {
      const { gate, w } = gateWith(f);
      expect((await gate.check(call("write_file", { path: "sessions/s1.jsonl", content: "x" }), "bypassPermissions")).decision).toBe("allow");
      expect((await gate.sandboxProtection()).readOnly).not.toContain(join(w.ws, "sessions"));
    }
  });
});
