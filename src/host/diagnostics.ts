// The diagnostics port (src/core/verification/types.ts) over VS Code's language servers:
// vscode.languages.getDiagnostics, waiting on onDidChangeDiagnostics until the reports about the
// changed files settle (src/core/verification/settle.ts) rather than for a fixed delay. Files no
// editor has open are opened as documents (not shown), since language servers such as
// TypeScript's report only on open documents.
import * as vscode from "vscode";
import { DEFAULT_SETTLE, waitForQuiet, type SettleOptions } from "../core/verification/settle";
import type { Diagnostic, DiagnosticSeverity, DiagnosticsService } from "../core/verification/types";
import { uriPathToFsPath } from "./workspace-fs";

const SEVERITY: Record<number, DiagnosticSeverity> = {
  [vscode.DiagnosticSeverity.Error]: "error",
  [vscode.DiagnosticSeverity.Warning]: "warning",
  [vscode.DiagnosticSeverity.Information]: "info",
  [vscode.DiagnosticSeverity.Hint]: "hint",
};

function toUri(path: string): vscode.Uri {
  const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => {
    const root = uriPathToFsPath(f.uri.path);
    return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
  });
  const uriPath = path.startsWith("/") ? path : `/${path}`;
  return folder ? folder.uri.with({ path: uriPath }) : vscode.Uri.file(path);
}

function codeOf(d: vscode.Diagnostic): string | undefined {
  const c = d.code;
  if (c === undefined) return undefined;
  return typeof c === "object" ? String(c.value) : String(c);
}

function read(paths: readonly string[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const path of paths) {
    for (const d of vscode.languages.getDiagnostics(toUri(path))) {
      const code = codeOf(d);
      out.push({
        path,
        line: d.range.start.line + 1,
        column: d.range.start.character + 1,
        severity: SEVERITY[d.severity] ?? "error",
        message: d.message,
        ...(d.source ? { source: d.source } : {}),
        ...(code ? { code } : {}),
      });
    }
  }
  return out;
}

/** Opens the files no document holds yet (missing files are skipped); true when one was opened. */
async function ensureOpen(paths: readonly string[]): Promise<boolean> {
  const open = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
  let opened = false;
  for (const p of paths) {
    const uri = toUri(p);
    if (open.has(uri.toString())) continue;
    try {
      await vscode.workspace.openTextDocument(uri);
      opened = true;
    } catch {
      // Absent (not created yet) or not text: nothing to report on.
    }
  }
  return opened;
}

export function createVscodeDiagnostics(log: vscode.LogOutputChannel, settle: Omit<SettleOptions, "signal"> = DEFAULT_SETTLE): DiagnosticsService {
  const wait = (paths: readonly string[], signal: AbortSignal, opts: Omit<SettleOptions, "signal">) => {
    const wanted = new Set(paths.map((p) => toUri(p).toString()));
    return waitForQuiet(
      (onReport) =>
        vscode.languages.onDidChangeDiagnostics((e) => {
          if (e.uris.some((u) => wanted.has(u.toString()))) onReport();
        }),
      { ...opts, signal },
    );
  };
  return {
    source: "language server",
    async current(paths, signal) {
      // The reports of open documents are current; a file no document held gets its first report.
      const own = new AbortController();
      const stop = () => own.abort();
      signal.addEventListener("abort", stop, { once: true });
      try {
        const waiting = wait(paths, own.signal, { ...settle, maxMs: Math.min(settle.maxMs, 4_000) });
        if (!(await ensureOpen(paths))) own.abort();
        await waiting;
      } finally {
        signal.removeEventListener("abort", stop);
      }
      return read(paths);
    },
    async collect(paths, signal) {
      const waiting = wait(paths, signal, settle);
      await ensureOpen(paths);
      const r = await waiting;
      log.debug(`diagnostics of ${paths.length} file(s): ${r.outcome} after ${r.waitedMs} ms (${r.reports} report(s))`);
      return read(paths);
    },
  };
}
