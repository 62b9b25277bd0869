// Session 20, red team V: red team U made `GIT_PAGER=cat`/`PAGER=cat` keep a line read-only (git runs
// no pager for `cat`). Through `declare`/`typeset`/`export` the exemption also took value-changing
// attributes: `declare -ux GIT_PAGER=cat` exports `CAT`, and git runs a program of that name from PATH.
// A PATH whose last entry is relative (`PATH=$PATH:tools`, as "add node_modules/.bin to PATH" advice
// writes it) cannot shadow git or ls, but a name found nowhere earlier — `CAT` — is the repository's
// `tools/CAT`. In plan mode the line was allowed and the repository's program ran (its output reached
// the model). Now only -x/-g/-r keep the exemption; the line is refused in plan mode.
//
// One full session of the built CLI per identity (plan mode, the scripted model), the default sandbox
// backend: the gate is what refuses, the sandbox is not involved. Outcome: the program's line is not in
// what the model saw, the refusal is; control: `export GIT_PAGER=cat; git log` runs in the same session.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const usable = backends.find(([, unusable]) => !unusable);

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it.skipIf(!usable)("declare -ux GIT_PAGER=cat; git log is refused in plan mode and runs no CAT from PATH", async () => {
    const { base, home } = cellFolder("yoke-redv-pager-", id, temps, { sandbox: { backend: usable![0] } });
    const ws = join(base, "ws");
    mkdirSync(ws);
    committedWorkspace(ws, { "README.md": "# r\n", "tools/CAT": "#!/bin/sh\necho REPO-CAT-RAN\ncat\n" }, id);
    chmodSync(join(ws, "tools", "CAT"), 0o755);
    writeFileSync(join(ws, "notes.txt"), "n\n");
    const r = await sessionAs(id, home, ws, join(base, "sessions"), [bash("declare -ux GIT_PAGER=cat; git log --oneline"), bash("export GIT_PAGER=cat; git log --oneline; echo CONTROL-END")], {
      mode: "plan",
      env: { PATH: `/usr/local/bin:/usr/bin:/bin:tools` },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.told).toContain("it sets GIT_PAGER, which changes what later commands run");
    expect(r.told).not.toContain("REPO-CAT-RAN");
    // Control: the plain export is still read-only in plan mode and runs.
    expect(r.told).toContain("CONTROL-END");
    expect(r.told).toContain("init");
  });
});
