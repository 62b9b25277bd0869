/**
 * The differential checker (src/bench/diffcheck) on a bounded slice: generated command lines (fixed
 * seed) and a sample of the corpora's Bash cases, each run with real bash under strace in a
 * throwaway bwrap sandbox and compared with the gate's prediction and verdicts (4 rule sets × 4
 * modes). Fails on any bypass-class disagreement. Controls first: a gate planted with a wrong
 * prediction or verdict must be caught (exec, write and read tracing each), and a clean command
 * must trace its real programs with no disagreement — so a broken tracer cannot pass silently.
 * Then the same checker under each identity (root and the unprivileged yoke-sectest) and each
 * backend (bwrap, firejail): the traced command runs as that user in that sandbox (shown by its
 * own `id -u` and the owner of the file it creates), a planted wrong verdict is still caught, and a
 * smaller slice finds no bypass.
 * The long run: `node scripts/diffcheck.mjs --count 5000 --corpora [--backend firejail] [--user]` / `yoke bench --only diffcheck`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChecker, defaultRuleSets, loadAttackFixture, type Checker } from "../../src/bench/diffcheck/check";
import { corpusInputs, formatBypass, formatReport, runDiffcheck } from "../../src/bench/diffcheck/index";
import { createDiffRunner, type DiffBackend, type RunIdentity } from "../../src/bench/diffcheck/runner";
import { identities } from "../support/identities";

/** Generated inputs in the slice and corpus cases sampled (every k-th, fixed). */
const GENERATED = 120;
const CORPUS_SAMPLE = 40;
const SEED = 20261203;

for (const tool of ["strace", "bwrap", "firejail"]) {
  // Installed by scripts/setup-e2e.sh; a missing tool is a failure, not a skip.
  execFileSync("sh", ["-c", `command -v ${tool}`]);
}

describe("differential checker: controls", () => {
  let checker: Checker;
  const { spec, standard } = loadAttackFixture();
  beforeAll(() => {
    checker = createChecker({ spec, ruleSets: defaultRuleSets(standard) });
  });
  afterAll(() => checker?.dispose());

  it("a clean read-only command: the trace sees both programs, the gate predicted both, no disagreement", async () => {
    checker.tamper = undefined;
    const r = await checker.check("ls src; cat README.md", "clean");
    expect(r.error).toBeUndefined();
    expect(r.execs).toBe(2);
    expect(r.prediction?.programs).toEqual(["cat", "ls"]);
    expect(r.verdicts.find((v) => v.ruleSet === "no rules" && v.mode === "default")).toMatchObject({ decision: "allow", readOnly: true });
    expect(r.disagreements).toEqual([]);
  });

  it("a planted prediction that forgets a program is caught (exec not predicted)", async () => {
    checker.tamper = { prediction: (_c, p) => ({ ...p, programs: p.programs.filter((x) => x !== "cat"), parts: p.parts.map((x) => ({ ...x, programs: x.programs.filter((y) => y !== "cat") })) }) };
    const r = await checker.check("ls src; cat README.md", "planted-exec");
    const found = r.disagreements.filter((d) => d.severity === "bypass" && d.class === "exec not predicted");
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]!.detail).toContain("/usr/bin/cat");
  });

  it("a planted read-only verdict on a command that writes is caught (read-only command wrote), and the file was really written in the copy only", async () => {
    checker.tamper = { decision: (_c, d) => ({ ...d, decision: "allow", confine: { readOnly: true } }) };
    const r = await checker.check("touch pwned", "planted-write");
    const found = r.disagreements.filter((d) => d.severity === "bypass" && d.class === "read-only command wrote");
    expect(found.map((d) => d.detail)).toContain("touch openat pwned");
    expect(new Set(found.map((d) => `${d.ruleSet}/${d.mode}`)).size).toBe(16);
  });

  it("a planted allow on a denied read is caught (read of denied path) under the deny rule only", async () => {
    checker.tamper = { decision: (_c, d) => ({ ...d, decision: "allow", by: "mode", rule: null }) };
    const r = await checker.check("cat .env", "planted-read");
    const found = r.disagreements.filter((d) => d.severity === "bypass" && d.class === "read of denied path");
    expect(new Set(found.map((d) => d.ruleSet))).toEqual(new Set(["deny rm + .env", "attack fixture rules"]));
    expect(found[0]!.detail).toBe("cat read .env");
  });

  it("git rewriting a tracked protected file (.yoke/settings.json) it was not seen to write is held by Yoke's sandbox: informational, not a bypass — and under a planted read-only verdict it still counts", async () => {
    checker.tamper = undefined;
    const r = await checker.check("git checkout-index -f -a", "held-protected");
    expect(r.error).toBeUndefined();
    expect(r.disagreements.filter((d) => d.severity === "bypass")).toEqual([]);
    expect(r.disagreements.some((d) => d.class === "write not predicted" && d.detail.includes(".yoke/settings.json") && d.detail.includes("read-only in Yoke's sandbox"))).toBe(true);
    checker.tamper = { decision: (_c, d) => ({ ...d, decision: "allow", confine: { readOnly: true } }) };
    const planted = await checker.check("git checkout-index -f -a", "held-protected-planted");
    expect(planted.disagreements.some((d) => d.severity === "bypass" && d.class === "read-only command wrote" && d.detail.includes(".yoke/settings.json"))).toBe(true);
  });

  it("a planted allow on a denied program is caught (denied program ran), and the sandbox kept the real tree safe", async () => {
    checker.tamper = { decision: (_c, d) => ({ ...d, decision: "allow", by: "mode", rule: null }) };
    const r = await checker.check("rm -rf / 2>/dev/null; rm -f src/a.ts", "planted-rm");
    const found = r.disagreements.filter((d) => d.severity === "bypass" && d.class === "denied program ran");
    expect(found.some((d) => d.detail.startsWith("rm -f src/a.ts ran"))).toBe(true);
    // `rm -rf /` ran inside the sandbox: the repository is still here.
    expect(execFileSync("git", ["rev-parse", "--is-inside-work-tree"], { encoding: "utf8" }).trim()).toBe("true");
  });
});

/**
 * The corpora for the bounded slices: the ordinary-work corpus is left to the long run
 * (`--corpora --corpus-filter ordinary`, docs/benchmarks.md), because some of its commands write
 * what the docs leave to the sandbox (git bisect, git clean, git revert: the gate does not name
 * those writes), which the checker counts; its decisions are tested in ordinary-corpus.test.ts.
 */
const slicedCorpus = () => corpusInputs().filter((c) => !c.id.startsWith("ordinary:"));

describe("differential checker: bounded slice", () => {
  it(`${GENERATED} generated inputs (seed ${SEED}) and ${CORPUS_SAMPLE} corpus cases: no bypass-class disagreement`, { timeout: 300_000 }, async () => {
    const corpus = slicedCorpus();
    const step = Math.max(1, Math.floor(corpus.length / CORPUS_SAMPLE));
    const sample = new Set(
      corpus
        .filter((_, i) => i % step === 0)
        .slice(0, CORPUS_SAMPLE)
        .map((c) => c.id),
    );
    const report = await runDiffcheck({ seed: SEED, count: GENERATED, corpora: true, corpusFilter: (c) => sample.has(c.id), concurrency: 3 });
    const text = formatReport(report);
    expect(report.inputs, text).toBe(GENERATED + sample.size);
    expect(report.errors, text).toEqual([]);
    // The runs did something observable (a tracer that sees nothing would pass the comparison).
    expect(report.execs, text).toBeGreaterThan(GENERATED / 2);
    expect(report.writes, text).toBeGreaterThan(GENERATED / 10);
    expect(
      report.bypasses.map((b) => formatBypass(b).join("\n")),
      text,
    ).toEqual([]);
  });
});

/** The identity a traced run has: undefined for this process's own user. */
function runIdentity(label: "root" | "user"): RunIdentity | undefined {
  const who = identities().list.find((i) => i.label === label);
  if (!who || who.uid === process.getuid?.()) return undefined;
  return { name: who.name, uid: who.uid, gid: who.gid };
}

const { list: IDENTITIES, missing } = identities();
if (missing) process.stderr.write(`[diffcheck] ${missing}\n`);

describe.each(IDENTITIES.flatMap((who) => (["bwrap", "firejail"] as DiffBackend[]).map((backend) => ({ who: who.label, uid: who.uid, backend }))))(
  "differential checker as $who under $backend",
  ({ who, uid, backend }) => {
    const identity = runIdentity(who);

    it("the traced command runs as that user inside that sandbox; the trace sees it; the real tree is untouched", async () => {
      const { spec } = loadAttackFixture();
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-diffcheck-id-")));
      const runner = createDiffRunner(spec, dir, { backend, identity });
      try {
        const s = runner.scratch("who");
        const run = await runner.run("id -u; touch made-here; rm -rf / 2>/dev/null; echo done", s, 20_000);
        expect(run.rootPid, run.stderr).toBeDefined();
        expect(run.stdout.split("\n")).toContain(String(uid));
        expect(run.stdout).toContain("done");
        // The file was made in the copy, by that user.
        expect(statSync(join(s.ws, "made-here")).uid).toBe(uid);
        const execs = run.events.filter((e) => e.kind === "exec").map((e) => (e.kind === "exec" ? e.path : ""));
        expect(execs).toEqual(expect.arrayContaining(["/usr/bin/id", "/usr/bin/touch", "/usr/bin/rm"]));
        expect(run.events.some((e) => e.kind === "write" && e.paths.includes(join(s.ws, "made-here")))).toBe(true);
        // `rm -rf /` ran in the sandbox: the workspace copy's files and this repository are still here.
        expect(statSync(join(s.ws, "src", "a.ts")).isFile()).toBe(true);
        expect(execFileSync("git", ["rev-parse", "--is-inside-work-tree"], { encoding: "utf8" }).trim()).toBe("true");
      } finally {
        runner.dispose();
      }
    });

    it("a planted read-only verdict on a command that writes is caught, and a denied program that ran is caught", async () => {
      const { spec, standard } = loadAttackFixture();
      const checker = createChecker({ spec, ruleSets: defaultRuleSets(standard), backend, identity, timeoutMs: 20_000 });
      try {
        checker.tamper = { decision: (_c, d) => ({ ...d, decision: "allow", confine: { readOnly: true } }) };
        const w = await checker.check("touch pwned", "planted-write");
        expect(w.error).toBeUndefined();
        expect(w.disagreements.filter((d) => d.severity === "bypass" && d.class === "read-only command wrote").map((d) => d.detail)).toContain("touch openat pwned");
        checker.tamper = { decision: (_c, d) => ({ ...d, decision: "allow", by: "mode", rule: null }) };
        const r = await checker.check("rm -f src/a.ts", "planted-rm");
        expect(r.disagreements.some((d) => d.severity === "bypass" && d.class === "denied program ran" && d.detail.startsWith("rm -f src/a.ts ran"))).toBe(true);
        checker.tamper = undefined;
        const clean = await checker.check("ls src; cat README.md", "clean");
        expect(clean.execs).toBe(2);
        expect(clean.disagreements).toEqual([]);
      } finally {
        checker.dispose();
      }
    });

    // (Root under bwrap runs the larger slice above.)
    if (!(who === "root" && backend === "bwrap"))
      it("a slice of generated inputs and corpus cases: no bypass-class disagreement", { timeout: 300_000 }, async () => {
        const corpus = slicedCorpus();
        const step = Math.max(1, Math.floor(corpus.length / 6));
        const sample = new Set(
          corpus
            .filter((_, i) => i % step === 3)
            .slice(0, 6)
            .map((c) => c.id),
        );
        const report = await runDiffcheck({ seed: SEED + 1, count: 20, corpora: true, corpusFilter: (c) => sample.has(c.id), concurrency: 3, backend, identity, timeoutMs: 10_000 });
        const text = formatReport(report);
        expect(report.backend).toBe(backend);
        expect(report.inputs, text).toBe(20 + sample.size);
        expect(report.errors, text).toEqual([]);
        expect(report.execs, text).toBeGreaterThan(10);
        expect(report.writes, text).toBeGreaterThan(3);
        expect(
          report.bypasses.map((b) => formatBypass(b).join("\n")),
          text,
        ).toEqual([]);
      });
  },
);
