/**
 * The differential checker: for one command line, the gate's prediction and verdicts (several rule
 * sets × every mode) against a traced run with real bash in a throwaway sandbox.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PermissionDecision, PermissionMode } from "../../core/loop/types";
import type { BashPrediction } from "../../core/permissions/bash-prediction";
import { createPermissionGate, type YokePermissionGate } from "../../core/permissions/gate";
import { nodeListDir, nodeRealPath } from "../../node/settings-files";
import { loadShellWasm } from "../../node/tree-sitter-wasm";
import { compareRun, realDirWith, type Disagreement, type Verdict } from "./compare";
import { createDiffRunner, type DiffBackend, type FixtureSpec, type RunIdentity, type Scratch } from "./runner";

export interface RuleSet {
  name: string;
  permissions: { allow?: string[]; deny?: string[]; ask?: string[] };
}

export const MODES: PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions"];

/** The fixture and standard rules of test/fixtures/permissions-attacks.json. */
export function loadAttackFixture(repoRoot = process.cwd()): { spec: FixtureSpec; standard: RuleSet["permissions"] } {
  const doc = JSON.parse(readFileSync(join(repoRoot, "test", "fixtures", "permissions-attacks.json"), "utf8")) as {
    workspace: FixtureSpec;
    standardSettings: { permissions: RuleSet["permissions"] };
  };
  return { spec: doc.workspace, standard: doc.standardSettings.permissions };
}

export function defaultRuleSets(standard: RuleSet["permissions"]): RuleSet[] {
  return [
    { name: "no rules", permissions: {} },
    { name: "deny rm + .env", permissions: { deny: ["Bash(rm:*)", "Read(**/.env)"] } },
    // Rules on options and values, which the commands spell another way (`rm --interactive=never`, `chmod -R 0777`, `kill -s KILL`).
    { name: "deny spelled values", permissions: { deny: ["Bash(rm -f:*)", "Bash(chmod -R 777:*)", "Bash(kill -9:*)", "Bash(git push --force:*)"] } },
    { name: "attack fixture rules", permissions: standard },
  ];
}

export interface CheckResult {
  id: string;
  command: string;
  /** The files planted before the gate looked (a setup script), if any. */
  plant?: string;
  prediction?: BashPrediction;
  verdicts: Array<{ ruleSet: string; mode: PermissionMode; decision: PermissionDecision["decision"]; readOnly: boolean; reason: string }>;
  disagreements: Disagreement[];
  execs: number;
  writes: number;
  /** Connection attempts (Unix socket paths, internet addresses) the trace saw. */
  connects: number;
  /** Traced events per system call (the oracle's coverage: which calls the inputs made it see). */
  calls: Record<string, number>;
  timedOut: boolean;
  /** The trace held no run of the command (strace or bwrap failed): the result proves nothing. */
  error?: string;
  /** Lines of the trace the parser did not understand. */
  unparsed: number;
}

export interface Checker {
  /** `plant`: a script run in the copy before the gate looks (files an earlier command made). */
  check(command: string, id?: string, plant?: string): Promise<CheckResult>;
  /**
   * Plants a wrong gate (the controls that show the checker catches a wrong analysis): replaces the
   * prediction or a verdict before the comparison.
   */
  tamper?: { prediction?: (command: string, p: BashPrediction) => BashPrediction; decision?: (command: string, d: PermissionDecision) => PermissionDecision };
  /** Milliseconds spent copying fixtures, asking the gate and running traced commands. */
  timing: { scratch: number; gate: number; run: number };
  dispose(): void;
}

export interface CheckerOptions {
  spec: FixtureSpec;
  ruleSets: RuleSet[];
  modes?: PermissionMode[];
  timeoutMs?: number;
  keep?: boolean;
  /** The sandbox the traced runs happen in (default bwrap). */
  backend?: DiffBackend;
  /** Runs the traced commands as this user (this process runs as root). */
  identity?: RunIdentity;
}

const SYSTEM_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/**
 * The names an executed file answers to besides its own: the program a symlink resolves to, and a denied
 * program whose bytes it carries (a copy under another name). Deny rules name programs; `ln -s /usr/bin/rm x;
 * ./x -rf src` and `cp /usr/bin/rm x; ./x …` run rm all the same.
 */
export function programAliases(deniedNames: readonly string[]): (path: string) => string[] {
  const digest = (p: string): string | undefined => {
    try {
      const st = statSync(p);
      if (!st.isFile() || st.size > 64 * 1024 * 1024) return undefined;
      return `${st.size}:${createHash("sha256").update(readFileSync(p)).digest("hex")}`;
    } catch {
      return undefined;
    }
  };
  let denied: Map<string, string> | undefined;
  const deniedDigests = () => {
    if (!denied) {
      denied = new Map();
      for (const name of new Set(deniedNames)) {
        for (const dir of SYSTEM_PATH) {
          const d = digest(`${dir}/${name}`);
          if (d && !denied.has(d)) denied.set(d, name);
        }
      }
    }
    return denied;
  };
  return (path) => {
    const out: string[] = [];
    try {
      const real = realpathSync(path);
      out.push(real.slice(real.lastIndexOf("/") + 1));
    } catch {
      // The file is gone (removed by the command): its own name is all there is.
    }
    const d = digest(path);
    const name = d === undefined ? undefined : deniedDigests().get(d);
    if (name) out.push(name);
    return out;
  };
}

export function createChecker(opts: CheckerOptions): Checker {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-diffcheck-")));
  const runner = createDiffRunner(opts.spec, dir, { backend: opts.backend, identity: opts.identity });
  const modes = opts.modes ?? MODES;
  let n = 0;
  const timing = { scratch: 0, gate: 0, run: 0 };
  const aliasesOf = programAliases(opts.ruleSets.flatMap((rs) => (rs.permissions.deny ?? []).map((r) => /^Bash\(\s*([^\s:*()]+)/.exec(r)?.[1]).filter((n): n is string => !!n && !n.includes("/"))));
  const gateFor = (s: Scratch, rs: RuleSet): YokePermissionGate =>
    createPermissionGate({
      cwd: s.ws,
      home: s.home,
      realPath: nodeRealPath,
      listDir: nodeListDir,
      loadSources: async () => [{ info: { kind: "extra", label: `diffcheck: ${rs.name}`, baseDir: s.ws }, value: { permissions: rs.permissions } }],
      shellWasm: () => loadShellWasm(),
    });
  const checker: Checker = {
    timing,
    async check(command, id = String(n), plant) {
      n++;
      const t0 = performance.now();
      const s = runner.scratch(id);
      if (plant) {
        try {
          runner.prepare(s, plant);
        } catch (err) {
          runner.discard(s);
          return {
            id,
            command,
            plant,
            verdicts: [],
            disagreements: [],
            execs: 0,
            writes: 0,
            connects: 0,
            calls: {},
            timedOut: false,
            unparsed: 0,
            error: err instanceof Error ? err.message : String(err),
          };
        }
      }
      timing.scratch += performance.now() - t0;
      const tg = performance.now();
      const gates = opts.ruleSets.map((rs) => ({ rs, gate: gateFor(s, rs) }));
      // The gate looks at the workspace before the command changes it.
      let prediction = await gates[0]!.gate.predictBash(command);
      if (checker.tamper?.prediction) prediction = checker.tamper.prediction(command, prediction);
      const verdicts: Verdict[] = [];
      for (const { rs, gate } of gates) {
        for (const mode of modes) {
          let decision = await gate.check({ tool: "run_command", permission: "Bash", input: { command }, mutates: true }, mode);
          if (checker.tamper?.decision) decision = checker.tamper.decision(command, decision);
          const cache = new Map<string, Promise<Pick<PermissionDecision, "decision" | "by">>>();
          verdicts.push({
            ruleSet: rs.name,
            mode,
            decision,
            bashDeny: (rs.permissions.deny ?? []).filter((r) => r.startsWith("Bash(")),
            bashAllow: (rs.permissions.allow ?? []).filter((r) => r.startsWith("Bash(")),
            fileVerdict: (permission, path) => {
              const key = `${permission}\0${path}`;
              let v = cache.get(key);
              if (!v) cache.set(key, (v = gate.check({ tool: permission === "Read" ? "read_file" : "write_file", permission, input: { file_path: path }, mutates: permission !== "Read" }, mode)));
              return v;
            },
          });
        }
      }
      timing.gate += performance.now() - tg;
      const t1 = performance.now();
      const run = await runner.run(command, s, opts.timeoutMs ?? 5000);
      timing.run += performance.now() - t1;
      const result: CheckResult = {
        id,
        command,
        ...(plant ? { plant } : {}),
        prediction,
        verdicts: verdicts.map((v) => ({ ruleSet: v.ruleSet, mode: v.mode, decision: v.decision.decision, readOnly: !!v.decision.confine?.readOnly, reason: v.decision.reason })),
        disagreements: [],
        execs: run.events.filter((e) => e.kind === "exec").length,
        writes: run.events.filter((e) => e.kind === "write").length,
        connects: run.events.filter((e) => e.kind === "connect").length,
        calls: run.events.reduce<Record<string, number>>((acc, e) => {
          const call = e.kind === "exec" ? "execve" : e.call;
          acc[call] = (acc[call] ?? 0) + 1;
          return acc;
        }, {}),
        timedOut: run.timedOut,
        unparsed: run.trace.unparsed.length,
      };
      if (run.rootPid === undefined) {
        result.error = `the trace holds no run of the command (exit ${run.exitCode}${run.timedOut ? ", timed out" : ""}): ${run.stderr.slice(0, 300)}`;
      } else {
        const realpath = (p: string) => {
          try {
            return realpathSync(p);
          } catch {
            return undefined;
          }
        };
        const found = await compareRun({ command, prediction, verdicts, events: run.events, parent: run.trace.parent, watched: [s.root], realDir: realDirWith(realpath), workspace: s.ws, aliasesOf });
        const seen = new Set<string>();
        for (const d of found) {
          const key = `${d.class}\0${d.severity}\0${d.ruleSet}\0${d.mode}\0${d.detail}`;
          if (!seen.has(key)) {
            seen.add(key);
            result.disagreements.push(d.detail.includes(s.root) ? { ...d, detail: d.detail.replaceAll(`${s.ws}/`, "").replaceAll(s.root, "$ROOT") } : d);
          }
        }
      }
      if (!opts.keep) runner.discard(s);
      return result;
    },
    dispose() {
      runner.dispose();
    },
  };
  return checker;
}

/** A line that reproduces one input: `node scripts/diffcheck.mjs --command '…'`. */
export function reproLine(command: string, plant?: string): string {
  return `node scripts/diffcheck.mjs${plant ? ` --plant ${shellQuote(plant)}` : ""} --command ${shellQuote(command)}`;
}

export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}
