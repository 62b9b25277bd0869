/** Verification (issue 12): diagnostics after the agent's edits, the configured check, the evidence. */
export { verificationExtension, VERIFICATION_EXTENSION, type VerificationExtensionOptions } from "./extension";
export { parseVerificationSettings, DEFAULT_MAX_REFLECTIONS, type VerificationSettings, type SettingsLayer } from "./settings";
export { createLintCommandDiagnostics, parseLintOutput, lintCommandLine, LINT_SOURCE } from "./lint-command";
export { newProblems, newProblemsText } from "./diagnostics";
export type { Diagnostic, DiagnosticSeverity, DiagnosticsService } from "./types";
