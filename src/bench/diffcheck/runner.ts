/**
 * Runs one command line with real bash, traced by strace, inside a throwaway bwrap sandbox: a fresh
 * copy of the fixture (workspace, home, a folder outside) is the only writable place; /tmp is
 * private, there is no network, the environment is an allow-list and the run is killed after a
 * short timeout. strace runs OUTSIDE the sandbox (the command cannot reach its output file) and
 * follows bwrap into it; only the events of the traced bash and its descendants are kept.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseStrace, TRACED_CALLS, type ParsedTrace, type TraceEvent } from "./trace";

export interface FixtureSpec {
  /** Workspace files (relative); `.git/*` entries are left to `git init`. */
  files: string[];
  /** link (relative to the workspace) → target ($WS: the workspace). */
  symlinks: Record<string, string>;
  home: string[];
  outside: string[];
}

/** One input's throwaway copy. */
export interface Scratch {
  root: string;
  ws: string;
  home: string;
  outside: string;
}

/** The program payloads run to leave evidence (on PATH inside the sandbox). */
export const MARKER = "yoke-marker";

export interface TracedRun {
  trace: ParsedTrace;
  /** Events of the command itself (its bash and every descendant), in order. */
  events: TraceEvent[];
  /** The pid of the traced bash. */
  rootPid: number | undefined;
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

export interface DiffRunner {
  dir: string;
  binDir: string;
  /** A fresh copy of the fixture. */
  scratch(id: string): Scratch;
  run(command: string, s: Scratch, timeoutMs?: number): Promise<TracedRun>;
  /** Removes one copy. */
  discard(s: Scratch): void;
  dispose(): void;
}

const GIT_ENV = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t", GIT_CONFIG_NOSYSTEM: "1", HOME: "/nonexistent" };

export function createDiffRunner(spec: FixtureSpec, baseDir: string): DiffRunner {
  const dir = baseDir;
  const tpl = join(dir, "template");
  const binDir = join(dir, "bin");
  mkdirSync(binDir, { recursive: true });
  writeFileSync(join(binDir, MARKER), '#!/bin/sh\necho "yoke-marker ran: $*"\n');
  chmodSync(join(binDir, MARKER), 0o755);
  const write = (p: string, text: string) => {
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  };
  const ws = join(tpl, "ws");
  mkdirSync(ws, { recursive: true });
  execFileSync("git", ["init", "-q", "-b", "main", ws], { env: { ...process.env, ...GIT_ENV } });
  for (const f of spec.files) {
    if (f.startsWith(".git/") && f !== ".git/hooks/pre-commit") continue;
    write(join(ws, f), f.endsWith(".json") ? "{}\n" : f.endsWith(".ts") ? `export const x = "${f}";\n` : "x\n");
  }
  // git's sample hooks are a third of the files each copy would carry.
  for (const f of readdirSync(join(ws, ".git", "hooks"))) if (f.endsWith(".sample")) rmSync(join(ws, ".git", "hooks", f));
  write(join(ws, ".gitignore"), ".env\nsecrets/\n");
  execFileSync("git", ["-C", ws, "add", "-A", "--", ".", ":!.git", ":!sub"], { env: { ...process.env, ...GIT_ENV } });
  execFileSync("git", ["-C", ws, "commit", "-q", "-m", "fixture"], { env: { ...process.env, ...GIT_ENV } });
  for (const f of spec.home) write(join(tpl, "home", f), "x\n");
  for (const f of spec.outside) write(join(tpl, "outside", f), "x\n");
  let n = 0;

  return {
    dir,
    binDir,
    scratch(id) {
      const root = join(dir, `run-${id.replace(/[^\w.-]/g, "_")}-${n++}`);
      execFileSync("cp", ["-a", tpl, root]);
      const s: Scratch = { root, ws: join(root, "ws"), home: join(root, "home"), outside: join(root, "outside") };
      for (const [link, target] of Object.entries(spec.symlinks)) {
        mkdirSync(dirname(join(s.ws, link)), { recursive: true });
        symlinkSync(target.replaceAll("$WS", s.ws), join(s.ws, link));
      }
      return s;
    },
    run(command, s, timeoutMs = 5000) {
      const traceFile = join(dir, `trace-${n++}.txt`);
      const bwrap = [
        "bwrap",
        "--ro-bind", "/", "/",
        "--tmpfs", "/tmp",
        "--tmpfs", "/var/tmp",
        "--dev", "/dev",
        "--proc", "/proc",
        "--bind", s.root, s.root,
        "--ro-bind", binDir, binDir,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--setenv", "PATH", `${binDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
        "--setenv", "HOME", s.home,
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "TERM", "dumb",
        "--setenv", "GIT_CONFIG_NOSYSTEM", "1",
        "--chdir", s.ws,
        "--", "/bin/bash", "-c", command,
      ]; // prettier-ignore
      const argv = ["-f", "-qq", "-xx", "-y", "-s", "65536", "--seccomp-bpf", "--decode-pids=pidns", "-e", "signal=none", "-e", `trace=${TRACED_CALLS.join(",")}`, "-o", traceFile, ...bwrap];
      return new Promise<TracedRun>((resolve, reject) => {
        const child = spawn("strace", argv, { stdio: ["ignore", "pipe", "pipe"], detached: true });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d: Buffer) => (stdout.length < 65536 ? (stdout += d.toString()) : undefined));
        child.stderr.on("data", (d: Buffer) => (stderr.length < 65536 ? (stderr += d.toString()) : undefined));
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          try {
            process.kill(-child.pid!, "SIGKILL");
          } catch {
            /* gone already */
          }
        }, timeoutMs);
        child.on("error", (err) => {
          clearTimeout(timer);
          reject(err);
        });
        child.on("close", (code) => {
          clearTimeout(timer);
          let text = "";
          try {
            text = readFileSync(traceFile, "utf8");
          } catch {
            /* strace did not start */
          }
          rmSync(traceFile, { force: true });
          const trace = parseStrace(text);
          const { events, rootPid } = commandEvents(trace, command);
          resolve({ trace, events, rootPid, exitCode: code, timedOut, stdout, stderr });
        });
      });
    },
    discard(s) {
      rmSync(s.root, { recursive: true, force: true });
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The events of the traced `bash -c COMMAND` and its descendants, after its own execve. */
export function commandEvents(trace: ParsedTrace, command: string): { events: TraceEvent[]; rootPid: number | undefined } {
  const start = trace.events.findIndex((e) => e.kind === "exec" && /\/bash$/.test(e.path) && e.argv[1] === "-c" && e.argv[2] === command);
  if (start < 0) return { events: [], rootPid: undefined };
  const rootPid = trace.events[start]!.pid;
  const within = (pid: number) => {
    for (let p: number | undefined = pid, i = 0; p !== undefined && i < 1000; p = trace.parent.get(p), i++) if (p === rootPid) return true;
    return false;
  };
  return { events: trace.events.slice(start + 1).filter((e) => within(e.pid)), rootPid };
}
