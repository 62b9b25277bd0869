import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { toolchainPaths } from "../../../src/node/commands/sandbox/paths";

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe("toolchainPaths", () => {
  it("exposes read-only the toolchain folders that PATH points into under the hidden home", () => {
    home = realpathSync(mkdtempSync(join(tmpdir(), "yoke-home-")));
    for (const d of [".pyenv/shims", ".cargo/bin", ".rustup", "bin", ".nvm/versions/node/v20/bin"]) mkdirSync(join(home, d), { recursive: true });
    const path = [`${home}/.pyenv/shims`, `${home}/.cargo/bin`, `${home}/bin`, `${home}/.nvm/versions/node/v20/bin`, "/usr/bin", `${home}/missing`].join(":");
    expect(toolchainPaths(home, path)).toEqual([
      { path: `${home}/.pyenv`, mode: "ro" },
      { path: `${home}/.cargo`, mode: "ro" },
      { path: `${home}/.rustup`, mode: "ro" },
      { path: `${home}/bin`, mode: "ro" },
      { path: `${home}/.nvm`, mode: "ro" },
    ]);
  });

  it("exposes nothing when PATH has no folder under home", () => {
    home = realpathSync(mkdtempSync(join(tmpdir(), "yoke-home-")));
    expect(toolchainPaths(home, "/usr/local/bin:/usr/bin")).toEqual([]);
  });
});
