/**
 * Bench section "sandbox": start-up overhead of a sandboxed command over an unsandboxed one,
 * and output throughput through the runner (log file + bounded model view + listeners).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeCommandRunner } from "../node/commands/runner";
import { loadPty } from "../node/commands/pty";
import { createSandbox, type SandboxChoice } from "../node/commands/sandbox/create";
import type { BenchFn, BenchMetric } from "./types";

const STARTS = 50;
const BYTES = 50_000_000;
/** 50 MB of 80-character lines (79 "a" and a newline). */
const PRINT = `yes ${"a".repeat(79)} | head -c ${BYTES}`;

async function timeStarts(backend: SandboxChoice, ws: string, pty: boolean): Promise<number> {
  const runner = createNodeCommandRunner({ workspace: ws, logDir: join(ws, `.logs-${backend}-${pty}`), sandbox: createSandbox(backend, { workspace: ws }), pty });
  try {
    await runner.start({ command: "true", cwd: ws, background: false, network: "off" }).wait(); // warm-up
    const t0 = performance.now();
    for (let i = 0; i < STARTS; i++) {
      const r = await runner.start({ command: "true", cwd: ws, background: false, network: "off" }).wait();
      if (r.exitCode !== 0) throw new Error(`true failed under ${backend}: ${JSON.stringify(r)}`);
    }
    return (performance.now() - t0) / STARTS;
  } finally {
    await runner.dispose();
  }
}

/** Median of three runs: the machine may be shared with other work. */
async function throughput(backend: SandboxChoice, ws: string, pty: boolean): Promise<number> {
  const runs = [await throughputOnce(backend, ws, pty), await throughputOnce(backend, ws, pty), await throughputOnce(backend, ws, pty)];
  return runs.sort((a, b) => a - b)[1]!;
}

async function throughputOnce(backend: SandboxChoice, ws: string, pty: boolean): Promise<number> {
  const runner = createNodeCommandRunner({ workspace: ws, logDir: join(ws, `.tp-${backend}-${pty}`), sandbox: createSandbox(backend, { workspace: ws }), pty });
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

export const bench: BenchFn = async () => {
  const ws = mkdtempSync(join(tmpdir(), "yoke-bench-sandbox-"));
  const metrics: BenchMetric[] = [];
  try {
    const none = await timeStarts("none", ws, false);
    const bwrap = await timeStarts("bwrap", ws, false);
    metrics.push({ name: "start-up, bwrap, per command (pipes)", value: bwrap, unit: "ms", baseline: none, ratio: bwrap / none, note: `\`true\` ×${STARTS}; baseline: no sandbox` });
    let firejailNote: string | undefined;
    try {
      const fj = await timeStarts("firejail", ws, false);
      metrics.push({ name: "start-up, firejail, per command (pipes)", value: fj, unit: "ms", baseline: none, ratio: fj / none, note: `\`true\` ×${STARTS}; baseline: no sandbox` });
    } catch (err) {
      firejailNote = (err as Error).message;
    }
    const ptyOk = loadPty().pty !== undefined;
    if (ptyOk) {
      const nonePty = await timeStarts("none", ws, true);
      const bwrapPty = await timeStarts("bwrap", ws, true);
      metrics.push({ name: "start-up, bwrap, per command (pty)", value: bwrapPty, unit: "ms", baseline: nonePty, ratio: bwrapPty / nonePty, note: "baseline: no sandbox, pty" });
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
      `Through the Node CommandRunner (spawn in its own process group, log file, bounded model view). Start-up: mean wall time of \`true\` run ${STARTS} times ` +
      `one after another after one warm-up, sandboxed vs not. Throughput: \`${PRINT.replace("a".repeat(79), "a×79")}\` (50 MB), wall time from start to result, median of 3 runs.`,
    metrics,
  };
};
