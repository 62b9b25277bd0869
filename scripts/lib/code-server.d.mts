import type { ChildProcess } from "node:child_process";

/** Node 24 binary and code-server entry reported by scripts/setup-e2e.sh. */
export interface CodeServerSetup {
  node: string;
  codeServer: string;
}

/** A running code-server in its own process group. */
export interface RunningCodeServer {
  child: ChildProcess;
  pid: number;
  base: string;
  url: string;
  stop(): Promise<void>;
  output(): string;
}

export function setupCodeServer(): CodeServerSetup;
export function installVsix(setup: CodeServerSetup, opts: { vsix: string; extensionsDir: string; userDataDir: string }): string;
export function mergeJsonFile(file: string, values: Record<string, unknown>): void;
export function findFreePort(preferred?: number): Promise<number>;
export function killGroup(pid: number, signal?: NodeJS.Signals): boolean;
export function startCodeServer(
  setup: CodeServerSetup,
  opts: {
    port: number;
    extensionsDir: string;
    userDataDir: string;
    /** A folder, or a .code-workspace file (opened with ?workspace=). */
    folder?: string;
    env?: Record<string, string>;
    onOutput?: (chunk: string) => void;
    timeoutMs?: number;
  },
): Promise<RunningCodeServer>;
