/**
 * Bench section "sandbox": start-up overhead of a sandboxed command over an unsandboxed one, the
 * cost of the hardened bwrap (user namespace, dropped capabilities, the mounts of the plan:
 * hidden homes, /run, secrets and sockets, protected paths, denied paths) against the argument
 * set bwrap had before (measured in the same run), and output throughput through the runner.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { createNodeCommandRunner } from "../node/commands/runner";
import { loadPty } from "../node/commands/pty";
import { createSandbox, type SandboxChoice } from "../node/commands/sandbox/create";
import { which } from "../node/commands/sandbox/paths";
import type { SandboxBackend, SandboxProtection } from "../node/commands/sandbox/types";
import type { BenchFn, BenchMetric } from "./types";

const STARTS = 50;
const BYTES = 50_000_000;
/** 50 MB of 80-character lines (79 "a" and a newline). */
const PRINT = `yes ${"a".repeat(79)} | head -c ${BYTES}`;

/**
 * The bwrap argument set before the hardening (the baseline): root read-only, private /tmp, the
 * home hidden, the workspace writable, network/PID/IPC namespaces, no user namespace, capabilities
 * kept. Kept here only to measure what the new mounts cost.
 */
function legacyBwrap(ws: string, home: string): SandboxBackend {
  const bin = which("bwrap");
  if (!bin) throw new Error("bwrap is not installed");
  return {
    name: "bwrap",
    networkToggle: true,
    helpers: ["bwrap"],
    pidNamespace: true,
    wrap: (req) => ({
      file: bin,
      args: [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--tmpfs",
        home,
        "--bind-try",
        ws,
        ws,
        ...(req.network === "off" ? ["--unshare-net"] : []),
        "--unshare-pid",
        "--unshare-ipc",
        "--new-session",
        "--die-with-parent",
        "--chdir",
        req.cwd,
        "--",
        ...req.argv,
      ],
    }),
  };
}

type Config = { label: string; sandbox: () => SandboxBackend };

/**
 * Start-up of each configuration, measured interleaved (one start of each per round) so that a
 * change of load on a shared machine weighs on all of them alike. The figure is the median per start.
 */
async function timeStartsTogether(cfgs: Config[], ws: string, pty: boolean): Promise<number[]> {
  const runners = cfgs.map((c) => createNodeCommandRunner({ workspace: ws, logDir: join(ws, ".logs", `${c.label}-${pty}`), sandbox: c.sandbox(), pty }));
  const times = cfgs.map(() => [] as number[]);
  try {
    for (const r of runners) await r.start({ command: "true", cwd: ws, background: false, network: "off" }).wait(); // warm-up
    for (let i = 0; i < STARTS; i++) {
      for (let k = 0; k < runners.length; k++) {
        const t0 = performance.now();
        const r = await runners[k]!.start({ command: "true", cwd: ws, background: false, network: "off" }).wait();
        if (r.exitCode !== 0) throw new Error(`true failed under ${cfgs[k]!.label}: ${JSON.stringify(r)}`);
        times[k]!.push(performance.now() - t0);
      }
    }
    return times.map((t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]!);
  } finally {
    for (const r of runners) await r.dispose();
  }
}

/** Median of three runs: the machine may be shared with other work. */
async function throughput(backend: SandboxChoice, ws: string, pty: boolean): Promise<number> {
  const runs = [await throughputOnce(backend, ws, pty), await throughputOnce(backend, ws, pty), await throughputOnce(backend, ws, pty)];
  return runs.sort((a, b) => a - b)[1]!;
}

async function throughputOnce(backend: SandboxChoice, ws: string, pty: boolean): Promise<number> {
  const runner = createNodeCommandRunner({ workspace: ws, logDir: join(ws, ".logs", `tp-${backend}-${pty}`), sandbox: createSandbox(backend, { workspace: ws }), pty });
  try {
    const t0 = performance.now();
    const cmd = runner.start({ command: PRINT, cwd: ws, background: false, network: "off", timeoutMs: 300_000 });
    const r = await cmd.wait();
    const secs = (performance.now() - t0) / 1000;
    const lines = cmd.bounded().totalLines;
    if (r.exitCode !== 0 || lines !== Math.ceil(BYTES / 80)) throw new Error(`throughput run failed: ${JSON.stringify(r)}, ${lines} lines`);
    return BYTES / 1e6 / secs;
  } finally {
    await runner.dispose();
  }
}

/** A workspace like a real one: a git repository, some protected paths present, secrets the rules deny. */
function makeWorkspace(): { ws: string; home: string; protection: () => SandboxProtection } {
  const ws = mkdtempSync(join(tmpdir(), "yoke-bench-sandbox-"));
  spawnSync("git", ["init", "-q", ws]);
  for (const d of [".vscode", "secrets", "config/keys", "src"]) mkdirSync(join(ws, d), { recursive: true });
  for (const f of [".env", ".env.local", "secrets/a.pem", "config/keys/id"]) writeFileSync(join(ws, f), "x");
  const hide = [".env", ".env.local", "secrets", "config/keys"].map((p) => join(ws, p));
  return { ws, home: process.env.HOME ?? "/root", protection: () => ({ hide, readOnly: [join(ws, "src", "generated")] }) };
}

export const bench: BenchFn = async () => {
  const { ws, home, protection } = makeWorkspace();
  const metrics: BenchMetric[] = [];
  const none: Config = { label: "none", sandbox: () => createSandbox("none", { workspace: ws }) };
  const legacy: Config = { label: "legacy", sandbox: () => legacyBwrap(ws, home) };
  const hardened: Config = { label: "bwrap", sandbox: () => createSandbox("bwrap", { workspace: ws }) };
  const ruled: Config = { label: "bwrap-rules", sandbox: () => createSandbox("bwrap", { workspace: ws, protection }) };
  try {
    let firejail: Config | undefined = { label: "firejail", sandbox: () => createSandbox("firejail", { workspace: ws, protection }) };
    let firejailNote: string | undefined;
    try {
      firejail.sandbox();
    } catch (err) {
      firejailNote = (err as Error).message;
      firejail = undefined;
    }
    const [tNone, tLegacy, tBwrap, tRuled, tFj] = await timeStartsTogether([none, legacy, hardened, ruled, ...(firejail ? [firejail] : [])], ws, false);
    metrics.push({
      name: "start-up, bwrap before the hardening (pipes)",
      value: tLegacy!,
      unit: "ms",
      baseline: tNone,
      ratio: tLegacy! / tNone!,
      note: `\`true\` ×${STARTS}, median; the old argument set; baseline: no sandbox`,
    });
    metrics.push({
      name: "start-up, bwrap hardened (pipes)",
      value: tBwrap!,
      unit: "ms",
      baseline: tLegacy,
      ratio: tBwrap! / tLegacy!,
      note: "user namespace, caps dropped, plan mounts; baseline: bwrap before the hardening",
    });
    metrics.push({
      name: "start-up, bwrap hardened + rules (pipes)",
      value: tRuled!,
      unit: "ms",
      baseline: tLegacy,
      ratio: tRuled! / tLegacy!,
      note: "4 denied paths hidden, protected paths of a git workspace; baseline: bwrap before the hardening",
    });
    metrics.push({ name: "start-up, bwrap hardened vs no sandbox (pipes)", value: tBwrap!, unit: "ms", baseline: tNone, ratio: tBwrap! / tNone!, note: "baseline: no sandbox" });
    if (tFj !== undefined)
      metrics.push({ name: "start-up, firejail hardened + rules (pipes)", value: tFj, unit: "ms", baseline: tNone, ratio: tFj / tNone!, note: `\`true\` ×${STARTS}, median; baseline: no sandbox` });
    const ptyOk = loadPty().pty !== undefined;
    if (ptyOk) {
      const [nonePty, bwrapPty] = (await timeStartsTogether([none, hardened], ws, true)) as [number, number];
      metrics.push({ name: "start-up, bwrap hardened (pty)", value: bwrapPty, unit: "ms", baseline: nonePty, ratio: bwrapPty / nonePty, note: "baseline: no sandbox, pty" });
    }
    await throughputOnce("none", ws, false); // warm-up (JIT)
    const tpNone = await throughput("none", ws, false);
    const tpBwrap = await throughput("bwrap", ws, false);
    metrics.push({ name: "output throughput, bwrap (pipes)", value: tpBwrap, unit: "MB/s", baseline: tpNone, ratio: tpBwrap / tpNone, note: "50 MB of 80-char lines; baseline: no sandbox" });
    if (ptyOk) {
      const tpPty = await throughput("bwrap", ws, true);
      metrics.push({ name: "output throughput, bwrap (pty)", value: tpPty, unit: "MB/s", baseline: tpBwrap, ratio: tpPty / tpBwrap, note: "baseline: bwrap on pipes" });
    }
    if (firejailNote) metrics.push({ name: "firejail", value: 0, unit: "-", note: `not measured: ${firejailNote}` });
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
  return {
    section: "sandbox",
    method:
      `Through the Node CommandRunner (spawn in its own process group, log file, bounded model view, limits, watchdog, guards). Start-up: median wall time of \`true\` run ${STARTS} times per configuration, the configurations interleaved (one start of each per round), after one warm-up, ` +
      "in a git workspace with protected paths and 4 denied paths; the hardened bwrap is compared with the argument set bwrap had before, " +
      `in the same run. Throughput: \`${PRINT.replace("a".repeat(79), "a×79")}\` (50 MB), wall time from start to result, median of 3 runs.`,
    metrics,
  };
};
