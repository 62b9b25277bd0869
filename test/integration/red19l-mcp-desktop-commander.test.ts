// Red team L (session 19), issue 22's held-out run: @wonderwhy-er/desktop-commander (a popular
// third-party stdio server that runs shell commands and keeps them running: `start_process`),
// installed by the test from the npm registry at an exact version (PUPPETEER_SKIP_DOWNLOAD: its
// PDF dependency would otherwise fetch a browser, which fails offline), never vendored. As root and
// as an unprivileged user, through full `yoke run` sessions with the scripted model:
// - the shell the server starts sees only the server's environment: what its definition names plus
//   the SDK's minimal set — no provider key, nothing else of Yoke's (read from /proc/PID/environ);
// - SIGTERM and SIGINT of `yoke run` while the shell runs: the run exits 143/130 in bounded time and
//   neither the server nor its shell (nor the shell's `sleep`) is left;
// - SIGKILL of `yoke run`: nothing of Yoke runs, the server and its shell are left (documented),
//   and the next start of Yoke (`yoke mcp list`) stops them.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { cliPath, ensureBuilt, type CliResult } from "../support/cli";
import { chownTree, identities, spawnAs, type Identity } from "../support/identities";
import { scriptedRunArgs } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

const PACKAGE = "@wonderwhy-er/desktop-commander@0.2.52";
const temps: string[] = [];
let bin = "";

beforeAll(() => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "yoke-dc-"));
  temps.push(dir);
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "servers", private: true }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", PACKAGE], {
    cwd: dir,
    stdio: "pipe",
    timeout: 420_000,
    env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: "1" },
  });
  bin = join(dir, "node_modules", ".bin", "desktop-commander");
}, 450_000);

afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
}, 120_000);

interface Proc {
  pid: number;
  cmd: string;
  env: Record<string, string>;
}
/** Live processes whose command line contains `text`, with their environment. */
function processesWith(text: string): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/g, " ");
      const state = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.[0];
      if (!cmd.includes(text) || state === "Z") continue;
      const env = Object.fromEntries(
        readFileSync(`/proc/${name}/environ`, "utf8")
          .split("\0")
          .filter(Boolean)
          .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
      );
      out.push({ pid: Number(name), cmd, env });
    } catch {
      // gone
    }
  }
  return out;
}

async function until<T>(get: () => T | undefined, ms: number): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function startCliAs(who: Identity, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: ["pipe", "pipe", "pipe"], ...spawnAs(who, env) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  child.stdin.end();
  const result = new Promise<CliResult>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return Object.assign(child, { result });
}

const SECRETS = { ANTHROPIC_API_KEY: "sk-ant-red19l-secret", OPENAI_API_KEY: "sk-red19l-openai-secret", YOKE_RED19L_UNRELATED: "not-for-servers" };

/** A `yoke run` whose model has desktop-commander start `sleep MARK` and then waits: the run, its workspace, and the shell's processes once they run. */
async function runWithShell(who: Identity, mark: string) {
  const { base, cwd, home } = createWorkspaceWithHome("yoke-red19l-dc-", {}, temps);
  const settings = { mcpServers: { dc: { command: bin, env: { DC_NAMED: "named-value" } } }, permissions: { allow: ["mcp__dc"] } };
  mkdirSync(join(home, ".yoke"));
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify(settings));
  chmodSync(base, 0o755);
  chownTree(base, who);
  const llm = await startScriptedLlmServer({
    script: [{ toolCalls: [{ name: "mcp__dc__start_process", input: { command: `sleep ${mark}; echo done`, timeout_ms: 1000 } }] }, { hang: true }],
  });
  const cli = startCliAs(who, [...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions")), "go"], { HOME: home, ...SECRETS });
  const sleeping = await until(() => {
    const p = processesWith(`sleep ${mark}`).filter((x) => x.cmd.startsWith("sleep"));
    return p.length && llm.requests.length >= 2 ? p : undefined;
  }, 120_000);
  return { cli, llm, cwd, home, sleeping };
}

const ids = identities();
let n = 0;
const nextMark = () => `${86_000 + ((process.pid * 7 + n++ * 13) % 9_000)}.5`;

describe.each(ids.list)("desktop-commander from npm, as $label", (who) => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`its shell sees only the server's environment; ${signal} of yoke run leaves neither the server nor its shell`, async () => {
      const mark = nextMark();
      const { cli, llm, sleeping } = await runWithShell(who, mark);
      try {
        expect(sleeping, "desktop-commander started the shell").toBeDefined();
        const env = sleeping![0]!.env;
        expect(env.DC_NAMED).toBe("named-value");
        for (const [k, v] of Object.entries(SECRETS)) {
          expect(env[k]).toBeUndefined();
          expect(Object.values(env)).not.toContain(v);
        }
        expect(processesWith(bin).length).toBeGreaterThan(0);
        cli.kill(signal);
        const r = await Promise.race([cli.result, new Promise<undefined>((res) => setTimeout(() => res(undefined), 60_000))]);
        expect(r, "yoke run exits after the signal").toBeDefined();
        expect(r!.code).toBe(signal === "SIGTERM" ? 143 : 130);
        expect(await until(() => (processesWith(`sleep ${mark}`).length === 0 && processesWith(bin).length === 0 ? true : undefined), 15_000)).toBe(true);
      } finally {
        cli.kill("SIGKILL");
        await llm.close();
      }
    }, 240_000);
  }

  it("SIGKILL of yoke run leaves the server and its shell; the next start of Yoke (yoke mcp list) stops them", async () => {
    const mark = nextMark();
    const { cli, llm, cwd, home, sleeping } = await runWithShell(who, mark);
    try {
      expect(sleeping).toBeDefined();
      cli.kill("SIGKILL");
      await cli.result;
      // Nothing of Yoke ran: what is left is there until the next start.
      expect(processesWith(`sleep ${mark}`).length).toBeGreaterThan(0);
      const list = startCliAs(who, ["mcp", "list", "--cwd", cwd], { HOME: home });
      const r = await Promise.race([list.result, new Promise<undefined>((res) => setTimeout(() => res(undefined), 90_000))]);
      expect(r, "yoke mcp list exits").toBeDefined();
      expect(await until(() => (processesWith(`sleep ${mark}`).length === 0 ? true : undefined), 20_000)).toBe(true);
      // The listing's own server is stopped when it ends too.
      expect(await until(() => (processesWith(bin).length === 0 ? true : undefined), 20_000)).toBe(true);
    } finally {
      cli.kill("SIGKILL");
      await llm.close();
    }
  }, 240_000);
});
