/**
 * Red team 25: `worktrees.copy` copied the home into a background agent's worktree through a
 * folder swapped for a link after its check.
 *
 * A repository may name ignored paths to copy into each background agent's worktree
 * (`worktrees.copy` in its committed .yoke/settings.json). Yoke resolved the source (realpath: it
 * must stay inside the repository), then copied it by name (`cpSync`). A sandboxed command of the
 * user's session exchanges the folder `x` (holding a decoy `x/.ssh/id_rsa`) with `xl`, a link to
 * the home, in a loop (renameat2 RENAME_EXCHANGE): when the exchange landed between the check and
 * the copy, the home's `~/.ssh` was copied into the worktree, and the agent's `cat
 * x/.ssh/id_rsa` put the user's private key into the request to the model (root × bwrap, the 5th
 * agent started; the sandbox hides the home, but this copy runs on the host).
 *
 * Fixed by design (issue 18, invariant 6): the copy opens every file and folder by descriptor
 * below the repository's top, never following a link (src/node/safe-open.ts); a source that changed
 * on the way is not placed, and the agent is told so.
 *
 * Real sessions through the built CLI (scripted model over real HTTP), the flipper in the real
 * sandbox, as root and as the unprivileged user, with bwrap and firejail. The control starts an
 * agent without the flipper: the decoy is copied.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath } from "../support/cli";
import { chownTree, spawnAs, type Identity } from "../support/identities";
import { committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const cells = who.flatMap((w) => backends.map(([b, why]) => [`${w.label}, ${b}`, w, b, why] as const));
const SECRET = `SECRET-red25-key-${Math.random().toString(36).slice(2, 8)}`;

function cell(id: Identity, backend: string): { base: string; home: string; ws: string } {
  // Not under /tmp: the sandbox's /tmp is private, and the agent's worktree needs the repository.
  const base = mkdtempSync(join(process.env.YOKE_RED25_BASE ?? "/var/lib", "yoke-red25-copy-"));
  temps.push(base);
  chmodSync(base, 0o755);
  const home = join(base, "home");
  mkdirSync(join(home, ".yoke"), { recursive: true });
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh/id_rsa"), `${SECRET}\n`);
  writeFileSync(join(home, ".yoke/settings.json"), JSON.stringify({ sandbox: { backend } }));
  const ws = committedWorkspace(join(base, "ws"), { "a.txt": "a\n", ".gitignore": "x/\nxl\nflip.pl\nready\nstop\n", ".yoke/settings.json": JSON.stringify({ worktrees: { copy: ["x/.ssh"] } }) }, id);
  mkdirSync(join(ws, "x/.ssh"), { recursive: true });
  writeFileSync(join(ws, "x/.ssh/id_rsa"), "decoy\n");
  chownTree(base, id);
  return { base, home, ws };
}

const agentReads = (id: Identity, home: string, ws: string, base: string) =>
  sessionAs(id, home, ws, join(base, "sessions"), [{ toolCalls: [{ name: "run_command", input: { command: "cat x/.ssh/id_rsa" } }] }], { extra: ["--worktree"] });

describe.each(cells)("as %s", (_label, id, backend, unusable) => {
  it.skipIf(unusable)("agents started while a sandboxed command exchanges the copied folder's parent with a link to the home never get the home's key", async () => {
    const { base, home, ws } = cell(id, backend);
    writeFileSync(
      join(ws, "flip.pl"),
      [
        `my ($a, $b) = ("x", "xl"); symlink("${home}", $b);`,
        'my $ok = syscall(316, -100, $a, -100, $b, 2) == 0 ? "swap works" : "swap failed: $!"; syscall(316, -100, $a, -100, $b, 2);',
        'open(my $r, ">", "ready") or die; print $r $ok; close($r);',
        "my $end = time() + 200;",
        "while (time() < $end && !-e 'stop') { syscall(316, -100, $a, -100, $b, 2); }",
        "",
      ].join("\n"),
    );
    chownTree(ws, id);
    const flipping = new Promise<void>((resolve) =>
      spawn(process.execPath, [cliPath, "sandbox", "exec", "--cwd", ws, "--timeout", "250", "--", "perl", "flip.pl"], {
        cwd: ws,
        stdio: "ignore",
        ...spawnAs(id, { HOME: home }),
      }).on("close", () => resolve()),
    );
    const deadline = Date.now() + 60_000;
    while (!existsSync(join(ws, "ready")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const runs: string[] = [];
    let leaked = false;
    try {
      for (let k = 0; k < 12 && !leaked; k++) {
        const r = await agentReads(id, home, ws, base);
        leaked = r.all.includes(SECRET);
        runs.push(`${k}: exit ${r.code}: ${r.told.slice(-200).replace(/\s+/g, " ")} ${r.stderr.slice(-300)}`);
      }
    } finally {
      writeFileSync(join(ws, "stop"), "");
      await flipping;
    }
    expect(leaked, `the home's key reached the model:\n${runs.join("\n")}`).toBe(false);
    // The loop ran, and the agents started (the copy refused or copied the decoy).
    expect(runs.length).toBe(12);
    expect(runs.filter((r) => r.includes("exit 0")).length, runs.join("\n")).toBeGreaterThan(6);
  });
});

describe("control", () => {
  it("without the flipper the agent gets the decoy copied in", async () => {
    const id = who[0]!;
    const { base, home, ws } = cell(id, "bwrap");
    const r = await agentReads(id, home, ws, base);
    expect(r.code, r.stderr).toBe(0);
    expect(r.told).toContain("decoy");
    expect(r.all.includes(SECRET)).toBe(false);
  });
});
