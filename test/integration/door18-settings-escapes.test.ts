/**
 * Issue 18, session 17 (door18) item 2: settings problems printed raw on stderr. A committed
 * `.claude/settings.json` whose key, rule or mode value holds terminal controls — CSI (`ESC [2K`
 * erases the line, `ESC [1A` moves up), an OSC 8 link, a carriage return, a bidi override, an 8-bit
 * CSI (U+009B) — reached the terminal as is when Yoke warned about the file: `yoke permissions check`
 * printed `warning: … rule "Bash(ls ESC[2K CR ESC[1A OK:*"` (the line rewrote itself) and a raw U+202E.
 * Now every message is written through one helper (core/printable.ts) that shows such characters as
 * visible escapes (`\x1b`, `\u202e`); the JSON output escapes them as JSON does (`\u001b`).
 * The built CLI, real bytes, as root and as an unprivileged user.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";
import { scriptedRunArgs } from "../support/scripted-run";
import { removeTemps } from "../support/teardown";

const temps: string[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => removeTemps(temps));

// C0 controls but tab and newline, DEL, C1 controls, bidi controls.
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * A committed settings file with controls in a key, a broken rule and a mode: JSON escapes (`\u001b`:
 * JSON has no raw C0 in strings) and raw characters JSON allows (U+202E, U+009B), as an attacker would.
 */
const SETTINGS =
  "{\n" +
  '  "permissions": {\n' +
  '    "allow": ["Bash(ls\\u001b[2K\\r\\u001b[1AOK:*"],\n' +
  '    "defaultMode": "\\u001b]8;;http://evil.example/\\u0007click\\u001b]8;;\\u0007\u202e\u009b2J"\n' +
  "  },\n" +
  '  "\\u001b[8mhidden\u202ekey": 1\n' +
  "}\n";

function workspace(id: Identity): { ws: string; home: string } {
  const base = mkdtempSync(join(tmpdir(), "yoke-door18-esc-"));
  temps.push(base);
  const ws = join(base, "ws");
  const home = join(base, "home");
  mkdirSync(join(ws, ".claude"), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(ws, ".claude", "settings.json"), SETTINGS);
  execFileSync("git", ["init", "-q", ws]);
  execFileSync("git", ["-C", ws, "add", "-A"]);
  execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "settings"]);
  chownTree(base, id);
  return { ws, home };
}

describe.each(identities().list.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it("yoke permissions check: the warnings quote the file with every control shown, never raw", async () => {
    const { ws, home } = workspace(id);
    const r = await runCliAs(id, ["permissions", "check", "--tool", "Bash", "--input", '{"command":"ls"}', "--cwd", ws], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    // The problems are reported (the rule, the mode, the key)…
    expect(r.stderr).toMatch(/warning: .*permissions\.allow/);
    expect(r.stderr).toMatch(/warning: .*defaultMode/);
    // …quoting the text as visible escapes, and not one raw control reaches the terminal.
    expect(r.stderr).toContain("\\x1b[2K\\r\\x1b[1A");
    expect(r.stderr).toContain("\\u202e");
    expect(r.stderr).toContain("\\x9b2J");
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
  });

  it("yoke permissions check --json: valid JSON, the same strings, no raw control", async () => {
    const { ws, home } = workspace(id);
    const r = await runCliAs(id, ["permissions", "check", "--tool", "Bash", "--input", '{"command":"echo \\u001b[2Jx\\u202e > /etc/passwd"}', "--cwd", ws, "--json"], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    const parsed = JSON.parse(r.stdout) as { decision: string; reason?: string };
    expect(typeof parsed.decision).toBe("string");
    // The reason quotes the command: the JSON escapes read back as the very characters.
    expect(parsed.reason).toContain("echo \u001b[2Jx\u202e");
    expect(r.stdout).toContain("\\u001b[2Jx\\u202e");
  });

  it("yoke run: the settings problems printed at the start show every control, never raw", async () => {
    const { ws, home } = workspace(id);
    const llm = await startScriptedLlmServer({ script: [{ text: "done" }] });
    try {
      const r = await runCliAs(id, [...scriptedRunArgs(llm.openaiBaseUrl, ws, join(home, "sessions")), "hello"], { env: { HOME: home }, cwd: ws });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/settings: .*permissions\.allow/);
      expect(r.stderr).toContain("\\x1b[2K\\r\\x1b[1A");
      expect(r.stderr).not.toMatch(RAW_CONTROL);
    } finally {
      await llm.close();
    }
  });
});
