/**
 * Bench section "startup" (issue 19, item 4): what starting Yoke costs, each figure beside a
 * baseline measured in the same run, interleaved round by round so the machine's load weighs on
 * both alike.
 *
 * - `yoke run` (the built CLI, a real session in an empty trusted folder, `--provider anthropic`
 *   against the scripted model server): the process's CPU (user + system, from /proc/PID/stat,
 *   read when the request arrives) and wall time from spawn to the first model request. Baseline:
 *   a bare `node -e` that sends one POST with `fetch` to the same server, measured the same way
 *   (Node's own start-up and its HTTP client: the floor of any CLI that calls a model); a second
 *   bare process that POSTs with `http.request` (the floor with Node's plain client, which Yoke's
 *   own HTTP client is built on: src/node/http-client); and the same `yoke run` with
 *   `YOKE_HTTP_CLIENT=fetch` (the SDKs on Node's fetch), which isolates what the client saves.
 * - `yoke --version` and `node -e 0`, whole processes (/usr/bin/time): the CLI entry's own cost.
 * - the extension's activation: a fresh Node process requires dist/extension.js and calls
 *   activate() with a stand-in `vscode` module (every API a no-op) and an ExtensionContext of
 *   plain objects; CPU (process.cpuUsage) and wall time of the require + activate(). Baseline: the
 *   same harness requiring an empty extension. The real extension host adds its own RPC for each
 *   registration (asynchronous, not on activate()'s path); what this measures is the code Yoke runs.
 *   The probe also records whether activation loaded the session bundle (it must not).
 *
 * `YOKE_BENCH_STARTUP_ROUNDS=N` (default 7); `YOKE_BENCH_STARTUP_COMPARE_CLI=other/dist/cli.js`
 * adds the same `yoke run` probe with another build (e.g. main's) as a second baseline.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startScriptedLlmServer } from "../demo/scripted-llm-server";
import type { BenchFn, BenchMetric } from "./types";

const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : NaN);

function distFile(name: string): string {
  const found = [path.join(path.dirname(process.argv[1] ?? ""), name), path.join(__dirname, name)].find((p) => fs.existsSync(p));
  if (!found) throw new Error(`the startup bench runs the built ${name}: run \`npm run build\` first`);
  return found;
}

/** CPU (ms) a live process has used: utime + stime from /proc/PID/stat (clock ticks of 10 ms). */
function procCpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

interface FirstRequest {
  cpuMs: number;
  wallMs: number;
}

/** Spawns `args` with node and measures CPU and wall time until its first request reaches a scripted server. */
async function firstRequest(args: (url: string) => string[], env: NodeJS.ProcessEnv, cwd: string): Promise<FirstRequest> {
  let child: ReturnType<typeof spawn> | undefined;
  let mark: FirstRequest | undefined;
  let t0 = 0;
  const server = await startScriptedLlmServer({
    script: () => {
      const pid = child?.pid;
      if (!mark && pid) mark = { cpuMs: procCpuMs(pid), wallMs: round(performance.now() - t0) };
      return { text: "Done." };
    },
  });
  try {
    t0 = performance.now();
    child = spawn(process.execPath, args(server.anthropicBaseUrl), { cwd, env, stdio: "ignore" });
    const c = child;
    const code = await new Promise<number | null>((resolve) => c.on("close", (status) => resolve(status)));
    if (!mark) throw new Error(`the process ended (status ${code}) before its first request`);
    return mark;
  } finally {
    await server.close();
  }
}

/** CPU (ms) of a whole process, from /usr/bin/time (user + system). */
function wholeProcessCpuMs(args: string[]): number {
  const r = spawnSync("/usr/bin/time", ["-f", "%U %S", process.execPath, ...args], { encoding: "utf8" });
  const [u, s] = r.stderr.trim().split(/\s+/).slice(-2).map(Number);
  return u !== undefined && s !== undefined && !Number.isNaN(u + s) ? round((u + s) * 1000) : NaN;
}

/**
 * `yoke run` in an empty trusted folder, until its first request. `home` is kept across the rounds
 * of one build, as a user's is: what Yoke caches there (the sandbox probe, V8's compiled code)
 * was written by the warm-up run.
 */
async function yokeRun(cli: string, scratch: string, home: string, env: NodeJS.ProcessEnv = {}): Promise<FirstRequest> {
  const dir = fs.mkdtempSync(path.join(scratch, "run-"));
  const cwd = path.join(dir, "work");
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(cwd);
  try {
    return await firstRequest(
      (url) => [cli, "run", "--trust", "--provider", "anthropic", "--base-url", url, "--cwd", cwd, "--session-dir", path.join(dir, "sessions"), "--max-turns", "2", "Say hello."],
      { ...process.env, HOME: home, ANTHROPIC_API_KEY: "bench", ...env },
      cwd,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A bare Node process that POSTs once to the server with fetch: the floor of a CLI that calls a model. */
function bareFetch(scratch: string): Promise<FirstRequest> {
  const code = `fetch(process.argv[1] + "/v1/messages", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "hi" }] }) }).then((r) => r.text(), () => {});`;
  return firstRequest((url) => ["-e", code, url], process.env, scratch);
}

/** The same POST with `http.request`: the floor of a CLI on Node's plain HTTP client. */
function bareHttp(scratch: string): Promise<FirstRequest> {
  const code = `require("node:http").request(process.argv[1] + "/v1/messages", { method: "POST", headers: { "content-type": "application/json" } }, (r) => r.resume()).on("error", () => {}).end(JSON.stringify({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "hi" }] }));`;
  return firstRequest((url) => ["-e", code, url], process.env, scratch);
}

/** The activation probe, run in a fresh Node process: prints one JSON line. */
const ACTIVATE_PROBE = String.raw`
const Module = require("node:module");
const [file] = process.argv.slice(1);
// A stand-in for the vscode module: every property is a callable, constructible no-op whose
// results are stand-ins too; "then" is absent so nothing awaits it forever.
const stub = () => {
  const fn = function () {};
  const set = new Map();
  return new Proxy(fn, {
    get(_t, k) {
      if (set.has(k)) return set.get(k);
      if (k === "then" || k === Symbol.toPrimitive || k === Symbol.iterator) return undefined;
      if (k === "dispose") return () => {};
      return stub();
    },
    set(_t, k, v) {
      set.set(k, v);
      return true;
    },
    apply: () => stub(),
    construct: () => stub(),
  });
};
// The names the bundle uses (vscode.window, vscode.Uri, ...): esbuild copies a namespace import's own keys.
const names = new Set([...require("node:fs").readFileSync(file, "utf8").matchAll(/\bvscode\d*\.([A-Za-z_]\w*)/g)].map((m) => m[1]));
const vscode = {};
for (const n of names) vscode[n] = stub();
// Settings read during activation: every key at its default, as in a fresh profile.
vscode.workspace ??= stub();
vscode.workspace.getConfiguration = () => ({ get: (_k, d) => d, inspect: () => undefined, has: () => false, update: async () => {} });
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === "vscode") return vscode;
  return load.call(this, request, parent, isMain);
};
const memento = { get: () => undefined, update: async () => {}, keys: () => [] };
const context = {
  subscriptions: [],
  secrets: { get: async () => undefined, store: async () => {}, delete: async () => {}, onDidChange: stub() },
  workspaceState: memento,
  globalState: { ...memento, setKeysForSync: () => {} },
  extensionUri: stub(),
  extensionPath: require("node:path").dirname(file),
  storageUri: undefined,
  globalStorageUri: stub(),
  logUri: stub(),
  extensionMode: 1,
  environmentVariableCollection: stub(),
  asAbsolutePath: (p) => p,
};
const before = Object.keys(require.cache).length;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const ext = require(file);
const api = ext.activate ? ext.activate(context) : undefined;
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const loaded = Object.keys(require.cache).slice(before).map((f) => require("node:path").basename(f));
process.stdout.write(JSON.stringify({ wallMs: wall, cpuMs: (cpu.user + cpu.system) / 1000, loaded, api: api !== undefined }) + "\n");
for (const d of context.subscriptions) try { d.dispose && d.dispose(); } catch {}
process.exit(0);
`;

interface Activation {
  wallMs: number;
  cpuMs: number;
  loaded: string[];
}

function activation(file: string): Activation {
  const r = spawnSync(process.execPath, ["-e", ACTIVATE_PROBE, file], { encoding: "utf8", timeout: 60_000 });
  const line = r.stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line) as Activation;
  } catch {
    throw new Error(`the activation probe failed (status ${r.status}): ${r.stderr.slice(0, 2000)}`);
  }
}

const row = (name: string, value: number, unit: string, baseline: number, note: string): BenchMetric => ({
  name,
  value: round(value),
  unit,
  baseline: round(baseline),
  ratio: baseline ? round(value / baseline, 2) : undefined,
  note,
});

export const bench: BenchFn = async () => {
  const rounds = Number(process.env.YOKE_BENCH_STARTUP_ROUNDS) || 7;
  const cli = distFile("cli.js");
  const extension = distFile("extension.js");
  const other = process.env.YOKE_BENCH_STARTUP_COMPARE_CLI;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-bench-startup-"));
  const empty = path.join(scratch, "empty-extension.js");
  fs.writeFileSync(empty, "exports.activate = () => ({});\n");
  const runs: FirstRequest[] = [];
  const bare: FirstRequest[] = [];
  const bareNodeHttp: FirstRequest[] = [];
  const onFetch: FirstRequest[] = [];
  const others: FirstRequest[] = [];
  const version: number[] = [];
  const nodeZero: number[] = [];
  const act: Activation[] = [];
  const actBase: Activation[] = [];
  try {
    // One warm-up of each (the page cache, the first spawn of bwrap), then interleaved rounds.
    const home = path.join(scratch, "home");
    const otherHome = path.join(scratch, "home-other");
    await yokeRun(cli, scratch, home);
    await bareFetch(scratch);
    await bareHttp(scratch);
    await yokeRun(cli, scratch, home, { YOKE_HTTP_CLIENT: "fetch" });
    if (other) await yokeRun(other, scratch, otherHome);
    for (let r = 0; r < rounds; r++) {
      runs.push(await yokeRun(cli, scratch, home));
      bare.push(await bareFetch(scratch));
      bareNodeHttp.push(await bareHttp(scratch));
      onFetch.push(await yokeRun(cli, scratch, home, { YOKE_HTTP_CLIENT: "fetch" }));
      if (other) others.push(await yokeRun(other, scratch, otherHome));
      version.push(wholeProcessCpuMs([cli, "--version"]));
      nodeZero.push(wholeProcessCpuMs(["-e", "0"]));
      act.push(activation(extension));
      actBase.push(activation(empty));
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const m = (xs: FirstRequest[], k: keyof FirstRequest) => median(xs.map((x) => x[k]));
  const a = (xs: Activation[], k: "cpuMs" | "wallMs") => median(xs.map((x) => x[k]));
  const sessionLoaded = act.some((x) => x.loaded.some((f) => f === "session.js"));
  const metrics: BenchMetric[] = [
    row("yoke run: spawn → first request, CPU", m(runs, "cpuMs"), "ms", m(bare, "cpuMs"), "baseline: node -e 'fetch(…)' to the same server; target ≤ 150 ms"),
    row("yoke run: spawn → first request, wall", m(runs, "wallMs"), "ms", m(bare, "wallMs"), "baseline: node -e 'fetch(…)' to the same server"),
    row("yoke run: spawn → first request, CPU, vs node -e 'http.request(…)'", m(runs, "cpuMs"), "ms", m(bareNodeHttp, "cpuMs"), "baseline: the same POST with Node's plain HTTP client"),
    row(
      "yoke run: spawn → first request, CPU, vs YOKE_HTTP_CLIENT=fetch",
      m(runs, "cpuMs"),
      "ms",
      m(onFetch, "cpuMs"),
      "baseline: the same build with the SDKs on Node's fetch (src/node/http-client), interleaved",
    ),
    row("yoke --version, whole process, CPU", median(version), "ms", median(nodeZero), "baseline: node -e 0"),
    row("activate(): require + activate, CPU", a(act, "cpuMs"), "ms", a(actBase, "cpuMs"), "stand-in vscode module; baseline: an empty extension in the same harness; target ≤ 50 ms"),
    row("activate(): require + activate, wall", a(act, "wallMs"), "ms", a(actBase, "wallMs"), "baseline: an empty extension in the same harness"),
    {
      name: "activate(): loads the session bundle",
      value: sessionLoaded ? 1 : 0,
      unit: "yes/no",
      note: `modules loaded by activate(): ${[...new Set(act.flatMap((x) => x.loaded))].join(", ")}`,
    },
  ];
  if (other) {
    metrics.push(row(`yoke run: spawn → first request, CPU, vs ${other}`, m(runs, "cpuMs"), "ms", m(others, "cpuMs"), "baseline: the other build, interleaved"));
    metrics.push(row(`yoke run: spawn → first request, wall, vs ${other}`, m(runs, "wallMs"), "ms", m(others, "wallMs"), "baseline: the other build, interleaved"));
  }
  return {
    section: "startup",
    method:
      `Medians of ${rounds} interleaved rounds after one warm-up. yoke run: the built CLI in an empty trusted folder, HOME a folder of the bench's kept across rounds, ` +
      "--provider anthropic against the scripted server; CPU from /proc/PID/stat when the first request arrives (10 ms ticks). " +
      "activate(): a fresh Node process requires dist/extension.js and calls activate() with a stand-in vscode module.",
    metrics,
  };
};
