// Start-up of the built CLI (issue 19, item 4): each command is its own bundle, the provider SDK
// its own, both compiled from V8's code cache after the first run; the bwrap probe is kept in the
// user's cache folder. The speed itself is measured in `yoke bench --only startup`, not here.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { compileCacheDir } from "../../src/cli/compile-cache";
import { ensureBuilt, repoRoot, runCli } from "../support/cli";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
const temp = (p: string) => {
  const d = mkdtempSync(join(tmpdir(), p));
  temps.push(d);
  return d;
};
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe("the CLI's start-up", () => {
  it("runs a session from its own bundles, and the second run from V8's code cache, with the same result", async () => {
    const home = temp("yoke-startup-home-");
    const server = await startScriptedLlmServer({ script: [{ text: "First answer." }, { text: "Second answer." }] });
    try {
      const run = (prompt: string) => {
        const work = temp("yoke-startup-work-");
        return runCli(["run", "--trust", "--provider", "anthropic", "--base-url", server.anthropicBaseUrl, "--cwd", work, "--session-dir", join(work, ".s"), prompt], {
          env: { HOME: home, XDG_CACHE_HOME: undefined, ANTHROPIC_API_KEY: "test-key" },
        });
      };
      const first = await run("one");
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain("First answer.");
      const cache = join(home, ".cache", "yoke", `v8-${process.version}`);
      const files = readdirSync(cache);
      // Node 22.1+ keeps its own built-in cache there, in its own layout.
      const builtin = typeof (Module as unknown as { enableCompileCache?: unknown }).enableCompileCache === "function";
      if (builtin) expect(files.length).toBeGreaterThan(0);
      else {
        // The run command's bundle and the Anthropic SDK's (loaded on the first request); not OpenAI's.
        expect(files.some((f) => /^cli-run-[0-9a-f]+\.bin$/.test(f))).toBe(true);
        expect(files.some((f) => /^anthropic-sdk-[0-9a-f]+\.bin$/.test(f))).toBe(true);
        expect(files.some((f) => f.startsWith("openai-sdk-"))).toBe(false);
        for (const f of files) expect(statSync(join(cache, f)).mode & 0o077).toBe(0);
      }
      const mtimes = new Map(files.map((f) => [f, statSync(join(cache, f)).mtimeMs]));
      const second = await run("two");
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain("Second answer.");
      // V8 took the cached code: a rejected cache would have been written again at exit.
      if (!builtin) for (const f of files) expect(statSync(join(cache, f)).mtimeMs, f).toBe(mtimes.get(f));
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  }, 120_000);

  it("loads only the bundles a command needs: no session for --help, one provider's SDK, no MCP SDK without servers", async () => {
    // A preload (NODE_OPTIONS) writes every module file the process loaded when it exits.
    const dir = temp("yoke-startup-loaded-");
    const hook = join(dir, "hook.cjs");
    writeFileSync(hook, `process.on("exit", () => require("node:fs").writeFileSync(process.env.YOKE_TEST_LOADED, Object.keys(require.cache).join("\\n")));\n`);
    const loaded = async (name: string, args: string[], env: Record<string, string>) => {
      const out = join(dir, `${name}.txt`);
      const r = await runCli(args, { env: { HOME: temp("yoke-startup-home-"), NODE_OPTIONS: `--require ${hook}`, YOKE_TEST_LOADED: out, ...env } });
      expect(r.code, r.stderr).toBe(0);
      return readFileSync(out, "utf8")
        .split("\n")
        .filter((f) => f.startsWith(join(repoRoot, "dist")))
        .map((f) => basename(f))
        .sort();
    };
    expect(await loaded("help", ["run", "--help"], {})).toEqual(["cli.js"]);
    const server = await startScriptedLlmServer({ script: [{ text: "OpenAI answer." }, { text: "Anthropic answer." }] });
    try {
      const work = temp("yoke-startup-work-");
      const session = (provider: string, url: string) => ["run", "--trust", "--provider", provider, "--base-url", url, "--model", "m", "--cwd", work, "--session-dir", join(work, ".s"), "hi"];
      const openai = await loaded("openai", session("openai", server.openaiBaseUrl), { OPENAI_API_KEY: "test-key" });
      expect(openai).toEqual(expect.arrayContaining(["cli.js", "cli-run.js", "openai-sdk.js"]));
      expect(openai).not.toContain("anthropic-sdk.js");
      expect(openai).not.toContain("mcp-sdk.js");
      const anthropic = await loaded("anthropic", session("anthropic", server.anthropicBaseUrl), { ANTHROPIC_API_KEY: "test-key" });
      expect(anthropic).toContain("anthropic-sdk.js");
      expect(anthropic).not.toContain("openai-sdk.js");
      expect(anthropic).not.toContain("mcp-sdk.js");
      // Each session answered from the provider asked for.
      expect(server.requests.map((r) => r.path)).toEqual([expect.stringMatching(/chat\/completions|responses/), expect.stringMatching(/messages/)]);
    } finally {
      await server.close();
    }
  }, 120_000);

  it("does not make process.stdin before the first request when stdin is not a terminal (no question can be asked there)", async () => {
    // A preload (NODE_OPTIONS) notes whether process.stdin was made when the first request starts.
    const dir = temp("yoke-startup-stdin-");
    const hook = join(dir, "hook.cjs");
    writeFileSync(
      hook,
      `const d = Object.getOwnPropertyDescriptor(process, "stdin");
       let made = false;
       Object.defineProperty(process, "stdin", { configurable: true, enumerable: d.enumerable, get() { made = true; return d.get.call(this); } });
       let first = true;
       const note = () => {
         if (first) require("node:fs").writeFileSync(process.env.YOKE_TEST_STDIN, JSON.stringify({ made }));
         first = false;
       };
       // Node's fetch (undici) or node:http (Yoke's own client, src/node/http-client).
       require("node:diagnostics_channel").subscribe("undici:request:create", note);
       require("node:diagnostics_channel").subscribe("http.client.request.start", note);\n`,
    );
    const server = await startScriptedLlmServer({ script: [{ text: "Answer." }] });
    try {
      const work = temp("yoke-startup-work-");
      const out = join(dir, "stdin.json");
      const r = await runCli(["run", "--trust", "--provider", "anthropic", "--base-url", server.anthropicBaseUrl, "--cwd", work, "--session-dir", join(work, ".s"), "hi"], {
        env: { HOME: temp("yoke-startup-home-"), ANTHROPIC_API_KEY: "test-key", NODE_OPTIONS: `--require ${hook}`, YOKE_TEST_STDIN: out },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("Answer.");
      expect(JSON.parse(readFileSync(out, "utf8"))).toEqual({ made: false });
    } finally {
      await server.close();
    }
  }, 120_000);

  it("keeps the bad-usage status (2) when the error comes from a command's own bundle", async () => {
    const r = await runCli(["run", "--no-such-option"], { env: { HOME: temp("yoke-startup-home-") } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("yoke run:");
  });

  it("uses no cache folder that others could write", () => {
    const base = temp("yoke-startup-cache-");
    expect(compileCacheDir({ XDG_CACHE_HOME: base })).toBe(join(base, "yoke", `v8-${process.version}`));
    const shared = temp("yoke-startup-shared-");
    mkdirSync(join(shared, "yoke", `v8-${process.version}`), { recursive: true });
    chmodSync(join(shared, "yoke", `v8-${process.version}`), 0o777);
    expect(compileCacheDir({ XDG_CACHE_HOME: shared })).toBeUndefined();
  });

  it.runIf(process.platform === "linux" && existsSync("/usr/bin/bwrap"))("keeps a successful bwrap probe in the user's cache folder, readable by the user only", async () => {
    const home = temp("yoke-startup-home-");
    const work = temp("yoke-startup-work-");
    const r = await runCli(["sandbox", "exec", "--backend", "bwrap", "--cwd", work, "--", "true"], { env: { HOME: home, XDG_CACHE_HOME: undefined } });
    expect(r.code, r.stderr).toBe(0);
    const probe = join(home, ".cache", "yoke", "bwrap-probe.json");
    expect(statSync(probe).mode & 0o077).toBe(0);
    const again = await runCli(["sandbox", "exec", "--backend", "bwrap", "--cwd", work, "--", "true"], { env: { HOME: home, XDG_CACHE_HOME: undefined } });
    expect(again.code, again.stderr).toBe(0);
  });
});
