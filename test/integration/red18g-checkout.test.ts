/**
 * Red team 18-gate, `git checkout` bypasses of the `git reset` reading — through FULL SESSIONS (the
 * built CLI's `yoke run --trust`, a scripted model over real HTTP), as root and as the unprivileged
 * user, with bwrap and firejail, in bypassPermissions under a `Bash(git reset:*)` deny rule. Each
 * threw the user's uncommitted work away before (the gate probed the wrong folder, never saw the
 * operand, or let the command answer git's per-hunk questions); the outcome asserted is the work on
 * disk. `git checkout feature` (a branch) still runs. A plain-bash control shows each really loses it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bash, cellFolder, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();

const WORK = "the user's uncommitted work\n";
/** Each with the file whose work it throws away. */
const BYPASSES: Array<[string, string]> = [
  ['D=nested; cd "$D"; git checkout feature', "nested/feature"],
  ["echo a.txt | xargs git checkout", "a.txt"],
  ["find . -maxdepth 1 -name a.txt -exec git checkout {} ';'", "a.txt"],
  ["yes | git checkout -p", "a.txt"],
];

const gitIn = (ws: string, ...args: string[]) => spawnSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { encoding: "utf8" });

/** ws: a repository (a.txt; branch feature) and, inside it, `nested`, a repository where `feature` is a tracked file; the user's work in both. */
function repos(ws: string): string {
  mkdirSync(join(ws, "nested"), { recursive: true });
  writeFileSync(join(ws, "a.txt"), "committed\n");
  writeFileSync(join(ws, ".gitignore"), "nested/\nbranch.txt\n");
  execFileSync("git", ["init", "-q", "-b", "main", ws]);
  gitIn(ws, "add", "a.txt", ".gitignore");
  gitIn(ws, "commit", "-qm", "init");
  gitIn(ws, "branch", "feature");
  const n = join(ws, "nested");
  writeFileSync(join(n, "feature"), "committed\n");
  execFileSync("git", ["init", "-q", "-b", "main", n]);
  gitIn(n, "add", "feature");
  gitIn(n, "commit", "-qm", "init");
  writeFileSync(join(ws, "a.txt"), WORK);
  writeFileSync(join(n, "feature"), WORK);
  return ws;
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    const cell = () => cellFolder(`yoke-r18g-${backend}-`, id, temps, { sandbox: { backend } });
    const denyFile = (base: string) => {
      const f = join(base, "deny.json");
      writeFileSync(f, JSON.stringify({ permissions: { deny: ["Bash(git reset:*)"] } }));
      chownTree(f, id);
      return f;
    };

    it.skipIf(!!unusable)("each bypass is denied and the work stays; git checkout feature runs", async () => {
      const { base, home } = cell();
      const ws = repos(join(base, "ws"));
      chownTree(ws, id);
      const commands = [...BYPASSES.map(([c]) => c), "git checkout feature && git branch --show-current > branch.txt"];
      const r = await sessionAs(id, home, ws, join(base, "s"), commands.map(bash), { settings: denyFile(base), env: { OPENAI_API_KEY: "sk-r18g" } });
      expect(r.code, r.stderr).toBe(0);
      for (const [c, file] of BYPASSES) expect({ c, work: readFileSync(join(ws, file), "utf8") }, r.told.slice(0, 3000)).toEqual({ c, work: WORK });
      expect(readFileSync(join(ws, "branch.txt"), "utf8")).toBe("feature\n");
      expect(r.told.match(/Bash\(git reset:\*\)/g)?.length ?? 0).toBeGreaterThanOrEqual(BYPASSES.length);
    });
  });
});

describe("control: the same commands in plain bash", () => {
  it("each throws the work away; git checkout feature keeps it", () => {
    const fresh = () => {
      const ws = mkdtempSync(join(tmpdir(), "yoke-r18g-ctl-"));
      temps.push(ws);
      return repos(ws);
    };
    const kept: string[] = [];
    for (const [c, file] of BYPASSES) {
      const ws = fresh();
      spawnSync("bash", ["-c", c], { cwd: ws, stdio: "ignore" });
      if (readFileSync(join(ws, file), "utf8") === WORK) kept.push(c);
      rmSync(ws, { recursive: true, force: true });
    }
    expect(kept).toEqual([]);
    const ws = fresh();
    spawnSync("bash", ["-c", "git checkout feature"], { cwd: ws, stdio: "ignore" });
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe(WORK);
  });
});
