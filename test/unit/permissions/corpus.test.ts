/**
 * Runs every case of test/fixtures/permissions-corpus.json through the CLI code path
 * (`yoke permissions check --json`) in a fresh temporary workspace and requires 100% agreement.
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { permissionsCommand } from "../../../src/cli/commands/permissions";
import corpus from "../../fixtures/permissions-corpus.json";

interface Case {
  id: string;
  category: string;
  tool: string;
  input: Record<string, unknown>;
  mode?: string;
  settings?: unknown;
  sources?: Record<string, unknown>;
  expect: { decision: string; rule: string | null };
  note?: string;
}

const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-corpus-")));
const home = join(root, "home");
const out = join(root, "outside");
for (const f of corpus.workspace.home) write(join(home, f), "x\n");
for (const f of corpus.workspace.outside) write(join(out, f), "x\n");

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function substitute<T>(value: T, ws: string): T {
  const s = JSON.stringify(value)
    .replaceAll("$WS", ws)
    .replaceAll("$HOME", home)
    .replaceAll("$OUTREL", out.slice(1))
    .replaceAll("$OUT", out);
  return JSON.parse(s) as T;
}

let made = 0;
function makeWorkspace(id: string): string {
  const ws = join(root, `ws-${id}-${made++}`);
  for (const f of corpus.workspace.files) write(join(ws, f), "x\n");
  for (const [link, target] of Object.entries(corpus.workspace.symlinks)) {
    mkdirSync(dirname(join(ws, link)), { recursive: true });
    symlinkSync(substitute(target, ws), join(ws, link));
  }
  return ws;
}

async function runCase(c: Case): Promise<{ decision: string; rule: string | null; reason: string; stderr: string }> {
  const ws = makeWorkspace(c.id);
  const argv = ["check", "--tool", c.tool, "--input", JSON.stringify(substitute(c.input, ws)), "--cwd", ws, "--home", home, "--json"];
  if (c.mode) argv.push("--mode", c.mode);
  const settings = c.settings === undefined ? corpus.standardSettings : c.settings;
  if (settings !== null) {
    const file = join(root, `settings-${c.id}.json`);
    write(file, JSON.stringify(substitute(settings, ws)));
    argv.push("--settings", file);
  }
  for (const [rel, content] of Object.entries(c.sources ?? {})) {
    const path = rel.startsWith("$HOME/") ? join(home, rel.slice(6)) : join(ws, rel);
    write(path, typeof content === "string" ? content : JSON.stringify(content));
  }
  let stdout = "";
  let stderr = "";
  const code = await permissionsCommand(argv, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  if (c.sources) for (const rel of Object.keys(c.sources)) if (rel.startsWith("$HOME/")) write(join(home, rel.slice(6)), "{}");
  expect(code).toBe(0);
  return { ...(JSON.parse(stdout) as { decision: string; rule: string | null; reason: string }), stderr };
}

describe("permissions corpus", () => {
  const cases = corpus.cases as Case[];

  it("has at least 150 cases with unique ids", () => {
    expect(cases.length).toBeGreaterThanOrEqual(150);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
  });

  it("agrees with every expected decision and rule (100%)", async () => {
    const failures: string[] = [];
    const byCategory = new Map<string, { total: number; ok: number }>();
    for (const c of cases) {
      const got = await runCase(c);
      const want = substitute(c.expect, "");
      const stat = byCategory.get(c.category) ?? { total: 0, ok: 0 };
      stat.total++;
      if (got.decision === want.decision && got.rule === want.rule) stat.ok++;
      else failures.push(`${c.id} [${c.category}] ${c.tool} ${JSON.stringify(c.input)} mode=${c.mode}: expected ${want.decision} ${want.rule}, got ${got.decision} ${got.rule} — ${got.reason}`);
      byCategory.set(c.category, stat);
    }
    const summary = [...byCategory].map(([k, v]) => `${k}: ${v.ok}/${v.total}`).join("\n");
    expect(failures, `${summary}\n\n${failures.join("\n")}`).toEqual([]);
  }, 120_000);

  it("warns about a malformed settings file, naming the file and position", async () => {
    const c = cases.find((x) => x.note?.startsWith("malformed file"))!;
    const got = await runCase(c);
    expect(got.stderr).toMatch(/warning: .*\.claude\/settings\.json:1:47: invalid JSON, unexpected "\}" .*; the file is ignored until it is fixed \(its rules do not apply\)/);
  });
});
