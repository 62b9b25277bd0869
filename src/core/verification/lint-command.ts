/**
 * The diagnostics port over a configured lint command (`verification.lintCommand`), for hosts
 * without language servers (the CLI). It runs in the session's sandbox like run_command, with the
 * workspace read-only (a lint run must not change the files it judges) and the network as the
 * runner decides, and its output is read in the common `file:line[:col]: message` and
 * `file(line,col): message` shapes (eslint -f unix, tsc, ruff, flake8, mypy, gcc, go vet…).
 */
import { networkFor } from "../commands/network";
import { shellQuote } from "../commands/shell-quote";
import type { CommandRunner } from "../commands/types";
import { isAbsolutePath, isInside, joinPath, normalizePath, relativePath } from "../paths";
import type { Diagnostic, DiagnosticSeverity, DiagnosticsService } from "./types";

export const LINT_SOURCE = "verification.lintCommand";
const MAX_LINES = 5_000;

export interface LintCommandOptions {
  command: string;
  runner: CommandRunner;
  /** The workspace root: cwd of the command, base of relative paths. */
  root: string;
  timeoutMs?: number;
}

/** The lint failed to run (not: it found problems). Its message is for the transcript. */
export class LintCommandError extends Error {}

/** The command line for these files: `{files}` replaced, or the files appended. */
export function lintCommandLine(command: string, root: string, paths: readonly string[]): string {
  const files = paths.map((p) => shellQuote(isInside(root, p) ? relativePath(root, p) : p)).join(" ");
  return command.includes("{files}") ? command.split("{files}").join(files) : `${command} ${files}`;
}

// eslint -f unix puts "[Error/rule]" or "[Warning/rule]" at the end.
const ESLINT_UNIX_TAG = /\s*\[(Error|Warning)(?:\/([^\]]+))?\]\s*$/;
// file:line[:col][:] [severity[:]] message
const COLON_FORM = /^(.+?):(\d+)(?::(\d+))?:?\s+(?:-\s+)?(?:(error|warning|warn|note|info|hint|fatal error)\b:?\s*)?(.*)$/i;
// file(line,col): severity [code]: message (tsc, msbuild)
const PAREN_FORM = /^(.+?)\((\d+),(\d+)\):\s*(error|warning|info|message)\s*([A-Za-z]+\d+)?:?\s*(.*)$/i;
// eslint/tsc codes at the start of a message: "F401 …", "TS2322: …", "E501 …"
// Colour codes (CSI sequences) some linters print even without a terminal.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;
const LEADING_CODE = /^([A-Z]+\d+):?\s+(.*)$/;

function severityOf(word: string | undefined): DiagnosticSeverity {
  const w = (word ?? "").toLowerCase();
  if (w.startsWith("warn")) return "warning";
  if (w === "note" || w === "info" || w === "message") return "info";
  if (w === "hint") return "hint";
  return "error";
}

/** Problems in the lint output that are in `paths` (absolute, normalised); other lines are ignored. */
export function parseLintOutput(output: string, root: string, paths: readonly string[]): Diagnostic[] {
  const wanted = new Set(paths.map((p) => normalizePath(p)));
  const out: Diagnostic[] = [];
  // eslint -f stylish style: a line naming a file, then "  3:7  error  message  rule" lines.
  let stylishFile: string | undefined;
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.replace(ANSI, "").trimEnd();
    if (!line.trim()) {
      stylishFile = undefined;
      continue;
    }
    const resolve = (file: string) => normalizePath(isAbsolutePath(file.trim()) ? file.trim() : joinPath(root, file.trim()));
    const paren = PAREN_FORM.exec(line);
    const colon = paren ? null : COLON_FORM.exec(line);
    if (paren || colon) {
      const m = (paren ?? colon)!;
      const path = resolve(m[1]!);
      if (wanted.has(path)) {
        let message = (paren ? m[6] : m[5])!.trim();
        let code = paren ? m[5] : undefined;
        let severity = severityOf(m[4]);
        const tag = ESLINT_UNIX_TAG.exec(message);
        if (tag) {
          severity = severityOf(tag[1]);
          code = tag[2] ?? code;
          message = message.slice(0, tag.index);
        }
        const lead = code ? null : LEADING_CODE.exec(message);
        if (lead) {
          code = lead[1];
          message = lead[2]!;
        }
        out.push({ path, line: Number(m[2]), ...(m[3] ? { column: Number(m[3]) } : {}), severity, message, ...(code ? { code } : {}) });
        stylishFile = undefined;
        continue;
      }
    }
    const stylish = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)(?:\s{2,}(\S+))?$/.exec(line);
    if (stylish && stylishFile) {
      out.push({ path: stylishFile, line: Number(stylish[1]), column: Number(stylish[2]), severity: severityOf(stylish[3]), message: stylish[4]!, ...(stylish[5] ? { code: stylish[5] } : {}) });
      continue;
    }
    const asFile = resolve(line);
    stylishFile = !/^\s/.test(line) && wanted.has(asFile) ? asFile : undefined;
  }
  return out;
}

export function createLintCommandDiagnostics(opts: LintCommandOptions): DiagnosticsService {
  const run = async (paths: readonly string[], signal: AbortSignal): Promise<Diagnostic[]> => {
    if (paths.length === 0) return [];
    const { runner } = opts;
    const command = lintCommandLine(opts.command, opts.root, paths);
    await runner.prepare?.();
    const cmd = runner.start({
      command,
      cwd: opts.root,
      background: false,
      network: networkFor(command, runner.info),
      timeoutMs: Math.min(opts.timeoutMs ?? runner.info.defaultTimeoutMs, runner.info.maxTimeoutMs),
      signal,
      confine: { readOnly: true },
    });
    const r = await cmd.wait();
    if (signal.aborted) throw signal.reason;
    const page = await cmd.outputSince(1, { maxLines: MAX_LINES });
    const found = parseLintOutput(page.lines.join("\n"), opts.root, paths);
    if (r.error) throw new LintCommandError(`the lint command could not be started: ${r.error}`);
    if (r.timedOut) throw new LintCommandError(`the lint command did not finish within ${Math.round((opts.timeoutMs ?? runner.info.defaultTimeoutMs) / 1000)} s (command ${cmd.id})`);
    // A failing lint that printed no problem it could be read for: the command itself is broken.
    if (found.length === 0 && r.exitCode !== 0 && r.exitCode !== 1) {
      const tail = page.lines.slice(-3).join(" | ").slice(0, 300);
      throw new LintCommandError(`the lint command exited with code ${r.exitCode ?? r.signal} and reported no problem Yoke could read (command ${cmd.id}${tail ? `: ${tail}` : ""})`);
    }
    return found;
  };
  return { source: LINT_SOURCE, current: run, collect: run };
}
