// Runs the yoke command line the extension ships (dist/cli.js) for the background agents: the
// panel starts, stops, steers, merges and discards them through the same engine as `yoke run
// --background` and `yoke agents`, and an agent is a process of its own that outlives the window.
import { spawn } from "node:child_process";
import * as nodePath from "node:path";

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node dist/cli.js ARGS` with the extension host's Node (Electron's, as Node, in VS Code desktop). */
export function runYoke(extensionPath: string, args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliOutcome> {
  return new Promise((resolve, reject) => {
    if (!extensionPath) return reject(new Error("the extension's folder is not known, so its yoke command line cannot be found"));
    const child = spawn(process.execPath, [nodePath.join(extensionPath, "dist", "cli.js"), ...args], {
      cwd,
      env: { ...process.env, ELECTRON_RUN_AS_NODE: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

/** The JSON a `--json` command printed, or undefined. */
export function jsonOf<T>(out: CliOutcome): T | undefined {
  try {
    return JSON.parse(out.stdout) as T;
  } catch {
    return undefined;
  }
}

/** What the command said went wrong, for people (the `yoke:` prefixes dropped). */
export function problemOf(out: CliOutcome): string {
  const text = (out.stderr || out.stdout).trim();
  return text.replace(/^yoke(?: [a-z]+)*: /gm, "") || `yoke exited with status ${out.code}`;
}
