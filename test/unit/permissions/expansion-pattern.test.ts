/**
 * Red team H (session 24): the pattern of `${x#…}`, `${x##…}`, `${x%…}`, `${x%%…}`, `${x^…}`, `${x,,…}`.
 * tree-sitter keeps it as one `regex` leaf, which the analysis did not look into; bash expands it —
 * command and process substitutions included — whenever x is set (`echo "${PWD#$(cat .env)}"` ran cat, and
 * was allowed as read-only in plan mode under `Read(./.env)`). Each form runs in real bash first (a marker
 * appears), then the gate must ask (plan: deny); ordinary trimming stays allowed.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { nodeListDir, nodeRealPath } from "../../../src/node/settings-files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-expansion-pattern-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const ws = join(root, "ws");
mkdirSync(join(ws, "src"), { recursive: true });
writeFileSync(join(ws, ".env"), "SECRET=1\n");

const gate = createPermissionGate({
  cwd: ws,
  home: join(root, "home"),
  realPath: nodeRealPath,
  listDir: nodeListDir,
  loadSources: async () => [{ info: { kind: "extra", label: "test", baseDir: ws }, value: { permissions: { deny: ["Bash(rm:*)", "Read(./.env)"] } } }],
  shellWasm: () => loadShellWasm(),
});
const check = (command: string, mode: "default" | "plan" | "bypassPermissions") => gate.check({ tool: "run_command", permission: "Bash", input: { command }, mutates: true }, mode);

function bashRunsIt(command: string): boolean {
  const dir = mkdtempSync(join(root, "bash-"));
  try {
    execFileSync("bash", ["-c", command], { cwd: dir, stdio: "ignore", timeout: 10_000 });
  } catch {
    // the marker is what counts
  }
  // A process substitution's command runs beside bash, which may exit first (`<(touch hit)` under load): wait for it a little.
  for (let i = 0; i < 50 && !existsSync(join(dir, "hit")); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  return existsSync(join(dir, "hit"));
}

const FORMS = [
  'echo "${PWD#$(CMD)}"',
  'echo "${PWD##$(CMD)}"',
  "echo ${PWD%$(CMD)}",
  'echo "${PWD%%$(CMD)}"',
  'echo "${PWD^$(CMD)}"',
  'echo "${PWD,,$(CMD)}"',
  "echo ${PWD#<(CMD)}",
  'x=a; echo "${x#$(CMD)}"',
];

describe("a parameter expansion's pattern (red team H, session 24)", () => {
  it.each(FORMS)("%s: bash runs CMD; the gate asks (plan: denies)", async (form) => {
    expect(bashRunsIt(form.replace("CMD", "touch hit"))).toBe(true);
    const attack = form.replace("CMD", "cat .env");
    expect((await check(attack, "default")).decision).toBe("ask");
    expect((await check(attack, "bypassPermissions")).decision).toBe("ask");
    expect((await check(attack, "plan")).decision).toBe("deny");
  });

  it.each(['f=src/a.ts; echo "${f%.ts}" "${f##*/}"', 'echo "${PWD#$HOME}"', 'x=a.b; echo "${x%.*}" "${x#*.}" "${x^^}" "${x,}"', "[[ $x =~ ^(a|b)$ ]] && echo y"])(
    "ordinary trimming stays allowed: %s",
    async (command) => {
      expect((await check(command, "default")).decision).toBe("allow");
    },
  );
});
