/**
 * The sandbox enforces what the rules say, whatever the shell analysis concluded (issue 8): a
 * command the gate allows by an allow rule — `make`, whose Makefile it cannot read — still cannot
 * read a file a deny rule covers nor write a protected one. Real sessions (`yoke run` with a
 * scripted model, the real bwrap), as root and as an unprivileged user; outcomes checked on disk
 * and in what the model was sent. `yoke sandbox exec` gets the same view of the rules.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { parseLog } from "../../src/core/session/session-log";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";
import { scriptedRunArgs } from "../support/scripted-run";

const SECRET = "TOPSECRET-4f1e9";
const temps: string[] = [];
const who = identities();
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function workspace(owner: Identity) {
  const root = mkdtempSync(join(tmpdir(), "yoke-depth-"));
  temps.push(root);
  const ws = join(root, "ws");
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  };
  put("secrets/key.txt", `${SECRET}\n`);
  put("src/a.txt", "plain\n");
  // What the gate cannot see: the recipe reads the secret, plants a hook and edits git's config.
  put(
    "Makefile",
    ["all:", "\t-cat secrets/key.txt", "\t-printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit", "\t-git config core.fsmonitor 'touch pwned'", "\tcat src/a.txt > out.txt", ""].join("\n"),
  );
  execFileSync("git", ["init", "-q", ws]);
  const settings = join(root, "settings.json");
  writeFileSync(settings, JSON.stringify({ permissions: { allow: ["Bash(make:*)"], deny: ["Read(./secrets/**)"] } }));
  const sessions = join(root, "sessions");
  mkdirSync(sessions);
  chownTree(root, owner);
  return { root, ws, sessions, settings };
}

describe.each(who.list)("defence in depth as $label", (id) => {
  it("an allowed command cannot read a denied file nor write a protected one (yoke run, real bwrap)", async () => {
    const { ws, sessions, settings } = workspace(id);
    const server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "run_command", input: { command: "make" } }] }, { text: "built" }] });
    try {
      const r = await runCliAs(id, [...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "--settings", settings, "build it"], {
        timeoutMs: 120_000,
      });
      expect(r.code, r.stderr).toBe(0);
      const log = parseLog(
        readFileSync(
          join(
            sessions,
            readdirSync(sessions).find((f) => f.endsWith(".jsonl"))!,
          ),
          "utf8",
        )
          .split("\n")
          .filter(Boolean),
      ).events;
      // The gate allowed it by the rule (it cannot see inside the Makefile) …
      expect(log.find((e) => e.type === "permission_decision")).toMatchObject({ decision: "allow", by: "rule", rule: "Bash(make:*)" });
      // … the command ran (the plain part worked) …
      expect(readFileSync(join(ws, "out.txt"), "utf8")).toBe("plain\n");
      // … but the secret never reached the model, the hook was not planted and git's config is untouched.
      expect(JSON.stringify(server.requests.map((q) => q.body))).not.toContain(SECRET);
      expect(existsSync(join(ws, ".git/hooks/pre-commit"))).toBe(false);
      expect(readFileSync(join(ws, ".git/config"), "utf8")).not.toContain("fsmonitor");
      expect(existsSync(join(ws, "pwned"))).toBe(false);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("yoke sandbox exec applies the deny rules of --cwd", async () => {
    const { ws } = workspace(id);
    mkdirSync(join(ws, ".claude"), { recursive: true });
    writeFileSync(join(ws, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Read(./secrets/**)"] } }));
    chownTree(ws, id);
    const r = await runCliAs(id, ["sandbox", "exec", "--cwd", ws, "--", "sh", "-c", "cat secrets/key.txt; cat secr*/key.txt; echo end"], { timeoutMs: 60_000 });
    expect(r.stdout).toContain("end");
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  }, 90_000);
});

it("runs as root and as an unprivileged user (or says why it cannot)", () => {
  if (who.missing) console.warn(who.missing);
  expect(who.list.length).toBeGreaterThanOrEqual(1);
});
