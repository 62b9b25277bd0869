/**
 * Ordinary work stays allowed (issue 18: "0 over-blocked ordinary commands"). Every case of
 * test/fixtures/permissions-ordinary.json — commands as real projects' READMEs, CI files and
 * package.json scripts write them — runs through the gate in a real workspace (a git repository
 * with the files they name) under two rule sets (none; common user rules with an any-depth
 * `Read(**\/.env)` deny and a `Bash(rm -rf:*)` deny) and the four modes, and must get exactly the
 * decision docs/permissions.md promises for its kind. The same commands run in real bash under the
 * differential checker (src/bench/diffcheck, `--corpora`), which proves what the gate says they do.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PermissionMode } from "../../../src/core/loop/types";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { nodeNpmConfig } from "../../../src/node/npm-config";
import { nodeListDir, nodeRealPath } from "../../../src/node/settings-files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";
import { nodeGitObjectPaths } from "../../../src/node/git-object-paths";

type Decision = "allow" | "ask" | "deny";
type Kind = "read" | "edit" | "run" | "hidden";
interface OrdinaryCase {
  id: string;
  category: string;
  tool: "Bash";
  input: { command: string };
  kind: Kind;
  /** The decision under "user rules" where a rule decides (else the kind's). */
  user?: "allow" | "ask" | "deny";
}
interface Fixture {
  workspace: { files: string[]; gitignored: string[] };
  ruleSets: Record<string, { allow?: string[]; deny?: string[] }>;
  cases: OrdinaryCase[];
}

const fixture = JSON.parse(readFileSync(join(__dirname, "../../fixtures/permissions-ordinary.json"), "utf8")) as Fixture;
const MODES: PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions"];

const BY_KIND: Record<Kind, Record<string, Decision>> = {
  read: { default: "allow", acceptEdits: "allow", plan: "allow", bypassPermissions: "allow" },
  edit: { default: "ask", acceptEdits: "allow", plan: "deny", bypassPermissions: "allow" },
  run: { default: "ask", acceptEdits: "ask", plan: "deny", bypassPermissions: "allow" },
  hidden: { default: "ask", acceptEdits: "ask", plan: "deny", bypassPermissions: "allow" },
};

/** What docs/permissions.md promises for this case in this rule set and mode. */
export function expected(c: OrdinaryCase, ruleSet: string, mode: PermissionMode): Decision {
  const rules = fixture.ruleSets[ruleSet]!;
  if (ruleSet !== "no rules" && c.user) {
    if (c.user === "deny") return "deny";
    // A deny rule might cover what it reads or writes: it asks, naming the rule, in every mode.
    if (c.user === "ask") return "ask";
    return mode === "plan" && c.kind !== "read" ? "deny" : "allow";
  }
  // Hidden code asks in bypassPermissions where a deny rule could apply (docs: "Code Yoke cannot see").
  if (c.kind === "hidden" && mode === "bypassPermissions" && (rules.deny ?? []).length) return "ask";
  return BY_KIND[c.kind][mode]!;
}

const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-ordinary-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const ws = join(root, "ws");
for (const f of fixture.workspace.files) {
  mkdirSync(dirname(join(ws, f)), { recursive: true });
  writeFileSync(join(ws, f), f.endsWith(".json") ? "{}\n" : `${f}\n`);
}
writeFileSync(join(ws, ".gitignore"), fixture.workspace.gitignored.join("\n") + "\n");
const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd: ws, stdio: "ignore" });
git("init", "-q");
git("add", "-A");
git("commit", "-q", "-m", "init");

const gates = Object.fromEntries(
  Object.entries(fixture.ruleSets).map(([name, permissions]) => [
    name,
    createPermissionGate({
      cwd: ws,
      home: join(root, "home"),
      realPath: nodeRealPath,
      listDir: nodeListDir,
      gitObjectPaths: nodeGitObjectPaths,
      // npm's configuration as the CLI reads it (an empty environment: no $EDITOR of the person running the tests).
      npmConfig: nodeNpmConfig({}),
      loadSources: async () => [{ info: { kind: "extra", label: `ordinary: ${name}`, baseDir: ws }, value: { permissions } }],
      shellWasm: () => loadShellWasm(),
    }),
  ]),
);

describe("ordinary developer commands (test/fixtures/permissions-ordinary.json)", () => {
  it("holds at least 400 commands with unique ids, in every kind", () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(400);
    expect(new Set(fixture.cases.map((c) => c.id)).size).toBe(fixture.cases.length);
    for (const k of Object.keys(BY_KIND))
      expect(
        fixture.cases.some((c) => c.kind === k),
        k,
      ).toBe(true);
  });

  it("gets the decision the docs promise in every rule set and mode (0 over-blocked, 0 under-blocked)", { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    const byCategory = new Map<string, { total: number; ok: number }>();
    for (const c of fixture.cases) {
      let ok = true;
      const checks = Object.entries(gates).flatMap(([name, gate]) =>
        MODES.map(async (mode) => ({ name, mode, got: await gate.check({ tool: "run_command", permission: "Bash", input: c.input, mutates: true }, mode) })),
      );
      for (const { name, mode, got } of await Promise.all(checks)) {
        const want = expected(c, name, mode);
        if (got.decision !== want) {
          ok = false;
          failures.push(`${c.id} [${c.kind}] ${JSON.stringify(c.input.command)} — ${name} / ${mode}: expected ${want}, got ${got.decision}: ${got.reason}`);
        }
      }
      const stat = byCategory.get(c.category) ?? { total: 0, ok: 0 };
      stat.total++;
      if (ok) stat.ok++;
      byCategory.set(c.category, stat);
    }
    const summary = [...byCategory].map(([k, v]) => `${k}: ${v.ok}/${v.total}`).join("\n");
    expect(failures, `${summary}\n\n${failures.join("\n")}`).toEqual([]);
  });
});

/**
 * The fixes that made the corpus pass allow exactly the ordinary form: the attack forms next to
 * each still ask or are denied (and one was a bypass the corpus found: curl's bundled `-sLo F`
 * and `-sLO` wrote a protected file unseen).
 */
describe("the forms next to the ordinary ones still ask", () => {
  const cases: Array<[string, string, PermissionMode, Decision]> = [
    // curl/wget: bundled short options name their files; a file the URL names is checked.
    ["curl -sLo .git/config https://example.com/config", "no rules", "bypassPermissions", "ask"],
    ["curl -fsSLo .vscode/tasks.json https://example.com/t", "no rules", "bypassPermissions", "ask"],
    ["cd .git && curl -sLO https://example.com/config", "no rules", "bypassPermissions", "ask"],
    ["cd .git/hooks && curl -LO https://example.com/pre-commit", "no rules", "bypassPermissions", "ask"],
    ["curl -LJO https://example.com/download", "no rules", "bypassPermissions", "ask"],
    ["curl -O https://example.com/a?name=config", "no rules", "bypassPermissions", "ask"],
    ["cd .git && wget https://example.com/config", "no rules", "bypassPermissions", "ask"],
    ["cd .git && wget -q https://example.com/config", "no rules", "bypassPermissions", "ask"],
    ["wget -qO .git/config https://example.com/x", "no rules", "bypassPermissions", "ask"],
    ["wget -r https://example.com/", "no rules", "bypassPermissions", "ask"],
    ["wget --content-disposition https://example.com/get", "no rules", "bypassPermissions", "ask"],
    ["wget https://example.com/.env", "user rules", "bypassPermissions", "deny"],
    ["curl -LO https://example.com/.env", "user rules", "bypassPermissions", "deny"],
    // sed -e: the script is not a file, the files still are.
    ["sed -i -e '/x/d' /etc/hosts", "no rules", "acceptEdits", "ask"],
    ["sed -i -e 's/a/b/' .git/config", "no rules", "bypassPermissions", "ask"],
    ["sed -i -e 's/a/b/' .env", "user rules", "bypassPermissions", "deny"],
    ["sed -i -e '1e touch x' README.md", "no rules", "acceptEdits", "ask"],
    // tee in acceptEdits: workspace files only.
    ["tee /tmp/x < README.md", "no rules", "acceptEdits", "ask"],
    ["tee .git/hooks/pre-commit < README.md", "no rules", "bypassPermissions", "ask"],
    ["tee .env < README.md", "user rules", "acceptEdits", "deny"],
    // `.` with a file still runs it; node --test with code on the command line still runs it.
    ["cat scripts/build.sh | npx eslint . /dev/stdin", "user rules", "bypassPermissions", "ask"],
    ['node --test -e \'require("fs").rmSync("src",{recursive:true})\'', "user rules", "bypassPermissions", "ask"],
    ["node --test", "no rules", "default", "ask"],
    // git tag lists only; git show rev:path prints that path only.
    ["git tag v1.2.0", "no rules", "default", "ask"],
    ["git tag -l v1 -d", "no rules", "default", "ask"],
    ["git tag -d v1.2.0", "no rules", "plan", "deny"],
    ["git tag --list v1 --delete", "no rules", "default", "ask"],
    ["git show HEAD:.env", "user rules", "default", "deny"],
    ["git show HEAD:src/.env", "user rules", "bypassPermissions", "deny"],
    ["git cat-file -p HEAD:.env", "user rules", "default", "deny"],
    ["git show HEAD:README.md HEAD", "user rules", "default", "ask"],
    ["git show HEAD:README.md --ext-diff", "no rules", "default", "ask"],
    ["git cat-file --batch < data/names.txt", "user rules", "default", "ask"],
    // git stash: push/drop write nothing elsewhere; pop/apply still count as reads of the history.
    ["git stash pop", "user rules", "bypassPermissions", "ask"],
    ["git stash branch tmp", "user rules", "bypassPermissions", "ask"],
    ["git stash show -p", "user rules", "default", "ask"],
    // Recursive removes, copies and moves: the paths below an existing folder are listed (config/
    // holds a .env); past MAX_TREE entries, or when an earlier part changes files, anything below.
    ["rm -r config", "user rules", "bypassPermissions", "deny"],
    ["cp -r config config2", "user rules", "bypassPermissions", "deny"],
    ["cp -r config docs", "user rules", "acceptEdits", "deny"],
    ["mv config cfg", "user rules", "bypassPermissions", "deny"],
    ["chmod -R u+w config", "user rules", "bypassPermissions", "deny"],
    ["ln -s config cfglink && rm -r cfglink", "user rules", "bypassPermissions", "ask"],
    ["mkdir -p x && cp -r src/utils x", "user rules", "bypassPermissions", "ask"],
    ["cp -r src/utils .vscode", "no rules", "bypassPermissions", "ask"],
    ["rm -r .git", "no rules", "bypassPermissions", "ask"],
    ["mv src/utils .claude", "no rules", "bypassPermissions", "ask"],
    // read: names bash evaluates or that change what runs still ask.
    ["read -r 'a[$(touch hit)]' < data/names.txt", "no rules", "default", "ask"],
    ["read -r PATH < data/names.txt; ls", "no rules", "default", "ask"],
    ["read -r line < .env", "user rules", "default", "deny"],
    ["read -r line < /etc/passwd", "no rules", "default", "ask"],
    // Red team U (session 20): a pager set to `cat` or to nothing, and the quiet variables (CI, NODE_ENV…),
    // leave a read-only command read-only; any other pager value, an append, a run-time value, a bare
    // export of a pager set earlier, another wrapper's value still ask.
    ["GIT_PAGER='sh -c \"touch hit\"' git log", "no rules", "default", "ask"],
    ['GIT_PAGER="cat; touch hit" git log', "no rules", "default", "ask"],
    ["GIT_PAGER=cat\\ x git log", "no rules", "default", "ask"],
    ["GIT_PAGER+=cat git log", "no rules", "default", "ask"],
    ["GIT_PAGER=$X git log", "no rules", "default", "ask"],
    ["GIT_PAGER=cat; GIT_PAGER='touch hit'; git log", "no rules", "default", "ask"],
    ["export GIT_PAGER=cat; GIT_PAGER+=' x'; git log", "no rules", "default", "ask"],
    ["export GIT_PAGER+=cat; git log", "no rules", "default", "ask"],
    ["GIT_PAGER=cat; export GIT_PAGER; git log", "no rules", "default", "ask"],
    ["declare -n p=GIT_PAGER; p='touch hit'; git log", "no rules", "default", "ask"],
    ["read -r GIT_PAGER < data/names.txt; export GIT_PAGER; git log", "no rules", "default", "ask"],
    ["env GIT_PAGER='touch hit' git log", "no rules", "default", "ask"],
    ["GIT_PAGER=cat git -c core.pager='touch hit' log", "no rules", "default", "ask"],
    ["PAGER=less git log", "no rules", "default", "ask"],
    ["GIT_EDITOR=cat git log", "no rules", "default", "ask"],
    ["MANPAGER=cat man ls", "no rules", "default", "ask"],
    ["GIT_PAGER=cat git log", "no rules", "plan", "allow"],
    ["CI=$(touch hit) git status", "no rules", "default", "ask"],
    ["CI=$(rm -rf src) git status", "user rules", "bypassPermissions", "deny"],
    ["NODE_ENV=test cat .env", "user rules", "bypassPermissions", "deny"],
    ["export CI=1; cat config/.env", "user rules", "default", "deny"],
    ["export SOME_VAR=1; ls", "no rules", "default", "ask"],
    ["export BASH_ENV=./scripts/build.sh; echo hi", "no rules", "default", "ask"],
    ["BASH_ENV=./scripts/build.sh env echo hi", "no rules", "default", "ask"],
    ["export SOME_VAR=1; echo hi | xargs cat", "no rules", "default", "ask"],
    ["echo() { touch hit; }; export X=1; echo hi", "no rules", "default", "ask"],
    // set: only the options that stop, trace or refuse to overwrite; globs are still expanded and checked.
    ["set -euo pipefail; cat .e*", "user rules", "default", "deny"],
    ["set -a; GIT_PAGER='touch hit'; git log", "no rules", "default", "ask"],
    ["set -eo allexport; X=1; ls", "no rules", "default", "ask"],
    ["set -f; ls", "no rules", "default", "ask"],
    ["set -eo noglob; cat .e*", "user rules", "bypassPermissions", "ask"],
    ["set -o posix; ls", "no rules", "default", "ask"],
    ['set -- src/a.ts; cat "$@"', "no rules", "default", "ask"],
    ["set -k; ls", "no rules", "default", "ask"],
    ["set -o keyword; ls", "no rules", "default", "ask"],
    ["set -B; ls", "no rules", "default", "ask"],
    ["set; ls", "no rules", "default", "ask"],
    ["set -o $OPT; ls", "no rules", "default", "ask"],
    ["set -euo pipefail; rm -rf src", "user rules", "bypassPermissions", "deny"],
    ["set -euo pipefail; npm run test", "user rules", "plan", "deny"],
    // git worktree: only list; git --version: only alone.
    // Why `mkdir -p out && cp data/*.json out/` still asks in acceptEdits: the same shape reaches a protected folder.
    ["mkdir -p .vscode && cp README.md .vsc*/tasks.json", "no rules", "acceptEdits", "ask"],
    ["mkdir -p .vscode && cp README.md .vsc*/tasks.json", "no rules", "bypassPermissions", "ask"],
    ["git worktree add ../x", "no rules", "default", "ask"],
    ["git worktree prune", "no rules", "default", "ask"],
    ["git worktree remove ../x", "no rules", "plan", "deny"],
    ["git worktree list --expire=now", "no rules", "default", "ask"],
    ["git worktree lock ../x", "no rules", "default", "ask"],
    ["git --version --exec-path=/tmp", "no rules", "default", "ask"],
    ["git --exec-path=/tmp --version", "no rules", "default", "ask"],
  ];
  it.each(cases)("%s (%s, %s): %s", async (command, ruleSet, mode, want) => {
    const got = await gates[ruleSet]!.check({ tool: "run_command", permission: "Bash", input: { command }, mutates: true }, mode);
    expect(got.decision, got.reason).toBe(want);
  });
});
