/**
 * Issue 18: `git checkout X` with one operand and no `--` under a rule on `git reset`
 * (src/core/permissions/evaluate-bash.ts checkoutDiscards, src/node/git-checkout-target.ts), and
 * the operations' `--abort`/`--skip` (shell/git-discard.ts). git decides at run time whether X is a
 * branch (it keeps the work) or a path (it throws that path's changes away): the gate reads it as a
 * discard unless the repository shows, read-only, that it cannot be one. Real git repositories, the
 * real gate and its Node port; docs/permissions.md has the table.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

const bash = (command: string) => call("run_command", { command });

function repo(list: "deny" | "ask", rule = "Bash(git reset:*)") {
  const w = createPermissionWorkspace({ permissions: { [list]: [rule] } });
  w.write("a.txt", "committed\n");
  w.write("both", "a file and a branch\n");
  w.write("lib/x.ts", "x\n");
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd: w.ws, encoding: "utf8" }).trim();
  git("init", "-q");
  git("add", "a.txt", "both", "lib");
  git("commit", "-q", "-m", "init");
  git("branch", "feature");
  git("branch", "both");
  git("tag", "v1");
  w.write("a.txt", "the user's work\n");
  return { w, git, gate: w.gate({ trusted: true }) };
}

/** Read as a discard: each throws away (or, at run time, may throw away) uncommitted work. */
const DISCARDS = [
  "git checkout a.txt",
  "git checkout lib",
  "git checkout ./a.txt",
  "cd lib && git checkout x.ts",
  "git checkout -q a.txt",
  'git checkout "$F"',
  "git checkout $(echo a.txt)",
  // A git pointed elsewhere: the repository the gate reads is not the one git uses.
  "git -C . checkout feature",
  "GIT_DIR=.git git checkout feature",
  "export GIT_WORK_TREE=.; git checkout feature",
  // A name both a branch and a tracked file, after a part of the line that may change the refs first.
  "git branch -D both; git checkout both",
  // Ending an operation in progress (checked with real git below).
  "git merge --abort",
  "git rebase --abort",
  "git rebase --skip",
  "git cherry-pick --abort",
  "git revert --abort",
  "git cherry-pick --skip",
  "git revert --skip",
  "git am --abort",
  "git am --skip",
];

/** Not a discard: X names a commit (git switches and keeps the work), or matches no tracked file. */
const KEEPS = [
  "git checkout feature",
  "git checkout v1",
  "git checkout HEAD~0",
  "git checkout main",
  "git checkout both",
  "git checkout no-such-thing",
  "git checkout -b topic",
  "git checkout -b topic feature",
  "git checkout --detach feature",
  "git branch topic && git checkout topic",
  "git merge --quit",
  "git rebase --quit",
  "git merge --continue",
  "git cherry-pick --quit",
];

describe("git checkout X (one operand) and --abort under a git reset rule", () => {
  it("deny Bash(git reset:*): the discarding forms are denied, the switching forms run", async () => {
    const { gate } = repo("deny");
    for (const c of DISCARDS) {
      const d = await gate.check(bash(c), "bypassPermissions");
      expect({ c, decision: d.decision, why: d.decision === "deny" ? /git reset:\*/.test(d.reason ?? "") : undefined }).toEqual({ c, decision: "deny", why: true });
    }
    for (const c of KEEPS) expect({ c, decision: (await gate.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, decision: "allow" });
  });

  it("ask Bash(git reset --hard:*) asks for the same forms; Bash(git reset --soft:*) covers none", async () => {
    const ask = repo("ask", "Bash(git reset --hard:*)").gate;
    for (const c of ["git checkout a.txt", "git merge --abort", "git rebase --abort"])
      expect({ c, decision: (await ask.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, decision: "ask" });
    expect((await ask.check(bash("git checkout feature"), "bypassPermissions")).decision).toBe("allow");
    const soft = repo("deny", "Bash(git reset --soft:*)").gate;
    for (const c of ["git checkout a.txt", "git merge --abort"]) expect({ c, decision: (await soft.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, decision: "allow" });
  });

  it("the reading follows the repository: outside a repository, a branch made later with a tracked file's name", async () => {
    const { w, git, gate } = repo("deny");
    expect((await gate.check(bash("git checkout a.txt"), "bypassPermissions")).decision).toBe("deny");
    // Outside any repository git checkout fails whatever X is.
    const plain = createPermissionWorkspace({ permissions: { deny: ["Bash(git reset:*)"] } }).gate({ trusted: true });
    expect((await plain.check(bash("git checkout a.txt"), "bypassPermissions")).decision).toBe("allow");
    // A tracked file named like a ref only later: `git branch a.txt` makes it both; the branch wins in git.
    git("branch", "a.txt");
    const d = await w.gate({ trusted: true }).check(bash("git checkout a.txt"), "bypassPermissions");
    expect(d.decision).toBe("allow");
    // And git agrees: it switched, the work stays.
    git("checkout", "-q", "a.txt");
    expect(readFileSync(join(w.ws, "a.txt"), "utf8")).toBe("the user's work\n");
  });

  it("control: each DISCARDS path form really throws the work away in plain git, each KEEPS branch form keeps it", () => {
    for (const c of ["git checkout a.txt", "git checkout ./a.txt", "git checkout lib"]) {
      const { w } = repo("deny");
      w.write("lib/x.ts", "lib work\n");
      execFileSync("bash", ["-c", c], { cwd: w.ws, stdio: "ignore" });
      expect({ c, a: readFileSync(join(w.ws, "a.txt"), "utf8"), x: readFileSync(join(w.ws, "lib/x.ts"), "utf8") }).not.toEqual({ c, a: "the user's work\n", x: "lib work\n" });
    }
    for (const c of ["git checkout feature", "git checkout both", "git checkout v1"]) {
      const { w } = repo("deny");
      execFileSync("bash", ["-c", c], { cwd: w.ws, stdio: "ignore" });
      expect({ c, a: readFileSync(join(w.ws, "a.txt"), "utf8") }).toEqual({ c, a: "the user's work\n" });
    }
  });
});

/** A conflict in progress with the user's resolution typed into the conflicted file and an unrelated edit. */
function conflict(op: "merge" | "rebase" | "cherry-pick" | "revert" | "am") {
  const { w, git } = repo("deny");
  git("checkout", "-q", "--", "a.txt");
  const commitA = (text: string, msg: string) => {
    w.write("a.txt", text);
    git("commit", "-q", "-am", msg);
  };
  git("checkout", "-q", "-b", "side");
  commitA("side\n", "side");
  git("checkout", "-q", "main");
  commitA("main\n", "main");
  const run = (...args: string[]) => {
    try {
      git(...args);
    } catch {
      /* the conflict stops it */
    }
  };
  if (op === "merge") run("merge", "side");
  if (op === "rebase") {
    git("checkout", "-q", "side");
    run("rebase", "main");
  }
  if (op === "cherry-pick") run("cherry-pick", "side");
  if (op === "revert") {
    commitA("later\n", "later");
    run("revert", "--no-edit", "HEAD~1");
  }
  if (op === "am") {
    const patch = git("format-patch", "-1", "side", "--stdout");
    w.write("../side.patch", `${patch}\n`);
    run("am", "-3", "../side.patch");
  }
  w.write("a.txt", "the user's resolution\n");
  w.write("lib/x.ts", "unrelated edit\n");
  return w;
}

describe("what each --abort/--skip throws away (real git 2.x): the table in docs/permissions.md", () => {
  const lost = (op: "merge" | "rebase" | "cherry-pick" | "revert" | "am", how: string) => {
    const w = conflict(op);
    execFileSync("bash", ["-c", `git -c user.name=t -c user.email=t@example.com ${op} ${how}`], { cwd: w.ws, stdio: "ignore" });
    return { resolution: readFileSync(join(w.ws, "a.txt"), "utf8") !== "the user's resolution\n", unrelated: readFileSync(join(w.ws, "lib/x.ts"), "utf8") !== "unrelated edit\n" };
  };
  it("rebase --abort and --skip throw away the resolution and unrelated edits; merge --abort and cherry-pick/revert/am --abort and --skip the resolution", () => {
    expect(lost("rebase", "--abort")).toEqual({ resolution: true, unrelated: true });
    expect(lost("rebase", "--skip")).toEqual({ resolution: true, unrelated: true });
    expect(lost("merge", "--abort")).toEqual({ resolution: true, unrelated: false });
    expect(lost("cherry-pick", "--abort")).toEqual({ resolution: true, unrelated: false });
    expect(lost("revert", "--abort")).toEqual({ resolution: true, unrelated: false });
    expect(lost("am", "--abort")).toEqual({ resolution: true, unrelated: false });
    expect(lost("am", "--skip")).toEqual({ resolution: true, unrelated: false });
    expect(lost("cherry-pick", "--skip")).toEqual({ resolution: true, unrelated: false });
    expect(lost("revert", "--skip")).toEqual({ resolution: true, unrelated: false });
  }, 180_000);
  it("merge --quit, rebase --quit and cherry-pick --quit keep both", () => {
    expect(lost("merge", "--quit")).toEqual({ resolution: false, unrelated: false });
    expect(lost("rebase", "--quit")).toEqual({ resolution: false, unrelated: false });
    expect(lost("cherry-pick", "--quit")).toEqual({ resolution: false, unrelated: false });
  }, 120_000);
});
