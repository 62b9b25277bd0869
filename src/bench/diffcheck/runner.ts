/**
 * Runs one command line with real bash, traced by strace, inside a throwaway sandbox (bwrap or
 * firejail), as this process's user or as another one (`identity`: root runs it as the
 * unprivileged test user): a fresh copy of the fixture (workspace, home, a folder outside) is the
 * only writable place; /tmp is private, there is no network, the environment is an allow-list and
 * the run is killed after a short timeout. Under bwrap strace runs OUTSIDE the sandbox and follows
 * bwrap into it; under firejail (set-user-ID) it runs inside. Only the events of the traced bash
 * and its descendants are kept.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
  /** Runs a setup script in the copy's workspace, untraced, as the runs' user (files an earlier command made). */
  prepare(s: Scratch, script: string): void;
  /** Removes one copy. */
  discard(s: Scratch): void;
  dispose(): void;
}

const GIT_ENV = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t", GIT_CONFIG_NOSYSTEM: "1", HOME: "/nonexistent" };

/** The sandbox a traced run happens in. */
export type DiffBackend = "bwrap" | "firejail";

/** Who runs the traced command (default: this process's own user). */
export interface RunIdentity {
  name: string;
  uid: number;
  gid: number;
}

export interface RunnerOptions {
  backend?: DiffBackend;
  /** Another user (this process runs as root): the copies are theirs, and strace, the sandbox and the command run as them. */
  identity?: RunIdentity;
}

export function createDiffRunner(spec: FixtureSpec, baseDir: string, opts: RunnerOptions = {}): DiffRunner {
  const dir = baseDir;
  const backend = opts.backend ?? "bwrap";
  const identity = opts.identity && opts.identity.uid !== process.getuid?.() ? opts.identity : undefined;
  const isRoot = (identity?.uid ?? process.getuid?.()) === 0;
  // Traces live beside the copies, never inside what the sandbox can write.
  const traceDir = join(dir, "traces");
  mkdirSync(traceDir, { recursive: true });
  if (identity) {
    // The other user must reach the copies (mkdtemp made the folder 0700) and write their traces.
    chmodSync(dir, 0o755);
    chownSync(traceDir, identity.uid, identity.gid);
  }
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
      // -h: the links themselves (their targets are in the copy already).
      if (identity) execFileSync("chown", ["-R", "-h", `${identity.uid}:${identity.gid}`, root]);
      return s;
    },
    run(command, s, timeoutMs = 5000) {
      const traceFile = join(traceDir, `trace-${n++}.txt`);
      const env = {
        PATH: `${binDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
        HOME: s.home,
        LANG: "C.UTF-8",
        TERM: "dumb",
        GIT_CONFIG_NOSYSTEM: "1",
      };
      const straceOpts = ["-f", "-qq", "-xx", "-y", "-s", "65536", "--seccomp-bpf", "-e", "signal=none", "-e", `trace=${TRACED_CALLS.join(",")}`];
      let program: string;
      let argv: string[];
      let traceFd: number | undefined;
      if (backend === "bwrap") {
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
          ...Object.entries(env).flatMap(([k, v]) => ["--setenv", k, v]),
          "--chdir", s.ws,
          "--", "/bin/bash", "-c", command,
        ]; // prettier-ignore
        // strace runs outside the sandbox (the command cannot reach its output) and follows bwrap in.
        program = "strace";
        argv = [...straceOpts, "--decode-pids=pidns", "-o", traceFile, ...bwrap];
      } else {
        // firejail is set-user-ID: a tracer outside would strip that from an unprivileged user's run,
        // so strace runs inside (--allow-debuggers lets its ptrace through firejail's seccomp filter).
        // It writes to descriptor 3, a file opened here (firejail keeps it: --keep-fd), reopened by
        // strace close-on-exec; a shim closes 3 before the traced bash, so the command cannot write
        // into its own trace. Everything is read-only but the copy; /tmp holds only the copy and the
        // marker program; no network, no capabilities, no new privileges.
        const topReadOnly = isRoot
          ? ["--read-only=/"]
          : [
              "--noroot",
              ...readdirSync("/", { withFileTypes: true })
                .filter((d) => !d.isSymbolicLink() && !["proc", "run", "tmp"].includes(d.name))
                .map((d) => `--read-only=/${d.name}`),
            ];
        const firejail = [
          "--quiet", "--noprofile", "--deterministic-exit-code", "--deterministic-shutdown",
          "--caps.drop=all", "--nonewprivs", "--seccomp", "--allow-debuggers", "--private-dev", "--net=none",
          ...topReadOnly,
          "--private",
          `--whitelist=${s.root}`, `--read-write=${s.root}`,
          `--whitelist=${binDir}`, `--read-only=${binDir}`,
          "--keep-fd=3",
          "--",
          "strace", ...straceOpts, "-o", "/proc/self/fd/3",
          "/bin/sh", "-c", 'exec 3>&-; exec /bin/bash -c "$1"', "sh", command,
        ]; // prettier-ignore
        program = "firejail";
        argv = firejail;
        traceFd = openSync(traceFile, "w", 0o600);
        if (identity) chownSync(traceFile, identity.uid, identity.gid);
      }
      return new Promise<TracedRun>((resolve, reject) => {
        const child = spawn(program, argv, {
          stdio: ["ignore", "pipe", "pipe", ...(traceFd === undefined ? [] : [traceFd])],
          detached: true,
          cwd: s.ws,
          env: backend === "firejail" ? env : { PATH: env.PATH, LANG: env.LANG },
          ...(identity ? { uid: identity.uid, gid: identity.gid } : {}),
        });
        if (traceFd !== undefined) closeSync(traceFd);
        let stdout = "";
        let stderr = "";
        child.stdout!.on("data", (d: Buffer) => (stdout.length < 65536 ? (stdout += d.toString()) : undefined));
        child.stderr!.on("data", (d: Buffer) => (stderr.length < 65536 ? (stderr += d.toString()) : undefined));
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
    prepare(s, script) {
      const r = spawnSync("/bin/bash", ["--norc", "--noprofile", "-c", script], {
        cwd: s.ws,
        env: { PATH: `${binDir}:/usr/local/bin:/usr/bin:/bin`, HOME: s.home, LANG: "C.UTF-8", GIT_CONFIG_NOSYSTEM: "1" },
        encoding: "utf8",
        timeout: 10_000,
        ...(identity ? { uid: identity.uid, gid: identity.gid } : {}),
      });
      if (r.status !== 0) throw new Error(`planting files failed (${r.status ?? r.signal}): ${script}: ${r.stderr}`);
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
