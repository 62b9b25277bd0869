/**
 * Issue 18, session 21 (check21): two classes the tightened differential checker found (its comparison
 * now names a program by the file that ran, not by the word that started it). Under Bash(rm:*) in
 * bypassPermissions the gate allowed
 * - `exec 7</usr/bin/rm; /proc/self/fd/7 -f src/a.ts` — the program is whatever file the descriptor holds;
 * - `exec -a rm busybox -f src/b.ts` (and `exec -arm busybox …`) — busybox runs the applet it is started as;
 * and in the checker's traced runs rm deleted the file both times. Now the first asks and the second is
 * denied by the rule. Outcome in a full `yoke run` session per identity (root and the unprivileged user,
 * the default backend): every file is still there, the model is told why, and busybox itself still runs
 * (control, same session).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const usable = backends.find(([, unusable]) => !unusable);

describe.each(who.map((w) => [w.label, w] as const))("a program by descriptor or by exec -a, as %s", (_label, id: Identity) => {
  it.skipIf(!usable)("under Bash(rm:*) in bypassPermissions nothing is deleted", { timeout: 240_000 }, async () => {
    const { base, home } = cellFolder("yoke-check21-", id, temps, { sandbox: { backend: usable![0] }, permissions: { deny: ["Bash(rm:*)"] } });
    const ws = join(base, "ws");
    mkdirSync(ws);
    committedWorkspace(ws, { "src/a.ts": "export const a = 1;\n", "src/b.ts": "export const b = 1;\n", "lib/c.ts": "export const c = 1;\n" }, id);
    const r = await sessionAs(id, home, ws, join(base, "sessions"), [
      bash("exec 7</usr/bin/rm; /proc/self/fd/7 -f src/a.ts"),
      bash("exec -a rm busybox -f src/b.ts"),
      bash("exec -arm busybox -rf lib"),
      bash("busybox ls src; echo CONTROL-END"),
    ]);
    expect(r.code, r.stderr).toBe(0);
    for (const f of ["src/a.ts", "src/b.ts", "lib/c.ts"]) expect(existsSync(join(ws, f)), f).toBe(true);
    expect(r.told).toContain("runs the file a process descriptor holds");
    expect(r.told).toMatch(/denied|deny rule/i);
    // Control: busybox itself runs in the same session (and lists what is still there).
    expect(r.told).toContain("CONTROL-END");
    expect(r.told).toContain("a.ts");
  });
});
