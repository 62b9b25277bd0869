export const SUITE_BUNDLE: string;
export const ELECTRON_BUNDLE: string;
export function buildVscodeSuite(): Promise<{ suite: string; electron: string }>;
