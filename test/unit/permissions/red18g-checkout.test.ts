/**
 * Red team 18-gate: bypasses of the `git checkout X` reading (src/core/permissions/evaluate-bash.ts
 * checkoutDiscards, shell/git-discard.ts, shell/unwrap.ts) under a `Bash(git reset:*)` deny rule. The
 * probe asks the repository of the folder Yoke believes git runs in; each form below ran git
 * somewhere else, with operands Yoke never saw, or let the command answer git's own questions, and
 * threw the user's work away (the control at the end runs each with plain git and shows the loss).
 * Real git repositories, the real gate and its Node port.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";
import { nodeGitCheckoutTarget } from "../../../src/node/git-checkout-target";

const bash = (command: string) => call("run_command", { command });
const G = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"];

/**
 * The workspace: a repository with branches `feature` and `both` (and a tracked file `both`); next to
 * it `../other`, a repository where `feature` is a tracked file holding the user's uncommitted work.
 */
function repos() {
  const w = createPermissionWorkspace({ permissions: { deny: ["Bash(git reset:*)"] } });
  const git = (cwd: string, ...args: string[]) => execFileSync("git", [...G, ...args], { cwd, encoding: "utf8" }).trim();
  w.write("a.txt", "committed\n");
  w.write("both", "a file and a branch\n");
  w.write("sub/s.txt", "s\n");
  git(w.ws, "init", "-q");
  git(w.ws, "add", "a.txt", "both", "sub");
  git(w.ws, "commit", "-q", "-m", "init");
  git(w.ws, "branch", "feature");
  git(w.ws, "branch", "both");
  git(w.ws, "tag", "v1.2");
  const other = join(w.root, "other");
  mkdirSync(other, { recursive: true });
  writeFileSync(join(other, "feature"), "committed\n");
  git(other, "init", "-q");
  git(other, "add", "feature");
  git(other, "commit", "-q", "-m", "init");
  writeFileSync(join(other, "feature"), "the user's work\n");
  w.write("a.txt", "the user's work\n");
  return { w, git, other };
}

/** Each threw the user's work away and was allowed before (bypassPermissions, deny Bash(git reset:*)). */
const BYPASSES = [
  // The folder is only known when it runs: the probe asked the workspace, where `feature` is a branch.
  'D=../other; cd "$D"; git checkout feature',
  "cd ../oth*; git checkout feature",
  "cd ../other; cd - >/dev/null; cd ../other; git checkout feature",
  // A wrapper that runs git in another folder.
  "find ../other -maxdepth 1 -name feature -execdir git checkout feature ';'",
  "unshare --wd=../other git checkout feature",
  // Operands given at run time.
  "echo a.txt | xargs git checkout",
  "find . -maxdepth 1 -name a.txt -exec git checkout {} ';'",
  "ls a.txt | xargs -I{} git checkout {}",
  // The command answers git's per-hunk questions itself.
  "yes | git checkout -p",
  "yes | git checkout -qp",
  "yes | git checkout --patch feature",
  "yes | git restore -p",
];

/** Ordinary branch work stays allowed. */
const KEEPS = [
  "git checkout feature",
  "git checkout both",
  "git checkout main",
  "git checkout v1.2",
  "git checkout -b topic",
  "git checkout -",
  "git checkout @{-1}",
  "git checkout HEAD~0",
  "timeout 5 git checkout main",
  "nice -n 5 git checkout feature",
  "cd sub && git checkout main",
  "cd ../other && git checkout main",
  "git restore -p --staged a.txt",
  "git checkout main; git checkout feature; git checkout main",
];

describe("red18g: git checkout X bypasses of the git reset reading", () => {
  it("denies each bypass under Bash(git reset:*), naming the rule; keeps ordinary switching allowed", async () => {
    const { w } = repos();
    const gate = w.gate({ trusted: true });
    for (const c of BYPASSES) {
      const d = await gate.check(bash(c), "bypassPermissions");
      expect({ c, decision: d.decision, rule: /git reset:\*/.test(d.reason ?? "") }).toEqual({ c, decision: "deny", rule: true });
    }
    for (const c of KEEPS) expect({ c, decision: (await gate.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, decision: "allow" });
  }, 120_000);

  it("git submodule foreach and rebase -x run their command in another folder: a discard, not a probe here", async () => {
    const { w } = repos();
    const gate = w.gate({ trusted: true });
    for (const c of ["git submodule foreach git checkout feature", "git submodule foreach --recursive 'git checkout feature'", 'cd sub; git rebase -x "git checkout s.txt" HEAD~0'])
      expect({ c, decision: (await gate.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, decision: "deny" });
  }, 60_000);

  it("asks the repository at most 8 different questions per line (200 probes took 38 s); the rest read as discards", async () => {
    const { w } = repos();
    let probes = 0;
    const gate = w.gate({
      trusted: true,
      gitCheckoutTarget: (dir, op) => {
        probes++;
        return nodeGitCheckoutTarget(dir, op);
      },
    });
    const same = Array.from({ length: 200 }, () => "git checkout main").join("; ");
    expect((await gate.check(bash(same), "bypassPermissions")).decision).toBe("allow");
    expect(probes).toBe(1);
    probes = 0;
    const many = Array.from({ length: 200 }, (_, i) => `git checkout n${i}`).join("; ");
    expect((await gate.check(bash(many), "bypassPermissions")).decision).toBe("deny");
    expect(probes).toBeLessThanOrEqual(8);
  }, 60_000);

  it("control: with plain git each bypass form really throws the work away (and a switch keeps it)", () => {
    const lost = (c: string, file: (r: ReturnType<typeof repos>) => string) => {
      const r = repos();
      try {
        execFileSync("bash", ["-c", c], { cwd: r.w.ws, stdio: "ignore", env: { ...process.env, GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "user.name", GIT_CONFIG_VALUE_0: "t" } });
      } catch {
        /* yes exits on SIGPIPE */
      }
      return readFileSync(file(r), "utf8") !== "the user's work\n";
    };
    const inOther = (r: ReturnType<typeof repos>) => join(r.other, "feature");
    const here = (r: ReturnType<typeof repos>) => join(r.w.ws, "a.txt");
    expect(lost('D=../other; cd "$D"; git checkout feature', inOther)).toBe(true);
    expect(lost("find ../other -maxdepth 1 -name feature -execdir git checkout feature ';'", inOther)).toBe(true);
    expect(lost("echo a.txt | xargs git checkout", here)).toBe(true);
    expect(lost("find . -maxdepth 1 -name a.txt -exec git checkout {} ';'", here)).toBe(true);
    expect(lost("yes | git checkout -p", here)).toBe(true);
    expect(lost("yes | git restore -p", here)).toBe(true);
    expect(lost("git checkout feature", here)).toBe(false);
  }, 120_000);
});
