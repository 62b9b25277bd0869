/**
 * Red team 25: merging a background agent's change wrote through a folder swapped for a link after
 * the check.
 *
 * `yoke agents merge` (apply) checks each destination for a link (red team 8) and then writes it
 * by name: `mkdir -p` of its folder and an `open` that refuses a link only in the LAST component.
 * A sandboxed command of a session (a background command the model started) exchanges a real
 * folder `d` with `dl`, a link to `.git/hooks`, in a loop (renameat2 RENAME_EXCHANGE). The
 * agent's change adds `d/pre-commit` (an executable script): when the exchange lands between the
 * check and the open, the merge — on the host, outside every sandbox — creates
 * `.git/hooks/pre-commit`, and the user's next `git commit` runs it. Deleting a file the agent
 * removed went the same way (`unlink` by name).
 *
 * Fixed by design (issue 18, invariant 6): the merge writes and deletes through the checked
 * folder's descriptor (src/node/safe-open.ts: no link below the repository's top is followed, the
 * file renamed into place inside that folder), never by name from the top again.
 *
 * Real sessions through the built CLI (scripted model over real HTTP), the flipper in the real
 * sandbox, as root and as the unprivileged user, with bwrap and firejail. Outcome: no hook, nothing
 * run at the user's commit; the control merges the same file into the real folder.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath } from "../support/cli";
import { chownTree, runCliAs, spawnAs, type Identity } from "../support/identities";
import { committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const cells = who.flatMap((w) => backends.map(([b, why]) => [`${w.label}, ${b}`, w, b, why] as const));

/** Exchanges the real folder `d` with the link `dl` (x86-64 renameat2 = 316, RENAME_EXCHANGE = 2) until `stop` exists; empties the real folder now and then. */
const FLIPPER = [
  'my ($a, $b) = ("d", "dl"); mkdir($a); symlink(".git/hooks", $b);',
  'my $ok = syscall(316, -100, $a, -100, $b, 2) == 0 ? "swap works" : "swap failed: $!"; syscall(316, -100, $a, -100, $b, 2);',
  'open(my $r, ">", "ready") or die; print $r $ok; close($r);',
  "my $end = time() + 150; my $n = 0;",
  "while (time() < $end && !-e 'stop') {",
  "  for (1 .. 2000) { syscall(316, -100, $a, -100, $b, 2); }",
  '  unlink "d/pre-commit", "dl/pre-commit";',
  "}",
  "",
].join("\n");

function cellBase(id: Identity, backend: string): { base: string; home: string } {
  // Not under /tmp: the sandbox's /tmp is private, and the agent's worktree needs the repository.
  const base = mkdtempSync(join(process.env.YOKE_RED25_BASE ?? "/var/lib", "yoke-red25-merge-"));
  temps.push(base);
  chmodSync(base, 0o755);
  const home = join(base, "home");
  mkdirSync(join(home, ".yoke"), { recursive: true });
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ sandbox: { backend } }));
  chownTree(base, id);
  return { base, home };
}

async function agentAdding(id: Identity, home: string, ws: string, base: string, marker: string): Promise<string> {
  const r = await sessionAs(
    id,
    home,
    ws,
    join(base, "sessions"),
    [{ toolCalls: [{ name: "run_command", input: { command: `mkdir -p d && printf '#!/bin/sh\\ntouch ${marker}\\n' > d/pre-commit && chmod +x d/pre-commit` } }] }],
    { extra: ["--worktree"] },
  );
  expect(r.code, r.stderr).toBe(0);
  const list = await runCliAs(id, ["agents", "list", "--json", "--cwd", ws], { env: { HOME: home } });
  const agents = (JSON.parse(list.stdout) as { agents: Array<{ id: string; state: string }> }).agents;
  expect(agents.length, list.stderr).toBe(1);
  return agents[0]!.id;
}

describe.each(cells)("as %s", (_label, id, backend, unusable) => {
  it.skipIf(unusable)("a merge while a sandboxed command exchanges the folder it writes into with a link to .git/hooks writes no hook; the user's next commit runs nothing", async () => {
    const { base, home } = cellBase(id, backend);
    const ws = committedWorkspace(join(base, "ws"), { "src/a.js": "keep\n" }, id);
    const marker = join(base, "hook-ran");
    const agent = await agentAdding(id, home, ws, base, marker);
    writeFileSync(join(ws, "flip.pl"), FLIPPER);
    chownTree(ws, id);
    let said = "";
    const flipping = new Promise<void>((resolve) => {
      const child = spawn(process.execPath, [cliPath, "sandbox", "exec", "--cwd", ws, "--timeout", "200", "--", "perl", "flip.pl"], {
        cwd: ws,
        stdio: ["ignore", "pipe", "pipe"],
        ...spawnAs(id, { HOME: home }),
      });
      child.stdout!.on("data", (d) => (said += d));
      child.stderr!.on("data", (d) => (said += d));
      child.on("close", () => resolve());
    });
    const deadline = Date.now() + 60_000;
    while (!existsSync(join(ws, "ready")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(join(ws, "ready")) ? readFileSync(join(ws, "ready"), "utf8") : said).toBe("swap works");
    const hook = join(ws, ".git/hooks/pre-commit");
    const outcomes: string[] = [];
    for (let k = 0; k < 40 && !existsSync(hook); k++) {
      const m = await runCliAs(id, ["agents", "merge", agent, "--cwd", ws], { env: { HOME: home } });
      outcomes.push(`${m.code}: ${(m.stdout + m.stderr).trim().split("\n")[0]}`);
    }
    writeFileSync(join(ws, "stop"), "");
    await flipping;
    expect(existsSync(hook), `a merge wrote .git/hooks/pre-commit:\n${outcomes.join("\n")}`).toBe(false);
    // Every attempt either merged into the real folder or was refused with the reason.
    for (const o of outcomes) expect(o).toMatch(/^0: (merged agent|nothing to merge)|^1: yoke agents( merge)?: .*(symbolic link|changed)/);
    spawnSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit", "-q", "--allow-empty", "-m", "x"], { cwd: ws, ...spawnAs(id, { HOME: home }) });
    expect(existsSync(marker)).toBe(false);
  });
});

describe("control", () => {
  it("without the flipper the same agent's file merges into the real folder", async () => {
    const id = who[0]!;
    const { base, home } = cellBase(id, "bwrap");
    const ws = committedWorkspace(join(base, "ws"), { "src/a.js": "keep\n" }, id);
    const agent = await agentAdding(id, home, ws, base, join(base, "hook-ran"));
    mkdirSync(join(ws, "d"));
    chownTree(ws, id);
    const m = await runCliAs(id, ["agents", "merge", agent, "--cwd", ws], { env: { HOME: home } });
    expect(m.code, m.stderr).toBe(0);
    expect(readFileSync(join(ws, "d/pre-commit"), "utf8")).toContain("touch");
    expect(existsSync(join(ws, ".git/hooks/pre-commit"))).toBe(false);
  });
});
