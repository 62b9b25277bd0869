/**
 * Red team 22-gate — Yoke's own host programs found in a folder the agent writes. FULL SESSIONS
 * (the built CLI's `yoke run --trust`, scripted model over HTTP), root and user × bwrap and
 * firejail, bypassPermissions, with the user's PATH naming the workspace's `bin` first (direnv's
 * `PATH_add bin`, as Rails projects have).
 *
 * Yoke ran `git` (the new-repository check's `git config --file …`, the git door's check) and
 * `bash` (the step that closes descriptors before bwrap/firejail) by name, so from that PATH: a
 * `bin/git` the agent wrote in one command ran on the HOST when the same command made a
 * repository, and a `bin/bash` it wrote ran on the host before every command of the next session
 * (both checked by hand with `yoke sandbox exec`: the planted program's mount namespace was the
 * host's), and the process reaper ran a planted `bin/sed` and `bin/grep` on the host when Yoke exited. Now host programs are looked up only in absolute PATH entries outside every folder a
 * sandbox policy makes writable (src/node/host-programs.ts). The commands themselves still see the
 * user's PATH (the planted programs run — inside the sandbox).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, runCliAs, type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();

/** A planted program: notes where it ran (the host's mount namespace or another) in `log`, then runs the real one. */
function planted(name: string, real: string, log: string, also = ""): string {
  return `#!/bin/sh\necho "${name} $(readlink /proc/self/ns/mnt)" >> '${log}' 2>/dev/null\n${also}exec ${real} "$@"\n`;
}

const HOST_NS = readlinkNs();
function readlinkNs(): string {
  return spawnSync("readlink", ["/proc/self/ns/mnt"], { encoding: "utf8" }).stdout.trim();
}

describe("plain control (no Yoke)", () => {
  it("a planted program first on PATH is what a lookup by name runs", () => {
    const log = join("/tmp", `red22g-control-${process.pid}`);
    const dir = join("/tmp", `red22g-bin-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    spawnSync("sh", ["-c", `printf '%s' "$1" > ${dir}/git && chmod +x ${dir}/git`, "sh", planted("git", "/usr/bin/git", log)]);
    spawnSync("git", ["--version"], { env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? ""}` } });
    expect(readFileSync(log, "utf8")).toContain(`git ${HOST_NS}`);
    spawnSync("rm", ["-rf", dir, log]);
  });
});

describe.each(who.map((w) => [w.label, w] as const))("as %s (no sandbox involved)", (_label, id: Identity) => {
  it("the user's own MCP server command is not taken from a workspace folder on PATH (yoke mcp list starts it)", async () => {
    const { base, home } = cellFolder(`yoke-red22g-mcp-`, id, temps, { mcpServers: { tools: { command: "red22g-mcp-tool", args: [] } } });
    const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n" }, id);
    const log = join(base, "which-ran");
    // The user's program, in a folder of theirs on PATH; the agent's copy in the workspace's bin, first.
    for (const [dir, who] of [
      [join(base, "userbin"), "user's"],
      [join(ws, "bin"), "planted"],
    ] as const) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "red22g-mcp-tool"), `#!/bin/sh\necho "${who}" >> '${log}'\nexit 1\n`);
      chmodSync(join(dir, "red22g-mcp-tool"), 0o755);
    }
    chownTree(base, id);
    const r = await runCliAs(id, ["mcp", "list"], { cwd: ws, env: { HOME: home, PATH: `${join(ws, "bin")}:${join(base, "userbin")}:${process.env.PATH ?? "/usr/bin:/bin"}` } });
    expect(r.stdout + r.stderr).toContain("tools");
    const ran = existsSync(log) ? readFileSync(log, "utf8") : "";
    expect(ran).toContain("user's");
    expect(ran, "the agent's planted program ran on the host").not.toContain("planted");
  });
});

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)("a git or bash the agent wrote into a folder on PATH never runs on the host; the commands still find them", async () => {
      const { base, home } = cellFolder(`yoke-red22g-host-${backend}-`, id, temps, { sandbox: { backend } });
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n" }, id);
      // Outside the workspace: the sandbox cannot write here (a private /tmp), the host can.
      const log = join(base, "where-it-ran");
      const inside = join(ws, "ran-inside");
      chownTree(base, id);
      const env = { PATH: `${join(ws, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}` };
      const writeTool = (path: string, content: string) => ({ toolCalls: [{ name: "write_file", input: { path, content } }] });
      // Session 1: the agent plants bin/git, makes a repository in the same command (the host checks it
      // with git), then plants bin/bash for the next session.
      const r1 = await sessionAs(
        id,
        home,
        ws,
        join(base, "sessions"),
        [
          writeTool("bin/git", planted("git", "/usr/bin/git", log, `echo git >> '${inside}'\n`)),
          bash("chmod +x bin/git && mkdir n && cd n && git init -q . && git config core.editor vi"),
          writeTool("bin/bash", planted("bash", "/bin/bash", log)),
          // The process reaper's own tools (it runs when Yoke exits).
          writeTool("bin/sed", planted("sed", "/bin/sed", log)),
          writeTool("bin/grep", planted("grep", "/bin/grep", log)),
          bash("chmod +x bin/bash bin/sed bin/grep"),
        ],
        { env },
      );
      expect(r1.code, r1.stderr).toBe(0);
      // Session 2: any command (the close step runs bash before bwrap/firejail).
      const r2 = await sessionAs(id, home, ws, join(base, "sessions"), [bash("echo second > second.txt")], { env });
      expect(r2.code, r2.stderr).toBe(0);
      expect(readFileSync(join(ws, "second.txt"), "utf8")).toBe("second\n");
      // The reaper wakes when each yoke process has exited: give it time to have run (stop early if a planted program did).
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline && !(existsSync(log) && readFileSync(log, "utf8").includes(HOST_NS))) await new Promise((r) => setTimeout(r, 200));
      const ran = existsSync(log) ? readFileSync(log, "utf8") : "";
      expect(ran, "a planted program ran on the host").not.toContain(HOST_NS);
      expect(ran).toBe("");
      // The commands still found the user's PATH: the planted git ran, inside the sandbox.
      expect(existsSync(inside)).toBe(true);
    });
  });
});
