// The parts of verification without a session: settings, the lint output reader, the texts, settling.
import { describe, expect, it } from "vitest";
import { exhaustedText, failureNudge, type CheckRun } from "../../../src/core/verification/check";
import { lintCommandLine, parseLintOutput } from "../../../src/core/verification/lint-command";
import { parseVerificationSettings } from "../../../src/core/verification/settings";
import { waitForQuiet } from "../../../src/core/verification/settle";

describe("verification settings", () => {
  it("reads command and maxReflections (default 3), later layers winning, and says what it ignores", () => {
    const { settings, problems } = parseVerificationSettings([
      { label: "~/.yoke/settings.json", value: { verification: { command: "npm test", maxReflections: 2, lintCommand: "eslint -f unix" } } },
      { label: ".yoke/settings.json", value: { verification: { command: "make check", colour: "red" } } },
    ]);
    expect(settings).toMatchObject({ command: "make check", maxReflections: 2, lintCommand: "eslint -f unix", from: { command: ".yoke/settings.json", maxReflections: "~/.yoke/settings.json" } });
    expect(problems).toEqual(['.yoke/settings.json: "verification.colour" is not a known setting (command, maxReflections, lintCommand, timeoutS); it is ignored']);
    expect(parseVerificationSettings([]).settings.maxReflections).toBe(3);
  });

  it("refuses bad values with a clear problem and caps maxReflections at the loop's limit", () => {
    const bad = parseVerificationSettings([{ label: "s.json", value: { verification: { command: 42, maxReflections: 1.5, timeoutS: -1 } } }]);
    expect(bad.settings.command).toBeUndefined();
    expect(bad.settings.maxReflections).toBe(3);
    expect(bad.problems).toEqual([
      's.json: "verification.command" must be a command line (a string); it is ignored',
      's.json: "verification.maxReflections" must be a whole number from 0 to 3; 3 is used',
      's.json: "verification.timeoutS" must be a positive number of seconds; it is ignored',
    ]);
    const high = parseVerificationSettings([{ label: "s.json", value: { verification: { maxReflections: 10 } } }]);
    expect(high.settings.maxReflections).toBe(3);
    expect(high.problems[0]).toContain('"verification.maxReflections" 10 is above 3');
    expect(parseVerificationSettings([{ label: "s.json", value: { verification: "npm test" } }]).problems[0]).toContain('"verification" must be an object');
    // An empty command in a higher layer turns a lower one off.
    expect(
      parseVerificationSettings([
        { label: "u", value: { verification: { command: "npm test" } } },
        { label: "p", value: { verification: { command: "" } } },
      ]).settings.command,
    ).toBeUndefined();
  });
});

describe("verification settings from a project", () => {
  it("may only lower maxReflections and timeoutS below the user's, and says so", () => {
    const r = parseVerificationSettings([
      { label: "~/.yoke/settings.json", value: { verification: { maxReflections: 1, timeoutS: 60 } } },
      { label: ".yoke/settings.json", project: true, value: { verification: { maxReflections: 3, timeoutS: 3600 } } },
    ]);
    expect(r.settings).toMatchObject({ maxReflections: 1, timeoutS: 60 });
    expect(r.problems).toEqual([
      '.yoke/settings.json: "verification.maxReflections" 3 would raise 1, and a project\'s settings may only lower it; 1 is used',
      '.yoke/settings.json: "verification.timeoutS" 3600 would raise 60, and a project\'s settings may only lower it; 60 is used',
    ]);
    const lower = parseVerificationSettings([
      { label: "u", value: { verification: { maxReflections: 3, timeoutS: 60 } } },
      { label: "p", project: true, value: { verification: { maxReflections: 0, timeoutS: 10 } } },
    ]);
    expect(lower.settings).toMatchObject({ maxReflections: 0, timeoutS: 10 });
    expect(lower.problems).toEqual([]);
  });
});

describe("the lint command's output", () => {
  const root = "/ws";
  const paths = ["/ws/src/a.ts", "/ws/b.py"];
  it("reads the common shapes, only for the files asked about", () => {
    const out = [
      "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "/ws/src/a.ts:5:1: Unexpected console statement. [Warning/no-console]",
      "b.py:10:5: F401 'os' imported but unused",
      "b.py:12: error: Incompatible return value  [return-value]",
      "other.ts:1:1: error: not asked about",
      "\x1b[31msrc/a.ts:9:2: warning: unused variable 'x'\x1b[0m",
      "Found 4 problems.",
    ].join("\n");
    expect(parseLintOutput(out, root, paths)).toEqual([
      { path: "/ws/src/a.ts", line: 3, column: 7, severity: "error", message: "Type 'string' is not assignable to type 'number'.", code: "TS2322" },
      { path: "/ws/src/a.ts", line: 5, column: 1, severity: "warning", message: "Unexpected console statement.", code: "no-console" },
      { path: "/ws/b.py", line: 10, column: 5, severity: "error", message: "'os' imported but unused", code: "F401" },
      { path: "/ws/b.py", line: 12, severity: "error", message: "Incompatible return value  [return-value]" },
      { path: "/ws/src/a.ts", line: 9, column: 2, severity: "warning", message: "unused variable 'x'" },
    ]);
  });

  it("reads eslint's stylish format (a file line, then indented problems)", () => {
    const out = ["/ws/src/a.ts", "  3:7   error    'x' is defined but never used  no-unused-vars", "  4:1   warning  Unexpected console statement  no-console", "", "✖ 2 problems"].join("\n");
    expect(parseLintOutput(out, root, paths)).toEqual([
      { path: "/ws/src/a.ts", line: 3, column: 7, severity: "error", message: "'x' is defined but never used", code: "no-unused-vars" },
      { path: "/ws/src/a.ts", line: 4, column: 1, severity: "warning", message: "Unexpected console statement", code: "no-console" },
    ]);
  });

  it("puts the files where {files} is, shell-quoted, or appends them", () => {
    expect(lintCommandLine("eslint -f unix {files} --max-warnings 0", root, ["/ws/src/a b.ts"])).toBe("eslint -f unix 'src/a b.ts' --max-warnings 0");
    expect(lintCommandLine("ruff check", root, ["/ws/b.py", "/ws/$(x).py"])).toBe("ruff check b.py '$(x).py'");
  });
});

describe("what the model and the user are told about the check", () => {
  const run: CheckRun = {
    command: "npm test",
    status: "failed",
    id: "c4",
    logPath: "/logs/c4.log",
    output: "FAIL test/a.test.ts\nexpected 1 to be 2",
    snippet: "expected 1 to be 2",
    durationMs: 1200,
    result: { exitCode: 1, signal: null, timedOut: false, cancelled: false, durationMs: 1200 },
  };
  it("the nudge names the check, the attempt and the output, and forbids gaming the check", () => {
    expect(failureNudge(run, 1, 3)).toBe(
      [
        "The check `npm test` (verification.command, run in the sandbox before you may finish) failed: exit code 1 after 1.2 s. You are not done yet.",
        "Find the cause in its output, fix it, and finish again. The check runs again when you finish (attempt 1 of 3; after 3 failed attempts the user decides how to go on). Do not change or skip the check itself to make it pass.",
        "",
        'Output of command c4 (read all of it with command_output {"id":"c4"}):',
        "FAIL test/a.test.ts\nexpected 1 to be 2",
      ].join("\n"),
    );
    expect(failureNudge({ ...run, result: { ...run.result!, timedOut: true } }, 3, 3)).toContain("failed: stopped after 1.2 s: it did not finish within its timeout. You are not done yet.");
    expect(failureNudge(run, 3, 3)).toContain("This was the last attempt (3 of 3): if the check fails again, the user decides how to go on.");
  });
  it("the stop names the check, the attempts and where the last output is", () => {
    expect(exhaustedText(run, 3)).toBe(
      "The check `npm test` (verification.command) still fails after 3 attempts to fix it, so Yoke stopped the agent: last run exit code 1 after 1.2 s (command c4, full output in /logs/c4.log). Decide how to go on: send a message to let the agent try again, fix it yourself, or change verification.command.",
    );
    expect(exhaustedText(run, 0)).toContain("verification.maxReflections is 0, so it was not sent back to the model");
  });
});

describe("waiting for reports to settle", () => {
  it("ends a quiet period after the last report, not at a fixed delay", async () => {
    let fire: () => void = () => {};
    const waiting = waitForQuiet(
      (on) => {
        fire = on;
        return { dispose: () => (fire = () => {}) };
      },
      { quietMs: 60, firstMs: 1000, maxMs: 3000 },
    );
    setTimeout(() => fire(), 20);
    setTimeout(() => fire(), 50);
    const r = await waiting;
    expect(r).toMatchObject({ outcome: "quiet", reports: 2 });
    expect(r.waitedMs).toBeGreaterThanOrEqual(100);
    expect(r.waitedMs).toBeLessThan(900);
  });
  it("gives up after firstMs without a report, and at maxMs under a stream of reports", async () => {
    expect((await waitForQuiet(() => ({ dispose() {} }), { quietMs: 50, firstMs: 80, maxMs: 1000 })).outcome).toBe("no-report");
    let timer: ReturnType<typeof setInterval> | undefined;
    const r = await waitForQuiet(
      (on) => {
        timer = setInterval(on, 10);
        return { dispose: () => clearInterval(timer) };
      },
      { quietMs: 50, firstMs: 80, maxMs: 200 },
    );
    expect(r.outcome).toBe("max");
  });
});
