/** No sandbox: only when the user chose it explicitly. The UI shows NO_SANDBOX_WARNING while it applies. */
import type { SandboxBackend } from "./types";

export const NO_SANDBOX_WARNING = "Sandbox off: commands run with your full user rights — they can read your home folder and secrets, write anywhere you can, and use the network.";

export function createNoSandbox(): SandboxBackend {
  return {
    name: "none",
    networkToggle: false,
    warning: NO_SANDBOX_WARNING,
    helpers: [],
    wrap: (req) => ({ file: req.argv[0]!, args: req.argv.slice(1) }),
  };
}
