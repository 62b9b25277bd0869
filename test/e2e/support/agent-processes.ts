// The "no agent process left behind" check of the background-agent e2e tests.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * Live (not zombie) processes of ONE test — its command line, working folder or HOME under the
 * test's own temporary folder `root` — whose environment carries a background agent's marker, or
 * whose command line runs yoke's agents. Another test run on the machine (a unit suite beside the
 * e2e run) is not this test's leftover.
 */
export function agentProcesses(root: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/g, " ");
      const env = readFileSync(`/proc/${name}/environ`, "utf8").split("\0");
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${name}/cwd`);
      } catch {
        // not ours to read
      }
      const ours = cmd.includes(root) || cwd.startsWith(root) || env.some((v) => v.startsWith(`HOME=${root}`));
      if (ours && (env.some((v) => v.startsWith("YOKE_AGENT=")) || cmd.includes("agents __run"))) out.push(`${name}: ${cmd}`);
    } catch {
      // gone, or not ours
    }
  }
  return out;
}
