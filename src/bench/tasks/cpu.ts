/**
 * CPU time of the bench process and of the children it has waited for (RUSAGE_CHILDREN: every
 * `yoke run`, and what each ran once reaped, and the checks' test runs), for figures that a
 * machine shared with others does not distort the way wall time is distorted.
 */
import { readFileSync } from "node:fs";

export interface CpuSample {
  /** This process: user + system, ms. */
  selfMs: number;
  /** Children waited for (and theirs), ms; undefined where /proc/self/stat is missing. */
  childrenMs: number | undefined;
}

/** USER_HZ: 100 on every Linux that Node runs on. */
const USER_HZ = 100;

function childrenMs(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 16 and 17 of stat(5) (cutime, cstime), counted from the state field (3).
    return ((Number(f[13]) + Number(f[14])) * 1000) / USER_HZ;
  } catch {
    return undefined;
  }
}

export function cpuNow(): CpuSample {
  const u = process.cpuUsage();
  return { selfMs: (u.user + u.system) / 1000, childrenMs: childrenMs() };
}

/** b − a, in ms (children: undefined when not known). */
export function cpuSince(a: CpuSample, b: CpuSample = cpuNow()): CpuSample {
  return { selfMs: b.selfMs - a.selfMs, childrenMs: a.childrenMs === undefined || b.childrenMs === undefined ? undefined : b.childrenMs - a.childrenMs };
}
