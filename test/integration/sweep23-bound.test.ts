/**
 * Issue 18, session 23 (sweep23): the new-repository walk after each command had a folder-count bound
 * (200,000) and left what lay past it: R45-05, a command that made two folders of ~200,000 empty
 * folders and a repository with a planted core.fsmonitor deep in each had one moved and the other
 * left, and the person's git status there ran the fsmonitor (reproduced at full scale before the fix,
 * docs/security.md). The walk has no bound now and keeps a folder cache between walks
 * (folder-states.ts), so a later walk reads only the folders whose stat changed.
 *
 * Here, cheap for CI, per identity × backend in one `yoke run` session:
 * 1. the R45-05 shape at 1,500 folders a tree: both planted repositories are moved;
 * 2. three seconds later (the folders of step 1 are settled in the cache: only lstat-ed), a repository
 *    planted deep in a folder the cache knows, by `git init` there and by renaming a made folder in:
 *    both moved — the cache does not hide a change;
 * then the person's git status in every planted place (as that identity, on the host) runs nothing.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Identity } from "../support/identities";
import { spawnAs } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();

const plant = (dir: string, mark: string) =>
  `git init -q ${dir} && printf '#!/bin/sh\\ntouch ${mark}\\n' > ${dir}/fsm.sh && chmod +x ${dir}/fsm.sh && git config -f ${dir}/.git/config core.fsmonitor ./fsm.sh`;

describe.each(who.flatMap((w) => backends.map(([b, why]) => [`${w.label}, ${b}`, w, b, why] as const)))(
  "the new-repository walk has no bound to reach, as %s",
  (_label, id: Identity, backend, why) => {
    it.skipIf(why !== undefined)(
      "repositories planted past thousands of folders, and later in folders the cache knows, are moved; the person's git status runs none",
      { timeout: 240_000 },
      async () => {
        const { base, home } = cellFolder("yoke-sweep23-", id, temps, { sandbox: { backend } });
        const ws = committedWorkspace(join(base, "ws"), { "a.txt": "x\n" }, id);
        const mark = join(base, "ran");
        const trees = `for T in A B; do for i in 1 2 3; do mkdir -p $T/d$i && (cd $T/d$i && mkdir $(seq -f x%g 1 500)); done; done`;
        const r = await sessionAs(id, home, ws, join(base, "sessions"), [
          bash(`${trees} && mkdir -p A/d3/x500/deep B/d3/x500/deep && ${plant("A/d3/x500/deep/r", `${mark}-A`)} && ${plant("B/d3/x500/deep/r", `${mark}-B`)} && echo PLANTED-1`),
          bash(`sleep 3; ${plant("A/d2/x250/r", `${mark}-C`)} && mkdir -p /tmp/m && ${plant("/tmp/m/r", `${mark}-D`)} && mv /tmp/m/r B/d1/x100/r && echo PLANTED-2`),
        ]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.told, r.told.slice(0, 1500)).toContain("PLANTED-1");
        expect(r.told).toContain("PLANTED-2");
        expect(r.told).toContain("core.fsmonitor");
        expect(r.told).not.toMatch(/could NOT be moved|were not checked/);
        const planted = ["A/d3/x500/deep/r", "B/d3/x500/deep/r", "A/d2/x250/r", "B/d1/x100/r"];
        for (const p of planted) expect(existsSync(join(ws, p, ".git")), `${p}/.git is still there`).toBe(false);
        for (const p of planted) if (existsSync(join(ws, p))) spawnSync("git", ["status", "--short"], { cwd: join(ws, p), encoding: "utf8", ...spawnAs(id, { HOME: home }) });
        for (const x of ["A", "B", "C", "D"]) expect(existsSync(`${mark}-${x}`), `the fsmonitor planted as ${x} ran on the host`).toBe(false);
      },
    );
  },
);
