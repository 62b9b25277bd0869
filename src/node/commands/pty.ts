/**
 * Optional pseudo-terminal support through @lydell/node-pty (prebuilt binaries ship in the
 * package). Loaded lazily; when it cannot be loaded, commands run on pipes.
 */
import type * as NodePty from "@lydell/node-pty";

let cached: { pty: typeof NodePty | undefined; error?: string } | undefined;

/** The node-pty module, or undefined (with the reason) when it cannot be loaded here. */
export function loadPty(): { pty: typeof NodePty | undefined; error?: string } {
  if (cached) return cached;
  try {
    // A plain require: the module is external to the bundle and has a native part.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    cached = { pty: require("@lydell/node-pty") as typeof NodePty };
  } catch (err) {
    cached = { pty: undefined, error: err instanceof Error ? err.message.split("\n")[0] : String(err) };
  }
  return cached;
}

export type { IPty } from "@lydell/node-pty";
