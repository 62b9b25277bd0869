export const ROOT: string;
export const VSIX_PATH: string;
export function packageVsix(opts?: { log?: (line: string) => void }): Promise<{ vsix: string; files: string[]; bytes: number }>;
