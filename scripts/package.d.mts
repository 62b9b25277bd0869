export const ROOT: string;
export const VSIX_PATH: string;
/** The vsce targets with node-pty prebuilds. */
export const PTY_TARGETS: readonly string[];
export function targetVsixPath(target: string, dir?: string): string;
export function packageVsix(opts?: { log?: (line: string) => void; target?: string }): Promise<{ vsix: string; files: string[]; bytes: number; target?: string }>;
export function packageAll(opts?: {
  log?: (line: string) => void;
  targets?: string[];
  universal?: boolean;
  outDir?: string;
}): Promise<Array<{ vsix: string; files: string[]; bytes: number; target?: string }>>;
