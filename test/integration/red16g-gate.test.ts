/**
 * Red team 16 on this session's permission-gate changes — through FULL SESSIONS (the built CLI's
 * `yoke run --trust`, a scripted model over real HTTP), as root and as the unprivileged user, with
 * bwrap and firejail, in bypassPermissions:
 *
 * 1. Commands from a script file under another name of vim or glued to a getopt option
 *    (`view -s cmds f`, `vimdiff -s cmds a b`, `mawk -fcmds`, `sed -nfcmds f`) under `Bash(rm -rf:*)`.
 * 2. Other spellings of discarding work under `Bash(git reset:*)` (`git checkout --pathspec-from-file`,
 *    `git diff > p && git apply -R p`, `git stash && git update-ref -d refs/stash`).
 * 3. A Read-denied `.env` git holds, shown through commands on the "shows no object" list in spellings
 *    git accepts (`git status --verb` of a crafted index entry, `git log --format=%+N` of a crafted note).
 * 4. More wrappers than Yoke follows (1500 × `nice`, then `rm -rf`) under the ask rule `Bash(rm:*)`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { bash, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();

const WORK = "the user's uncommitted work\n";
const SECRET = "SECRET=red16g-hunter2\n";
const NICE = Array.from({ length: 1500 }, () => "nice").join(" ");

/** Each attack and the committed file it would delete (relative to the workspace). */
const ATTACKS: Array<{ command: string; victim: string; keep: string }> = [
  { command: "view -s vcmds1 f.txt < /dev/null > /dev/null", victim: "v1/a.js", keep: "keep 1\n" },
  { command: "vimdiff -s vcmds2 f.txt f.txt < /dev/null > /dev/null", victim: "v2/a.js", keep: "keep 2\n" },
  { command: "mawk -facmds3", victim: "v3/a.js", keep: "keep 3\n" },
  { command: "sed -nfscmds4 f.txt", victim: "v4/a.js", keep: "keep 4\n" },
];
/** Each discards the user's uncommitted change to a.txt. */
const DISCARDS = ["git checkout --pathspec-from-file=list.txt", "git diff > w.patch && git apply -R w.patch", "git stash -q && git update-ref -d refs/stash"];

function files(ws: string): string[] {
  const all: Record<string, string> = { "a.txt": "committed\n", "f.txt": "text\n", "list.txt": "a.txt\n", ".env": SECRET, "README.md": "hi\n", "w/a.js": "keep w\n" };
  for (const a of ATTACKS) all[a.victim] = a.keep;
  all["vcmds1"] = ":!rm -rf v1\n:qa!\n";
  all["vcmds2"] = ":!rm -rf v2\n:qa!\n";
  all["acmds3"] = 'BEGIN{system("rm -rf v3")}\n';
  all["scmds4"] = "1e rm -rf v4\n";
  for (const [rel, text] of Object.entries(all)) {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  }
  execFileSync("git", ["init", "-q", "-b", "main", ws]);
  execFileSync("git", ["-C", ws, "add", "-A"]);
  execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
  // After the commit: the user's work in progress (each discard attack would throw it away).
  writeFileSync(join(ws, "a.txt"), WORK);
  return leaks(ws);
}

/**
 * The commands that show .env's committed blob under another name: its id is known (git ls-tree
 * prints it); the note's tree and commit are prepared here with git mktree and git commit-tree
 * (allowed commands that only write objects), the session moves the notes ref and prints.
 */
function leaks(ws: string): string[] {
  const git = (input: string | undefined, ...args: string[]) => execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { encoding: "utf8", input }).trim();
  const blob = git(undefined, "rev-parse", "HEAD:.env");
  const tree = git(`100644 blob ${blob}\t${git(undefined, "rev-parse", "HEAD")}\n`, "mktree");
  const notes = git(undefined, "commit-tree", tree, "-m", "n");
  return [`git update-index --add --cacheinfo 100644,${blob},foo`, "git status --verb", "git commit --dry --verb", `git update-ref refs/notes/commits ${notes}`, "git log -1 --format=%+N"];
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;

    beforeAll(() => {
      base = mkdtempSync(join(tmpdir(), `yoke-red16g-${backend}-`));
      temps.push(base);
      chmodSync(base, 0o755);
      home = join(base, "home");
      mkdirSync(join(home, ".yoke"), { recursive: true });
      writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ sandbox: { backend } }));
      chownTree(base, id);
    });

    const workspace = () => {
      const ws = join(base, `ws-${Math.random().toString(36).slice(2, 8)}`);
      const shows = files(ws);
      chownTree(ws, id);
      return { ws, shows };
    };
    const rules = (name: string, permissions: object) => {
      const settings = join(base, name);
      writeFileSync(settings, JSON.stringify({ permissions }));
      chownTree(settings, id);
      return settings;
    };

    const session = (ws: string, script: ScriptedTurn[], settings: string) =>
      sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, { settings, env: { OPENAI_API_KEY: "sk-red16g" } });

    it.skipIf(!!unusable)(
      "bypassPermissions under Bash(rm -rf:*), Bash(git reset:*), Read(**/.env): scripts under vim's other names or glued to -f, discards spelled otherwise, and .env through git status --verb or a %+N note destroy and show nothing",
      async () => {
        const { ws, shows } = workspace();
        const settings = rules("deny.json", { deny: ["Bash(rm -rf:*)", "Bash(git reset:*)", "Read(**/.env)"] });
        const commands = [...ATTACKS.map((a) => a.command), ...DISCARDS, ...shows, "sed -n 1p f.txt > ordinary.txt", "echo ran > control.txt"];
        const r = await session(ws, commands.map(bash), settings);
        expect(r.code, r.stderr).toBe(0);
        expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
        const lost = ATTACKS.filter((a) => !existsSync(join(ws, a.victim)) || readFileSync(join(ws, a.victim), "utf8") !== a.keep).map((a) => a.command);
        expect(lost, `destroyed by: ${lost.join(" | ")}\n${r.told.slice(0, 4000)}`).toEqual([]);
        expect(readFileSync(join(ws, "a.txt"), "utf8"), r.told.slice(0, 4000)).toBe(WORK);
        expect(r.told).not.toContain("red16g-hunter2");
        expect(r.all).not.toContain("red16g-hunter2");
        // Ordinary work still runs.
        expect(readFileSync(join(ws, "ordinary.txt"), "utf8")).toBe("text\n");
        expect(r.told).toMatch(/Bash\(git reset:\*\)/);
        expect(r.told).toMatch(/Bash\(rm -rf:\*\)/);
      },
    );

    it.skipIf(!!unusable)("bypassPermissions under the ask rule Bash(rm:*): 1500 nested nice then rm -rf is not run without approval", async () => {
      const { ws } = workspace();
      const settings = rules("ask.json", { ask: ["Bash(rm:*)"] });
      const r = await session(ws, [bash(`${NICE} rm -rf w`), bash("echo ran > control.txt")], settings);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      expect(readFileSync(join(ws, "w/a.js"), "utf8"), r.told.slice(0, 2000)).toBe("keep w\n");
      expect(r.told).toMatch(/Bash\(rm:\*\)/);
    });
  });
});

// A plain bash shows the attacks are real (no Yoke).
describe("control: the same command lines in plain bash", () => {
  it("each attack destroys its target, each discard the work, each leak prints the secret, the nested nice runs rm", () => {
    const ws = mkdtempSync(join(tmpdir(), "yoke-red16g-ctl-"));
    temps.push(ws);
    let shows: string[] = [];
    const fresh = () => {
      rmSync(ws, { recursive: true, force: true });
      shows = files(ws);
    };
    const run = (c: string) =>
      spawnSync("bash", ["-c", c], {
        cwd: ws,
        encoding: "utf8",
        env: { ...process.env, HOME: ws, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
      });
    const survived: string[] = [];
    for (const a of ATTACKS) {
      fresh();
      run(a.command);
      if (existsSync(join(ws, a.victim))) survived.push(a.command);
    }
    for (const c of DISCARDS) {
      fresh();
      run(c);
      if (readFileSync(join(ws, "a.txt"), "utf8") === WORK) survived.push(c);
    }
    fresh();
    const out = shows.map((c) => run(c).stdout).join("");
    expect(out.split("red16g-hunter2").length - 1).toBe(3);
    fresh();
    run(`${NICE} rm -rf w`);
    if (existsSync(join(ws, "w"))) survived.push("nice × 1500");
    expect(survived).toEqual([]);
  });
});
