/** Processes on the host, as the tests that check for leftovers see them. */
import { readdirSync, readFileSync } from "node:fs";

/** Host pids of live (not zombie) processes whose command line is exactly `argv`. */
export function pidsOf(argv: string[]): number[] {
  const want = argv.join("\0");
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0$/, "");
      const state = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.[0];
      if (cmdline === want && state !== "Z") out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}
