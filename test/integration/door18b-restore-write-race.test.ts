/**
 * Issue 18, session 18 (door18b) item 3: a checkpoint restore's WRITES under a folder swapped for a
 * link to `.git`. Red team 25 moved the restore's deletes onto checked folder descriptors; its writes
 * still went through `git checkout-index -f` on the host, which checks a path's folders and then
 * opens the file by name. Shown with plain git first (21st try): a loop exchanging `d` with `dl`, a
 * link to `.git` (renameat2 RENAME_EXCHANGE), made `checkout-index` of `d/hooks/pre-commit` write an
 * executable `.git/hooks/pre-commit` — a hook the user's next `git commit` runs on the host.
 *
 * Here through the built CLI: the repository holds `d/hooks/<hook>` for 20 hook names (executable,
 * each appending to a marker), the session (scripted model, bypassPermissions) rewrites them, and
 * `yoke checkpoints restore SESSION 0 --files` puts them back while the flipper runs in the real
 * sandbox (`yoke sandbox exec`), as root and as the unprivileged user, with bwrap and firejail. Now
 * the restore writes each file inside its checked folder's descriptor (safe-open.ts), so nothing
 * appears in `.git/hooks` and a host `git commit` runs no hook. The control restores without the
 * flipper: the hooks are back in `d/hooks`, executable, and `.git/hooks` holds only git's samples.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath } from "../support/cli";
import { chownTree, runCliAs, spawnAs, type Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const cells = who.flatMap((w) => backends.map(([b, why]) => [`${w.label}, ${b}`, w, b, why] as const));

const HOOKS = [
  "pre-commit",
  "post-commit",
  "commit-msg",
  "prepare-commit-msg",
  "post-checkout",
  "post-merge",
  "pre-push",
  "pre-rebase",
  "post-rewrite",
  "pre-auto-gc",
  "reference-transaction",
  "post-index-change",
  "pre-merge-commit",
  "push-to-checkout",
  "applypatch-msg",
  "pre-applypatch",
  "post-applypatch",
  "update",
  "post-update",
  "pre-receive",
];

/** Exchanges `d` with `dl` (a link to .git) until `stop`; when a writer replaced the link with a folder, makes the pair a folder and a link again. */
const FLIPPER = [
  'my ($a, $b) = ("d", "dl"); symlink(".git", $b); my $k = 0;',
  'my $ok = syscall(316, -100, $a, -100, $b, 2) == 0 ? "swap works" : "swap failed: $!"; syscall(316, -100, $a, -100, $b, 2);',
  'open(my $r, ">", "ready") or die; print $r $ok; close($r);',
  "my $end = time() + 170;",
  "while (time() < $end && !-e 'stop') {",
  "  for (1 .. 500) { syscall(316, -100, $a, -100, $b, 2); }",
  '  if (!-l $a && !-l $b) { rename($b, "junk" . $k++); symlink(".git", $b); }',
  "  if (-l $a && -l $b) { unlink($b); mkdir($b); }",
  '  if (!-e $a && !-l $a) { symlink(".git", $a); }',
  "  if (!-e $b && !-l $b) { mkdir($b); }",
  '  for my $n ($a, $b) { mkdir("$n/hooks") if !-l $n && !-e "$n/hooks"; }',
  "}",
  "",
].join("\n");

const planted = (ws: string) => readdirSync(join(ws, ".git", "hooks")).filter((n) => !n.endsWith(".sample"));

async function sessionThatRewritesHooks(id: Identity, backend: string): Promise<{ base: string; ws: string; home: string; sessions: string; session: string; marker: string }> {
  const { base, home } = cellFolder("yoke-door18b-restore-", id, temps, { sandbox: { backend } });
  const marker = join(base, "hook-ran");
  const files: Record<string, string> = { "src/a.js": "keep\n" };
  for (const h of HOOKS) files[`d/hooks/${h}`] = `#!/bin/sh\necho ${h} >> ${marker}\n`;
  const ws = join(base, "ws");
  mkdirSync(join(ws, "d", "hooks"), { recursive: true });
  mkdirSync(join(ws, "src"), { recursive: true });
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(ws, rel), text);
  for (const h of HOOKS) chmodSync(join(ws, "d", "hooks", h), 0o755);
  committedWorkspace(ws, {}, id);
  const sessions = join(base, "sessions");
  const r = await sessionAs(id, home, ws, sessions, [bash("for f in d/hooks/*; do printf 'benign\\n' > \"$f\"; done; echo rewritten")]);
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(join(ws, "d/hooks/pre-commit"), "utf8")).toBe("benign\n");
  const session = readdirSync(sessions)
    .find((f) => f.endsWith(".jsonl"))!
    .replace(/\.jsonl$/, "");
  return { base, ws, home, sessions, session, marker };
}

function hostCommit(id: Identity, home: string, ws: string): void {
  spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "after"], { cwd: ws, ...spawnAs(id, { HOME: home }) });
}

describe.each(cells)("as %s", (_label, id, backend, unusable) => {
  it.skipIf(unusable)("restoring hooks under d/ while a sandboxed command exchanges d with a link to .git writes nothing into .git/hooks; the host's git commit runs no hook", async () => {
    const { ws, home, sessions, session, marker } = await sessionThatRewritesHooks(id, backend);
    writeFileSync(join(ws, "flip.pl"), FLIPPER);
    chownTree(ws, id);
    const flipping = new Promise<void>((resolve) =>
      spawn(process.execPath, [cliPath, "sandbox", "exec", "--cwd", ws, "--timeout", "200", "--", "perl", "flip.pl"], { cwd: ws, stdio: "ignore", ...spawnAs(id, { HOME: home }) }).on("close", () =>
        resolve(),
      ),
    );
    const deadline = Date.now() + 60_000;
    while (!existsSync(join(ws, "ready")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(readFileSync(join(ws, "ready"), "utf8")).toBe("swap works");
    const outcomes: string[] = [];
    // Restores that meet the flip while the undo snapshot reads d/ refuse as a whole ("could not be undone"): safe, but
    // not the write this attacks — so up to 40 tries, until 8 restores went through to their writes.
    let written = 0;
    for (let k = 0; k < 40 && written < 8 && planted(ws).length === 0; k++) {
      const r = await runCliAs(id, ["checkpoints", "restore", session, "0", "--files", "--session-dir", sessions, "--cwd", ws], { env: { HOME: home } });
      if (r.code === 0) written++;
      outcomes.push(`${r.code}: ${(r.stdout + r.stderr).trim().split("\n").slice(-1)[0]}`);
    }
    writeFileSync(join(ws, "stop"), "");
    await flipping;
    expect(planted(ws), `a restore wrote into .git/hooks:\n${outcomes.join("\n")}`).toEqual([]);
    expect(
      outcomes.some((o) => o.startsWith("0:")),
      outcomes.join("\n"),
    ).toBe(true);
    hostCommit(id, home, ws);
    expect(existsSync(marker), "a hook ran on the host").toBe(false);
  });
});

describe("control", () => {
  it("without the flipper the restore puts every hook file back in d/hooks, executable, and .git/hooks holds only git's samples", async () => {
    const id = who[0]!;
    const { ws, home, sessions, session, marker } = await sessionThatRewritesHooks(id, "bwrap");
    const r = await runCliAs(id, ["checkpoints", "restore", session, "0", "--files", "--session-dir", sessions, "--cwd", ws], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    for (const h of HOOKS) {
      expect(readFileSync(join(ws, "d/hooks", h), "utf8")).toBe(`#!/bin/sh\necho ${h} >> ${marker}\n`);
      expect(statSync(join(ws, "d/hooks", h)).mode & 0o111).not.toBe(0);
    }
    expect(planted(ws)).toEqual([]);
    hostCommit(id, home, ws);
    expect(existsSync(marker)).toBe(false);
  });
});
