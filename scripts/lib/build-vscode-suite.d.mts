export const SUITE_BUNDLE: string;
export const ELECTRON_BUNDLE: string;
export const RUNNER_VSIX: string;
export const RUNNER_ID: string;
export function buildVscodeSuite(): Promise<{ suite: string; electron: string; runnerVsix: string }>;
