/** The mount plan of one command, on a real temporary workspace (files, folders, links). */
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildMountPlan, MAX_SIBLING_MOUNTS, type HostFacts, type Mount, type MountPlan } from "../../../src/node/commands/sandbox/plan";

const facts = (over: Partial<HostFacts> = {}): HostFacts => ({ homes: [], runtime: [], secrets: [], needed: [], sockets: () => [], ...over });

let base: string;
let ws: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-plan-")));
  ws = join(base, "ws");
  mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
  mkdirSync(join(ws, ".git", "info"), { recursive: true });
  writeFileSync(join(ws, ".git", "config"), "[core]\n");
  mkdirSync(join(ws, "src"), { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const policy = () => ({ workspace: ws, home: join(base, "home"), paths: [] });
const find = (plan: MountPlan, path: string): Mount | undefined => plan.mounts.find((m) => m.path === path);
const order = (plan: MountPlan, path: string) => plan.mounts.findIndex((m) => m.path === path);

describe("buildMountPlan: protected paths", () => {
  it("mounts existing protected paths read-only and the folders holding them as mount points, after the workspace", () => {
    const plan = buildMountPlan({ policy: policy() }, facts());
    expect(find(plan, ws)).toMatchObject({ op: "rw", tag: "workspace" });
    expect(find(plan, join(ws, ".git", "config"))).toMatchObject({ op: "ro", tag: "protected" });
    expect(find(plan, join(ws, ".git", "hooks"))).toMatchObject({ op: "ro", tag: "protected" });
    expect(find(plan, join(ws, ".git"))).toMatchObject({ op: "rw", tag: "ancestor" });
    expect(order(plan, join(ws, ".git", "config"))).toBeGreaterThan(order(plan, join(ws, ".git")));
    expect(order(plan, join(ws, ".git"))).toBeGreaterThan(order(plan, ws));
    expect(plan.writable).toEqual([ws]);
  });

  it("guards the protected paths that do not exist (at their first missing folder) instead of creating them", () => {
    rmSync(join(ws, ".git"), { recursive: true });
    const plan = buildMountPlan({ policy: policy() }, facts());
    // (The workspace folder itself is guarded for the names protected by pattern, `*.code-workspace`.)
    const guarded = plan.guards.map((g) => g.path).filter((p) => p !== ws);
    expect(guarded).toContain(join(ws, ".git"));
    expect(guarded).toContain(join(ws, ".vscode"));
    expect(guarded).toContain(join(ws, ".mcp.json"));
    expect(guarded.filter((g) => g === join(ws, ".git") || g.startsWith(join(ws, ".git") + "/"))).toEqual([join(ws, ".git")]);
    expect(plan.guards.filter((g) => g.path !== ws).every((g) => g.before.kind === "none" && g.root === ws && g.why.length > 0)).toBe(true);
    expect(plan.mounts.some((m) => m.tag === "protected")).toBe(false);
  });

  it("protects *.code-workspace files at the top (existing: read-only; new: guarded), .idea and .github/workflows", () => {
    writeFileSync(join(ws, "app.code-workspace"), "{}");
    mkdirSync(join(ws, ".github", "workflows"), { recursive: true });
    mkdirSync(join(ws, ".idea"), { recursive: true });
    const plan = buildMountPlan({ policy: policy() }, facts());
    for (const p of ["app.code-workspace", ".github/workflows", ".idea"]) expect(find(plan, join(ws, p)), p).toMatchObject({ op: "ro", tag: "protected" });
    const g = plan.guards.find((x) => x.path === ws && x.before.kind === "entries");
    expect(g?.before.kind === "entries" && !g.before.accept("other.code-workspace")).toBe(true);
    expect(g?.before.kind === "entries" && g.before.accept("notes.txt")).toBe(true);
  });

  it("keeps a .git file (worktree, submodule) read-only", () => {
    rmSync(join(ws, ".git"), { recursive: true });
    writeFileSync(join(ws, ".git"), "gitdir: /elsewhere/.git/worktrees/x\n");
    const plan = buildMountPlan({ policy: policy() }, facts());
    expect(find(plan, join(ws, ".git"))).toMatchObject({ op: "ro", tag: "protected" });
  });

  it("guards a protected symbolic link and protects its target inside the workspace", () => {
    mkdirSync(join(ws, "conf", "vscode"), { recursive: true });
    symlinkSync("conf/vscode", join(ws, ".vscode"));
    const plan = buildMountPlan({ policy: policy() }, facts());
    expect(plan.guards.find((g) => g.path === join(ws, ".vscode"))?.before).toEqual({ kind: "symlink", target: "conf/vscode" });
    expect(find(plan, join(ws, "conf", "vscode"))).toMatchObject({ op: "ro", tag: "protected" });
  });

  it("mounts everything read-only for a read-only command, with nothing to guard", () => {
    const plan = buildMountPlan({ policy: { ...policy(), paths: [{ path: join(base, "cache"), mode: "rw" }] }, confine: { readOnly: true } }, facts());
    expect(find(plan, ws)).toMatchObject({ op: "ro" });
    expect(find(plan, join(base, "cache"))).toMatchObject({ op: "ro" });
    expect(plan.guards).toEqual([]);
    expect(plan.writable).toEqual([]);
  });

  it("leaves an approved protected file writable, and the folder holding an approved path in a protected folder", () => {
    mkdirSync(join(ws, ".vscode"));
    mkdirSync(join(ws, ".claude", "commands"), { recursive: true });
    const plan = buildMountPlan(
      {
        policy: policy(),
        confine: { writable: [join(ws, ".git", "config"), join(ws, ".vscode", "tasks.json"), join(ws, ".claude", "commands", "x.md"), join(ws, ".husky", "pre-commit")] },
      },
      facts(),
    );
    expect(find(plan, join(ws, ".git", "config"))).toBeUndefined();
    expect(find(plan, join(ws, ".git", "hooks"))).toMatchObject({ op: "ro" });
    expect(find(plan, join(ws, ".vscode"))).toBeUndefined();
    expect(find(plan, join(ws, ".claude"))).toMatchObject({ op: "ro", tag: "protected" });
    expect(find(plan, join(ws, ".claude", "commands"))).toMatchObject({ op: "rw", tag: "approved" });
    // An approved path in a protected folder that does not exist: that folder may be created.
    expect(plan.guards.map((g) => g.path)).not.toContain(join(ws, ".husky"));
    expect(plan.guards.map((g) => g.path)).toContain(join(ws, ".yoke"));
  });

  it("keeps the paths the rules list read-only too, and guards them when absent", () => {
    writeFileSync(join(ws, "src", "generated.ts"), "x");
    const plan = buildMountPlan({ policy: policy(), protection: { hide: [], readOnly: [join(ws, "src", "generated.ts"), join(ws, "build", "out")] } }, facts());
    expect(find(plan, join(ws, "src", "generated.ts"))).toMatchObject({ op: "ro", tag: "protected" });
    expect(find(plan, join(ws, "src"))).toMatchObject({ op: "rw", tag: "ancestor" });
    expect(plan.guards.find((g) => g.path === join(ws, "build"))?.why).toBe("the permission rules keep it read-only");
  });
});

describe("buildMountPlan: hidden paths", () => {
  it("hides denied folders and files, pins the folders holding them, and skips what does not exist", () => {
    mkdirSync(join(ws, "config", "secrets"), { recursive: true });
    writeFileSync(join(ws, ".env"), "K=1");
    const plan = buildMountPlan({ policy: policy(), protection: { hide: [join(ws, "config", "secrets"), join(ws, ".env"), join(ws, "nope")], readOnly: [] } }, facts());
    expect(find(plan, join(ws, "config", "secrets"))).toMatchObject({ op: "hide", dir: true, tag: "rule" });
    expect(find(plan, join(ws, ".env"))).toMatchObject({ op: "hide", dir: false });
    expect(find(plan, join(ws, "config"))).toMatchObject({ op: "rw", tag: "ancestor" });
    expect(find(plan, join(ws, "nope"))).toBeUndefined();
  });

  it("does not mount inside what is already hidden, unless a listed path makes it visible", () => {
    const h = join(base, "home");
    mkdirSync(join(h, ".aws"), { recursive: true });
    writeFileSync(join(h, ".aws", "credentials"), "x");
    writeFileSync(join(h, ".npmrc"), "x");
    const plan = buildMountPlan(
      { policy: { ...policy(), paths: [{ path: join(h, ".npmrc"), mode: "ro" }] }, protection: { hide: [join(h, ".aws", "credentials"), join(h, ".npmrc")], readOnly: [] } },
      facts({ homes: [h] }),
    );
    expect(find(plan, join(h, ".aws", "credentials"))).toBeUndefined();
    expect(find(plan, join(h, ".npmrc"))).toMatchObject({ op: "hide" });
  });

  it("hides every home, but not one the workspace is in (the workspace is bound after it), nor one inside the workspace", () => {
    const h = join(base, "home");
    mkdirSync(join(ws, "homes", "bob"), { recursive: true });
    const plan = buildMountPlan({ policy: policy() }, facts({ homes: [base, h, join(ws, "homes", "bob")] }));
    expect(find(plan, base)).toMatchObject({ op: "tmpfs", tag: "home" });
    expect(order(plan, ws)).toBeGreaterThan(order(plan, base));
    expect(find(plan, join(ws, "homes", "bob"))?.op).not.toBe("tmpfs");
  });

  it("hides host sockets that stay visible and exposes needed files inside a hidden folder read-only", () => {
    const plan = buildMountPlan(
      { policy: policy() },
      facts({ runtime: ["/run"], needed: ["/run/systemd/resolve/stub-resolv.conf"], sockets: (skip) => (skip.includes("/run") ? ["/srv/pg.sock", "/run/x.sock"] : []) }),
    );
    expect(find(plan, "/srv/pg.sock")).toMatchObject({ op: "hide", tag: "socket", dir: false });
    expect(find(plan, "/run/x.sock")).toBeUndefined();
    expect(find(plan, "/run/systemd/resolve/stub-resolv.conf")).toMatchObject({ op: "ro", tag: "needed" });
  });

  it("sizes the private folders from tmpMb, with no limit at 0", () => {
    expect(find(buildMountPlan({ policy: policy(), tmpMb: 64 }, facts()), "/tmp")).toMatchObject({ op: "tmpfs", sizeMb: 64 });
    expect(find(buildMountPlan({ policy: policy(), tmpMb: 0 }, facts()), "/tmp")?.sizeMb).toBeUndefined();
  });
});

describe("buildMountPlan: a workspace that is a home folder", () => {
  it("hides the home's credentials and protects the files a shell or the desktop runs later", () => {
    mkdirSync(join(ws, ".ssh"));
    writeFileSync(join(ws, ".ssh", "id_ed25519"), "key");
    writeFileSync(join(ws, ".bashrc"), "# rc");
    writeFileSync(join(ws, ".npmrc"), "//registry.npmjs.org/:_authToken=x");
    const plan = buildMountPlan({ policy: policy() }, facts({ homes: [ws] }));
    expect(find(plan, ws)).toMatchObject({ op: "rw", tag: "workspace" });
    expect(find(plan, join(ws, ".ssh"))).toMatchObject({ op: "hide", dir: true });
    expect(find(plan, join(ws, ".npmrc"))).toMatchObject({ op: "hide", dir: false });
    expect(find(plan, join(ws, ".bashrc"))).toMatchObject({ op: "ro", tag: "protected" });
    expect(plan.guards.find((g) => g.path === join(ws, ".profile"))?.why).toBe("the shell runs it");
  });
});

describe("buildMountPlan: a toolchain folder of a hidden home", () => {
  it("shows the toolchain but hides the credentials it holds (~/.cargo/credentials.toml, ~/.gem/credentials)", () => {
    const home = join(base, "home");
    mkdirSync(join(home, ".cargo", "bin"), { recursive: true });
    writeFileSync(join(home, ".cargo", "credentials.toml"), 'token = "x"');
    writeFileSync(join(home, ".cargo", "env"), "");
    mkdirSync(join(home, ".gem"), { recursive: true });
    writeFileSync(join(home, ".gem", "credentials"), "---");
    const plan = buildMountPlan(
      {
        policy: {
          ...policy(),
          paths: [
            { path: join(home, ".cargo"), mode: "ro" as const },
            { path: join(home, ".gem"), mode: "ro" as const },
          ],
        },
      },
      facts({ homes: [home] }),
    );
    expect(find(plan, home)).toMatchObject({ op: "tmpfs", tag: "home" });
    expect(find(plan, join(home, ".cargo"))).toMatchObject({ op: "ro" });
    expect(find(plan, join(home, ".cargo", "credentials.toml"))).toMatchObject({ op: "hide", dir: false });
    expect(find(plan, join(home, ".gem", "credentials"))).toMatchObject({ op: "hide", dir: false });
    // What is not shown again needs no hiding: the home's tmpfs covers it.
    expect(find(plan, join(home, ".ssh"))).toBeUndefined();
    expect(find(plan, join(home, ".cargo", "env"))).toBeUndefined();
  });
});

describe("buildMountPlan: every assumption of the gate enforced (issue 18)", () => {
  it("keeps .git an allow-list: git's ordinary entries writable, every other one read-only, new ones guarded", () => {
    for (const f of ["HEAD", "index", "description", "packed-refs"]) writeFileSync(join(ws, ".git", f), "");
    for (const d of ["objects", "refs", "logs", "worktrees"]) mkdirSync(join(ws, ".git", d));
    writeFileSync(join(ws, ".git", "commondir"), "../x\n");
    const plan = buildMountPlan({ policy: policy() }, facts());
    for (const ok of ["HEAD", "index", "packed-refs", "logs"]) expect(find(plan, join(ws, ".git", ok))).toBeUndefined();
    // objects and refs stay writable, pinned in place: they hold protected children (refs/replace,
    // objects/info/alternates, objects/info/commit-graph).
    for (const ok of ["objects", "refs"]) expect(find(plan, join(ws, ".git", ok))).toMatchObject({ op: "rw", tag: "ancestor" });
    expect(plan.guards.find((g) => g.path === join(ws, ".git", "objects", "info"))?.before.kind).toBe("none");
    expect(plan.guards.find((g) => g.path === join(ws, ".git", "objects"))?.before.kind).toBe("objects");
    for (const ro of ["config", "hooks", "info", "description", "commondir"]) expect(find(plan, join(ws, ".git", ro))).toMatchObject({ op: "ro", tag: "protected" });
    expect(find(plan, join(ws, ".git"))).toMatchObject({ op: "rw", tag: "ancestor" });
    const folder = plan.guards.find((g) => g.path === join(ws, ".git"))!;
    expect(folder.before.kind).toBe("entries");
    if (folder.before.kind !== "entries") return;
    for (const name of ["index.lock", "ORIG_HEAD", "COMMIT_EDITMSG", "MERGE_MSG", "rebase-merge", "sequencer", "index.stash.123", "BISECT_LOG"]) expect(folder.before.accept(name)).toBe(true);
    for (const name of ["config.worktree", "gitdir", "hooks", "something-new"]) expect(folder.before.accept(name)).toBe(false);
    // git worktree and git submodule write these; what they hold is checked when the command ends (new-repositories.ts).
    for (const name of ["worktrees", "modules"]) expect(folder.before.accept(name)).toBe(true);
    expect(find(plan, join(ws, ".git", "worktrees"))).toBeUndefined();
  });

  it("protects .devcontainer.json at the root and a .devcontainer folder", () => {
    writeFileSync(join(ws, ".devcontainer.json"), "{}");
    const plan = buildMountPlan({ policy: policy() }, facts());
    expect(find(plan, join(ws, ".devcontainer.json"))).toMatchObject({ op: "ro", tag: "protected" });
    expect(plan.guards.map((g) => g.path)).toContain(join(ws, ".devcontainer"));
  });

  it("read-only: no host path is writable, only private throwaway folders", () => {
    const plan = buildMountPlan({ policy: { ...policy(), paths: [{ path: join(base, "cache"), mode: "rw" as const }] }, confine: { readOnly: true } }, facts({ homes: [join(base, "home")] }));
    expect(plan.mounts.filter((m) => m.op === "rw")).toEqual([]);
    expect(plan.writable).toEqual([]);
    expect(plan.mounts.filter((m) => m.op === "tmpfs").map((m) => m.tag)).toEqual(expect.arrayContaining(["tmp", "home"]));
  });

  it("listed writes: the workspace read-only, the folder holding each listed path writable with its other entries read-only", () => {
    writeFileSync(join(ws, "a.txt"), "a");
    writeFileSync(join(ws, "src", "b.js"), "b");
    mkdirSync(join(ws, "docs"));
    const plan = buildMountPlan({ policy: policy(), confine: { writes: [join(ws, "a.txt"), join(ws, "docs", "new", "c.md")] } }, facts());
    expect(find(plan, ws)).toMatchObject({ op: "rw", tag: "write" });
    expect(find(plan, join(ws, "src"))).toMatchObject({ op: "ro", tag: "sibling" });
    expect(find(plan, join(ws, "a.txt"))).toBeUndefined();
    // docs holds the second write: writable (not the read-only sibling of the root's write).
    expect(find(plan, join(ws, "docs"))).toMatchObject({ op: "rw", tag: "write" });
    // .git stays read-only as a whole (a sibling), its protected paths too.
    expect(find(plan, join(ws, ".git"))).toMatchObject({ op: "ro", tag: "sibling" });
    const rootGuard = plan.guards.find((g) => g.path === ws && g.before.kind === "entries")!;
    expect(rootGuard.before.kind === "entries" && rootGuard.before.endOnly && rootGuard.before.accept("a.txt") && !rootGuard.before.accept("evil.txt")).toBe(true);
    const docsGuard = plan.guards.find((g) => g.path === join(ws, "docs"))!;
    expect(docsGuard.before.kind === "entries" && docsGuard.before.accept("new")).toBe(true);
  });

  it("a workspace that is a home folder: its dot entries (caches too), bin and go read-only (but histories), new ones guarded; private caches", () => {
    const home = ws;
    for (const d of [".config", ".local", "bin", "go", ".cache", ".npm", "projects"]) mkdirSync(join(home, d), { recursive: true });
    for (const f of [".bashrc", ".bash_history"]) writeFileSync(join(home, f), "");
    const plan = buildMountPlan({ policy: { ...policy(), home } }, facts({ homes: [home] }));
    for (const ro of [".config", ".local", "bin", "go", ".bashrc", ".cache", ".npm"]) expect(find(plan, join(home, ro)), ro).toMatchObject({ op: "ro", tag: "protected" });
    for (const rw of [".bash_history", "projects"]) expect(find(plan, join(home, rw))).toBeUndefined();
    const g = plan.guards.find((x) => x.path === home && x.before.kind === "entries")!;
    expect(g.before.kind === "entries" && !g.before.accept(".bash_aliases") && !g.before.accept(".vscode-server") && !g.before.accept(".pnpm-store") && g.before.accept("notes.txt")).toBe(true);
    expect(plan.guards.map((x) => x.path)).toEqual(expect.arrayContaining([join(home, ".bash_aliases"), join(home, ".bash_logout")]));
    // The package managers' caches are the command's own, in its private /tmp.
    expect(plan.env).toMatchObject({ npm_config_cache: "/tmp/yoke-caches/npm", XDG_CACHE_HOME: "/tmp/yoke-caches/xdg", UV_CACHE_DIR: "/tmp/yoke-caches/uv" });
    // A read-only command writes nothing: no private caches needed, none set.
    expect(buildMountPlan({ policy: { ...policy(), home }, confine: { readOnly: true } }, facts({ homes: [home] })).env).toBeUndefined();
  });

  it("a home made writable by the sandbox settings (`~` rw) gets the same allow-list and private caches; a hidden home none", () => {
    const home = join(base, "home");
    for (const d of [".config", ".npm", "projects"]) mkdirSync(join(home, d), { recursive: true });
    writeFileSync(join(home, ".bashrc"), "");
    const plan = buildMountPlan({ policy: { ...policy(), home, paths: [{ path: home, mode: "rw" as const }] } }, facts({ homes: [home] }));
    expect(find(plan, home)).toMatchObject({ op: "rw", tag: "path" });
    for (const ro of [".config", ".npm", ".bashrc"]) expect(find(plan, join(home, ro)), ro).toMatchObject({ op: "ro", tag: "protected" });
    expect(find(plan, join(home, "projects"))).toBeUndefined();
    expect(plan.env?.npm_config_cache).toBe("/tmp/yoke-caches/npm");
    const hidden = buildMountPlan({ policy: { ...policy(), home } }, facts({ homes: [home] }));
    expect(find(hidden, home)).toMatchObject({ op: "tmpfs", tag: "home" });
    expect(hidden.env).toBeUndefined();
  });
});

describe("buildMountPlan: listed writes in a large folder", () => {
  it("does not split a folder of more than MAX_SIBLING_MOUNTS entries: only the listed file, in place", () => {
    for (let i = 0; i <= MAX_SIBLING_MOUNTS; i++) writeFileSync(join(ws, "src", `f${i}.js`), "");
    const plan = buildMountPlan({ policy: policy(), confine: { writes: [join(ws, "src", "f1.js"), join(ws, "src", "new.js")] } }, facts());
    expect(find(plan, join(ws, "src"))).toBeUndefined();
    expect(find(plan, join(ws, "src", "f1.js"))).toMatchObject({ op: "rw", tag: "write" });
    expect(find(plan, join(ws, "src", "new.js"))).toBeUndefined();
    expect(find(plan, ws)).toMatchObject({ op: "ro", tag: "workspace" });
  });
});

describe("buildMountPlan: programs the deny rules forbid", () => {
  it("hides every file of a denied program's name on the command path (real paths, once), naming the rule", () => {
    // (A folder the sandbox shows: the workspace's; one under the private /tmp needs no mount.)
    const bin = join(ws, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "rm"), "#!/bin/sh\n");
    const programFiles = (name: string) => (name === "rm" ? [join(bin, "rm"), join(bin, "rm")] : []);
    const plan = buildMountPlan(
      {
        policy: policy(),
        protection: {
          hide: [],
          readOnly: [],
          programs: [
            { name: "rm", rule: "Bash(rm:*)" },
            { name: "nosuch", rule: "Bash(nosuch:*)" },
          ],
        },
      },
      facts({ programFiles }),
    );
    const denied = plan.mounts.filter((m) => m.tag === "program");
    expect(denied).toEqual([{ op: "hide", path: join(bin, "rm"), tag: "program", dir: false, denied: { name: "rm", rule: "Bash(rm:*)", list: "deny" } }]);
  });

  it("hides a program an ask rule names only in a command bypassPermissions mode alone allowed (confine.unreviewed)", () => {
    const bin = join(ws, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "curl"), "#!/bin/sh\n");
    const programFiles = (name: string) => (name === "curl" ? [join(bin, "curl")] : []);
    const protection = { hide: [], readOnly: [], programs: [{ name: "curl", rule: "Bash(curl:*)", list: "ask" as const }] };
    const reviewed = buildMountPlan({ policy: policy(), protection }, facts({ programFiles }));
    expect(reviewed.mounts.filter((m) => m.tag === "program")).toEqual([]);
    const unreviewed = buildMountPlan({ policy: policy(), protection, confine: { unreviewed: true } }, facts({ programFiles }));
    expect(unreviewed.mounts.filter((m) => m.tag === "program")).toEqual([
      { op: "hide", path: join(bin, "curl"), tag: "program", dir: false, denied: { name: "curl", rule: "Bash(curl:*)", list: "ask" } },
    ]);
  });

  it("finds a program through links in the folders of the command path, and nothing for a name that is not there", async () => {
    const { programFiles } = await import("../../../src/node/commands/sandbox/plan");
    const a = join(base, "a");
    const b = join(base, "b");
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, "tool"), "x");
    symlinkSync(join(a, "tool"), join(b, "tool"));
    expect(programFiles("tool", `${a}:${b}:relative/dir`)).toEqual([join(a, "tool")]);
    expect(programFiles("rm", "").length).toBeGreaterThan(0);
    expect(programFiles("no-such-program-here", `${a}:${b}`)).toEqual([]);
    // A hard link of the program under another name in those folders (Debian's perl5.36.0 is perl).
    const c = join(base, "c");
    mkdirSync(c);
    writeFileSync(join(c, "tool"), "#!/bin/sh\n");
    linkSync(join(c, "tool"), join(c, "tool5.1"));
    writeFileSync(join(c, "other"), "#!/bin/sh\n");
    expect(programFiles("tool", c).sort()).toEqual([join(c, "tool"), join(c, "tool5.1")]);
    // A rule that names the program by its absolute path: that file and its hard links on the command path.
    expect(programFiles(join(c, "tool"), "").sort()).toEqual([join(c, "tool")]);
    expect(programFiles(join(c, "tool"), c).sort()).toEqual([join(c, "tool"), join(c, "tool5.1")]);
    // Never a shell commands run in, nor a multi-call binary (Alpine's rm is busybox): that would stop every command.
    const d = join(base, "d");
    mkdirSync(d);
    writeFileSync(join(d, "busybox"), "x");
    symlinkSync("busybox", join(d, "yoke-applet"));
    writeFileSync(join(d, "bash"), "x");
    symlinkSync("bash", join(d, "rbash"));
    expect(programFiles("yoke-applet", d)).toEqual([]);
    expect(programFiles("rbash", d)).toEqual([]);
  });
});

describe("buildMountPlan: a plugin's own folder (confine.pluginRoot, session 20)", () => {
  it("shows a folder inside a home's plugin store read-only (its clone's .git hidden); never the store, the home, a link out, or a folder elsewhere", () => {
    const home = join(base, "home");
    const store = join(home, ".yoke", "plugins");
    const root = join(store, "cache", "m", "kit");
    mkdirSync(join(root, "scripts"), { recursive: true });
    mkdirSync(join(root, ".git"), { recursive: true });
    mkdirSync(join(base, "elsewhere"), { recursive: true });
    symlinkSync(join(base, "elsewhere"), join(store, "cache", "m", "out"));
    const plan = (pluginRoot: string) => buildMountPlan({ policy: policy(), confine: { pluginRoot } }, facts({ homes: [home] }));
    const shown = (p: MountPlan) => p.mounts.filter((m) => m.tag === "plugin");
    const good = plan(root);
    expect(shown(good)).toEqual([expect.objectContaining({ op: "ro", path: root })]);
    expect(find(good, join(root, ".git"))).toMatchObject({ op: "hide" });
    for (const bad of [store, home, join(base, "elsewhere"), join(store, "cache", "m", "out"), join(root, "..", "..", "..", "..", ".."), "relative/kit", join(root, "missing")])
      expect(shown(plan(bad)), bad).toEqual([]);
  });
});
