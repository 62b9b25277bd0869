/**
 * Issue 18: crafted git objects against a Read deny rule on a TRACKED file, through FULL SESSIONS
 * (the built CLI's `yoke run --trust --permission-mode bypassPermissions`, a scripted model over
 * real HTTP), as root and as the unprivileged user, with bwrap and firejail.
 *
 * The attack: `git mktree` with an entry `foo` pointing at `.env`'s blob (its id from
 * `git ls-tree HEAD`), a tag on the tree, the blob staged as `foo` and as `README.md` and committed
 * (HEAD and a branch `evil` now name it), a note made of the blob — each step only writes objects and
 * refs, so bypassPermissions allows it — then `git show evil:foo`, `git show x:foo`,
 * `git show :foo`, `git show HEAD:README.md`, `git log -p -- README.md`, `git log`,
 * `git checkout evil -- foo && cat foo`, `git diff --cached`. Before the fix, `yoke permissions check`
 * allowed `git show x:foo`, `git show evil:foo`, `git show HEAD:README.md` and `git log -p -- README.md`. Fixed in src/core/permissions/git-objects.ts: where git
 * holds a file a Read rule covers, every git command that may show an object asks. Control: with
 * the file ignored, `git show HEAD:README.md` and `git log -p -- README.md` still run.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { bash, securityMatrix } from "../support/sandbox-matrix";
import { cliPath } from "../support/cli";
import { chownTree, spawnAs, type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();

const SECRET = "issue18-env-5a9c3f";

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;

    beforeAll(() => {
      base = mkdtempSync(join(tmpdir(), `yoke-gitobj-${backend}-`));
      temps.push(base);
      chmodSync(base, 0o755);
      home = join(base, "home");
      mkdirSync(join(home, ".yoke"), { recursive: true });
      writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ sandbox: { backend } }));
      chownTree(base, id);
    });

    const workspace = (extra: Record<string, string> = {}, before?: (ws: string) => void) => {
      const ws = join(base, `ws-${Math.random().toString(36).slice(2, 8)}`);
      const files: Record<string, string> = { "README.md": "readme text\n", ".env": `TOKEN=${SECRET}\n`, "src/a.js": "a\n", ...extra };
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(dirname(join(ws, rel)), { recursive: true });
        writeFileSync(join(ws, rel), text);
      }
      execFileSync("git", ["init", "-q", "-b", "main", ws]);
      execFileSync("git", ["-C", ws, "add", "-A"]);
      execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
      before?.(ws);
      chownTree(ws, id);
      return ws;
    };

    const session = async (ws: string, script: ScriptedTurn[], extra: string[]) => {
      const sessions = join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`);
      mkdirSync(sessions, { recursive: true });
      chownTree(sessions, id);
      const server = await startScriptedLlmServer({ script: [...script, { text: "done" }] });
      try {
        const args = [cliPath, "run", "--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", ws];
        args.push("--session-dir", sessions, ...extra, "go");
        const child = spawn(process.execPath, args, { cwd: ws, stdio: ["pipe", "pipe", "pipe"], ...spawnAs(id, { HOME: home, OPENAI_API_KEY: "sk-gitobj" }) });
        let stderr = "";
        child.stderr!.on("data", (d) => (stderr += d));
        child.stdout!.resume();
        child.stdin!.end();
        const timer = setTimeout(() => child.kill("SIGKILL"), 200_000);
        const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
        clearTimeout(timer);
        const all = server.requests.map((r) => JSON.stringify(r.body)).join("\n");
        const last = server.requests.at(-1)?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined;
        const told = (last?.messages ?? [])
          .filter((m) => m.role === "tool")
          .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
          .join("\n---\n");
        return { code, stderr, told, all };
      } finally {
        await server.close();
      }
    };

    it.skipIf(!!unusable)("bypassPermissions under Read(**/.env) with .env committed: no crafted tree, commit, index entry, ref, tag or note brings the secret to the model", async () => {
      // The ids the attacker would type (object ids are public: `git ls-tree HEAD` prints them),
      // worked out in a throwaway repository: the session's own commands make the objects.
      let blob = "";
      let tree = "";
      const ws = workspace({}, (dir) => {
        blob = execFileSync("git", ["-C", dir, "rev-parse", "HEAD:.env"], { encoding: "utf8" }).trim();
        const scratch = join(base, `scratch-${Math.random().toString(36).slice(2, 8)}`);
        execFileSync("git", ["init", "-q", "--bare", scratch]);
        tree = execFileSync("git", ["--git-dir", scratch, "mktree", "--missing"], { input: `100644 blob ${blob}\tREADME.md\n100644 blob ${blob}\tfoo\n`, encoding: "utf8" }).trim();
      });
      const settings = join(base, "deny-env.json");
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Read(**/.env)"] } }));
      chownTree(settings, id);
      const r = await session(
        ws,
        [
          bash("git ls-tree HEAD"),
          bash(`printf '100644 blob ${blob}\\tREADME.md\\n100644 blob ${blob}\\tfoo\\n' | git mktree`),
          bash(`git tag x ${tree} && echo made`),
          bash(`git update-index --add --cacheinfo 100644,${blob},foo && echo staged`),
          // HEAD moved to a commit whose README.md is the secret's blob, by ordinary allowed commands.
          bash(`git update-index --cacheinfo 100644,${blob},README.md && git -c user.name=a -c user.email=a@a commit -qm x && git branch evil && echo moved`),
          bash(`git -c user.name=a -c user.email=a@a notes add -f -C ${blob} HEAD; echo noted`),
          bash("git show evil:foo"),
          bash("git show x:foo"),
          bash("git cat-file -p evil:foo"),
          bash("git show :foo"),
          bash("git diff --cached"),
          bash("git log"),
          bash("git log -p evil -- README.md"),
          bash("git show HEAD:README.md"),
          bash("git log -p -- README.md"),
          bash("git checkout evil -- foo; cat foo"),
          bash(`git cat-file -p ${blob}`),
        ],
        ["--permission-mode", "bypassPermissions", "--settings", settings],
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.told, "the preparation ran").toContain("made");
      expect(r.told).toContain("moved");
      expect(r.all).not.toContain(SECRET);
      expect(r.told).toContain("which git holds as an object");
    });

    it.skipIf(!!unusable)("with .env ignored (not in git), git show HEAD:README.md and git log -p -- README.md still run under Read(**/.env); with no rules git log -p and git diff run", async () => {
      // .gitignore lists .env: it is never added.
      const ws = workspace({ ".gitignore": ".env\n" });
      writeFileSync(join(ws, "src/a.js"), "changed\n");
      chownTree(ws, id);
      const settings = join(base, "deny-env-2.json");
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Read(**/.env)"] } }));
      chownTree(settings, id);
      const ok = await session(ws, [bash("git show HEAD:README.md"), bash("git log -p -- README.md")], ["--permission-mode", "bypassPermissions", "--settings", settings]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.told).toContain("readme text");
      expect(ok.told).toContain("+readme text");
      expect(ok.all).not.toContain(SECRET);
      // (`git diff --no-ext-diff`: read-only git runs with diff.external set to a refusing shim, src/core/commands/git-env.ts, so a plain `git diff` with changes fails in the sandbox; a separate problem.)
      const plain = await session(ws, [bash("git log -p"), bash("git diff --no-ext-diff")], []);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.told).toContain("+readme text");
      expect(plain.told).toContain("+changed");
    });
  });
});
