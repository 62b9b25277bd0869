/**
 * Runs test/fixtures/permissions-corpus.json through the check behind `yoke permissions check
 * --json` (src/node/permission-check.ts: the folder's settings files, the gate, the JSON the CLI
 * prints), each case in a fresh temporary workspace with real files and symlinks. Used by the corpus
 * test and by `yoke bench`; test/unit/permissions/cli.test.ts runs the command itself.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { PermissionMode } from "../core/loop/types";
import { checkPermission, decisionJson } from "../node/permission-check";

export interface PermissionCase {
  id: string;
  category: string;
  tool: string;
  input: Record<string, unknown>;
  mode?: string;
  settings?: unknown;
  sources?: Record<string, unknown>;
  expect: { decision: string; rule: string | null; confine?: { readOnly?: boolean; writable?: string[]; gitLinked?: boolean } };
  note?: string;
}

export interface PermissionCorpus {
  workspace: { files: string[]; symlinks: Record<string, string>; home: string[]; outside: string[] };
  standardSettings: unknown;
  cases: PermissionCase[];
}

export interface CaseOutcome {
  decision: string;
  rule: string | null;
  reason: string;
  stderr: string;
  exitCode: number;
  /** How the sandbox must confine the command (PermissionDecision.confine). */
  confine?: { readOnly?: boolean; writable?: string[] };
  /** The expectation with placeholders filled in. */
  expected: PermissionCase["expect"];
  agrees: boolean;
}

export function loadPermissionCorpus(path = join(process.cwd(), "test", "fixtures", "permissions-corpus.json")): PermissionCorpus {
  return JSON.parse(readFileSync(path, "utf8")) as PermissionCorpus;
}

/** A folder tree (home, outside) shared by the cases; each case gets its own workspace in it. */
export function createCorpusRunner(corpus: PermissionCorpus) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-corpus-")));
  const home = join(root, "home");
  const out = join(root, "outside");
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  for (const f of corpus.workspace.home) write(join(home, f), "x\n");
  for (const f of corpus.workspace.outside) write(join(out, f), "x\n");
  let made = 0;

  const substitute = <T>(value: T, ws: string): T => JSON.parse(JSON.stringify(value).replaceAll("$WS", ws).replaceAll("$HOME", home).replaceAll("$OUTREL", out.slice(1)).replaceAll("$OUT", out)) as T;

  const makeWorkspace = (id: string) => {
    const ws = join(root, `ws-${id}-${made++}`);
    // Placeholder content; a settings file gets an empty object (an unreadable one would make every tool ask).
    for (const f of corpus.workspace.files) write(join(ws, f), f.endsWith(".json") ? "{}\n" : "x\n");
    for (const [link, target] of Object.entries(corpus.workspace.symlinks)) {
      mkdirSync(dirname(join(ws, link)), { recursive: true });
      symlinkSync(substitute(target, ws), join(ws, link));
    }
    return ws;
  };

  return {
    root,
    async run(c: PermissionCase): Promise<CaseOutcome> {
      const ws = makeWorkspace(c.id);
      const settings = c.settings === undefined ? corpus.standardSettings : c.settings;
      let settingsFile: string | undefined;
      if (settings !== null) {
        settingsFile = join(root, `settings-${c.id}-${made}.json`);
        write(settingsFile, JSON.stringify(substitute(settings, ws)));
      }
      const homeFiles: string[] = [];
      for (const [rel, content] of Object.entries(c.sources ?? {})) {
        const path = rel.startsWith("$HOME/") ? join(home, rel.slice(6)) : join(ws, rel);
        if (rel.startsWith("$HOME/")) homeFiles.push(path);
        write(path, typeof content === "string" ? content : JSON.stringify(content));
      }
      try {
        const result = await checkPermission({
          tool: c.tool,
          input: substitute(c.input, ws),
          cwd: ws,
          home,
          ...(c.mode ? { mode: c.mode as PermissionMode } : {}),
          ...(settingsFile ? { settings: [settingsFile] } : {}),
          trusted: true,
        });
        const got = decisionJson(result);
        const stderr = result.problems.map((p) => `warning: ${p}\n`).join("");
        const exitCode = 0;
        const expected = substitute(c.expect, ws);
        const confineAgrees =
          expected.confine === undefined ||
          (!!expected.confine.readOnly === !!got.confine?.readOnly &&
            JSON.stringify([...(expected.confine.writable ?? [])].sort()) === JSON.stringify([...(got.confine?.writable ?? [])].sort()) &&
            // The git door (confine.gitLinked), where the case names it.
            (expected.confine.gitLinked === undefined || expected.confine.gitLinked === !!got.confine?.gitLinked));
        return { ...got, stderr, exitCode, expected, agrees: got.decision === expected.decision && got.rule === expected.rule && confineAgrees };
      } finally {
        for (const f of homeFiles) rmSync(f, { force: true });
      }
    },
    dispose() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
