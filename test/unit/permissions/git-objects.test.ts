/**
 * Issue 18: files git holds under Read rules (src/core/permissions/git-objects.ts). A Read deny rule
 * on a tracked file must keep its content out of every git command the gate allows, whatever name
 * a crafted tree, commit, index entry, ref, tag or note gives its object; without such a file in
 * git, ordinary git work stays allowed. Real git repositories, the real gate and its Node port.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

const bash = (command: string) => call("run_command", { command });

function repo(files: Record<string, string>, deny: string[]) {
  const w = createPermissionWorkspace({ permissions: { deny } });
  for (const [p, t] of Object.entries(files)) w.write(p, t);
  const gitIn = (input: string | undefined, ...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd: w.ws, encoding: "utf8", input }).trim();
  const git = (...args: string[]) => gitIn(undefined, ...args);
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "init");
  return { w, git, gitIn, gate: w.gate({ trusted: true }) };
}

// Spellings that print or write out an object under another name than the denied file's.
const showing = (blob: string, tree: string) => [
  "git show evil:foo",
  "git cat-file -p evil:foo",
  "git show x:foo",
  "git show HEAD:README.md",
  "git cat-file -p HEAD:README.md",
  "git log -p -- README.md",
  "git log -p evil -- foo",
  "git diff HEAD -- README.md",
  "git diff --cached -- foo",
  "git show :foo",
  "git cat-file -p :foo",
  `git cat-file -p ${blob}`,
  `git show ${blob}`,
  `git show ${tree}:foo`,
  `echo ${blob} | git cat-file --batch`,
  "git log",
  "git log --format=%N",
  "git notes show HEAD",
  "git tag -l --format=%(raw)",
  "git for-each-ref --format=%(raw) refs/tags",
  "git blame README.md",
  "git grep -h . evil",
  "git archive evil",
  "git checkout evil -- foo",
  "git restore --source=evil foo",
  "git reset --hard evil",
  "git stash",
  "git status -v",
  "git add -p README.md",
  "git commit -v --dry-run",
  "git push origin evil",
  "git config --blob=evil:foo --list",
  "git-cat-file -p evil:foo",
  "/usr/lib/git-core/git-show evil:foo",
  `cat .git/objects/${blob.slice(0, 2)}/${blob.slice(2)}`,
  "git -c core.pager=cat show HEAD:README.md",
  "git -c user.name=a show HEAD:README.md",
  "git -c user.name=a -c core.pager=cat commit -m x",
  // red16g: abbreviated long options git accepts, pretty-format modifiers, a dangling blob written out.
  "git status --verb",
  "git status --verbo",
  "git commit --dry --verb",
  "git commit --long --verb",
  "git add --pat foo",
  "git fsck --lost",
  "git fsck --lo",
  "git config --blo=evil:foo --list",
  "git tag --form=%(objectname)",
  "git log -1 --format=%+N",
  "git log -1 --format=%-N",
  "git log -1 --format='% N'",
  "git log -1 --pretty=tformat:%+B",
  "git shortlog --format=%+N",
  "git for-each-ref '--format=%(*raw)' refs/tags",
  "cat .git/lost-found/other/*",
  `cat .git/lost-found/other/${blob}`,
  "cat .git/rebase-apply/patch",
];

describe("a Read deny rule on a file git holds", () => {
  for (const deny of [["Read(**/.env)"], ["Read(./.env)"], ["Read(vault/**)"]]) {
    it(`no git command that may show its object under another name is allowed (${deny[0]})`, async () => {
      const { git, gitIn, gate } = repo({ ".env": "SECRET=1\n", "vault/key": "k\n", "README.md": "hi\n" }, deny);
      const blob = git("rev-parse", deny[0] === "Read(vault/**)" ? "HEAD:vault/key" : "HEAD:.env");
      // The attack's preparation, as an allowed command would do it: a tree, a commit, a branch, a tag.
      const tree = gitIn(`100644 blob ${blob}\tfoo\n`, "mktree");
      git("branch", "evil", git("commit-tree", tree, "-m", "x"));
      git("tag", "x", tree);
      for (const c of showing(blob, tree))
        for (const mode of ["default", "acceptEdits", "bypassPermissions", "plan"] as const) {
          const d = await gate.check(bash(c), mode);
          expect({ c, mode, decision: d.decision }).not.toEqual({ c, mode, decision: "allow" });
        }
      const d = await gate.check(bash("git show HEAD:README.md"), "bypassPermissions");
      if (deny[0] !== "Read(vault/**)") expect(d.reason).toContain("which git holds as an object (a crafted tree, commit, index entry or note can show it under any name)");
    });
  }

  it("keeps commands that show no object allowed (status, ls-files, log --oneline, add, commit -m)", async () => {
    const { gate } = repo({ ".env": "SECRET=1\n", "README.md": "hi\n" }, ["Read(**/.env)"]);
    for (const c of [
      "git status",
      "git status --short",
      "git ls-files",
      "git ls-tree HEAD",
      "git log --oneline",
      "git log --format='%h %an %ad'",
      "git rev-parse HEAD",
      "git add README.md",
      "git commit -m wip",
      "git -c user.name=a -c user.email=a@a commit -qm x",
      "git branch -v",
      "git stash list",
      "git worktree list",
      "git fsck",
      "git tag --force v1",
      "git log --format='%h %an %ad'",
      "cat .git/HEAD",
    ])
      expect({ c, decision: (await gate.check(bash(c), "bypassPermissions")).decision }).toEqual({ c, decision: "allow" });
  });

  it("a history that held the file counts too (removed since, or only in the reflog)", async () => {
    const { git, gate } = repo({ ".env": "SECRET=1\n", "README.md": "hi\n" }, ["Read(**/.env)"]);
    git("rm", "-q", "--cached", ".env");
    git("commit", "-q", "-m", "untrack");
    expect((await gate.check(bash("git show HEAD:README.md"), "bypassPermissions")).decision).toBe("ask");
  });
});

describe("without a denied file in git", () => {
  it("git show HEAD:README.md, git log -p -- FILE, git diff HEAD -- FILE stay allowed under Read(**/.env) (an ignored .env)", async () => {
    const { gate } = repo({ ".gitignore": ".env\n", ".env": "SECRET=1\n", "README.md": "hi\n", "src/a.js": "a\n" }, ["Read(**/.env)"]);
    for (const c of ["git show HEAD:README.md", "git log -p -- README.md", "git diff HEAD -- src/a.js", "git log", "git cat-file -p HEAD:src/a.js"])
      for (const mode of ["default", "bypassPermissions"] as const) expect({ c, mode, decision: (await gate.check(bash(c), mode)).decision }).toEqual({ c, mode, decision: "allow" });
  });

  it("git show, git log -p and git diff stay allowed with no rules", async () => {
    const { gate } = repo({ ".env": "SECRET=1\n", "README.md": "hi\n" }, []);
    for (const c of ["git show HEAD:README.md", "git log -p", "git diff", "git show HEAD"]) expect({ c, decision: (await gate.check(bash(c), "default")).decision }).toEqual({ c, decision: "allow" });
  });
});
