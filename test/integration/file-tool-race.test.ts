/**
 * File tools act on what was checked (issue 18, item 4): a real background process flips
 * symbolic links while the file tools run hundreds of times — the link itself between a secret
 * and an ordinary file, a file replaced by a link, a folder replaced by a link, a link to
 * `.git/config` and to a file outside the workspace. Through the real tool code (registry →
 * permission gate → tool, Node WorkspaceFs) and through full `yoke run` sessions with a scripted
 * model, as root and as an unprivileged user. Outcomes: the secret never in a tool result nor in
 * any request the model got; `.git/config` and the outside file byte-for-byte unchanged; ordinary
 * reads and writes (CRLF, BOM, new nested folders) still work.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PermissionMode } from "../../src/core/loop/types";
import { silentLogger } from "../../src/core/ports";
import { createBuiltinTools } from "../../src/core/tools/builtin";
import { ToolRegistry } from "../../src/core/tools/registry";
import { ToolError, type ToolContext } from "../../src/core/tools/types";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";
import { createPermissionWorkspace } from "../support/permission-workspace";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";
import { scriptedRunArgs } from "../support/scripted-run";

const SECRET = "TOPSECRET-race-7d2c";
const CONFIG = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n";
const OUTSIDE = "[core]\noutside the workspace\n";
const FLIPS = {
  // The attack as observed: the link itself flips between the secret and an ordinary file.
  link: "while :; do ln -sfn secret.txt link; ln -sfn ok.txt link; done",
  // The last component is a regular file at the check and a link to the secret at the open.
  file: "while :; do cp ok.txt f.tmp; mv -f f.tmp flip; ln -sfn secret.txt flip; done",
  // A folder on the way is a folder at the check and a link to the secret folder at the open.
  folder: "while :; do mv -T okdir d 2>/dev/null; mv -T d okdir 2>/dev/null; ln -sfn secretdir d; rm -f d; done",
  // The file written is a regular file at the check and a link to .git/config (or outside) at the write.
  target: 'while :; do cp ok.txt t.tmp; mv -f t.tmp target; ln -sfn .git/config target; cp ok.txt t.tmp; mv -f t.tmp target; ln -sfn "$OUT" target; done',
  // The folder written into is a folder at the check and a link to .git at the write.
  gitdir: "while :; do rm -rf wdir; mkdir wdir; rm -rf wdir; ln -sfn .git wdir; rm -f wdir; done",
};

const temps: string[] = [];
const loops: ChildProcess[] = [];
afterEach(() => stopLoops());
afterAll(() => {
  for (const t of temps.splice(0)) fs.rmSync(t, { recursive: true, force: true });
});

/** The background attacker: a real bash loop in the workspace, as `who` when given. */
function flipLoop(cwd: string, script: string, env: Record<string, string> = {}, who?: Identity): ChildProcess {
  const child = spawn("bash", ["-c", script], {
    cwd,
    stdio: "ignore",
    detached: true,
    env: { PATH: process.env.PATH, ...env },
    ...(who && who.uid !== process.getuid?.() ? { uid: who.uid, gid: who.gid } : {}),
  });
  loops.push(child);
  return child;
}

function stopLoops(): void {
  for (const c of loops.splice(0)) {
    try {
      if (c.pid) process.kill(-c.pid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
}

/** A workspace with an ordinary file, a secret (denied by a rule), folders and a git repository. */
function fill(ws: string, outsideDir: string): { outsideFile: string } {
  const put = (rel: string, text: string | Uint8Array) => {
    fs.mkdirSync(join(ws, rel, ".."), { recursive: true });
    fs.writeFileSync(join(ws, rel), text);
  };
  execFileSync("git", ["init", "-q", ws]);
  fs.writeFileSync(join(ws, ".git/config"), CONFIG);
  put("ok.txt", "[core]\n");
  put("secret.txt", `${SECRET}\n`);
  put("okdir/a.txt", "ok\n");
  put("secretdir/a.txt", `${SECRET}\n`);
  put("src/normal.txt", "normal\n");
  put("crlf.txt", "one\r\ntwo\r\n");
  put("bom.txt", "\uFEFFbom\n");
  fs.mkdirSync(outsideDir, { recursive: true });
  const outsideFile = join(outsideDir, "t.txt");
  fs.writeFileSync(outsideFile, OUTSIDE);
  return { outsideFile };
}

describe("the real tool code under a real link-flipping process (Node WorkspaceFs, real gate)", () => {
  const registry = new ToolRegistry(createBuiltinTools());
  let pw: ReturnType<typeof createPermissionWorkspace>;
  let outsideFile: string;
  beforeAll(() => {
    pw = createPermissionWorkspace({ permissions: { deny: ["Read(./secret.txt)", "Read(./secretdir/**)"] } });
    temps.push(pw.root);
    outsideFile = fill(pw.ws, join(pw.root, "outside-target")).outsideFile;
  });

  function context(): ToolContext {
    return {
      fs: createNodeWorkspaceFs(pw.ws),
      search: createRipgrepSearcher(),
      signal: new AbortController().signal,
      sessionId: "race",
      callId: "c",
      log: silentLogger,
      readState: new Map(),
      record: () => {},
    };
  }

  /** prepare → gate → run, as the loop does; "denied" when the gate does not allow. */
  async function attempt(
    gate: ReturnType<typeof pw.gate>,
    ctx: ToolContext,
    name: string,
    input: Record<string, unknown>,
    mode: PermissionMode,
  ): Promise<{ kind: "ran" | "error" | "denied"; text: string }> {
    const def = registry.get(name)!;
    const prepared = await registry.prepare(name, input, ctx.fs);
    if (!prepared.ok) return { kind: "error", text: prepared.error };
    const args = prepared.args as Record<string, unknown>;
    const decision = await gate.check({ tool: name, permission: def.permission!, input: def.hookInput(args as never), mutates: name !== "read_file" }, mode);
    if (decision.decision !== "allow") return { kind: "denied", text: "" };
    try {
      const out = await def.run(args as never, ctx);
      return { kind: out.isError ? "error" : "ran", text: out.text };
    } catch (e) {
      if (e instanceof ToolError) return { kind: "error", text: e.message };
      // A name that vanished for a moment (the loop removes and recreates it) is an ordinary failure.
      if (["ENOENT", "ENOTDIR", "EISDIR"].includes((e as { code?: string }).code ?? "")) return { kind: "error", text: String(e) };
      throw e;
    }
  }

  async function race(script: string, name: string, input: Record<string, unknown>, mode: PermissionMode, runs: number) {
    const gate = pw.gate();
    flipLoop(pw.ws, script, { OUT: outsideFile });
    const seen = { ran: 0, error: 0, denied: 0, refused: 0 };
    const texts: string[] = [];
    // At least `runs` tries, and on a loaded machine (the flip loop starved of CPU) on until one
    // attempt got through, so "the race really ran" is shown and not left to the scheduler.
    for (let i = 0; i < runs || (seen.ran === 0 && i < runs * 5); i++) {
      // A fresh session state each time: every attempt gets as far as the open and the write.
      const r = await attempt(gate, context(), name, { ...input }, mode);
      seen[r.kind]++;
      if (r.text.includes("changed after the permission check")) seen.refused++;
      texts.push(r.text);
    }
    stopLoops();
    return { seen, texts };
  }

  it("control: by name (as before), the flipping link does deliver the secret after an allowed check", async () => {
    const gate = pw.gate();
    flipLoop(pw.ws, FLIPS.link);
    let leaks = 0;
    let tries = 0;
    const until = Date.now() + 30_000;
    while (leaks === 0 && Date.now() < until) {
      tries++;
      const decision = await gate.check({ tool: "read_file", permission: "Read", input: { file_path: join(pw.ws, "link") }, mutates: false }, "default");
      if (decision.decision !== "allow") continue;
      const text = await fsp.readFile(join(pw.ws, "link"), "utf8").catch(() => "");
      if (text.includes(SECRET)) leaks++;
    }
    stopLoops();
    console.info(`control: the secret came through an allowed check after ${tries} tries`);
    expect(leaks).toBeGreaterThan(0);
  }, 60_000);

  it("read_file and grep: a flipping link, a file replaced by a link, a folder replaced by a link — the secret never comes out", async () => {
    const link = await race(FLIPS.link, "read_file", { path: "link", force: true }, "default", 300);
    const file = await race(FLIPS.file, "read_file", { path: "flip", force: true }, "default", 300);
    const folder = await race(FLIPS.folder, "read_file", { path: "d/a.txt", force: true }, "default", 300);
    const grepDir = await race(FLIPS.folder, "grep", { pattern: "TOPSECRET|ok", path: "d" }, "default", 150);
    const grepFile = await race(FLIPS.file, "grep", { pattern: "TOPSECRET|core", path: "flip" }, "default", 150);
    console.info(
      `read races: link ${JSON.stringify(link.seen)}, file ${JSON.stringify(file.seen)}, folder ${JSON.stringify(folder.seen)}, ` +
        `grep folder ${JSON.stringify(grepDir.seen)}, grep file ${JSON.stringify(grepFile.seen)}`,
    );
    for (const r of [link, file, folder, grepDir, grepFile]) {
      expect(r.texts.join("\n")).not.toContain(SECRET);
      expect(r.seen.ran).toBeGreaterThan(0);
    }
    // The race was really run: a link swapped in after the check was met, and refused.
    expect(file.seen.refused + folder.seen.refused).toBeGreaterThan(0);
  }, 240_000);

  it("edit_file and write_file: a file or folder replaced by a link to .git/config, .git or outside — nothing there changes", async () => {
    const edit = await race(FLIPS.target, "edit_file", { path: "target", edits: [{ old_string: "[core]", new_string: "[core]\n\tfsmonitor = touch pwned" }] }, "acceptEdits", 300);
    const write = await race(FLIPS.gitdir, "write_file", { path: "wdir/config", content: "[core]\n\tfsmonitor = touch pwned\n" }, "acceptEdits", 300);
    console.info(`write races: edit ${JSON.stringify(edit.seen)}, write ${JSON.stringify(write.seen)}`);
    if (process.env.RACE_DEBUG) console.info([...new Set([...edit.texts, ...write.texts].map((t) => t.slice(0, 160)))].slice(0, 20).join("\n"));
    expect(fs.readFileSync(join(pw.ws, ".git/config"), "utf8")).toBe(CONFIG);
    expect(fs.readFileSync(outsideFile, "utf8")).toBe(OUTSIDE);
    expect(edit.seen.ran).toBeGreaterThan(0);
    expect(write.seen.ran).toBeGreaterThan(0);
    expect(fs.readdirSync(join(pw.ws, ".git")).filter((n) => n.includes("yoke-tmp"))).toEqual([]);
  }, 240_000);
});

const who = identities();
beforeAll(() => ensureBuilt(), 180_000);

describe.each(who.list)("a full yoke run session under the flipping links, as $label", (id) => {
  it("the model never gets the secret, .git/config and the outside file stay byte-for-byte, ordinary reads and writes work", async () => {
    const root = fs.mkdtempSync(join(tmpdir(), "yoke-race-"));
    temps.push(root);
    const ws = join(root, "ws");
    fs.mkdirSync(ws);
    const { outsideFile } = fill(ws, join(root, "outside"));
    const settings = join(root, "settings.json");
    fs.writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Read(./secret.txt)", "Read(./secretdir/**)"] } }));
    const sessions = join(root, "sessions");
    fs.mkdirSync(sessions);
    chownTree(root, id);
    const configBytes = fs.readFileSync(join(ws, ".git/config"));
    const outsideBytes = fs.readFileSync(outsideFile);

    const attack = (i: number) => [
      { name: "read_file", input: { path: "link", force: true } },
      { name: "read_file", input: { path: "flip", force: true } },
      { name: "read_file", input: { path: "d/a.txt", force: true } },
      { name: "edit_file", input: { path: "target", edits: [{ old_string: "[core]", new_string: `[core]\n\tfsmonitor = touch pwned-${i}` }] } },
      { name: "write_file", input: { path: "wdir/config", content: `[core]\n\tfsmonitor = touch pwned-${i}\n` } },
    ];
    // Ordinary work first (the flipping loops already run; the attack's refusals would later open edit_file's circuit breaker).
    const turns: Array<{ toolCalls?: Array<{ name: string; input: unknown }>; text?: string }> = [];
    turns.push({
      toolCalls: [
        { name: "read_file", input: { path: "src/normal.txt" } },
        { name: "read_file", input: { path: "crlf.txt" } },
        { name: "read_file", input: { path: "bom.txt" } },
      ],
    });
    turns.push({
      toolCalls: [
        { name: "write_file", input: { path: "crlf.txt", content: "uno\ndos\n" } },
        { name: "write_file", input: { path: "bom.txt", content: "bom2\n" } },
        { name: "edit_file", input: { path: "src/normal.txt", edits: [{ old_string: "normal", new_string: "edited" }] } },
        { name: "write_file", input: { path: "new/nested/dir/file.txt", content: "fresh\n" } },
        { name: "write_file", input: { path: "created.txt", content: "created\n" } },
      ],
    });
    for (let t = 0; t < 8; t++) turns.push({ toolCalls: Array.from({ length: 6 }, (_, k) => attack(t * 6 + k)).flat() });
    turns.push({ text: "done" });
    const server = await startScriptedLlmServer({ script: turns });
    // Each flipping loop runs as the session's own user (what a background command of the agent could do).
    for (const script of [FLIPS.link, FLIPS.file, FLIPS.folder, FLIPS.target, FLIPS.gitdir]) flipLoop(ws, script, { OUT: outsideFile }, id);
    try {
      const r = await runCliAs(id, [...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "--settings", settings, "--permission-mode", "acceptEdits", "--json", "go"], { timeoutMs: 240_000 });
      stopLoops();
      if (process.env.RACE_DEBUG) console.info(r.stdout.slice(-3000), r.stderr.slice(-2000));
      expect(r.code, r.stderr).toBe(0);
      const sent = JSON.stringify(server.requests.map((q) => q.body));
      const results = (server.requests.at(-1)!.body.messages as Array<{ role: string; content?: unknown }>).filter((m) => m.role === "tool").map((m) => String(m.content));
      const count = (re: RegExp) => results.filter((t) => re.test(t)).length;
      console.info(
        `session as ${id.label}: ${results.length} tool results; ${count(/changed after the permission check/)} refused as changed after the check, ` +
          `${count(/^File: /)} reads, ${count(/^(Edited|Created|Overwrote) /)} writes, ${count(/denied|not allowed|permission/i)} mentioning a permission`,
      );
      // The ordinary turns, then the attack turns (a loaded machine may end the run a turn early: the outcomes below are what count).
      expect(server.requests.length).toBeGreaterThanOrEqual(4);
      expect(sent).not.toContain(SECRET);
      expect(fs.readFileSync(join(ws, ".git/config")).equals(configBytes)).toBe(true);
      expect(fs.readFileSync(outsideFile).equals(outsideBytes)).toBe(true);
      expect(fs.readdirSync(join(ws, ".git")).some((n) => n.includes("yoke-tmp") || n.includes("pwned"))).toBe(false);
      // Ordinary work in the same session: read, CRLF and BOM kept, an edit, new nested folders, a new file.
      expect(sent).toContain("normal");
      expect(fs.readFileSync(join(ws, "crlf.txt"), "utf8")).toBe("uno\r\ndos\r\n");
      expect(fs.readFileSync(join(ws, "bom.txt"), "utf8")).toBe("\uFEFFbom2\n");
      expect(fs.readFileSync(join(ws, "src/normal.txt"), "utf8")).toBe("edited\n");
      expect(fs.readFileSync(join(ws, "new/nested/dir/file.txt"), "utf8")).toBe("fresh\n");
      expect(fs.readFileSync(join(ws, "created.txt"), "utf8")).toBe("created\n");
      const owner = fs.statSync(join(ws, "created.txt")).uid;
      expect(owner).toBe(id.uid);
    } finally {
      stopLoops();
      await server.close();
    }
  }, 300_000);
});

it("runs as root and as an unprivileged user (or says why it cannot)", () => {
  if (who.missing) console.warn(who.missing);
  expect(who.list.length).toBeGreaterThanOrEqual(1);
});
