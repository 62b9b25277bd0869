/** Runs the built `yoke` CLI (dist/cli.js) as a real child process. */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const repoRoot = join(__dirname, "../..");
export const cliPath = join(repoRoot, "dist/cli.js");

/**
 * The bundles are built once, before any test file starts (vitest's global setup,
 * test/support/global-build.ts); a file rebuilding them here would rewrite dist/cli.js under
 * another file's running CLI. This only checks they are there.
 */
export function ensureBuilt(): void {
  if (!existsSync(cliPath)) throw new Error("dist/cli.js is missing: run `npm run build`");
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function startCli(args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string; input?: string } = {}): ChildProcess & { result: Promise<CliResult> } {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, ...opts.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  else child.stdin!.end();
  const result = new Promise<CliResult>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return Object.assign(child, { result });
}

export function runCli(args: string[], opts: Parameters<typeof startCli>[1] = {}): Promise<CliResult> {
  return startCli(args, opts).result;
}
