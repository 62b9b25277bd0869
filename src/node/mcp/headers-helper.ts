/**
 * Claude Code's `headersHelper` for a remote MCP server: a shell command run at each connection
 * (session start, reconnect; no caching) whose stdout is a JSON object of header names to string
 * values, merged over the definition's `headers` (a helper's header replaces a static one of the
 * same name, in any letter case). As Claude Code documents it: run in a shell, 10 s at most,
 * `CLAUDE_CODE_MCP_SERVER_NAME` and `CLAUDE_CODE_MCP_SERVER_URL` in its environment.
 *
 * It is a command on the host, like a stdio server's: the hub runs it only for a server that may
 * start (a repository's only after the person approved that definition, helper included). Anything
 * but a clean answer (not JSON, not an object of strings, a header name or value HTTP refuses, a
 * non-zero exit, the time running out) is an error of that server alone, and the message never
 * quotes the helper's stdout: it is where the token is.
 */
import { spawn } from "node:child_process";

export const HEADERS_HELPER_TIMEOUT_MS = 10_000;
/** More output than any set of headers: the helper is stopped and refused. */
const MAX_OUTPUT = 64 * 1024;
/** RFC 9110 token characters (a header name). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface HeadersHelperRun {
  server: string;
  url: string;
  command: string;
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The process groups of the helpers running now: killed when Yoke exits (they are in groups of their own, so nothing else would). */
const running = new Set<number>();
let exitHook = false;
function killRunningOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const pid of running) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }
  });
}

/** Runs the helper; resolves with its headers, or rejects with why (never with what it printed on stdout). */
export function runHeadersHelper(r: HeadersHelperRun): Promise<Record<string, string>> {
  const limit = r.timeoutMs ?? HEADERS_HELPER_TIMEOUT_MS;
  const what = `its headersHelper (${JSON.stringify(r.command.length > 120 ? `${r.command.slice(0, 120)}…` : r.command)})`;
  return new Promise((resolve, reject) => {
    const child = spawn(r.command, {
      shell: true,
      cwd: r.cwd,
      env: { ...r.env, CLAUDE_CODE_MCP_SERVER_NAME: r.server, CLAUDE_CODE_MCP_SERVER_URL: r.url },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so the time limit stops what the shell started too.
      detached: process.platform !== "win32",
      windowsHide: true,
    });
    // A helper still running when Yoke quits (Ctrl+C while a server connects) goes with it: in its own
    // process group, it was left behind, re-parented to init (red team Y).
    const group = process.platform !== "win32" ? child.pid : undefined;
    if (group) {
      running.add(group);
      killRunningOnExit();
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = "";
    let failed: string | undefined;
    const stop = (why: string) => {
      failed ??= why;
      try {
        if (child.pid && process.platform !== "win32") process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => stop(`did not finish within ${Math.round(limit / 1000)} s`), limit);
    const onAbort = () => stop("was cancelled");
    r.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > MAX_OUTPUT) return stop(`wrote more than ${MAX_OUTPUT / 1024} KB on stdout`);
      out.push(b);
    });
    child.stderr.on("data", (b: Buffer) => {
      err = (err + b.toString("utf8")).slice(-2000);
    });
    child.on("error", (e) => {
      failed ??= `could not be run: ${e.message}`;
    });
    child.on("close", (code, signal) => {
      if (group) running.delete(group);
      clearTimeout(timer);
      r.signal?.removeEventListener("abort", onAbort);
      const tail = err.trim().split("\n").slice(-3).join("\n").slice(-300);
      const stderr = tail ? ` — its stderr: ${tail}` : "";
      if (failed) return reject(new Error(`${what} ${failed}${stderr}`));
      if (code !== 0) return reject(new Error(`${what} failed (${signal ?? `exit code ${code}`})${stderr}`));
      try {
        resolve(parseHelperOutput(Buffer.concat(out).toString("utf8")));
      } catch (e) {
        reject(new Error(`${what} ${(e as Error).message}`));
      }
    });
  });
}

/** The helper's stdout as headers; throws saying what is wrong, without quoting it. */
export function parseHelperOutput(stdout: string): Record<string, string> {
  const text = stdout.trim();
  if (!text) throw new Error("printed nothing: it must print a JSON object of header names to string values");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error("did not print JSON: it must print a JSON object of header names to string values (its output is not shown: it may hold a secret)");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new Error(`printed ${Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`}, not a JSON object of header names to string values`);
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== "string")
      throw new Error(`gave the header ${JSON.stringify(name.slice(0, 80))} a ${v === null ? "null" : Array.isArray(v) ? "list" : typeof v} value: every value must be a string`);
    if (!HEADER_NAME.test(name)) throw new Error(`gave a header name HTTP does not allow: ${JSON.stringify(name.slice(0, 80))}`);
    // A line break would split the request's headers (fetch refuses it with a message that names nothing).
    if (/[\r\n\0]/.test(v)) throw new Error(`gave the header ${name} a value with a line break or NUL`);
    headers[name] = v;
  }
  return headers;
}

/** The definition's headers with the helper's over them: a helper's header replaces a static one of the same name in any letter case. */
export function mergeHeaders(fixed: Record<string, string>, dynamic: Record<string, string>): Record<string, string> {
  const names = new Set(Object.keys(dynamic).map((k) => k.toLowerCase()));
  return { ...Object.fromEntries(Object.entries(fixed).filter(([k]) => !names.has(k.toLowerCase()))), ...dynamic };
}
