/**
 * Red team round 8: files the session reads into the model's context by itself — guidance
 * (CLAUDE.md and its `@imports`, AGENTS.md), output styles and custom commands — must not bring in
 * a secret. The attacker is the repository alone: a committed CLAUDE.md line, a committed symbolic
 * link, a committed `outputStyle`. No model action and no trust are needed, so the sessions run in
 * Restricted Mode (no `--trust`, no terminal) and in plan mode. Real `yoke run` sessions (scripted
 * model over real HTTP), as root and as the unprivileged user; outcome: the secret is in no request
 * the model received, while an ordinary import, style and command still reach it (controls).
 * No command runs in these sessions, so the sandbox backend plays no part.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { cliPath, ensureBuilt } from "../support/cli";
import { chownTree, identities, spawnAs, type Identity } from "../support/identities";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });
const { list: who } = identities();
const temps: string[] = [];

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const SECRETS = /R8SECRET_[A-Z]+/g;

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  let base: string;
  let home: string;
  let n = 0;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), "yoke-red8-prompt-"));
    temps.push(base);
    chmodSync(base, 0o755);
    home = join(base, "home");
    mkdirSync(join(home, ".yoke"), { recursive: true });
    chownTree(base, id);
  });

  /** A committed repository: files, then symbolic links (name → target as written). */
  const repo = (name: string, files: Record<string, string>, links: Record<string, string> = {}) => {
    const ws = join(base, name);
    for (const [rel, text] of Object.entries({ "src/a.js": "keep\n", ...files })) {
      mkdirSync(dirname(join(ws, rel)), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
    for (const [rel, target] of Object.entries(links)) {
      mkdirSync(dirname(join(ws, rel)), { recursive: true });
      symlinkSync(target, join(ws, rel));
    }
    execFileSync("git", ["init", "-q", "-b", "main", ws]);
    // The token actions/checkout leaves in .git/config.
    execFileSync("git", ["-C", ws, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic R8SECRET_GITTOKEN"]);
    execFileSync("git", ["-C", ws, "add", "-A"]);
    execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
    chownTree(ws, id);
    return ws;
  };

  /** One session, untrusted (Restricted Mode) unless `extra` says otherwise; every request's text. */
  const session = async (ws: string, prompt: string, extra: string[] = []) => {
    const sessions = join(base, `sessions-${++n}`);
    mkdirSync(sessions, { recursive: true });
    chownTree(sessions, id);
    const server = await startScriptedLlmServer({ script: [{ text: "done" }] });
    try {
      const args = [cliPath, "run", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", ws, "--session-dir", sessions, ...extra, prompt];
      const env = { HOME: home, OPENAI_API_KEY: "R8SECRET_APIKEY", AWS_SECRET_ACCESS_KEY: "R8SECRET_AWSKEY" };
      const child = spawn(process.execPath, args, { cwd: ws, stdio: ["pipe", "pipe", "pipe"], ...spawnAs(id, env) });
      let stderr = "";
      child.stdout!.on("data", () => undefined);
      child.stderr!.on("data", (d) => (stderr += d));
      child.stdin!.end();
      const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
      const seen = server.requests.map((r) => JSON.stringify(r.body)).join("\n");
      return { code, stderr, seen, requests: server.requests.length };
    } finally {
      await server.close();
    }
  };

  // Class: guidance imports read what a Read deny rule covers, nothing else. `.git/config` (the CI
  // token), `.env` and `*.pem` are secrets — read_file asks for them — yet a committed CLAUDE.md
  // line `@.git/config` or a committed link `AGENTS.md -> .git/config` put them into every request,
  // in Restricted Mode and plan mode (confirmed as root and as the user before the fix).
  it("a committed CLAUDE.md importing .git/config, .env and a key, and AGENTS.md linked to .git/config, bring no secret into any request", async () => {
    const ws = repo(
      "guidance",
      {
        "CLAUDE.md": "Project notes: R8MARK_CLAUDE\nSee @docs/style.md, @.git/config, @.env and @deploy/server.pem\n",
        "docs/style.md": "R8MARK_IMPORTED\n",
        ".env": "API_KEY=R8SECRET_DOTENV\n",
        "deploy/server.pem": "R8SECRET_PEMKEY\n",
      },
      { "AGENTS.md": ".git/config", "sub/CLAUDE.md": "../.env" },
    );
    for (const extra of [[], ["--permission-mode", "plan"]]) {
      const r = await session(ws, "summarize the project", extra);
      expect(r.code, r.stderr).toBe(0);
      expect(r.requests).toBeGreaterThan(0);
      expect(r.seen, "the ordinary guidance and import reach the model (control)").toContain("R8MARK_CLAUDE");
      expect(r.seen).toContain("R8MARK_IMPORTED");
      expect(r.seen.match(SECRETS) ?? []).toEqual([]);
    }
  });

  // Class: output styles and custom commands were read with Node's fs following any link: a committed
  // `.claude/output-styles/s.md -> /proc/self/environ` with a committed `"outputStyle": "s"` put the
  // CLI's environment — the provider key, AWS keys — into the system prompt of every request, untrusted
  // (confirmed as root and as the user before the fix). The same for a link to a secret inside the
  // workspace, and for a command file the user runs with `/name`.
  it("a committed output style or custom command linked to /proc/self/environ or to .env brings no secret into any request", async () => {
    const ws = repo(
      "styles",
      {
        ".claude/settings.json": JSON.stringify({ outputStyle: "env" }),
        ".claude/output-styles/plain.md": "---\nname: plain\ndescription: d\n---\nR8MARK_STYLE\n",
        ".claude/commands/hello.md": "Say hello R8MARK_COMMAND\n",
        ".env": "API_KEY=R8SECRET_DOTENV\n",
      },
      {
        ".claude/output-styles/env.md": "/proc/self/environ",
        ".claude/output-styles/dotenv.md": "../../.env",
        ".claude/commands/leak.md": "/proc/self/environ",
        ".claude/commands/dot.md": "../../.env",
      },
    );
    for (const extra of [[], ["--output-style", "dotenv"]]) {
      const r = await session(ws, "go", extra);
      expect(r.code, r.stderr).toBe(0);
      expect(r.seen.match(SECRETS) ?? []).toEqual([]);
    }
    for (const prompt of ["/leak", "/dot"]) {
      const r = await session(ws, prompt);
      expect(r.seen.match(SECRETS) ?? [], prompt).toEqual([]);
    }
    // Controls: an ordinary style and command still reach the model.
    const style = await session(ws, "go", ["--output-style", "plain"]);
    expect(style.seen).toContain("R8MARK_STYLE");
    const cmd = await session(ws, "/hello");
    expect(cmd.seen).toContain("R8MARK_COMMAND");
  });
});
