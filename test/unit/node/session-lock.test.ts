// One writer per session log, across real processes: the lock refuses a second writer and names
// the holder, two processes taking turns never interleave lines, and a holder killed with
// SIGKILL (or a pid now used by another process, or a host whose heartbeat stopped) does not keep
// the session locked.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { buildSync } from "esbuild";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { HEARTBEAT_MS, STALE_MS } from "../../../src/node/session-lock";
import { createFileSessionStore, SessionChangedError, SessionLockedError } from "../../../src/node/session-store";

let bundleDir: string;
let bundle: string;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-lock-bundle-"));
  bundle = path.join(bundleDir, "store.cjs");
  buildSync({ entryPoints: [path.resolve("src/node/session-store.ts")], bundle: true, platform: "node", format: "cjs", outfile: bundle, logLevel: "silent" });
});
afterAll(() => fs.rmSync(bundleDir, { recursive: true, force: true }));
beforeEach(() => {
  dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-lock-")), "sessions");
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
});

/** A node process running `body` with `store` (a FileSessionStore on `dir`) and the module as `m`. */
function script(body: string, owner = "test writer"): string {
  return `
    const m = require(${JSON.stringify(bundle)});
    const store = m.createFileSessionStore(${JSON.stringify(dir)}, { owner: ${JSON.stringify(owner)} });
    ${body}
  `;
}

function run(body: string, owner?: string) {
  const r = spawnSync(process.execPath, ["-e", script(body, owner)], { encoding: "utf8", timeout: 60_000 });
  if (r.error) throw r.error;
  return r;
}

/** Starts a holder that locks `id`, appends one line, says "ready" and waits for stdin to close. */
async function startHolder(id: string, owner = "yoke run"): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["-e", script(`store.append(${JSON.stringify(id)}, '{"by":"holder"}'); process.stdout.write("ready\\n"); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));`, owner)],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`holder exited early (${code})`)));
  });
  return child;
}

const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once("exit", () => r())));
const lockFile = (id: string) => path.join(dir, `${id}.lock`);

describe("session lock across processes", () => {
  it("refuses a second writer while the first holds the log, names the holder, and lets it in after a clean exit", async () => {
    const holder = await startHolder("s1");
    const second = run(`
      try { store.append("s1", '{"by":"second"}'); console.log(JSON.stringify({ wrote: true })); }
      catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message, holder: e.holder })); }
    `);
    const out = JSON.parse(second.stdout) as { name: string; message: string; holder: { pid: number; host: string; owner: string } };
    expect(out.name).toBe("SessionLockedError");
    expect(out.holder).toMatchObject({ pid: holder.pid, host: os.hostname(), owner: "yoke run" });
    expect(out.message).toContain(`in use by yoke run (pid ${holder.pid} on ${os.hostname()}, since `);
    // The refused writer wrote nothing.
    expect(fs.readFileSync(path.join(dir, "s1.jsonl"), "utf8")).toBe('{"by":"holder"}\n');

    holder.stdin!.end();
    await exited(holder);
    expect(holder.exitCode).toBe(0);
    expect(fs.existsSync(lockFile("s1"))).toBe(false); // released on exit
    const third = run(`store.read("s1"); store.append("s1", '{"by":"third"}'); console.log("ok");`);
    expect(third.stdout.trim()).toBe("ok");
    expect(fs.readFileSync(path.join(dir, "s1.jsonl"), "utf8")).toBe('{"by":"holder"}\n{"by":"third"}\n');
  });

  it("two processes taking turns through the lock never interleave lines or lose one", async () => {
    const writer = (name: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const body = `
          const pad = "x".repeat(2000);
          let batches = 0;
          const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
          while (batches < 20) {
            const r = store.lock("shared");
            if (!r.ok) { sleep(1); continue; }
            store.read("shared"); // see what the other wrote
            for (let i = 0; i < 25; i++) store.append("shared", JSON.stringify({ by: ${JSON.stringify(name)}, batch: batches, i, pad }));
            store.unlock("shared");
            batches++;
          }
        `;
        const c = spawn(process.execPath, ["-e", script(body, name)], { stdio: ["ignore", "ignore", "pipe"] });
        children.push(c);
        let stderr = "";
        c.stderr!.on("data", (d) => (stderr += d));
        c.on("exit", (code) => resolve({ code, stderr }));
      });
    const [a, b] = await Promise.all([writer("a"), writer("b")]);
    expect(a).toEqual({ code: 0, stderr: "" });
    expect(b).toEqual({ code: 0, stderr: "" });
    const lines = fs.readFileSync(path.join(dir, "shared.jsonl"), "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines).toHaveLength(2 * 20 * 25);
    const rows = lines.map((l) => JSON.parse(l) as { by: string; batch: number; i: number });
    // Each batch of 25 is whole and in order: nobody wrote in the middle of another's turn.
    for (let k = 0; k < rows.length; k += 25) {
      const batch = rows.slice(k, k + 25);
      expect(new Set(batch.map((r) => `${r.by}:${r.batch}`)).size).toBe(1);
      expect(batch.map((r) => r.i)).toEqual([...Array(25).keys()]);
    }
    expect(rows.filter((r) => r.by === "a")).toHaveLength(500);
    expect(rows.filter((r) => r.by === "b")).toHaveLength(500);
  });

  it("takes over the lock of a holder killed with SIGKILL", async () => {
    const killed = run(`store.append("k", '{"seq":0}'); process.kill(process.pid, "SIGKILL");`);
    expect(killed.signal).toBe("SIGKILL");
    expect(fs.existsSync(lockFile("k"))).toBe(true); // left behind: nothing ran on the way out
    const stale = JSON.parse(fs.readFileSync(lockFile("k"), "utf8")) as { pid: number };
    const viewer = createFileSessionStore(dir, { readOnly: true });
    expect(viewer.holder("k")).toBeUndefined(); // a dead holder is no holder

    const next = run(`store.read("k"); store.append("k", '{"seq":1}'); console.log(JSON.stringify(JSON.parse(require("fs").readFileSync(${JSON.stringify(lockFile("k"))}, "utf8"))));`, "yoke resume");
    expect(next.stderr).toBe("");
    const taken = JSON.parse(next.stdout) as { pid: number; owner: string };
    expect(taken.pid).not.toBe(stale.pid);
    expect(taken.owner).toBe("yoke resume");
    expect(fs.readFileSync(path.join(dir, "k.jsonl"), "utf8")).toBe('{"seq":0}\n{"seq":1}\n');
  });

  it.runIf(process.platform === "linux")("does not count a lock whose pid now runs another process", async () => {
    fs.mkdirSync(dir, { recursive: true });
    const other = spawn("sleep", ["60"]);
    children.push(other);
    await new Promise((r) => other.once("spawn", r));
    const stat = fs.readFileSync(`/proc/${other.pid}/stat`, "utf8");
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
    const record = (procStart: string) => ({
      pid: other.pid,
      host: os.hostname(),
      owner: "yoke run",
      since: new Date().toISOString(),
      token: "t-" + procStart,
      procStart,
      boot: fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
      pidns: fs.readlinkSync("/proc/self/ns/pid"),
    });
    // The pid and start time match: that process holds it.
    fs.writeFileSync(lockFile("p"), JSON.stringify(record(start)));
    const store = createFileSessionStore(dir);
    expect(store.lock("p")).toEqual({ ok: false, holder: expect.objectContaining({ pid: other.pid, owner: "yoke run" }) });
    // Same pid, another start time: the holder died and its pid was given to `sleep`.
    fs.writeFileSync(lockFile("p"), JSON.stringify(record(String(Number(start) - 1))));
    expect(store.lock("p")).toEqual({ ok: true });
    expect(JSON.parse(fs.readFileSync(lockFile("p"), "utf8")).pid).toBe(process.pid);
    store.dispose();
    expect(fs.existsSync(lockFile("p"))).toBe(false);
  });

  it("counts a lock from another machine until its heartbeat has stopped for STALE_MS", () => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(lockFile("h"), JSON.stringify({ pid: 1, host: "elsewhere.example", owner: "Visual Studio Code", since: new Date().toISOString(), token: "x" }));
    const store = createFileSessionStore(dir);
    const refused = store.lock("h");
    expect(refused).toMatchObject({ ok: false, holder: { host: "elsewhere.example", owner: "Visual Studio Code" } });
    expect(() => store.append("h", "{}")).toThrow(SessionLockedError);
    const old = (Date.now() - STALE_MS - 1000) / 1000;
    fs.utimesSync(lockFile("h"), old, old);
    expect(store.lock("h")).toEqual({ ok: true });
    store.dispose();
  });

  it("treats an unreadable lock file as held for a moment, then as stale", () => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(lockFile("u"), "not json");
    const store = createFileSessionStore(dir);
    expect(store.lock("u")).toMatchObject({ ok: false, holder: { owner: "an unknown process" } });
    const old = (Date.now() - 60_000) / 1000;
    fs.utimesSync(lockFile("u"), old, old);
    expect(store.lock("u")).toEqual({ ok: true });
    store.dispose();
  });

  it("releases locks when the process exits without disposing its store", () => {
    const r = run(`store.append("e", "{}"); if (!require("fs").existsSync(${JSON.stringify(lockFile("e"))})) throw new Error("no lock"); process.exit(3);`);
    expect(r.status).toBe(3);
    expect(fs.existsSync(lockFile("e"))).toBe(false);
  });
});

describe("session lock in one process", () => {
  afterEach(() => vi.useRealTimers());

  it("a later store takes the lock over, and the earlier one can no longer write", () => {
    const first = createFileSessionStore(dir);
    first.append("s", '{"n":1}');
    const second = createFileSessionStore(dir);
    second.read("s");
    second.append("s", '{"n":2}');
    expect(() => first.append("s", '{"n":3}')).toThrow(SessionLockedError);
    expect(second.read("s")).toEqual(['{"n":1}', '{"n":2}']);
    second.dispose();
    first.dispose();
  });

  it("refuses a writer whose view is out of date, until it reads the log again", () => {
    const a = createFileSessionStore(dir);
    a.append("v", '{"n":1}');
    a.unlock("v");
    const b = createFileSessionStore(dir);
    b.read("v");
    b.append("v", '{"n":2}');
    b.unlock("v");
    expect(a.changedOnDisk("v")).toBe(true);
    expect(() => a.append("v", '{"n":3}')).toThrow(SessionChangedError);
    expect(a.read("v")).toEqual(['{"n":1}', '{"n":2}']);
    expect(a.changedOnDisk("v")).toBe(false);
    a.append("v", '{"n":3}');
    expect(b.read("v")).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    a.dispose();
    b.dispose();
  });

  it("keeps a held lock fresh with its heartbeat, and notices before writing that it was taken over", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const store = createFileSessionStore(dir);
    store.append("hb", "{}");
    const t0 = fs.statSync(lockFile("hb")).mtimeMs;
    vi.advanceTimersByTime(HEARTBEAT_MS + 10);
    expect(fs.statSync(lockFile("hb")).mtimeMs).toBeGreaterThan(t0);
    // Another machine judged it stale (e.g. this one slept) and took it.
    fs.writeFileSync(lockFile("hb"), JSON.stringify({ pid: 7, host: "elsewhere.example", owner: "yoke run", since: new Date().toISOString(), token: "theirs" }));
    vi.advanceTimersByTime(HEARTBEAT_MS + 10);
    expect(() => store.append("hb", "{}")).toThrow(/in use by yoke run \(pid 7 on elsewhere\.example/);
    expect(fs.readFileSync(path.join(dir, "hb.jsonl"), "utf8")).toBe("{}\n");
    store.dispose();
    // Not ours: left alone.
    expect(JSON.parse(fs.readFileSync(lockFile("hb"), "utf8")).token).toBe("theirs");
  });

  it("a read-only store never writes or locks", () => {
    const view = createFileSessionStore(dir, { readOnly: true });
    expect(() => view.append("r", "{}")).toThrow("read-only");
    expect(() => view.lock("r")).toThrow("read-only");
    expect(fs.existsSync(dir)).toBe(false);
  });
});
