/**
 * Red team round 11: repositories a command creates below the workspace (src/node/commands/new-repositories.ts).
 * Probes against the allow-list that round 8 added: a repository deeper than the walk goes, one
 * planted by a process the command left running after its last scan, and `git worktree add`
 * inside the workspace (ordinary work). Real `yoke run --trust --permission-mode bypassPermissions`
 * sessions (scripted model over HTTP), bwrap, the first identity; then the user's own git on the host.
 */
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureBuilt } from "../support/cli";
import { identities, spawnAs } from "../support/identities";
import { bash, bypassSessionAs, cellFolder, committedWorkspace } from "../support/sandbox-matrix";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 180_000 });
const id = identities().list[0]!;
const temps: string[] = [];

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe("red11: repositories a command creates", () => {
  let base: string;
  let home: string;
  let n = 0;
  beforeAll(() => {
    ({ base, home } = cellFolder("yoke-red11-", id, temps, { sandbox: { backend: "bwrap" } }));
  });
  const userGit = (dir: string) => spawnSync("git", ["status", "--short"], { cwd: dir, encoding: "utf8", ...spawnAs(id, { HOME: home }) });
  const session = (ws: string, cmds: string[]) => bypassSessionAs(id, home, ws, join(base, `sessions-${++n}`), cmds.map(bash));

  // Class: a limit of the walk (it went 256 folders down) left a repository below it unchecked, and
  // the user's git status there ran its planted fsmonitor on the host. Fixed: no depth limit.
  it("a repository 260 folders down is quarantined: the user's git status there runs no planted fsmonitor", async () => {
    const ws = committedWorkspace(join(base, "deep"), { "a.txt": "x\n" }, id);
    const mark = join(base, "ran-deep");
    const d = Array.from({ length: 260 }, () => "d").join("/");
    const r = await session(ws, [`mkdir -p ${d} && git init -q ${d}/r && git config -f ${d}/r/.git/config core.fsmonitor "touch ${mark}" && echo planted-deep`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.told).toContain("planted-deep");
    expect(r.told).toContain("core.fsmonitor");
    if (existsSync(join(ws, d, "r"))) userGit(join(ws, d, "r"));
    expect(existsSync(mark), "the planted fsmonitor ran on the host").toBe(false);
  });

  // Held: a process the command leaves running (setsid, nohup) cannot plant a repository after the
  // command's last scan — the sandbox ends it with the command.
  it("a repository planted after the command ended by a process it left behind never appears", async () => {
    const ws = committedWorkspace(join(base, "bg"), { "a.txt": "x\n" }, id);
    const mark = join(base, "ran-bg");
    const plant = (dir: string) => `sh -c 'sleep 4; git init -q ${dir} && git config -f ${dir}/.git/config core.fsmonitor "touch ${mark}-${dir}"'`;
    const r = await session(ws, [`(setsid ${plant("late")} </dev/null >/dev/null 2>&1 &) ; nohup ${plant("late2")} </dev/null >/dev/null 2>&1 & echo bg-started`]);
    expect(r.told).toContain("bg-started");
    await new Promise((res) => setTimeout(res, 9000));
    for (const x of ["late", "late2"]) if (existsSync(join(ws, x))) userGit(join(ws, x));
    expect([existsSync(join(ws, "late")), existsSync(join(ws, "late2")), existsSync(`${mark}-late`), existsSync(`${mark}-late2`)]).toEqual([false, false, false, false]);
  });

  // Class: a repository the walk could not read when it was made (a folder the command made
  // unreadable, chmod 000) is neither checked then nor born later: the next command makes the folder
  // readable again, which changes no time of the repository's own files, so it passes as one the
  // user had, and the user's git status there runs its planted fsmonitor. Fixed: a folder the command
  // made unreadable goes to quarantine (with its parent when it cannot even be looked at: chmod 644).
  it.each(["000", "644"])("a repository hidden in a folder made unreadable (chmod %s) during one command and uncovered by the next is quarantined", async (mode) => {
    const user = identities().list.at(-1)!;
    const cell = cellFolder(`yoke-red11-hide${mode}-`, user, temps, { sandbox: { backend: "bwrap" } });
    const ws = committedWorkspace(join(cell.base, "hide"), { "a.txt": "x\n" }, user);
    const mark = join(cell.base, `ran-hidden-${mode}`);
    const r = await bypassSessionAs(user, cell.home, ws, join(cell.base, "sessions"), [
      bash(`mkdir -p cover/sub && git init -q cover/sub && git config -f cover/sub/.git/config core.fsmonitor "touch ${mark}" && chmod ${mode} cover && echo hidden`),
      bash("sleep 1; chmod 755 cover; echo uncovered"),
    ]);
    expect(r.told).toContain("uncovered");
    expect(r.told).toContain("a folder the command made unreadable");
    if (existsSync(join(ws, "cover/sub"))) spawnSync("git", ["status", "--short"], { cwd: join(ws, "cover/sub"), encoding: "utf8", ...spawnAs(user, { HOME: cell.home }) });
    expect(existsSync(mark), "the planted fsmonitor ran on the host").toBe(false);
  });
});
