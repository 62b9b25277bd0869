// The diagnostics port (src/core/verification/types.ts) over VS Code's language servers:
// vscode.languages.getDiagnostics, waiting on onDidChangeDiagnostics until the reports about the
// changed files settle (src/core/verification/settle.ts) rather than for a fixed delay. A changed
// file no tab shows is opened in a preview tab without taking the focus, since language servers
// such as TypeScript's check only the files open in tabs — beside the editor the user is typing
// in, never in its place (src/host/editor-typing.ts).
import * as vscode from "vscode";
import { DEFAULT_SETTLE, waitForQuiet, type SettleOptions } from "../core/verification/settle";
import type { Diagnostic, DiagnosticSeverity, DiagnosticsService } from "../core/verification/types";
import { uriPathToFsPath } from "./workspace-fs";

/** VS Code's severity as the port names it (read when used: nothing of `vscode` runs at module load). */
export function severityOf(s: vscode.DiagnosticSeverity): DiagnosticSeverity {
  const S = vscode.DiagnosticSeverity;
  return s === S.Warning ? "warning" : s === S.Information ? "info" : s === S.Hint ? "hint" : "error";
}

function toUri(path: string): vscode.Uri {
  const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => {
    const root = uriPathToFsPath(f.uri.path);
    return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
  });
  const uriPath = path.startsWith("/") ? path : `/${path}`;
  return folder ? folder.uri.with({ path: uriPath }) : vscode.Uri.file(path);
}

export function codeOf(d: vscode.Diagnostic): string | undefined {
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
        severity: severityOf(d.severity),
        message: d.message,
        ...(d.source ? { source: d.source } : {}),
        ...(code ? { code } : {}),
      });
    }
  }
  return out;
}

/** URIs shown in an editor tab (a text editor or either side of a diff). */
function tabUris(): Set<string> {
  const out = new Set<string>();
  for (const group of vscode.window.tabGroups?.all ?? []) {
    for (const tab of group.tabs) {
      const input = tab.input as { uri?: vscode.Uri; modified?: vscode.Uri } | undefined;
      if (input?.uri) out.add(input.uri.toString());
      if (input?.modified) out.add(input.modified.toString());
    }
  }
  return out;
}

/** Where a file shown for its language server goes (undefined: the active group). */
export type ColumnFor = (uri: vscode.Uri) => vscode.ViewColumn | undefined;

/**
 * Makes sure the language servers look at the files: a document for each (missing files are
 * skipped), shown in a preview tab without taking the focus when no tab has it — TypeScript's
 * server checks only files open in tabs. Returns the documents' languages, and whether any was opened.
 */
async function ensureOpen(paths: readonly string[], column: ColumnFor): Promise<{ opened: boolean; languages: string[] }> {
  const docs = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.toString(), d]));
  const tabs = tabUris();
  let opened = false;
  const languages = new Set<string>();
  for (const p of paths) {
    const uri = toUri(p);
    let doc = docs.get(uri.toString());
    try {
      if (!doc) {
        doc = await vscode.workspace.openTextDocument(uri);
        opened = true;
      }
      if (!tabs.has(uri.toString())) {
        const viewColumn = column(uri);
        await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true, ...(viewColumn ? { viewColumn } : {}) });
        opened = true;
      }
    } catch {
      // Absent (not created yet) or not text: nothing to report on.
    }
    if (doc) languages.add(doc.languageId);
  }
  return { opened, languages: [...languages] };
}

/**
 * How long to wait for a first report depends on what this window has seen of the language: a
 * server that reported before answers within seconds; one never heard from may be starting
 * (TypeScript's first project load takes many seconds on a busy machine); a language that twice
 * gave no report has no server (plain text), so it is not waited for again.
 */
class LanguageMemory {
  private readonly reporting = new Set<string>();
  private readonly quiet = new Map<string, number>();

  bounds(languages: readonly string[], settle: Omit<SettleOptions, "signal">): Omit<SettleOptions, "signal"> {
    if (languages.some((l) => this.reporting.has(l))) return settle;
    if (languages.length && languages.every((l) => (this.quiet.get(l) ?? 0) >= 2)) return { ...settle, firstMs: Math.min(300, settle.firstMs) };
    return { ...settle, firstMs: COLD_FIRST_MS, maxMs: Math.max(settle.maxMs, COLD_FIRST_MS + settle.maxMs) };
  }

  learn(languages: readonly string[], reports: number): void {
    for (const l of languages) {
      if (reports > 0) {
        this.reporting.add(l);
        this.quiet.delete(l);
      } else if (!this.reporting.has(l)) this.quiet.set(l, (this.quiet.get(l) ?? 0) + 1);
    }
  }
}

/** A language server never heard from in this window may still be starting: its first report may take this long. */
const COLD_FIRST_MS = 15_000;
/**
 * Before an edit the agent waits on the baseline, and a file without problems gets no report at
 * all (VS Code announces no change from nothing to nothing): a server never heard from is not
 * waited for longer than this there. Problems it reports later count as before the edit only if
 * they reached the baseline; the check after the edit waits the full bound.
 */
const BASELINE_FIRST_MS = 3_000;

function firstCapped(b: Omit<SettleOptions, "signal">, firstAtMost: number): Omit<SettleOptions, "signal"> {
  return b.firstMs <= firstAtMost ? b : { ...b, firstMs: firstAtMost, maxMs: Math.min(b.maxMs, firstAtMost + DEFAULT_SETTLE.maxMs) };
}

export function createVscodeDiagnostics(log: vscode.LogOutputChannel, opts: { settle?: Omit<SettleOptions, "signal">; column?: ColumnFor } = {}): DiagnosticsService {
  const settle = opts.settle ?? DEFAULT_SETTLE;
  const column: ColumnFor = opts.column ?? (() => undefined);
  const memory = new LanguageMemory();
  /** Starts listening at once (no report is missed while documents open); the wait's first bound is set once the languages are known. */
  const listen = (paths: readonly string[], signal: AbortSignal) => {
    const wanted = new Set(paths.map((p) => toUri(p).toString()));
    let early = 0;
    const early$ = vscode.languages.onDidChangeDiagnostics((e) => {
      if (e.uris.some((u) => wanted.has(u.toString()))) early++;
    });
    return {
      wait: (languages: readonly string[], bound: Omit<SettleOptions, "signal">, firstAtMost = Number.POSITIVE_INFINITY) =>
        waitForQuiet(
          (onReport) => {
            early$.dispose();
            if (early) queueMicrotask(onReport);
            return vscode.languages.onDidChangeDiagnostics((e) => {
              if (e.uris.some((u) => wanted.has(u.toString()))) onReport();
            });
          },
          { ...firstCapped(memory.bounds(languages, bound), firstAtMost), signal },
        ).then((r) => {
          memory.learn(languages, r.reports + early);
          return r;
        }),
      cancel: () => early$.dispose(),
    };
  };
  return {
    source: "language server",
    async current(paths, signal) {
      // The reports of open documents are current; a file no document held gets its first report.
      const l = listen(paths, signal);
      const { opened, languages } = await ensureOpen(paths, column);
      if (!opened) l.cancel();
      else {
        const r = await l.wait(languages, settle, BASELINE_FIRST_MS);
        log.debug(`problems of ${paths.length} file(s) before an edit (${languages.join(", ") || "no document"}): ${r.outcome} after ${r.waitedMs} ms (${r.reports} report(s))`);
      }
      return read(paths);
    },
    async collect(paths, signal) {
      const l = listen(paths, signal);
      const { languages } = await ensureOpen(paths, column);
      const r = await l.wait(languages, settle);
      log.debug(`diagnostics of ${paths.length} file(s) (${languages.join(", ") || "no document"}): ${r.outcome} after ${r.waitedMs} ms (${r.reports} report(s))`);
      return read(paths);
    },
  };
}
