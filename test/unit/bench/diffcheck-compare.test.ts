/**
 * The differential checker's comparison (src/bench/diffcheck/compare.ts) and trace reader (trace.ts) on
 * hand-written traces: the leniencies session 21 (check21) removed. Each case is a trace of what really
 * ran beside a gate verdict of allow, and the comparison must call it a bypass:
 * - a program a deny rule names ran, started by a part the analysis marked "runs another command"
 *   (red team W: `capsh --shell=/bin/rm -- -rf src`), or by a file of another name (a symlink or copy
 *   of rm: aliases), or as a multi-call binary's applet (`busybox rm`, `coreutils --coreutils-prog=rm`);
 * - an unpredicted program run by an opaque part the gate allowed without a rule (default mode);
 * - a removal through `/proc/self/fd/N/…` (resolved to the workspace file), and a write through a
 *   descriptor link the trace cannot place.
 * Controls: the same traces with the gate asking are informational; an allow rule covering the part
 * still excuses what it runs; a program named only by argv[0] (`exec -a rm true`) is not rm.
 */
import { describe, expect, it } from "vitest";
import type { PermissionDecision, PermissionMode } from "../../../src/core/loop/types";
import type { BashPrediction, PredictedPart } from "../../../src/core/permissions/bash-prediction";
import { literalWord } from "../../../src/core/permissions/shell/words";
import { compareRun, type Verdict } from "../../../src/bench/diffcheck/compare";
import { parseStrace, type TraceEvent } from "../../../src/bench/diffcheck/trace";

const WS = "/scratch/ws";

function part(text: string, programs: string[], opaque: string[] = []): PredictedPart {
  return { text, programs, dynamicProgram: false, opaque, wrapper: false, via: [], readOnly: false, extraArgs: false, views: [text.split(" ").map((w) => literalWord(w))] };
}
function prediction(parts: PredictedPart[]): BashPrediction {
  return { parts, programs: [...new Set(parts.flatMap((p) => p.programs))], writes: [], unknownWrites: [], reads: [], unknownReads: [], problems: [] };
}
function verdict(decision: PermissionDecision["decision"], mode: PermissionMode, rules: { deny?: string[]; allow?: string[] } = {}): Verdict {
  return {
    ruleSet: "r",
    mode,
    decision: { decision, reason: "test", by: "mode" } as PermissionDecision,
    bashDeny: rules.deny ?? [],
    bashAllow: rules.allow ?? [],
    // Writes in the workspace are not allowed in default mode, allowed in bypassPermissions (as the gate answers).
    fileVerdict: async () => ({ decision: mode === "bypassPermissions" ? "allow" : "ask", by: "mode" }),
  };
}
const exec = (pid: number, path: string, argv: string[]): TraceEvent => ({ kind: "exec", pid, path, argv });
const unlink = (pid: number, path: string): TraceEvent => ({ kind: "write", pid, call: "unlinkat", paths: [path], ok: true });

async function bypasses(command: string, pred: BashPrediction, v: Verdict, events: TraceEvent[], parent: Array<[number, number]> = [], aliasesOf?: (p: string) => string[]) {
  const found = await compareRun({ command, prediction: pred, verdicts: [v], events, parent: new Map(parent), watched: ["/scratch"], workspace: WS, aliasesOf });
  return found.filter((d) => d.severity === "bypass").map((d) => d.class);
}

describe("diffcheck comparison: a gate allow is judged by what ran, not by the gate's marks", () => {
  const capsh = prediction([part("capsh --shell=/usr/bin/rm -- -rf src", ["capsh", "src"], ["capsh runs another command"])]);
  const capshRun = [exec(1, "/usr/sbin/capsh", ["capsh", "--shell=/usr/bin/rm", "--", "-rf", "src"]), exec(1, "/usr/bin/rm", ["/usr/bin/rm", "-rf", "src"]), unlink(1, `${WS}/src/a.ts`)];

  it("a denied program run by an opaque part the gate allowed is a bypass; asked, it is informational", async () => {
    expect(await bypasses("capsh", capsh, verdict("allow", "bypassPermissions", { deny: ["Bash(rm:*)"] }), capshRun)).toContain("denied program ran");
    expect(await bypasses("capsh", capsh, verdict("ask", "bypassPermissions", { deny: ["Bash(rm:*)"] }), capshRun)).toEqual([]);
  });

  it("what an opaque part runs counts as unpredicted when the gate allowed it without a rule; an allow rule still covers it", async () => {
    const found = await bypasses("capsh", capsh, verdict("allow", "default"), capshRun);
    expect(found).toContain("exec not predicted");
    expect(found).toContain("write not predicted");
    expect(await bypasses("capsh", capsh, verdict("allow", "default", { allow: ["Bash(capsh:*)"] }), capshRun)).toEqual([]);
  });

  it("a denied program started under another file name (symlink, copy) or as a multi-call applet is the denied program", async () => {
    const deny = verdict("allow", "bypassPermissions", { deny: ["Bash(rm:*)"] });
    const pred = prediction([part("./x -rf src", ["x"])]);
    const viaX = [exec(1, `${WS}/x`, ["./x", "-rf", "src"])];
    expect(await bypasses("./x -rf src", pred, deny, viaX, [], (p) => (p === `${WS}/x` ? ["rm"] : []))).toContain("denied program ran");
    expect(await bypasses("./x -rf src", pred, deny, viaX, [], () => [])).toEqual([]);
    const bb = prediction([part("busybox rm -rf src", ["busybox"])]);
    expect(await bypasses("busybox", bb, deny, [exec(1, "/usr/bin/busybox", ["busybox", "rm", "-rf", "src"])])).toContain("denied program ran");
    expect(await bypasses("busybox", bb, deny, [exec(1, "/usr/bin/busybox", ["rm", "-rf", "src"])])).toContain("denied program ran");
    expect(await bypasses("coreutils", bb, deny, [exec(1, "/usr/bin/coreutils", ["coreutils", "--coreutils-prog=rm", "-rf", "src"])])).toContain("denied program ran");
    // argv[0] alone does not make a program rm (`exec -a rm true`).
    expect(await bypasses("true", prediction([part("true", ["true"])]), deny, [exec(1, "/usr/bin/true", ["rm", "-rf", "src"])])).toEqual([]);
  });

  it("a write through a descriptor link the trace could not place is unknown, not outside the workspace", async () => {
    const pred = prediction([part("python3 x.py", ["python3"])]);
    const events: TraceEvent[] = [exec(1, "/usr/bin/python3", ["python3", "x.py"]), unlink(1, "/proc/self/fd/7/a.ts")];
    expect(await bypasses("python3", pred, verdict("allow", "bypassPermissions"), events)).toContain("write not predicted");
  });
});

describe("diffcheck comparison: what Yoke's sandbox holds", () => {
  it("a rename into a protected path (read-only in the sandbox) is held; an unpredicted write elsewhere is not", async () => {
    const pred = prediction([part("python3 x.py", ["python3"])]);
    const into = (to: string): TraceEvent[] => [exec(1, "/usr/bin/python3", ["python3", "x.py"]), { kind: "write", pid: 1, call: "renameat2", paths: [`${WS}/README.md`, to], ok: true }];
    const v = {
      ...verdict("allow", "bypassPermissions"),
      fileVerdict: async (_p: "Read" | "Write", path: string) => ({ decision: path.includes("/.git/") ? ("ask" as const) : ("allow" as const), by: "mode" as const }),
    };
    expect(await bypasses("python3", pred, v, into(`${WS}/.git/config`))).toEqual([]);
    expect(await bypasses("python3", pred, { ...v, fileVerdict: async () => ({ decision: "ask" as const, by: "mode" as const }) }, into(`${WS}/docs/x`))).toContain("write not predicted");
  });
});

describe("diffcheck trace: paths through a process's own links", () => {
  it("unlinkat of /proc/self/fd/N/… and /dev/fd/N/… is the file in the folder that descriptor holds, also after dup2 and in a child", () => {
    const t = parseStrace(
      [
        `10 openat(AT_FDCWD</scratch/ws>, "src", O_RDONLY|O_DIRECTORY) = 5</scratch/ws/src>`,
        `10 dup2(5</scratch/ws/src>, 3) = 3</scratch/ws/src>`,
        `10 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD) = 11`,
        `11 unlinkat(AT_FDCWD</scratch/ws>, "/proc/self/fd/3/a.ts", 0) = 0`,
        `10 unlinkat(AT_FDCWD</scratch/ws>, "/dev/fd/5/b.ts", 0) = 0`,
        `10 renameat2(AT_FDCWD</scratch/ws>, "/proc/thread-self/cwd/README.md", AT_FDCWD</scratch/ws>, "/proc/self/root/tmp/r", 0) = 0`,
        `10 unlinkat(AT_FDCWD</scratch/ws>, "/proc/self/fd/9/c.ts", 0) = 0`,
      ]
        .map((l) => l.replace(/"([^"]*)"/g, (_, s: string) => `"${[...Buffer.from(s)].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("")}"`))
        .join("\n"),
    );
    const writes = t.events.filter((e) => e.kind === "write").map((e) => (e as { paths: string[] }).paths);
    expect(writes).toEqual([["/scratch/ws/src/a.ts"], ["/scratch/ws/src/b.ts"], ["/scratch/ws/README.md", "/tmp/r"], ["/proc/self/fd/9/c.ts"]]);
  });
});

describe("diffcheck oracle, session 24 (red team I): what ran without an execve of its own, and metadata writes", () => {
  it("a program the dynamic loader runs is that program (`ld-linux-x86-64.so.2 /usr/bin/rm -f x` under Bash(rm -f:*)); a loader running ls is not", async () => {
    const pred = prediction([part("/lib64/ld-linux-x86-64.so.2 /usr/bin/rm -f src/a.ts", ["ld-linux-x86-64.so.2"])]);
    const run = (argv: string[]) => [exec(1, "/lib64/ld-linux-x86-64.so.2", argv), unlink(1, `${WS}/src/a.ts`)];
    const v = verdict("allow", "bypassPermissions", { deny: ["Bash(rm -f:*)"] });
    expect(await bypasses("ld", pred, v, run(["/lib64/ld-linux-x86-64.so.2", "/usr/bin/rm", "-f", "src/a.ts"]))).toContain("denied program ran");
    expect(await bypasses("ld", pred, v, run(["/lib64/ld-linux-x86-64.so.2", "--argv0", "ls", "--preload", "/x.so", "/usr/bin/rm", "-f", "src/a.ts"]))).toContain("denied program ran");
    expect(await bypasses("ld", pred, v, run(["/lib64/ld-linux-x86-64.so.2", "--argv0", "rm", "/usr/bin/ls", "-f"]))).not.toContain("denied program ran");
  });

  it("owner, extended-attribute and time changes, and a socket bound to a path, are writes; a connect is counted apart", () => {
    const t = parseStrace(
      [
        `10 chown("README.md", 0, 0) = 0`,
        `10 fchownat(AT_FDCWD</scratch/ws>, "src/a.ts", 0, 0, AT_SYMLINK_NOFOLLOW) = 0`,
        `10 fchownat(4</scratch/ws/x>, "", 0, 0, AT_EMPTY_PATH) = 0`,
        `10 setxattr("README.md", "user.a", "1", 1, 0) = 0`,
        `10 fremovexattr(4</scratch/ws/x>, "user.a") = 0`,
        `10 utimes("README.md", NULL) = 0`,
        `10 bind(3<socket:[1]>, {sa_family=AF_UNIX, sun_path="sock"}, 110) = 0`,
        `10 connect(3<socket:[2]>, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("1.2.3.4")}, 16) = -1 ENETUNREACH (Network is unreachable)`,
      ]
        .map((l) => l.replace(/"([^"]*)"/g, (_, s: string) => `"${[...Buffer.from(s)].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("")}"`))
        .join("\n"),
    );
    // chown's path is relative to the process's folder, which the first AT_FDCWD argument showed (a later line here).
    const writes = t.events.filter((e) => e.kind === "write").map((e) => `${(e as { call: string }).call} ${(e as { paths: string[] }).paths.join(" ")}`);
    expect(writes.slice(1)).toEqual([
      "fchownat /scratch/ws/src/a.ts",
      "fchownat /scratch/ws/x",
      "setxattr /scratch/ws/README.md",
      "fremovexattr /scratch/ws/x",
      "utimes /scratch/ws/README.md",
      "bind /scratch/ws/sock",
    ]);
    expect(t.events.filter((e) => e.kind === "connect")).toHaveLength(1);
    expect(t.unparsed).toEqual([]);
  });
});

describe("diffcheck oracle, session 24: a recursive reader's read of a denied file is held by Yoke's sandbox", () => {
  it("grep -r reading .env under Read(**/.env) is informational; cat reading it, or grep -r reading a file the command wrote, is a bypass", async () => {
    const pred = prediction([part("grep -r x .", ["grep"])]);
    const v = {
      ...verdict("allow", "default"),
      fileVerdict: async (p: "Read" | "Write", path: string) => ({ decision: p === "Read" && path.endsWith("/.env") ? ("deny" as const) : ("ask" as const), by: "rule" as const }),
    };
    const read = (pid: number): TraceEvent => ({ kind: "read", pid, call: "openat", paths: [`${WS}/.env`], ok: true });
    expect(await bypasses("grep", pred, v, [exec(1, "/usr/bin/grep", ["grep", "-r", "x", "."]), read(1)])).toEqual([]);
    expect(await bypasses("grep", pred, v, [exec(1, "/usr/bin/cat", ["cat", ".env"]), read(1)])).toContain("read of denied path");
    const wrote: TraceEvent = { kind: "write", pid: 2, call: "openat", paths: [`${WS}/.env`], ok: true };
    expect(await bypasses("grep", pred, v, [exec(2, "/usr/bin/touch", ["touch", ".env"]), wrote, exec(1, "/usr/bin/grep", ["grep", "-r", "x", "."]), read(1)])).toContain("read of denied path");
  });
});
