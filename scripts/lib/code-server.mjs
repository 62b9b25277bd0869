// Runs code-server (a real VS Code served to a browser) for `npm start` and the end-to-end tests.
// code-server and the Node 24 it needs are installed by scripts/setup-e2e.sh into ~/.cache/yoke-e2e.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Runs scripts/setup-e2e.sh (idempotent) and returns the Node 24 binary and code-server entry it
 * reports on its last stdout line. Progress goes to stderr (inherited). Env YOKE_E2E_SETUP
 * ("<node24> <code-server>") skips the script.
 */
export function setupCodeServer() {
  // scripts/e2e.mjs has run it already and passes the answer down to the test processes.
  const known = process.env.YOKE_E2E_SETUP?.split(" ");
  if (known?.length === 2 && known.every((p) => existsSync(p))) return { node: known[0], codeServer: known[1] };
  const r = spawnSync("bash", [join(ROOT, "scripts", "setup-e2e.sh")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`scripts/setup-e2e.sh failed (exit ${r.status ?? r.signal})`);
  const last = r.stdout.trim().split("\n").pop() ?? "";
  const [node, codeServer] = last.split(" ");
  if (!node || !codeServer || !existsSync(node) || !existsSync(codeServer)) {
    throw new Error(`scripts/setup-e2e.sh did not report "<node24> <code-server>" (got: ${JSON.stringify(last)})`);
  }
  return { node, codeServer };
}

/** Environment for code-server: Node 24 first on PATH, no inherited npm nodedir. */
function codeServerEnv(setup, extra = {}) {
  const env = { ...process.env, ...extra };
  env.PATH = `${dirname(setup.node)}:${env.PATH ?? ""}`;
  delete env.npm_config_nodedir;
  delete env.VSCODE_IPC_HOOK_CLI; // would make code-server talk to an outer VS Code
  delete env.ELECTRON_RUN_AS_NODE;
  return env;
}

/** Installs a .vsix into the given extensions dir (replacing an older install of it). */
export function installVsix(setup, { vsix, extensionsDir, userDataDir }) {
  mkdirSync(extensionsDir, { recursive: true });
  mkdirSync(userDataDir, { recursive: true });
  const r = spawnSync(setup.node, [setup.codeServer, "--extensions-dir", extensionsDir, "--user-data-dir", userDataDir, "--install-extension", vsix, "--force"], {
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    env: codeServerEnv(setup),
    timeout: 120_000,
  });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.status !== 0 || !/successfully installed/i.test(out)) {
    throw new Error(`installing ${vsix} into code-server failed (exit ${r.status ?? r.signal}):\n${out}`);
  }
  return out.trim();
}

/** Merges `values` into a JSON settings file (creating it and its folder). */
export function mergeJsonFile(file, values) {
  mkdirSync(dirname(file), { recursive: true });
  let current = {};
  if (existsSync(file)) {
    try {
      current = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      throw new Error(`${file} is not plain JSON (comments?): fix or delete it`);
    }
  }
  writeFileSync(file, `${JSON.stringify({ ...current, ...values }, null, 2)}\n`);
}

/** Resolves to true when 127.0.0.1:port can be bound. */
function portIsFree(port) {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/** Returns `preferred` if free, else the next free port above it; with no preference, any free port. */
export async function findFreePort(preferred) {
  if (preferred) {
    for (let p = preferred; p < preferred + 100; p++) if (await portIsFree(p)) return p;
  }
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 200, the process exits, or the timeout passes. */
async function waitForHttp(url, child, timeoutMs, output) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited (${child.exitCode ?? child.signalCode}) before serving:\n${output()}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer 200 on ${url} within ${timeoutMs} ms:\n${output()}`);
}

/** Sends `signal` to a whole process group, ignoring a group that is already gone. */
export function killGroup(pid, signal = "SIGTERM") {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts code-server in its own process group and waits until it serves HTTP 200.
 * @param {{node: string; codeServer: string}} setup
 * `folder` may be a folder or a .code-workspace file.
 * @param {{port: number; extensionsDir: string; userDataDir: string; folder?: string; env?: Record<string, string>;
 *          onOutput?: (chunk: string) => void; timeoutMs?: number}} opts
 */
export async function startCodeServer(setup, opts) {
  // An empty config of our own: never pick up ~/.config/code-server/config.yaml (password, cert).
  const config = join(opts.userDataDir, "code-server.yaml");
  mkdirSync(opts.userDataDir, { recursive: true });
  if (!existsSync(config)) writeFileSync(config, "");
  const args = [
    setup.codeServer,
    "--config",
    config,
    "--bind-addr",
    `127.0.0.1:${opts.port}`,
    "--auth",
    "none",
    "--disable-telemetry",
    "--disable-update-check",
    "--extensions-dir",
    opts.extensionsDir,
    "--user-data-dir",
    opts.userDataDir,
  ];
  if (opts.folder) args.push(opts.folder);
  const child = spawn(setup.node, args, {
    detached: true, // own process group: killGroup(child.pid) stops code-server and its extension hosts
    stdio: ["ignore", "pipe", "pipe"],
    env: codeServerEnv(setup, opts.env),
  });
  let log = "";
  const onData = (buf) => {
    const s = buf.toString();
    log = (log + s).slice(-20_000);
    opts.onOutput?.(s);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const base = `http://127.0.0.1:${opts.port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    killGroup(child.pid, "SIGTERM");
    const timer = setTimeout(() => killGroup(child.pid, "SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
    killGroup(child.pid, "SIGKILL"); // stragglers (extension host children) in the group
  };
  try {
    await waitForHttp(`${base}/healthz`, child, opts.timeoutMs ?? 60_000, () => log);
  } catch (err) {
    await stop();
    throw err;
  }
  // A .code-workspace file opens as a (multi-root) workspace, anything else as a folder.
  const param = opts.folder?.endsWith(".code-workspace") ? "workspace" : "folder";
  const folderUrl = opts.folder ? `${base}/?${param}=${encodeURIComponent(opts.folder).replace(/%2F/g, "/")}` : `${base}/`;
  return { child, pid: child.pid, base, url: folderUrl, stop, output: () => log };
}
