/**
 * An agent started from another agent's worktree keeps the person's local rules after that agent is discarded.
 *
 * `yoke run --worktree` in an agent's kept worktree (W1) makes a worktree of its own (W2) and records
 * W1 as its workspace (the tree its change is merged into). The gate in W2 found the person's workspace
 * — the only folder with their untracked `.claude/settings.local.json` — by following the records
 * W2 → W1 → the workspace. Discarding W1's agent removes its record, the walk stopped at W2, and the
 * child read only its own (none) local files: with `Read(./secret.txt)` denied in the workspace's
 * local file, the child's `cat secret.txt` put the secret in the model's request. Each record now
 * names the person's own workspace when it is created (`userWorkspace`), so no walk is needed.
 *
 * Full `yoke run` sessions with the scripted model over HTTP, real git worktrees, the real
 * `yoke agents discard`, the real sandbox, as root and as an unprivileged user, bwrap and firejail;
 * a control without the local file shows the child really reads the secret there.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath } from "../support/cli";
import { chownTree, spawnAs, type Identity } from "../support/identities";
import { bash, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const cells = who.flatMap((w) => backends.map(([b, why]) => [`${w.label}, ${b}`, w, b, why] as const));
const SECRET = `SECRET-wt-discarded-${Math.random().toString(36).slice(2, 8)}`;

function cell(id: Identity, backend: string, local: boolean): { base: string; home: string; ws: string } {
  // Not under /tmp: the sandbox's /tmp is private, and the agent's worktree needs the repository.
  const base = mkdtempSync(join("/var/lib", "yoke-wt-discarded-"));
  temps.push(base);
  chmodSync(base, 0o755);
  const home = join(base, "home");
  mkdirSync(join(home, ".yoke"), { recursive: true });
  writeFileSync(join(home, ".yoke/settings.json"), JSON.stringify({ sandbox: { backend } }));
  const ws = committedWorkspace(join(base, "ws"), { "secret.txt": `${SECRET}\n`, "a.txt": "a\n" }, id);
  if (local) {
    mkdirSync(join(ws, ".claude"), { recursive: true });
    writeFileSync(join(ws, ".claude/settings.local.json"), JSON.stringify({ permissions: { deny: ["Read(./secret.txt)"] } }));
  }
  chownTree(base, id);
  return { base, home, ws };
}

/** Every agent record in the test's home. */
function agents(home: string): Array<{ id: string; worktree: string; workspace: string }> {
  const root = join(home, ".yoke/agents");
  return readdirSync(root).flatMap((key) =>
    readdirSync(join(root, key))
      .filter((f) => /^[a-f0-9]+\.json$/.test(f))
      .map((f) => JSON.parse(readFileSync(join(root, key, f), "utf8")) as { id: string; worktree: string; workspace: string }),
  );
}

/** W1 from the workspace, W2 from W1 (both kept), W1's agent discarded, then a session in W2 that reads the secret. */
async function childAfterParentDiscarded(id: Identity, c: ReturnType<typeof cell>) {
  const sessions = join(c.base, "sessions");
  const first = await sessionAs(id, c.home, c.ws, sessions, [bash("echo one > one.txt")], { extra: ["--worktree"] });
  expect(first.code, first.stderr).toBe(0);
  const [parent] = agents(c.home);
  const second = await sessionAs(id, c.home, parent!.worktree, sessions, [bash("echo two > two.txt")], { extra: ["--worktree"] });
  expect(second.code, second.stderr).toBe(0);
  const child = agents(c.home).find((r) => r.id !== parent!.id)!;
  expect(child.workspace).toBe(parent!.worktree);
  // The person discards the parent agent (from the workspace, as `yoke agents` is used).
  const opts = spawnAs(id, { HOME: c.home });
  execFileSync(process.execPath, [cliPath, "agents", "discard", parent!.id, "--cwd", c.ws], { ...opts, cwd: c.ws, stdio: "pipe" });
  expect(existsSync(parent!.worktree)).toBe(false);
  expect(existsSync(child.worktree)).toBe(true);
  // The child agent's work continues in its worktree.
  return sessionAs(id, c.home, child.worktree, sessions, [bash("cat secret.txt"), { toolCalls: [{ name: "read_file", input: { path: "secret.txt" } }] }]);
}

describe.each(cells)("as %s", (_label, id, backend, unusable) => {
  it.skipIf(unusable)("an agent started from a discarded agent's worktree: the workspace's local deny rule keeps the secret from the model", async () => {
    const c = cell(id, backend, true);
    const r = await childAfterParentDiscarded(id, c);
    expect(r.code, r.stderr).toBe(0);
    expect(r.all.includes(SECRET), r.told).toBe(false);
    expect(r.told).toMatch(/Read\(\.\/secret\.txt\)/);
  });
});

describe("control: without the local file", () => {
  it("the child reads the secret from its worktree", async () => {
    const id = who[0]!;
    const [backend] = backends.find(([, why]) => !why)!;
    const r = await childAfterParentDiscarded(id, cell(id, backend, false));
    expect(r.code, r.stderr).toBe(0);
    expect(r.all.includes(SECRET)).toBe(true);
  });
});
