/**
 * Parses what `strace -f -xx -y` wrote into the events the differential checker compares: programs
 * executed, files opened for reading or writing, files created, removed, renamed or linked.
 *
 * strace is run with `-xx` (every string byte as \xHH: no quoting ambiguity), `-y` (every file
 * descriptor argument and returned descriptor followed by the path it refers to, `AT_FDCWD<cwd>`
 * included, so relative paths resolve against the right folder without tracking chdir), `-f` (lines
 * start with the process id; a call interrupted by another process's output is split into
 * `<unfinished ...>` and `<... NAME resumed>`, which are joined here).
 */

export interface ExecEvent {
  kind: "exec";
  pid: number;
  /** Absolute path of the program (as execve was given it, resolved against the process's folder). */
  path: string;
  argv: string[];
}

export interface FileEvent {
  kind: "read" | "write" | "connect";
  pid: number;
  /** The system call (`openat`, `unlinkat`, `renameat2`…). */
  call: string;
  /** Absolute paths it acted on (rename: both). */
  paths: string[];
  /** Failed calls that would have written (EROFS, EACCES, EPERM) are kept: an attempt counts. */
  ok: boolean;
  errno?: string;
  /** openat of a folder (O_DIRECTORY): listing, not reading a file. */
  directory?: boolean;
}

export type TraceEvent = ExecEvent | FileEvent;

export interface ParsedTrace {
  events: TraceEvent[];
  /** Child process id → parent process id. */
  parent: Map<number, number>;
  /** Lines that were not understood (kept for diagnosis; a healthy trace has none). */
  unparsed: string[];
}

/** The system calls the checker asks strace for. */
export const TRACED_CALLS = [
  "execve",
  "execveat",
  "open",
  "openat",
  "openat2",
  "creat",
  "truncate",
  "ftruncate",
  "rename",
  "renameat",
  "renameat2",
  "unlink",
  "unlinkat",
  "mkdir",
  "mkdirat",
  "rmdir",
  "link",
  "linkat",
  "symlink",
  "symlinkat",
  "chmod",
  "fchmodat",
  "fchmod",
  "chdir",
  "fchdir",
  "clone",
  "clone3",
  "fork",
  "vfork",
  "mknod",
  "mknodat",
  "utimensat",
  // Red team I (session 24): metadata writes the list missed (owner, extended attributes, times by the
  // older calls) and a socket bound to a path (a file the command creates); connect is counted.
  "chown",
  "fchown",
  "lchown",
  "fchownat",
  "setxattr",
  "lsetxattr",
  "fsetxattr",
  "removexattr",
  "lremovexattr",
  "fremovexattr",
  "utime",
  "utimes",
  "futimesat",
  "bind",
  "connect",
  // Descriptor copies (their result names the file with -y): what `/proc/self/fd/N/…` refers to.
  "dup",
  "dup2",
  "dup3",
  "fcntl",
];

/** `/proc/self/fd/N/rest`, `/proc/self/cwd/rest`, `/dev/fd/N/rest`: paths the kernel resolves through a process's own links. */
const PROC_LINK = /^\/(?:proc\/(self|thread-self|\d+)(?:\/task\/\d+)?\/(?:fd\/(\d+)|(cwd)|(root))|dev\/fd\/(\d+))(\/.*)?$/;

/** Decodes a `-xx` string body (`\x2f\x74…`); tolerates other C escapes. */
export function decodeCString(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const n = s[++i];
    if (n === "x") {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (n !== undefined && /[0-7]/.test(n)) {
      let j = i;
      while (j < i + 3 && /[0-7]/.test(s[j] ?? "")) j++;
      bytes.push(parseInt(s.slice(i, j), 8));
      i = j - 1;
    } else {
      const map: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, '"': 34, "\\": 92 };
      bytes.push(map[n ?? ""] ?? n?.charCodeAt(0) ?? 92);
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Splits the argument list at top-level commas (strings, brackets, braces and `<path>` are kept whole). */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inStr = false;
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (inStr) {
      cur += c;
      if (c === "\\") cur += s[++i] ?? "";
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === "[" || c === "{" || c === "(" || c === "<") depth++;
    else if (c === "]" || c === "}" || c === ")" || c === ">") depth--;
    else if (c === "," && depth === 0) {
      out.push(cur.trim());
      cur = "";
      continue;
    }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** The string of an argument (`"…"`, possibly followed by `...` when strace cut it). */
function str(arg: string | undefined): string | undefined {
  const m = arg === undefined ? null : /^"((?:[^"\\]|\\.)*)"/.exec(arg);
  return m ? decodeCString(m[1]!) : undefined;
}

/** The path a descriptor argument refers to (`3</ws/x>`, `AT_FDCWD</ws>`). */
function fdPath(arg: string | undefined): string | undefined {
  const m = arg === undefined ? null : /<((?:[^>\\]|\\.)*)>\s*$/.exec(arg);
  return m ? decodeCString(m[1]!) : undefined;
}

function joinPath(base: string | undefined, p: string): string {
  if (p.startsWith("/") || base === undefined) return normalize(p);
  return normalize(`${base}/${p}`);
}

/** Lexical normalisation (`.`/`..`, repeated slashes); symlinks are not followed. */
export function normalize(p: string): string {
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return `/${out.join("/")}`;
}

const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND|O_TMPFILE/;
/** Failures that still show the intent to write (the sandbox or permissions stopped it). */
const ATTEMPT_ERRNOS = new Set(["EROFS", "EACCES", "EPERM", "EEXIST", "ENOTEMPTY", "EISDIR", "EBUSY", "ETXTBSY"]);

export function parseStrace(text: string): ParsedTrace {
  const pending = new Map<number, string>();
  const lines: Array<{ pid: number; body: string }> = [];
  const unparsed: string[] = [];
  for (const raw of text.split("\n")) {
    if (!raw.trim()) continue;
    const m = /^(\d+)\s+(.*)$/.exec(raw);
    if (!m) {
      unparsed.push(raw);
      continue;
    }
    const pid = Number(m[1]);
    let body = m[2]!;
    if (body.startsWith("+++") || body.startsWith("---")) continue;
    const resumed = /^<\.\.\. [\w]+ resumed>\s?(.*)$/.exec(body);
    if (resumed) {
      const head = pending.get(pid);
      pending.delete(pid);
      if (head === undefined) {
        unparsed.push(raw);
        continue;
      }
      body = head + resumed[1]!;
    }
    const unfinished = /^(.*?)\s*<unfinished \.\.\.>$/.exec(body);
    if (unfinished) {
      pending.set(pid, unfinished[1]!);
      continue;
    }
    lines.push({ pid, body });
  }

  const events: TraceEvent[] = [];
  const parent = new Map<number, number>();
  const cwd = new Map<number, string>();
  /** Each process's descriptors as the trace showed them (opened, copied, or named by -y in an argument). */
  const fds = new Map<number, Map<number, string>>();
  const fdsOf = (pid: number) => {
    let t = fds.get(pid);
    if (!t) fds.set(pid, (t = new Map()));
    return t;
  };
  for (const { pid, body } of lines) {
    const m = /^(\w+)\((.*)\)\s+=\s+(.*)$/.exec(body);
    if (!m) {
      // Calls that never return (exit) or killed mid-call ("= ?").
      if (!/^\w+\(.*\)\s+= \?/.test(body)) unparsed.push(`${pid} ${body}`);
      continue;
    }
    const call = m[1]!;
    const args = splitArgs(m[2]!);
    const ret = m[3]!;
    const ok = !ret.startsWith("-1");
    const errno = ok ? undefined : /^-1 (\w+)/.exec(ret)?.[1];
    const retPath = ok ? fdPath(ret.split(" ")[0]) : undefined;
    for (const a of args) {
      const at = /^AT_FDCWD</.test(a) ? fdPath(a) : undefined;
      if (at) cwd.set(pid, at);
    }
    for (const a of args) {
      const d = /^(\d+)</.exec(a);
      const p = d ? fdPath(a) : undefined;
      if (d && p !== undefined) fdsOf(pid).set(Number(d[1]), p);
    }
    const retFd = ok ? /^(\d+)</.exec(ret) : null;
    if (retFd && retPath !== undefined) fdsOf(pid).set(Number(retFd[1]), retPath);
    const here = cwd.get(pid) ?? cwd.get(parent.get(pid) ?? -1);
    // A path through the process's own links (`/proc/self/fd/3/x`, `/proc/self/cwd/x`) is resolved to the
    // file it reaches; one the trace cannot place stays as it is (the comparison counts it as unknown).
    const viaLinks = (p: string): string => {
      const m = PROC_LINK.exec(p);
      if (!m || (m[1] !== "self" && m[1] !== "thread-self" && m[1] !== undefined && Number(m[1]) !== pid)) return p;
      const base = m[4] ? "/" : m[3] ? here : fds.get(pid)?.get(Number(m[2] ?? m[5]));
      return base === undefined ? p : normalize(`${base}/${m[6] ?? ""}`);
    };
    const at = (dirArg: string | undefined, p: string | undefined) => (p === undefined ? undefined : viaLinks(joinPath(p.startsWith("/") ? undefined : (fdPath(dirArg) ?? here), p)));
    const file = (kind: "read" | "write", paths: Array<string | undefined>, extra: Partial<FileEvent> = {}) => {
      const ps = paths.filter((p): p is string => p !== undefined);
      if (!ps.length) return;
      if (!ok && !(kind === "write" && errno && ATTEMPT_ERRNOS.has(errno))) return;
      events.push({ kind, pid, call, paths: ps, ok, errno, ...extra });
    };
    switch (call) {
      case "clone":
      case "clone3":
      case "fork":
      case "vfork": {
        // With --decode-pids=pidns the return value is the pid in the sandbox's namespace, followed by ours.
        const child = Number(/\/\* (\d+) in strace's PID NS \*\//.exec(ret)?.[1] ?? ret.split(" ")[0]);
        if (ok && child > 0) {
          parent.set(child, pid);
          if (here) cwd.set(child, here);
          // The child may have been traced before its parent's clone returned: what it showed itself wins.
          fds.set(child, new Map([...(fds.get(pid) ?? []), ...(fds.get(child) ?? [])]));
        }
        break;
      }
      case "chdir":
        if (ok) {
          const p = str(args[0]);
          if (p !== undefined) cwd.set(pid, joinPath(here, p));
        }
        break;
      case "fchdir":
        if (ok) {
          const p = fdPath(args[0]);
          if (p) cwd.set(pid, p);
        }
        break;
      case "execve":
      case "execveat": {
        if (!ok) break;
        const pathArg = call === "execve" ? args[0] : args[1];
        const p = call === "execve" ? at(undefined, str(pathArg)) : at(args[0], str(pathArg));
        const argvText = call === "execve" ? args[1] : args[2];
        const argv = argvText ? splitArgs(argvText.replace(/^\[|\]$/g, "")).map((a) => str(a) ?? a) : [];
        if (p) events.push({ kind: "exec", pid, path: p, argv });
        break;
      }
      case "open":
      case "openat":
      case "openat2":
      case "creat": {
        const dirArg = call === "open" || call === "creat" ? undefined : args[0];
        const pathArg = call === "open" || call === "creat" ? args[0] : args[1];
        const flags = call === "creat" ? "O_CREAT|O_WRONLY|O_TRUNC" : ((call === "openat2" ? /flags=([\w|]+)/.exec(args[2] ?? "")?.[1] : call === "open" ? args[1] : args[2]) ?? "");
        const named = at(dirArg, str(pathArg));
        const write = WRITE_FLAGS.test(flags);
        file(write ? "write" : "read", [retPath ?? named], { directory: /O_DIRECTORY/.test(flags) });
        break;
      }
      case "truncate":
      case "chmod":
      case "unlink":
      case "rmdir":
      case "mkdir":
      case "mknod":
        file("write", [at(undefined, str(args[0]))]);
        break;
      case "ftruncate":
      case "fchmod":
      case "fchown":
      case "fsetxattr":
      case "fremovexattr":
        file("write", [fdPath(args[0])]);
        break;
      case "chown":
      case "lchown":
      case "setxattr":
      case "lsetxattr":
      case "removexattr":
      case "lremovexattr":
      case "utime":
      case "utimes":
        file("write", [at(undefined, str(args[0]))]);
        break;
      case "fchownat":
        // fchownat(fd, "", …, AT_EMPTY_PATH) changes the descriptor's file.
        file("write", [str(args[1]) === "" ? fdPath(args[0]) : at(args[0], str(args[1]))]);
        break;
      case "futimesat":
        file("write", [args[1] === "NULL" ? fdPath(args[0]) : at(args[0], str(args[1]))]);
        break;
      case "bind":
      case "connect": {
        // A Unix socket's path (abstract names start with a NUL byte and are no file); other families by address.
        const unix = /sun_path=("(?:[^"\\]|\\.)*")/.exec(args[1] ?? "");
        const path = unix ? str(unix[1]) : undefined;
        if (call === "bind") {
          if (path && !path.startsWith("\0")) file("write", [at(undefined, path)]);
        } else if (path || /sa_family=AF_INET6?/.test(args[1] ?? "")) {
          // connect fails with the network off (ENETUNREACH): the attempt is what counts.
          events.push({ kind: "connect", pid, call, paths: [path ? at(undefined, path)! : (/sin6?_addr=[^,}]*|inet_addr\("[^"]*"\)/.exec(args[1] ?? "")?.[0] ?? "inet")], ok, errno });
        }
        break;
      }
      case "unlinkat":
      case "mkdirat":
      case "fchmodat":
      case "mknodat":
        file("write", [at(args[0], str(args[1]))]);
        break;
      case "utimensat":
        // utimensat(fd, NULL, …) touches the descriptor's file; with a path, that path.
        file("write", [args[1] === "NULL" ? fdPath(args[0]) : at(args[0], str(args[1]))]);
        break;
      case "rename":
        file("write", [at(undefined, str(args[0])), at(undefined, str(args[1]))]);
        break;
      case "link":
        file("write", [at(undefined, str(args[1]))]);
        break;
      case "symlink":
        file("write", [at(undefined, str(args[1]))]);
        break;
      case "renameat":
      case "renameat2":
        file("write", [at(args[0], str(args[1])), at(args[2], str(args[3]))]);
        break;
      case "linkat":
        file("write", [at(args[2], str(args[3]))]);
        break;
      case "symlinkat":
        file("write", [at(args[1], str(args[2]))]);
        break;
      default:
        break;
    }
  }
  return { events, parent, unparsed };
}
