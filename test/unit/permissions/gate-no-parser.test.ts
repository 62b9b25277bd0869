// Its own file: the shell parser is loaded once per process, and here it must fail to load.
import { describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

describe("createPermissionGate without its shell parser", () => {
  it("still checks file tools and asks for every command, saying why", async () => {
    const w = createPermissionWorkspace();
    const errors: string[] = [];
    const gate = createPermissionGate({
      cwd: w.ws,
      home: w.home,
      loadSources: async () => [],
      shellWasm: async () => {
        throw new Error("cannot find tree-sitter.wasm");
      },
      log: { debug() {}, info() {}, warn() {}, error: (m) => void errors.push(m) },
    });
    expect((await gate.check(call("read_file", { file_path: "src/a.ts" }), "default")).decision).toBe("allow");
    expect(await gate.check(call("run_command", { command: "ls" }), "bypassPermissions")).toEqual({
      decision: "ask",
      by: "mode",
      rule: null,
      reason: "Yoke's shell parser is not available (cannot find tree-sitter.wasm), so every command needs approval.",
    });
    expect(errors).toEqual(["[permissions] the shell parser could not be loaded: cannot find tree-sitter.wasm"]);
  });
});
