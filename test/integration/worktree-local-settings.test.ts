/**
 * The person's local settings — not only their permission rules — apply to an agent in a worktree.
 *
 * `.yoke/settings.local.json` is untracked, so an agent's git worktree has none of it. The gate and
 * the hooks read the workspace's local files there (session 18), but the settings reader behind
 * verification, budgets, compaction and the other keys read the worktree's files only: a
 * `verification.command` or a `budgets.maxTurns` set in the workspace's local file did nothing in a
 * `yoke run --worktree` session. Every reader now takes the local files from one function
 * (files.ts localSettingsFiles).
 *
 * Full `yoke run --worktree` sessions with the scripted model over HTTP, real git worktrees, the real
 * sandbox (the verification command runs in it), as root and as an unprivileged user, bwrap and
 * firejail; asserted on outcomes (the command's file exists in the worktree; the turn the budget
 * forbids wrote nothing). A control: the same setting in no file does nothing.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chownTree, type Identity } from "../support/identities";
import { committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import type { ScriptedTurn } from "../../src/demo/types";

const { who, backends, temps } = securityMatrix();
const cells = who.flatMap((w) => backends.map(([b, why]) => [`${w.label}, ${b}`, w, b, why] as const));
const TAG = `VERIFIED-${Math.random().toString(36).slice(2, 8)}`;

function cell(
  id: Identity,
  backend: string,
  local: Record<string, unknown> | undefined,
  more: { committed?: Record<string, string>; claudeLocal?: Record<string, unknown> } = {},
): { base: string; home: string; ws: string } {
  // Not under /tmp: the sandbox's /tmp is private, and the agent's worktree needs the repository.
  const base = mkdtempSync(join("/var/lib", "yoke-wt-settings-"));
  temps.push(base);
  chmodSync(base, 0o755);
  const home = join(base, "home");
  mkdirSync(join(home, ".yoke"), { recursive: true });
  writeFileSync(join(home, ".yoke/settings.json"), JSON.stringify({ sandbox: { backend } }));
  const ws = committedWorkspace(join(base, "ws"), { "a.txt": "a\n", ...more.committed }, id);
  if (local) {
    mkdirSync(join(ws, ".yoke"), { recursive: true });
    writeFileSync(join(ws, ".yoke/settings.local.json"), JSON.stringify(local));
  }
  if (more.claudeLocal) {
    mkdirSync(join(ws, ".claude"), { recursive: true });
    writeFileSync(join(ws, ".claude/settings.local.json"), JSON.stringify(more.claudeLocal));
  }
  chownTree(base, id);
  return { base, home, ws };
}

/** The worktree of the one agent recorded in the test's home. */
function worktreeOf(home: string): string {
  const root = join(home, ".yoke/agents");
  const [key] = readdirSync(root);
  const [file] = readdirSync(join(root, key!)).filter((f) => /^[a-f0-9]+\.json$/.test(f));
  return (JSON.parse(readFileSync(join(root, key!, file!), "utf8")) as { worktree: string }).worktree;
}

const write = (path: string, content: string): ScriptedTurn => ({ toolCalls: [{ name: "write_file", input: { path, content } }] });
const verification = { verification: { command: `echo ${TAG} > verified.txt`, maxReflections: 0 } };

async function verifiedRun(id: Identity, c: ReturnType<typeof cell>) {
  const r = await sessionAs(id, c.home, c.ws, join(c.base, "sessions"), [write("notes.txt", "n\n")], { extra: ["--worktree"], mode: "acceptEdits" });
  expect(r.code, r.stderr).toBe(0);
  const wt = worktreeOf(c.home);
  // The edit was made in the worktree, so the check was due.
  expect(readFileSync(join(wt, "notes.txt"), "utf8")).toBe("n\n");
  return { ...r, wt };
}

async function budgetRun(id: Identity, c: ReturnType<typeof cell>) {
  const r = await sessionAs(id, c.home, c.ws, join(c.base, "sessions"), [write("one.txt", "1\n"), write("two.txt", "2\n"), write("three.txt", "3\n")], {
    extra: ["--worktree"],
    mode: "acceptEdits",
  });
  return { ...r, wt: worktreeOf(c.home) };
}

/** The repository's own MCP server (committed .mcp.json): it leaves a file outside the repository when it starts. */
const mcpJson = (marker: string) => JSON.stringify({ mcpServers: { "repo-tools": { command: "/bin/sh", args: ["-c", `echo started > ${marker}`] } } });
const mcpCell = (id: Identity, backend: string, approve: boolean) => {
  // A folder of its own the identity may write (outside the repository and its worktrees).
  const dir = mkdtempSync(join("/var/lib", "yoke-wt-settings-mcp-"));
  temps.push(dir);
  chmodSync(dir, 0o777);
  const marker = join(dir, "MCP_RAN");
  const c = cell(id, backend, undefined, { committed: { ".mcp.json": mcpJson(marker) }, ...(approve ? { claudeLocal: { enabledMcpjsonServers: ["repo-tools"] } } : {}) });
  return { ...c, marker };
};

describe.each(cells)("as %s", (_label, id, backend, unusable) => {
  it.skipIf(unusable)("yoke run --worktree: the verification.command of the workspace's .yoke/settings.local.json runs in the worktree", async () => {
    const c = cell(id, backend, verification);
    const r = await verifiedRun(id, c);
    expect(existsSync(join(r.wt, "verified.txt")), r.stderr).toBe(true);
    expect(readFileSync(join(r.wt, "verified.txt"), "utf8")).toBe(`${TAG}\n`);
    // Nothing written into the person's workspace.
    expect(existsSync(join(c.ws, "verified.txt"))).toBe(false);
  });

  it.skipIf(unusable)("yoke run --worktree: budgets.maxTurns of the workspace's .yoke/settings.local.json stops the agent", async () => {
    const c = cell(id, backend, { budgets: { maxTurns: 1 } });
    const r = await budgetRun(id, c);
    expect(existsSync(join(r.wt, "one.txt")), r.stderr).toBe(true);
    expect(existsSync(join(r.wt, "three.txt"))).toBe(false);
  });
});

describe.each(cells)("MCP approvals, as %s", (_label, id, backend, unusable) => {
  it.skipIf(unusable)("yoke run --worktree: the workspace's .claude/settings.local.json approves the repository's MCP server there, as in the workspace", async () => {
    const c = mcpCell(id, backend, true);
    const r = await sessionAs(id, c.home, c.ws, join(c.base, "sessions"), [], { extra: ["--worktree"] });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(c.marker), r.stderr).toBe(true);
  });
});

describe("control: the settings in no file", () => {
  it("the repository's MCP server is not approved in the worktree", async () => {
    const id = who[0]!;
    const [backend] = backends.find(([, why]) => !why)!;
    const c = mcpCell(id, backend, false);
    const r = await sessionAs(id, c.home, c.ws, join(c.base, "sessions"), [], { extra: ["--worktree"] });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(c.marker)).toBe(false);
  });

  it("no verification runs and the agent takes every turn", async () => {
    const id = who[0]!;
    const [backend] = backends.find(([, why]) => !why)!;
    const v = await verifiedRun(id, cell(id, backend, undefined));
    expect(existsSync(join(v.wt, "verified.txt"))).toBe(false);
    const b = await budgetRun(id, cell(id, backend, undefined));
    expect(b.code, b.stderr).toBe(0);
    expect(existsSync(join(b.wt, "three.txt"))).toBe(true);
  });
});
