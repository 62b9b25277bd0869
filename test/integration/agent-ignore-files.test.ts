/**
 * Other agents' ignore files through a whole `yoke run` (issue 23), the built CLI against the scripted
 * model over HTTP, as root and as an unprivileged user: a repository's `.cursorignore` (Cursor's
 * docs: gitignore syntax, `!` negation), `.clineignore` (Cline's `!include FILE` line) and
 * `.rooignore` (Roo Code's: reads, writes and the file-reading commands naming a path are blocked)
 * deny reading and changing what they list, even in bypassPermissions mode. Asserted on outcomes:
 * no ignored file's content is in any request to the model (read_file, grep, list_files, a `cat`
 * command), the one a negation lets through is, the ignored file written to is unchanged, the
 * ignore file itself is unchanged, and the denial the model got names the ignore file and its line;
 * and a command naming no ignored path (`git diff`, `python3 -c`) runs, as in those tools.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLog } from "../../src/core/session/session-log";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";
import { toolResultTexts } from "../support/scripted-run";

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const temps: string[] = [];

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

// What each ignore file hides, and what stays visible.
const HIDDEN = {
  cursorFolder: "CURSOR-FOLDER-SECRET-7d1",
  cursorLog: "CURSOR-LOG-SECRET-8e2",
  clineIncluded: "CLINE-INCLUDED-SECRET-9f3",
  roo: "ROO-CONFIG-SECRET-a04",
};
const VISIBLE = { negated: "NEGATED-LOG-VISIBLE-b15", app: "APP-VISIBLE-c26" };

function workspace(who: Identity) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-ignore-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  const sessions = join(dir, "sessions");
  for (const d of [ws, home, sessions]) mkdirSync(d, { recursive: true });
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  };
  // From Cursor's docs: a folder, an extension, and an exception with `!`.
  write(".cursorignore", "# Cursor: keep these from the agent\nsecrets/\n*.log\n!important.log\n");
  // From Cline's docs: `!include` takes the patterns of another file (here the .gitignore).
  write(".clineignore", "!include .gitignore\n");
  write(".gitignore", "generated/\n");
  // From Roo Code's docs: a specific file.
  write(".rooignore", "config/secrets.json\n");
  write("secrets/api-key.txt", `${HIDDEN.cursorFolder}\n`);
  write("build.log", `${HIDDEN.cursorLog}\n`);
  write("important.log", `${VISIBLE.negated}\n`);
  write("generated/client.js", `// ${HIDDEN.clineIncluded}\n`);
  write("config/secrets.json", `{"token":"${HIDDEN.roo}"}\n`);
  write("app/main.py", `print("${VISIBLE.app}")\n`);
  execFileSync("git", ["init", "-q"], { cwd: ws, env: GIT_ENV });
  chownTree(dir, who);
  return { ws, home, sessions };
}

const SCRIPT: ScriptedTurn[] = [
  { toolCalls: [{ name: "read_file", input: { path: "secrets/api-key.txt" } }] },
  { toolCalls: [{ name: "read_file", input: { path: "build.log" } }] },
  { toolCalls: [{ name: "read_file", input: { path: "important.log" } }] },
  { toolCalls: [{ name: "grep", input: { pattern: "SECRET|VISIBLE" } }] },
  { toolCalls: [{ name: "list_files", input: { depth: 3 } }] },
  { toolCalls: [{ name: "run_command", input: { command: "cat config/secrets.json" } }] },
  { toolCalls: [{ name: "write_file", input: { path: "generated/client.js", content: "overwritten\n" } }] },
  { toolCalls: [{ name: "write_file", input: { path: ".rooignore", content: "\n" } }] },
  // What names no ignored path runs, as in Cline and Roo Code (red team B: these asked, so headless they were refused).
  { toolCalls: [{ name: "run_command", input: { command: "git diff --stat" } }] },
  { toolCalls: [{ name: "run_command", input: { command: "python3 -c 'print(6*7)'" } }] },
  { text: "Done." },
];

describe.each(identities().list)("agents' ignore files deny what they list, as $label", (who: Identity) => {
  it("no ignored file reaches the model by read_file, grep, list_files or cat; the negated one does; writes are refused with the file and line named", async () => {
    const w = workspace(who);
    const llm = await startScriptedLlmServer({ script: SCRIPT });
    try {
      const r = await runCliAs(
        who,
        [
          "run",
          "--trust",
          "--provider",
          "openai-compatible",
          "--base-url",
          llm.openaiBaseUrl,
          "--model",
          "m",
          "--cwd",
          w.ws,
          "--session-dir",
          w.sessions,
          "--permission-mode",
          "bypassPermissions",
          "Look around",
        ],
        { env: { HOME: w.home }, timeoutMs: 120_000 },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(llm.requests).toHaveLength(SCRIPT.length);

      // No ignored content in any request; what is not ignored (the `!important.log` exception, the app) did reach it.
      const everything = llm.requests.map((q) => JSON.stringify(q.body)).join("\n");
      for (const secret of Object.values(HIDDEN)) expect(everything).not.toContain(secret);
      expect(everything).toContain(VISIBLE.negated);
      expect(everything).toContain(VISIBLE.app);

      // The refusals the model got name the ignore file and line (and whose file it is).
      const told = toolResultTexts(llm.requests.at(-1));
      expect(told[0]).toContain("denied by the rule secrets/ (.cursorignore:2, Cursor's ignore file)");
      expect(told[1]).toContain("denied by the rule *.log (.cursorignore:3, Cursor's ignore file)");
      expect(told[5]).toContain("config/secrets.json (.rooignore:1, Roo Code's ignore file)");
      expect(told[6]).toContain("generated/ (.gitignore:1 (included by .clineignore), Cline's ignore file)");
      // The listing and the search left the ignored files out, and said so.
      expect(told[4]).toContain("app/");
      expect(told[4]).not.toMatch(/api-key\.txt|build\.log|client\.js|secrets\.json/);
      expect(told[3]).toMatch(/left out: a permission rule denies reading/);

      // Nothing ignored was changed, nor the ignore file (changing one asks in every mode; headless, that is a refusal).
      expect(readFileSync(join(w.ws, "generated/client.js"), "utf8")).toBe(`// ${HIDDEN.clineIncluded}\n`);
      expect(readFileSync(join(w.ws, ".rooignore"), "utf8")).toBe("config/secrets.json\n");
      expect(told[7]).toContain(".rooignore");
      // A command that names no ignored path ran (git's whole history, code given inline): their tools hold only named paths.
      expect(told[8]).toContain("[Exit code 0");
      expect(told[9]).toMatch(/^42\b/);

      // The session log records the decisions with the rule that made them.
      const log = readdirSync(w.sessions).find((f) => f.endsWith(".jsonl"))!;
      const events = parseLog(readFileSync(join(w.sessions, log), "utf8").split("\n").filter(Boolean)).events;
      const denied = events.flatMap((e) => (e.type === "permission_decision" && e.decision === "deny" ? [e.rule] : []));
      expect(denied).toEqual(expect.arrayContaining(["secrets/", "*.log", "config/secrets.json", "generated/"]));

      // The Customizations listing (`yoke lessons list`, the panel's view) shows each file, whose it is and what it does.
      const listed = await runCliAs(who, ["lessons", "list", "--json", "--cwd", w.ws], { env: { HOME: w.home }, timeoutMs: 60_000 });
      expect(listed.code, listed.stderr).toBe(0);
      const items = (JSON.parse(listed.stdout) as { items: Array<{ kind: string; name: string; source: string; state: string; inForce: boolean; why: string }> }).items;
      const ignoreItems = items.filter((i) => i.kind === "ignore-file");
      expect(ignoreItems.map((i) => [i.name, i.source, i.state, i.inForce])).toEqual([
        [".cursorignore", ".cursorignore", "always", true],
        [".clineignore", ".clineignore", "always", true],
        [".rooignore", ".rooignore", "always", true],
      ]);
      expect(ignoreItems[0]!.why).toMatch(/^Cursor's ignore file \(2 patterns, 1 exception\): reading and changing the paths it lists is denied/);
    } finally {
      await llm.close();
    }
  }, 180_000);
});
