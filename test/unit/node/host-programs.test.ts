/**
 * Yoke's own host programs are never found in a folder the agent writes (red team 22-gate):
 * relative and empty PATH entries and entries inside a registered writable folder are skipped.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findHostProgram, hostSearchDirs, registerAgentWritable, trustedSearchDir } from "../../../src/node/host-programs";

const base = mkdtempSync(join(tmpdir(), "yoke-host-programs-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function program(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, "#!/bin/sh\nexit 0\n");
  chmodSync(p, 0o755);
  return p;
}

describe("host programs", () => {
  it("skips relative and empty entries", () => {
    expect(trustedSearchDir("")).toBe(false);
    expect(trustedSearchDir("bin")).toBe(false);
    expect(trustedSearchDir("./node_modules/.bin")).toBe(false);
    expect(trustedSearchDir("/usr/bin")).toBe(true);
  });

  it("skips a folder inside a registered writable folder, also through a link, and looks the program up again", () => {
    const ws = join(base, "ws");
    const planted = program(join(ws, "bin"), "yoke-test-prog");
    const system = program(join(base, "system"), "yoke-test-prog");
    const saved = process.env.PATH;
    process.env.PATH = `${join(ws, "bin")}:${join(base, "system")}`;
    try {
      expect(findHostProgram("yoke-test-prog")).toBe(planted);
      registerAgentWritable(ws);
      expect(findHostProgram("yoke-test-prog")).toBe(system);
      expect(hostSearchDirs()).toEqual([join(base, "system")]);
    } finally {
      process.env.PATH = saved;
    }
  });

  it("never registers / (that would skip every folder)", () => {
    registerAgentWritable("/");
    expect(trustedSearchDir("/usr/bin")).toBe(true);
  });
});
