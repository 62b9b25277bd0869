/**
 * A V8 code cache for the command line's bundles: the second and later runs of `yoke` load the
 * code V8 compiled before instead of compiling megabytes of JavaScript again. Node 22.1+ has
 * this built in (`module.enableCompileCache`); on older Node the bundles next to this one
 * (dist/*.js) are compiled through `vm.Script` with the cached data, as the v8-compile-cache
 * package did. Only for the CLI, a process Yoke owns: never in the extension host.
 *
 * The cache lives in the user's own cache folder (XDG_CACHE_HOME or ~/.cache, then yoke/v8-N),
 * never a shared one: V8 trusts what it loads from a code cache, so a folder another user could
 * write must not be used. Files are checked to be this user's and not writable by others. V8
 * itself rejects data made for other source text, another V8 or other flags (then the file is
 * compiled normally and the cache rewritten).
 */
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { constants as vmConstants, Script } from "node:vm";

type CompilingModule = { _compile(content: string, filename: string): unknown; exports: unknown };

/** The user's cache folder for compiled code, or undefined when it cannot be made safely. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith("/") ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  const dir = join(base, "yoke", `v8-${process.version}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) return undefined;
    if ((st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

function ownFile(file: string): Buffer | undefined {
  try {
    const st = statSync(file);
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) return undefined;
    if ((st.mode & 0o022) !== 0) return undefined;
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * The cache file's key for a bundle: its path and what stat says of it (device, inode, size,
 * modification and change times), not a hash of its text — hashing the 2–3 MB a run loads cost
 * 10–15 ms of CPU on every start. A rebuilt bundle has new times, so it gets another key. As git
 * does with its index ("racily clean" files), a bundle changed less than two seconds ago is keyed
 * by its text instead: file times are coarse, and the text Node read a moment ago must be the one
 * the times describe. So is one whose size is not the byte length of the text read.
 */
export function bundleKey(filename: string, content: string, now = Date.now()): string {
  const h = createHash("sha1").update(filename).update("\0");
  try {
    const st = statSync(filename, { bigint: true });
    const changedMs = Number((st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs) / 1_000_000n);
    if (now - changedMs >= 2000 && BigInt(Buffer.byteLength(content)) === st.size) {
      return h.update(`stat\0${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`).digest("hex").slice(0, 24);
    }
  } catch {
    // Keyed by the text below.
  }
  return h.update("text\0").update(content).digest("hex").slice(0, 24);
}

/**
 * Turns the cache on for the bundles in `bundleDir` (the folder of dist/cli.js). Returns what
 * it did, for tests: "builtin" (Node's own), "vm" (this module's), or "off".
 */
export function enableCompileCache(bundleDir: string, env: NodeJS.ProcessEnv = process.env): "builtin" | "vm" | "off" {
  if (env.YOKE_NO_COMPILE_CACHE) return "off";
  const dir = compileCacheDir(env);
  if (!dir) return "off";
  const builtin = (Module as unknown as { enableCompileCache?: (d: string) => unknown }).enableCompileCache;
  if (typeof builtin === "function") {
    builtin(dir);
    return "builtin";
  }
  const proto = (Module as unknown as { prototype: CompilingModule }).prototype;
  const original = proto._compile;
  const pending: Array<() => void> = [];
  // The bundles are ASCII (esbuild.mjs): read as such, the text is a one-byte string made in a
  // copy, where Node's loader decodes UTF-8 (2.5 MB: 10-30 ms of CPU). The same text either way.
  const extensions = (Module as unknown as { _extensions: Record<string, (m: CompilingModule, f: string) => void> })._extensions;
  const loadJs = extensions[".js"];
  if (loadJs) {
    extensions[".js"] = function (module: CompilingModule, filename: string) {
      if (dirname(filename) !== bundleDir) return loadJs.call(this, module, filename);
      const bytes = readFileSync(filename);
      module._compile(isAscii(bytes) ? bytes.toString("ascii") : bytes.toString("utf8"), filename);
    };
  }
  proto._compile = function (this: CompilingModule, content: string, filename: string) {
    if (dirname(filename) !== bundleDir || !filename.endsWith(".js")) return original.call(this, content, filename);
    // V8 checks only the source's length, so a rebuilt bundle of the same length needs another file.
    const key = bundleKey(filename, content);
    const file = join(dir, `${basename(filename, ".js")}-${key}.bin`);
    const cachedData = ownFile(file);
    const wrapper = (Module as unknown as { wrap(s: string): string }).wrap(content.startsWith("#!") ? `//${content.slice(2)}` : content);
    const script = new Script(wrapper, {
      filename,
      ...(cachedData ? { cachedData } : {}),
      ...(vmConstants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ? { importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER } : {}),
    });
    if (!cachedData || script.cachedDataRejected) {
      // Written when the process ends, so the functions the run compiled are in it too.
      pending.push(() => {
        try {
          const tmp = `${file}.${process.pid}.tmp`;
          writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
          renameSync(tmp, file);
        } catch {
          // No cache this time.
        }
      });
      if (pending.length === 1) process.once("exit", () => pending.splice(0).forEach((write) => write()));
    }
    const fn = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    const require = createRequire(filename);
    return fn.call(this.exports, this.exports, require, this, filename, dirname(filename));
  };
  return "vm";
}
