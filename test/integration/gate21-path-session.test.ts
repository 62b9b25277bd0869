// Session 21, gate21 (issue 18): the session's command path may hold an entry the agent can write —
// relative (`.`, `tools`, an empty entry) or inside the workspace (`<ws>/node_modules/.bin`). With `.`
// first, `ls` is the workspace's own `./ls`; with `tools` last, a name no system folder holds (`CAT`)
// is `tools/CAT`. Plan mode allowed both as read-only and the workspace's program ran. Now the gate
// resolves the name along the path: a writable entry before the folder that holds it makes the
// command code Yoke cannot see (refused in plan mode). Builtins are not looked up and still run.
//
// One full session of the built CLI per identity (plan mode, the scripted model), the default sandbox
// backend: the gate is what refuses. Outcome: neither planted program ran (its marker file is absent,
// its output not in what the model saw); control: a builtin line runs in the same session.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const usable = backends.find(([, unusable]) => !unusable);

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it.skipIf(!usable)("a workspace program found through a relative PATH entry is refused in plan mode and does not run", async () => {
    const { base, home } = cellFolder("yoke-gate21-path-", id, temps, { sandbox: { backend: usable![0] } });
    const ws = join(base, "ws");
    mkdirSync(ws);
    const plant = (marker: string) => `#!/bin/sh\necho ${marker}\necho ran > ${marker}.ran\n`;
    committedWorkspace(ws, { "README.md": "# r\n", ls: plant("WS-LS-RAN"), "tools/CAT": plant("WS-CAT-RAN"), "node_modules/.bin/wc": plant("WS-WC-RAN") }, id);
    for (const f of ["ls", "tools/CAT", "node_modules/.bin/wc"]) chmodSync(join(ws, f), 0o755);
    const r = await sessionAs(id, home, ws, join(base, "sessions"), [bash("ls"), bash("CAT README.md"), bash("wc -l README.md"), bash('F=README.md; echo "$F" CONTROL-END')], {
      mode: "plan",
      env: { PATH: `.:${ws}/node_modules/.bin:/usr/local/bin:/usr/bin:/bin:tools` },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.told).toContain("ls is looked up on the command path, whose entry . comes before");
    expect(r.told).toContain("CAT is looked up on the command path");
    expect(r.told).toContain("wc is looked up on the command path");
    for (const m of ["WS-LS-RAN", "WS-CAT-RAN", "WS-WC-RAN"]) {
      expect(r.told).not.toContain(m);
      expect(existsSync(join(ws, `${m}.ran`)), m).toBe(false);
    }
    // Control: a builtin is not looked up on PATH; the literal variable is read as its value.
    expect(r.told).toContain("README.md CONTROL-END");
  });
});
