/**
 * An editor's side of ACP terminals for tests, as Zed does it: `terminal/create` spawns the
 * command itself, in the editor's own environment with the request's variables added, keeps its
 * output (dropping the oldest past `outputByteLimit`), and answers output, wait_for_exit, kill and
 * release. Every request is recorded.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type * as acp from "@agentclientprotocol/sdk";

interface Term {
  child: ChildProcess;
  output: string;
  truncated: boolean;
  limit: number;
  exit?: { exitCode: number | null; signal: string | null };
  exited: Promise<void>;
  released: boolean;
}

export interface TestTerminalHost {
  created: acp.CreateTerminalRequest[];
  calls: string[];
  create(req: acp.CreateTerminalRequest): acp.CreateTerminalResponse;
  output(req: acp.TerminalOutputRequest): acp.TerminalOutputResponse;
  waitForExit(req: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse>;
  kill(req: acp.KillTerminalRequest): acp.KillTerminalResponse;
  release(req: acp.ReleaseTerminalRequest): acp.ReleaseTerminalResponse;
  /** Terminals still not released. */
  open(): number;
}

/** `editorEnv`: the editor's own environment, which an editor's terminal passes on; `as`: the editor's user. */
export function testTerminalHost(editorEnv: Record<string, string | undefined>, as: { uid?: number; gid?: number } = {}): TestTerminalHost {
  const terms = new Map<string, Term>();
  let next = 1;
  const get = (id: string) => {
    const t = terms.get(id);
    if (!t || t.released) throw new Error(`no terminal ${id}`);
    return t;
  };
  const host: TestTerminalHost = {
    created: [],
    calls: [],
    create(req) {
      host.created.push(req);
      host.calls.push("create");
      const env: Record<string, string | undefined> = { ...editorEnv };
      for (const v of req.env ?? []) env[v.name] = v.value;
      const child = spawn(req.command, req.args ?? [], { cwd: req.cwd ?? undefined, env, stdio: ["ignore", "pipe", "pipe"], ...(as.uid !== undefined ? { uid: as.uid, gid: as.gid } : {}) });
      const t: Term = { child, output: "", truncated: false, limit: req.outputByteLimit ?? 1 << 30, exited: Promise.resolve(), released: false };
      const add = (d: Buffer) => {
        t.output += d.toString("utf8");
        while (Buffer.byteLength(t.output) > t.limit) {
          t.output = t.output.slice(Math.max(1, t.output.length - t.limit));
          t.truncated = true;
        }
      };
      child.stdout!.on("data", add);
      child.stderr!.on("data", add);
      t.exited = new Promise((resolve) => {
        child.on("close", (code, signal) => {
          t.exit = { exitCode: code, signal };
          resolve();
        });
        child.on("error", (e) => {
          t.output += String(e);
          t.exit = { exitCode: 127, signal: null };
          resolve();
        });
      });
      const terminalId = `term-${next++}`;
      terms.set(terminalId, t);
      return { terminalId };
    },
    output(req) {
      host.calls.push("output");
      const t = get(req.terminalId);
      return { output: t.output, truncated: t.truncated, ...(t.exit ? { exitStatus: t.exit } : {}) };
    },
    async waitForExit(req) {
      host.calls.push("wait_for_exit");
      const t = get(req.terminalId);
      await t.exited;
      return t.exit!;
    },
    kill(req) {
      host.calls.push("kill");
      get(req.terminalId).child.kill("SIGKILL");
      return {};
    },
    release(req) {
      host.calls.push("release");
      const t = get(req.terminalId);
      if (!t.exit) t.child.kill("SIGKILL");
      t.released = true;
      return {};
    },
    open: () => [...terms.values()].filter((t) => !t.released).length,
  };
  return host;
}
