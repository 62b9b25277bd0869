/**
 * One check's memory (scopedToOneCheck, path-reach.ts): a command naming the same path thousands
 * of times is matched once per rule, but nothing is kept from one check to the next — a session
 * rule added, or a file created, between two checks is seen by the second.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { YokePermissionGate } from "../../../src/core/permissions/gate";
import { folderGate } from "../../../src/node/permission-check";

let root: string;
let cwd: string;
let gate: YokePermissionGate;
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-scope-")));
  cwd = join(root, "ws");
  for (const f of ["src/a.ts", ".env"]) {
    mkdirSync(dirname(join(cwd, f)), { recursive: true });
    writeFileSync(join(cwd, f), "x\n");
  }
  const settings = join(root, "settings.json");
  writeFileSync(settings, JSON.stringify({ permissions: { allow: ["Bash(git diff:*)"], deny: ["Read(**/.env)"] } }));
  const home = join(root, "home");
  mkdirSync(home);
  gate = folderGate({ cwd, home, settings: [settings], trusted: true, managedDir: null });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const bash = (command: string) => gate.check({ tool: "run_command", permission: "Bash", input: { command }, mutates: true }, "default");

describe("one check's memory", () => {
  it("answers a command naming one path 1,500 times as it answers it once, and a denied path among them still denies", async () => {
    expect((await bash(`git diff HEAD -- ${"src/a.ts ".repeat(1500)}`)).decision).toBe("allow");
    expect((await bash(`git diff HEAD -- ${"src/a.ts ".repeat(700)}.env ${"src/a.ts ".repeat(700)}`)).decision).toBe("deny");
  });

  it("keeps nothing from one check to the next: a session deny rule added between two identical checks applies to the second", async () => {
    const command = `git diff HEAD -- ${"src/a.ts ".repeat(50)}`;
    expect((await bash(command)).decision).toBe("allow");
    gate.addSessionRule("Read(src/**)", "deny");
    expect((await bash(command)).decision).toBe("deny");
  });
});
