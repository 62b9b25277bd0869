/**
 * Red team 25: a checkpoint restore's deletes, by name after a check, under a folder swapped for a link.
 *
 * "Restore to turn 0" deletes the files a tool created after that checkpoint. It checked that the
 * file's folder is the real folder inside the workspace (realpath) and then removed the file (and
 * the folders it emptied) by name — the shape of the merge race (red25-merge-race.test.ts). A
 * sandboxed command of the session exchanges the real folder `d` (holding files write_file created
 * under names every .git holds) with `dl`, a link to `.git`, in a loop (renameat2 RENAME_EXCHANGE).
 * NOT confirmed as harm on the code before the change: under the loop the restore's own undo
 * checkpoint mostly fails ("Unable to process path d/…": nothing restored), and the restores that
 * ran deleted nothing in .git. The deletes now go through the checked folder's descriptor anyway
 * (src/node/safe-open.ts `remove`, `removeEmptyFolder`), and this test keeps the attack.
 *
 * Real sessions through the built CLI (scripted model over real HTTP), the flipper in the real
 * sandbox, as root and as the unprivileged user, with bwrap and firejail. The control restores the
 * same checkpoint without the flipper: `d/` and its files are gone, `.git` is intact.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath } from "../support/cli";
import { chownTree, runCliAs, spawnAs, type Identity } from "../support/identities";
import { cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const cells = who.flatMap((w) => backends.map(([b, why]) => [`${w.label}, ${b}`, w, b, why] as const));

/** Exchanges the real folder `d` with the link `dl` (x86-64 renameat2 = 316, RENAME_EXCHANGE = 2) until `stop` exists; puts the files back in the real folder now and then. */
const FLIPPER = [
  'my ($a, $b) = ("d", "dl"); symlink(".git", $b);',
  'my $ok = syscall(316, -100, $a, -100, $b, 2) == 0 ? "swap works" : "swap failed: $!"; syscall(316, -100, $a, -100, $b, 2);',
  'open(my $r, ">", "ready") or die; print $r $ok; close($r);',
  "my $end = time() + 150;",
  "while (time() < $end && !-e 'stop') {",
  // A restore planned while `d` was the link deletes the link: put it back.
  '  for (1 .. 2000) { if (syscall(316, -100, $a, -100, $b, 2) != 0) { for my $n ($a, $b) { symlink(".git", $n) unless -e $n || -l $n; } } }',
  '  for my $n (qw(config description COMMIT_EDITMSG index)) { for my $f ("d/$n", "dl/$n") { if (!-e $f && open(my $h, ">", $f)) { print $h "made by write_file\\n"; close($h); } } }',
  "}",
  "",
].join("\n");

/** Files every .git holds: the session creates them in `d`, so a restore to turn 0 deletes them there. */
const NAMES = ["config", "description", "COMMIT_EDITMSG", "index"];
/** Their content does not change (the index may be refreshed by git itself). */
const FIXED = ["config", "description", "COMMIT_EDITMSG"];

async function sessionWithNewFile(id: Identity, backend: string): Promise<{ ws: string; home: string; sessions: string; session: string }> {
  const { base, home } = cellFolder("yoke-red25-restore-", id, temps, { sandbox: { backend } });
  const ws = committedWorkspace(join(base, "ws"), { "src/a.js": "keep\n" }, id);
  const sessions = join(base, "sessions");
  const r = await sessionAs(id, home, ws, sessions, [{ toolCalls: NAMES.map((n) => ({ name: "write_file", input: { path: `d/${n}`, content: "made by write_file\n" } })) }]);
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(join(ws, "d/config"), "utf8")).toBe("made by write_file\n");
  const session = readdirSync(sessions)
    .find((f) => f.endsWith(".jsonl"))!
    .replace(/\.jsonl$/, "");
  return { ws, home, sessions, session };
}

describe.each(cells)("as %s", (_label, id, backend, unusable) => {
  it.skipIf(unusable)("restoring to turn 0 while a sandboxed command exchanges the folder of a file it deletes with a link to .git deletes nothing in .git", async () => {
    const { ws, home, sessions, session } = await sessionWithNewFile(id, backend);
    const before = FIXED.map((n) => readFileSync(join(ws, ".git", n)).toString("base64"));
    writeFileSync(join(ws, "flip.pl"), FLIPPER);
    chownTree(ws, id);
    const flipping = new Promise<void>((resolve) =>
      spawn(process.execPath, [cliPath, "sandbox", "exec", "--cwd", ws, "--timeout", "200", "--", "perl", "flip.pl"], {
        cwd: ws,
        stdio: "ignore",
        ...spawnAs(id, { HOME: home }),
      }).on("close", () => resolve()),
    );
    const deadline = Date.now() + 60_000;
    while (!existsSync(join(ws, "ready")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(readFileSync(join(ws, "ready"), "utf8")).toBe("swap works");
    const outcomes: string[] = [];
    const intact = () => NAMES.every((n) => existsSync(join(ws, ".git", n)));
    for (let k = 0; k < 40 && intact(); k++) {
      const r = await runCliAs(id, ["checkpoints", "restore", session, "0", "--files", "--session-dir", sessions, "--cwd", ws], { env: { HOME: home } });
      outcomes.push(`${r.code}: ${(r.stdout + r.stderr).trim().split("\n").slice(-1)[0]}`);
    }
    writeFileSync(join(ws, "stop"), "");
    await flipping;
    expect(intact(), `a restore deleted a file of .git:\n${outcomes.join("\n")}`).toBe(true);
    expect(FIXED.map((n) => readFileSync(join(ws, ".git", n)).toString("base64"))).toEqual(before);
    expect(
      outcomes.some((o) => o.startsWith("0:")),
      outcomes.join("\n"),
    ).toBe(true);
  });
});

describe("control", () => {
  it("without the flipper the restore deletes the files the session created and the folder it emptied, and nothing else", async () => {
    const id = who[0]!;
    const { ws, home, sessions, session } = await sessionWithNewFile(id, "bwrap");
    const r = await runCliAs(id, ["checkpoints", "restore", session, "0", "--files", "--session-dir", sessions, "--cwd", ws], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    for (const n of NAMES) expect(existsSync(join(ws, "d", n))).toBe(false);
    // The folder the restore emptied is removed too.
    expect(existsSync(join(ws, "d"))).toBe(false);
    for (const n of NAMES) expect(existsSync(join(ws, ".git", n))).toBe(true);
    expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("keep\n");
  });
});
