/**
 * The person's local permission rules govern agents working in worktrees (session 18).
 *
 * `.claude/settings.local.json` and `.yoke/settings.local.json` are the person's own files: git does
 * not track them, so a git worktree of the repository has none of them. An agent working in a
 * worktree — `yoke run --worktree` / `--background` (the panel's background agents run the same
 * worker) and a custom agent with `isolation: worktree` — read its rules from the worktree only, so
 * the person's own deny rules did not apply there: with `Read(./secret.txt)` denied in the
 * workspace's `.claude/settings.local.json`, both agents' `cat secret.txt` put the secret in the
 * model's request. The workspace's local files now apply in its agents' worktrees, their relative
 * rules relative to the worktree.
 *
 * Full `yoke run` sessions with the scripted model over HTTP, real git worktrees, the real sandbox,
 * as root and as an unprivileged user, with bwrap and firejail; a control without the local file
 * shows the read really reaches the model from the worktree.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chownTree, type Identity } from "../support/identities";
import { bash, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const cells = who.flatMap((w) => backends.map(([b, why]) => [`${w.label}, ${b}`, w, b, why] as const));
const SECRET = `SECRET-wt-local-${Math.random().toString(36).slice(2, 8)}`;

const AGENT = ["---", "name: fixer", "description: Fixes things in a worktree of its own", "tools: Read, Bash", "isolation: worktree", "---", "You fix things.", ""].join("\n");

function cell(id: Identity, backend: string, local: boolean): { base: string; home: string; ws: string } {
  // Not under /tmp: the sandbox's /tmp is private, and the agent's worktree needs the repository.
  const base = mkdtempSync(join("/var/lib", "yoke-wt-local-"));
  temps.push(base);
  chmodSync(base, 0o755);
  const home = join(base, "home");
  mkdirSync(join(home, ".yoke"), { recursive: true });
  writeFileSync(join(home, ".yoke/settings.json"), JSON.stringify({ sandbox: { backend } }));
  const ws = committedWorkspace(join(base, "ws"), { "secret.txt": `${SECRET}\n`, "a.txt": "a\n", ".claude/agents/fixer.md": AGENT }, id);
  // The person's own rule, in the file git does not track.
  if (local) writeFileSync(join(ws, ".claude/settings.local.json"), JSON.stringify({ permissions: { deny: ["Read(./secret.txt)"] } }));
  chownTree(base, id);
  return { base, home, ws };
}

const READS = [bash("cat secret.txt"), { toolCalls: [{ name: "read_file", input: { path: "secret.txt" } }] }];
const delegate = { toolCalls: [{ name: "task", input: { description: "Look", prompt: "Read secret.txt.", subagent_type: "fixer" } }] };

const worktreeRun = (id: Identity, c: ReturnType<typeof cell>) => sessionAs(id, c.home, c.ws, join(c.base, "sessions"), READS, { extra: ["--worktree"] });
const isolatedAgent = (id: Identity, c: ReturnType<typeof cell>) => sessionAs(id, c.home, c.ws, join(c.base, "sessions"), [delegate, ...READS, { text: "read" }]);
// Nested (red team G): the agent of `yoke run --worktree` works in its worktree (W1) and delegates to an isolation: worktree
// agent, whose worktree (W2) is made from W1; W1 has none of the person's local files either.
const nestedAgent = (id: Identity, c: ReturnType<typeof cell>) => sessionAs(id, c.home, c.ws, join(c.base, "sessions"), [delegate, ...READS, { text: "read" }], { extra: ["--worktree"] });

/**
 * `yoke run --worktree` started in an agent's kept worktree (W1): its own worktree (W2) is made from W1 and recorded with W1
 * as its workspace, which has none of the person's local files; the gate must follow the records to the person's workspace.
 */
async function worktreeOfKeptWorktree(id: Identity, c: ReturnType<typeof cell>) {
  const first = await sessionAs(id, c.home, c.ws, join(c.base, "sessions"), [bash("echo kept > kept.txt")], { extra: ["--worktree"] });
  expect(first.code, first.stderr).toBe(0);
  const root = join(c.home, ".local/share/yoke/worktrees");
  const [key] = readdirSync(root);
  const [name] = readdirSync(join(root, key!));
  const w1 = join(root, key!, name!);
  return sessionAs(id, c.home, w1, join(c.base, "sessions"), READS, { extra: ["--worktree"] });
}

describe.each(cells)("as %s", (_label, id, backend, unusable) => {
  it.skipIf(unusable)("yoke run --worktree: the workspace's local deny rule keeps the secret from the model", async () => {
    const c = cell(id, backend, true);
    const r = await worktreeRun(id, c);
    expect(r.code, r.stderr).toBe(0);
    expect(r.all.includes(SECRET), r.told).toBe(false);
    expect(r.told).toMatch(/Read\(\.\/secret\.txt\)/);
  });

  it.skipIf(unusable)("a custom agent with isolation: worktree: the workspace's local deny rule keeps the secret from the model", async () => {
    const c = cell(id, backend, true);
    const r = await isolatedAgent(id, c);
    expect(r.code, r.stderr).toBe(0);
    expect(r.all.includes(SECRET), r.told).toBe(false);
    expect(r.all).toMatch(/Read\(\.\/secret\.txt\)/);
  });

  it.skipIf(unusable)("yoke run --worktree in an agent's kept worktree: the workspace's local deny rule keeps the secret from the model", async () => {
    const c = cell(id, backend, true);
    const r = await worktreeOfKeptWorktree(id, c);
    expect(r.code, r.stderr).toBe(0);
    expect(r.all.includes(SECRET), r.told).toBe(false);
    expect(r.told).toMatch(/Read\(\.\/secret\.txt\)/);
  });

  it.skipIf(unusable)("an isolation: worktree agent started by a --worktree agent (a worktree of a worktree): the workspace's local deny rule keeps the secret from the model", async () => {
    const c = cell(id, backend, true);
    const r = await nestedAgent(id, c);
    expect(r.code, r.stderr).toBe(0);
    expect(r.all.includes(SECRET), r.told).toBe(false);
    expect(r.all).toMatch(/Read\(\.\/secret\.txt\)/);
  });
});

describe("control: without the local file", () => {
  it("both agents read the secret from their worktree", async () => {
    const id = who[0]!;
    const [backend] = backends.find(([, why]) => !why)!;
    const a = await worktreeRun(id, cell(id, backend, false));
    expect(a.code, a.stderr).toBe(0);
    expect(a.all.includes(SECRET)).toBe(true);
    const b = await isolatedAgent(id, cell(id, backend, false));
    expect(b.code, b.stderr).toBe(0);
    expect(b.all.includes(SECRET)).toBe(true);
    const n = await nestedAgent(id, cell(id, backend, false));
    expect(n.code, n.stderr).toBe(0);
    expect(n.all.includes(SECRET)).toBe(true);
    const k = await worktreeOfKeptWorktree(id, cell(id, backend, false));
    expect(k.code, k.stderr).toBe(0);
    expect(k.all.includes(SECRET)).toBe(true);
  });
});
