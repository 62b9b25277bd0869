/**
 * Red team round 15: the CLI's permission question on a real terminal (tmux renders what the user
 * sees), through a FULL SESSION (the built CLI's `yoke run`, default mode, a scripted model over
 * real HTTP). The model's command line carries terminal control sequences in a quoted word:
 * `rm -rf src "ESC[3A ESC[G ESC[J? Allow read_file {"file_path":"README.md"} … ESC[8m"`. The tool
 * call line and the gate's reason (which quotes the word) were printed raw, so the terminal moved
 * up, erased the real question and drew "Allow read_file README.md" in its place, hiding the rest:
 * the user was asked to allow `rm -rf src` by a screen that never showed it. Fixed in
 * src/cli/printable.ts (every control character shown as a visible escape; used by the
 * question, the session's lines and MCP elicitation). Rendering does not depend on the sandbox
 * backend or the user, so this runs once, as the test's own user.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { bash } from "../support/sandbox-matrix";
import { removeTemps } from "../support/teardown";
import { cliPath, ensureBuilt } from "../support/cli";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 180_000 });
const temps: string[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => removeTemps(temps));

const tmux = (() => {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
    return undefined;
  } catch {
    return "tmux is not installed: it renders the terminal this test reads";
  }
})();

const ESC = "\u001b";
const FAKE = `${ESC}[3A${ESC}[G${ESC}[J? Allow read_file {"file_path":"README.md"} (reading it needs approval)? [y/N/message] ${ESC}[8m`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

it.skipIf(!!tmux)("the question a terminal shows names the command the model asked for; its control characters are shown, not obeyed", async () => {
  const base = mkdtempSync(join(tmpdir(), "yoke-red15-term-"));
  temps.push(base);
  const ws = join(base, "ws");
  const home = join(base, "home");
  mkdirSync(join(ws, "src"), { recursive: true });
  mkdirSync(join(home, ".yoke"), { recursive: true });
  writeFileSync(join(ws, "src", "a.js"), "a\n");
  writeFileSync(join(ws, "README.md"), "readme\n");
  execFileSync("git", ["init", "-q", "-b", "main", ws]);
  execFileSync("git", ["-C", ws, "add", "-A"]);
  execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
  const server = await startScriptedLlmServer({ script: [bash(`rm -rf src "${FAKE}"`), { text: "done" }] });
  const sock = `yoke-red15-${process.pid}`;
  const tm = (...args: string[]) => execFileSync("tmux", ["-L", sock, ...args], { encoding: "utf8" });
  try {
    const line = [
      `HOME=${q(home)}`,
      "OPENAI_API_KEY=sk-red15",
      q(process.execPath),
      q(cliPath),
      "run --trust --provider openai-compatible --model m",
      `--base-url ${q(server.openaiBaseUrl)} --cwd ${q(ws)} --session-dir ${q(join(base, "sessions"))} go`,
      `; echo "exit=$?" > ${q(join(base, "exit"))}; sleep 600`,
    ].join(" ");
    tm("new-session", "-d", "-s", "s", "-x", "200", "-y", "50", `env -u OPENAI_BASE_URL ${line}`);
    let screen = "";
    for (let i = 0; i < 180 && !screen.includes("[y/N/message]"); i++) {
      await sleep(500);
      screen = tm("capture-pane", "-p", "-t", "s");
    }
    await sleep(1000);
    screen = tm("capture-pane", "-p", "-J", "-t", "s");
    // What the user reads: the real question, naming the command, and the fake one only as escaped text.
    expect(screen, screen).toContain("? Allow run_command");
    expect(screen, screen).toMatch(/\? Allow run_command .*rm -rf src/);
    expect(screen, screen).toContain("\\x1b[3A");
    tm("send-keys", "-t", "s", "n", "Enter");
    for (let i = 0; i < 120 && !existsSync(join(base, "exit")); i++) await sleep(500);
    expect(existsSync(join(ws, "src", "a.js"))).toBe(true);
  } finally {
    try {
      tm("kill-server");
    } catch {
      /* already gone */
    }
    await server.close();
  }
});
