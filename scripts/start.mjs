#!/usr/bin/env node
// `npm start`: Yoke in a real VS Code (code-server) in your browser.
//   npm start                      the sample workspace (.cache/sample-workspace)
//   npm start -- --demo            also start the scripted demo model: works with no API key
//   npm start -- --folder DIR      open another folder
//   npm start -- --port N          listen on N (default 8080, or the next free port)
// Ctrl+C stops code-server (and the demo model).
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { findFreePort, installVsix, killGroup, mergeJsonFile, setupCodeServer, startCodeServer } from "./lib/code-server.mjs";
import { packageVsix, ROOT } from "./package.mjs";

const USAGE = "Usage: npm start -- [--demo] [--folder DIR] [--port N]";
// YOKE_START_DIR moves the profile and the sample workspace elsewhere (the e2e test of npm start uses it).
const CACHE = process.env.YOKE_START_DIR ? resolve(process.env.YOKE_START_DIR) : join(ROOT, ".cache");
const PROFILE = join(CACHE, "code-server");
const DEMO_KEYS = ["yoke.provider", "yoke.baseUrl", "yoke.model", "yoke.demoLabel"];

function parseArgs(argv) {
  const opts = { demo: false, folder: undefined, port: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--demo") opts.demo = true;
    else if (a === "--folder") opts.folder = argv[++i];
    else if (a === "--port") opts.port = Number(argv[++i]);
    else if (a === "--help" || a === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else fail(`unknown argument "${a}"\n${USAGE}`, 2);
  }
  if (opts.port !== undefined && !(Number.isInteger(opts.port) && opts.port > 0 && opts.port < 65536)) {
    fail(`--port needs a port number (1-65535)\n${USAGE}`, 2);
  }
  if (argv.includes("--folder") && !opts.folder) fail(`--folder needs a directory\n${USAGE}`, 2);
  if (opts.folder) {
    opts.folder = resolve(opts.folder);
    if (!existsSync(opts.folder) || !statSync(opts.folder).isDirectory()) fail(`--folder ${opts.folder}: not a directory`, 2);
  }
  return opts;
}

function fail(message, code = 1) {
  console.error(`[yoke start] ${message}`);
  process.exit(code);
}

let stepNo = 0;
const STEPS = 6;
function step(text) {
  stepNo += 1;
  console.log(`[yoke start] ${stepNo}/${STEPS} ${text}`);
}

/** Reads a JSON settings file, or {} when absent. */
function readJson(file) {
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    fail(`${file} is not plain JSON (comments?): fix it or delete it`);
  }
}

/** Removes the demo's yoke.* keys from a settings file (they point at a port that no longer exists). */
function removeDemoSettings(file) {
  if (!existsSync(file)) return;
  const current = readJson(file);
  if (current["yoke.demoLabel"] !== "demo model") return; // not written by us
  for (const k of DEMO_KEYS) delete current[k];
  writeFileSync(file, `${JSON.stringify(current, null, 2)}\n`);
}

/** Builds dist/, starts dist/scripted-llm.js in its own process group and resolves with its URL. */
function startDemoModel() {
  const build = spawnSync(process.execPath, ["esbuild.mjs"], { cwd: ROOT, stdio: "inherit" });
  if (build.status !== 0) fail("the build (node esbuild.mjs) failed");
  const entry = join(ROOT, "dist", "scripted-llm.js");
  if (!existsSync(entry)) fail(`${entry} is missing: the build did not produce the demo model`);
  const child = spawn(process.execPath, [entry, "--port", "0", "--demo"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolvePromise, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("the demo model did not start within 15 s")), 15_000);
    child.stdout.on("data", (buf) => {
      out += buf.toString();
      const m = /scripted-llm listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ child, url: m[1] });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo model exited (${code}) before it was ready`));
    });
  });
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const groups = [];
  let stopping = false;
  const stopAll = (code) => {
    if (stopping) return;
    stopping = true;
    for (const pid of groups) killGroup(pid, "SIGTERM");
    setTimeout(() => {
      for (const pid of groups) killGroup(pid, "SIGKILL");
      process.exit(code);
    }, 1500).unref();
  };
  process.on("SIGINT", () => {
    console.log("\n[yoke start] stopping");
    stopAll(0);
  });
  process.on("SIGTERM", () => stopAll(0));

  step("checking code-server and Node 24 (the first run installs them: a few minutes)");
  const setup = setupCodeServer();

  step("building and packaging the extension");
  const { vsix } = await packageVsix({ log: (line) => console.log(`    ${line}`) });

  step("installing the extension into code-server");
  const extensionsDir = join(PROFILE, "extensions");
  const userDataDir = join(PROFILE, "user");
  installVsix(setup, { vsix, extensionsDir, userDataDir });
  const userSettings = join(userDataDir, "User", "settings.json");
  mergeJsonFile(userSettings, {
    "workbench.startupEditor": "none",
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "update.mode": "none",
    // The built-in Copilot chat needs a sign-in that code-server lacks; keep its panel out of the way.
    "chat.disableAIFeatures": true,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
  });

  step("preparing the workspace");
  let folder;
  if (opts.folder) {
    folder = opts.folder;
  } else {
    folder = join(CACHE, "sample-workspace");
    if (!existsSync(folder)) {
      cpSync(join(ROOT, "test", "fixtures", "sample-workspace"), folder, { recursive: true });
      console.log(`    copied the sample project to ${folder}`);
    }
  }
  // Demo settings go to this profile's user settings (.cache/code-server/user), not the folder's:
  // Restricted Mode ignores a workspace's yoke.provider/yoke.baseUrl, and your folder stays untouched.
  // A start without --demo removes them again (they name a port that is gone).
  const demoSettingsFile = userSettings;
  removeDemoSettings(userSettings);
  if (!opts.folder) removeDemoSettings(join(folder, ".vscode", "settings.json")); // older starts wrote them here
  step(opts.demo ? "starting the demo model (scripted, no API key)" : "no demo model (use --demo to try Yoke without a key)");
  if (opts.demo) {
    const demo = await startDemoModel().catch((err) => fail(err.message));
    groups.push(demo.child.pid);
    demo.child.once("exit", (code) => {
      if (!stopping) {
        console.error(`[yoke start] the demo model exited (${code})`);
        stopAll(1);
      }
    });
    mergeJsonFile(demoSettingsFile, {
      "yoke.provider": "openai-compatible",
      "yoke.baseUrl": `${demo.url}/v1`,
      "yoke.model": "demo",
      "yoke.demoLabel": "demo model",
    });
    console.log(`    demo model on ${demo.url}/v1 (settings in ${demoSettingsFile})`);
  }

  const port = await findFreePort(opts.port ?? 8080);
  if (opts.port && port !== opts.port) console.log(`    port ${opts.port} is taken: using ${port}`);
  step(`starting code-server on 127.0.0.1:${port}`);
  const server = await startCodeServer(setup, { port, extensionsDir, userDataDir, folder, timeoutMs: 120_000 }).catch((err) => {
    stopAll(1);
    fail(err.message);
  });
  groups.push(server.pid);
  server.child.once("exit", (code) => {
    if (!stopping) {
      console.error(`[yoke start] code-server exited (${code}):\n${server.output().slice(-3000)}`);
      stopAll(1);
    }
  });

  const secs = Math.round((Date.now() - started) / 1000);
  console.log("");
  console.log(`[yoke start] ready in ${secs} s. Open:`);
  console.log(`    ${server.url}`);
  console.log("");
  console.log('    Yoke is the Yoke icon in the activity bar (or F1 → "Yoke: Focus on Chat View").');
  console.log("    The folder opens in Restricted Mode (banner at the top): Yoke can read and answer but not");
  console.log('    write or run. To allow that, click "Manage" in the banner and trust the folder.');
  if (!opts.demo) console.log('    Pick a provider in Settings (yoke.provider) and run "Yoke: Set API Key", or restart with --demo.');
  console.log("    Ctrl+C stops everything.");
}

main().catch((err) => fail(err instanceof Error ? err.message : String(err)));
