/**
 * What the differential checker's generator reaches (issue 18, session 24, red team I): every bash
 * construct of coverage.ts's list, most programs of the gate's tables, and an oracle that asks strace
 * for every system call that runs a program or changes a file or its metadata (those it cannot trace
 * are named, with why, in coverage.ts). Generation only: no traced run.
 */
import { describe, expect, it } from "vitest";
import { EFFECT_CALLS, measureCoverage } from "../../../src/bench/diffcheck/coverage";
import { generate } from "../../../src/bench/diffcheck/generator";
import { TRACED_CALLS } from "../../../src/bench/diffcheck/trace";

describe("differential checker coverage", () => {
  const c = measureCoverage(generate(24, 3000));

  it("3000 generated inputs reach every construct of the list, and most programs of the gate's tables", () => {
    expect(c.constructs.filter((x) => x.inputs === 0).map((x) => x.name)).toEqual([]);
    expect(c.programs.reached / c.programs.listed).toBeGreaterThan(0.65);
    for (const s of c.spellings.filter((x) => x.name !== "-o- / option-looking value")) expect(s.inputs, s.name).toBeGreaterThan(0);
  });

  it("the oracle traces every system call that runs a program or changes a file, but the five it cannot", () => {
    expect(c.calls.untraced).toEqual(["io_uring_enter", "ioctl", "mount", "open_by_handle_at", "fchmodat2"]);
    for (const call of ["chown", "fchownat", "setxattr", "utimes", "bind", "connect", "execveat", "renameat2"]) expect(TRACED_CALLS).toContain(call);
    expect(EFFECT_CALLS.length).toBe(46);
  });
});
