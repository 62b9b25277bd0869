// `yoke run` ends as soon as its session does, after a session that ran a sandboxed command: the
// process is gone and so is everything it started (the command, what the command left running,
// the sandbox, the runner's reaper). It used to sit 5-40 s after printing its answer: Node waited
// for V8's background recompile of the bash grammar (WebAssembly), which the first command's
// permission check had started. Bounds are generous: a wall-clock bound far above the fixed
// figure, and the CPU the process burns after printing, which is what the bug cost (seconds of
// compiler work) and which a loaded machine does not inflate much.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { cliPath, ensureBuilt } from "../support/cli";
import { chownTree, identities, spawnAs, type Identity } from "../support/identities";
import { scriptedRunArgs } from "../support/scripted-run";

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of a live process, in ms (undefined once it is gone). */
function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (f[0] === "Z") return undefined;
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return cpuMs(pid) !== undefined;
}

/** Live processes that work in `dir` (their cwd is in it) or name `tag` on their command line. */
function leftovers(dir: string, tag: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const pid = Number(name);
    let cmdline = "";
    let cwd = "";
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/g, " ").trim();
      cwd = readlinkSync(`/proc/${name}/cwd`);
    } catch {
      // gone, or not ours to read
    }
    if (!alive(pid)) continue;
    if (cmdline.includes(tag) || cwd === dir || cwd.startsWith(dir + "/")) out.push(`${pid} ${cmdline} (cwd ${cwd})`);
  }
  return out;
}

async function until(test: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (test()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return test();
}

let server: ScriptedServer | undefined;
const temps: string[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterAll(async () => {
  await server?.close();
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe.each(identities().list)("yoke run after a sandboxed command, as $label", (who: Identity) => {
  it("exits once it has printed its answer, leaving no process behind", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-exit-")));
    temps.push(root);
    const ws = join(root, "ws");
    const home = join(root, "home");
    mkdirSync(ws);
    mkdirSync(home);
    chownTree(root, who);
    // A command that prints, and leaves a process running in the background (the session's end stops it).
    const tag = `yoke-exit-${Math.random().toString(36).slice(2, 8)}`;
    const sleeper = `bash -c 'sleep 317; true' ${tag}`;
    await server?.close();
    server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "run_command", input: { command: `echo ran-${tag}; (${sleeper} &)` } }] }, { text: "Done." }],
    });
    const args = [...scriptedRunArgs(server.openaiBaseUrl, ws, join(root, "sessions")), "--permission-mode", "bypassPermissions", "--json", "run it"];
    // Its cwd is the workspace, so the reaper it starts is found by the leftovers check too.
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: ws, stdio: ["ignore", "pipe", "pipe"], ...spawnAs(who, { HOME: home, OPENAI_API_KEY: "test" }) });
    const pid = child.pid!;
    let stdout = "";
    let stderr = "";
    let printed: { at: number; cpu: number | undefined } | undefined;
    let lastCpu: number | undefined;
    let poll: ReturnType<typeof setInterval> | undefined;
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.on("data", (d) => {
      stdout += d;
      if (printed) return;
      printed = { at: Date.now(), cpu: cpuMs(pid) };
      // The CPU it uses from now on, read until the process is gone.
      poll = setInterval(() => (lastCpu = cpuMs(pid) ?? lastCpu), 20);
    });
    const exit = await new Promise<{ code: number | null; at: number }>((resolve) => child.on("exit", (code) => resolve({ code, at: Date.now() })));
    clearInterval(poll);
    await new Promise<void>((r) => (child.stdout.readableEnded ? r() : child.stdout.on("end", () => r())));

    expect(exit.code, stderr).toBe(0);
    const doc = JSON.parse(stdout) as { status: string; text: string };
    expect(doc.status).toBe("done");
    expect(doc.text).toBe("Done.");
    // The command really ran (in the sandbox: the runner's only way to run it).
    const toolMessage = JSON.stringify(server.requests[1]!.body);
    expect(toolMessage).toContain(`ran-${tag}`);

    expect(printed, "the answer was printed before the exit").toBeDefined();
    expect(alive(pid)).toBe(false);
    // Generous: the fixed CLI exits within a few hundred ms of printing, even on a loaded machine.
    expect(exit.at - printed!.at, "ms from the printed answer to the exit").toBeLessThan(20_000);
    // After printing, only the teardown is left (tens of ms of CPU); the bug was seconds of compiler work.
    if (printed!.cpu !== undefined && lastCpu !== undefined) expect(lastCpu - printed!.cpu, "CPU ms after the printed answer").toBeLessThan(750);
    // Nothing it started is left: the background sleeper, the sandbox, the reaper (which ends once it has swept).
    const clean = await until(() => leftovers(ws, tag).length === 0, 30_000);
    expect(clean ? [] : leftovers(ws, tag)).toEqual([]);
  }, 180_000);
});
