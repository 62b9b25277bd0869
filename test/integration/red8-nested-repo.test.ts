/**
 * Red team round 8: a repository a command creates inside the workspace. git takes any folder
 * holding a `.git` (or a bare layout: `HEAD`, `objects/`, `refs/`) for a repository and runs its
 * configuration's `core.fsmonitor` at the next git command there — the user's own, VS Code's git
 * extension (which opens repositories one folder down by default), a shell prompt showing the
 * branch. The workspace's own `.git` is an allow-list; a NEW one below it was not guarded, so a
 * bypassPermissions session with no deny rule (only the sandbox holds) left `sub/.git` with a planted
 * fsmonitor, which the user's next `git status` in `sub` ran on the host. Real `yoke run --trust
 * --permission-mode bypassPermissions` sessions (scripted model over real HTTP), as root and as
 * the unprivileged user, with bwrap and firejail; then the user's own git on the host. Closed: a
 * repository born during a command holds only what git init and git clone write (an allow-list of
 * configuration keys, git's sample hooks, git's own entries), else it goes to quarantine.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt } from "../support/cli";
import { identities, spawnAs, type Identity } from "../support/identities";
import { bash, bypassSessionAs, cellFolder, committedWorkspace, sandboxBackends } from "../support/sandbox-matrix";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 180_000 });
const { list: who } = identities();
const temps: string[] = [];

const backends = sandboxBackends();

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    let n = 0;

    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-red8-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    const workspace = (name: string) => committedWorkspace(join(base, name), { "src/a.js": "keep\n", "lib/deep/x.js": "keep\n" }, id);

    const session = (ws: string, script: ScriptedTurn[]) => bypassSessionAs(id, home, ws, join(base, `sessions-${++n}`), script);

    /** The user's own git on the host, in `dir` (a plain status, as VS Code's git extension runs). */
    const userGit = (dir: string) => spawnSync("git", ["status", "--short"], { cwd: dir, encoding: "utf8", ...spawnAs(id, { HOME: home }) });

    // Class (red team round 8): a repository a command creates below the workspace carries a
    // planted core.fsmonitor that the user's next git there runs. Closed by an allow-list of what a
    // born repository may hold, checked when each command ends (src/node/commands/new-repositories.ts).
    (unusable ? it.skip : it)(
      "a repository a command creates below the workspace (sub/.git, a .git file, a bare layout) is quarantined: the user's next git there runs no planted fsmonitor; git init, a file:// clone and npm init stay",
      async () => {
        const ws = workspace("nested");
        const marker = join(base, `ran-${n + 1}`);
        const fsm = (dir: string) => `git config -f ${dir}/config core.fsmonitor "touch ${marker}-${dir.replace(/\W/g, "_")}"`;
        // Three layouts git takes for a repository, each with a planted fsmonitor; written by perl and
        // python (code the gate cannot read: in bypassPermissions with no deny rule only the sandbox holds).
        const plant = [
          `git init -q sub && ${fsm("sub/.git")}`,
          `mkdir -p lib/deep/gd && git init -q --bare lib/deep/gd/repo.git && ${fsm("lib/deep/gd/repo.git")} && echo "gitdir: $PWD/lib/deep/gd/repo.git" > lib/deep/.git`,
          `git init -q --bare tools && ${fsm("tools")}`,
        ].join(" && ");
        // The command then waits: a repository it made is looked for while it runs too (a host program
        // such as VS Code's git extension opens a new .git within a second), not only when it ends.
        const wait = `for i in $(seq 40); do [ -e sub/.git ] || break; sleep 0.25; done; [ -e sub/.git ] && echo sub-still-there || echo sub-gone-while-running`;
        const script = `cat > /tmp/plant.sh <<'EOF'\n${plant}\nEOF\npython3 -c 'import subprocess; subprocess.run(["bash", "/tmp/plant.sh"], check=True)' && echo planted && ${wait}`;
        // Ordinary work in the same session: a new project, a local clone with its remote and branch, npm init, a scratch repository deleted.
        const ordinary = [
          "git init -q -b main fresh && git -C fresh -c user.name=t -c user.email=t@t commit -q --allow-empty -m first",
          "git clone -q file://$PWD/fresh cl",
          "mkdir app && (cd app && npm init -y >/dev/null)",
          "git init -q scratch && rm -rf scratch && echo ordinary-done",
        ].join(" && ");
        const r = await session(ws, [bash(script), bash("echo changed > src/a.js"), bash(ordinary)]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.told).toContain("planted");
        expect(r.told).toContain("sub-gone-while-running");
        expect(r.told, r.told).toContain("ordinary-done");
        expect(readFileSync(join(ws, "src/a.js"), "utf8"), "the session ran").toBe("changed\n");
        // The model was told, naming each repository and why.
        for (const rel of ["sub/.git", "lib/deep/.git", "tools"]) expect(r.told).toContain(`${rel} (a git repository the command created`);
        expect(r.told).toContain("core.fsmonitor");
        for (const dir of ["sub", "lib/deep", "tools"]) if (existsSync(join(ws, dir))) userGit(join(ws, dir));
        const ran = ["sub/.git", "lib/deep/gd/repo.git", "tools"].filter((d) => existsSync(`${marker}-${d.replace(/\W/g, "_")}`));
        expect(ran, "no planted fsmonitor ran on the host").toEqual([]);
        // Ordinary work still works: the workspace's own repository, the new project, the clone, npm init.
        expect(userGit(ws).status).toBe(0);
        expect(userGit(join(ws, "fresh")).status).toBe(0);
        const clone = userGit(join(ws, "cl"));
        expect(clone.status, clone.stderr).toBe(0);
        expect(spawnSync("git", ["config", "-f", join(ws, "cl/.git/config"), "remote.origin.url"], { encoding: "utf8" }).stdout.trim()).toBe(`file://${ws}/fresh`);
        expect(existsSync(join(ws, "app/package.json"))).toBe(true);
        expect(r.told).not.toMatch(/(fresh|cl|app)\/\.git \(/);
      },
    );
  });
});
