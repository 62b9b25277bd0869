/**
 * Verification (issue 12): what the host gives the verification extension. The diagnostics port
 * is implemented by VS Code (the language servers, src/host/diagnostics.ts) and, where a host has
 * none, by a configured lint command run in the sandbox (lint-command.ts).
 */

export type DiagnosticSeverity = "error" | "warning" | "info" | "hint";

export interface Diagnostic {
  /** Absolute path, POSIX separators (as the core's paths). */
  path: string;
  /** 1-based line. */
  line: number;
  /** 1-based column, when known. */
  column?: number;
  severity: DiagnosticSeverity;
  message: string;
  /** Who reported it: "ts", "eslint", the lint command… */
  source?: string;
  code?: string;
}

/** The problems the host knows in files, before and after the agent changes them. */
export interface DiagnosticsService {
  /** Shown in the text to the model and in the event ("language server", "verification.lintCommand"). */
  readonly source: string;
  /** The problems known now (no waiting): the baseline taken before an edit. */
  current(paths: readonly string[], signal: AbortSignal): Promise<Diagnostic[]>;
  /**
   * The problems once the host has taken the change in: waits until they settle (no new report
   * for a quiet period, bounded), never a fixed delay longer than needed.
   */
  collect(paths: readonly string[], signal: AbortSignal): Promise<Diagnostic[]>;
}
