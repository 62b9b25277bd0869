import { lstatSync } from "node:fs";

/**
 * A path's identity and version — type and mode, device, inode, size, modification and change times; "-" when
 * absent — not following a link (the sandbox's stamp guards: a file a nested repository's configuration names).
 */
export function pathStamp(p: string): string {
  try {
    const st = lstatSync(p, { bigint: true });
    return `${st.mode}:${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return "-";
  }
}
