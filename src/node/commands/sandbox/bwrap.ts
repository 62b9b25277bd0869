/**
 * bubblewrap (Linux, the default): the whole file system read-only, the workspace read-write,
 * a private /tmp, the home folder hidden behind an empty tmpfs except the paths the user lists,
 * no network unless asked, its own PID namespace, killed with its parent.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { isWithin, resolvePolicy, which, type ResolvedPolicy } from "./paths";
import { SandboxUnavailableError, type SandboxBackend, type SandboxPolicy, type WrapRequest } from "./types";

/** Sockets that would let a command leave the sandbox (container engines, agents). */
const HIDDEN_SOCKETS = ["/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock", "/run/containerd/containerd.sock"];

/** The bwrap arguments (before the command's argv) for a policy and a request. */
export function bwrapArgs(p: ResolvedPolicy, req: Pick<WrapRequest, "cwd" | "network">, env: NodeJS.ProcessEnv = process.env): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  const runtimeDir = env.XDG_RUNTIME_DIR;
  if (runtimeDir && existsSync(runtimeDir)) args.push("--tmpfs", runtimeDir);
  for (const sock of HIDDEN_SOCKETS) if (existsSync(sock)) args.push("--ro-bind", "/dev/null", sock);
  if (p.home !== "/" && !isWithin(p.home, p.workspace) && existsSync(p.home)) args.push("--tmpfs", p.home);
  // Deeper paths are mounted later, so a read-only path inside the workspace stays read-only
  // and the workspace stays writable when it lies under the hidden home or /tmp.
  const binds = [...p.paths, { path: p.workspace, mode: "rw" as const }].sort((a, b) => a.path.split("/").length - b.path.split("/").length);
  for (const b of binds) args.push(b.mode === "rw" ? "--bind-try" : "--ro-bind-try", b.path, b.path);
  if (req.network === "off") args.push("--unshare-net");
  args.push("--unshare-pid", "--unshare-ipc", "--new-session", "--die-with-parent", "--chdir", req.cwd);
  return args;
}

let probed: string | undefined | null = null;

/** Checks that bwrap exists and can create a sandbox here; throws with what to do if not. */
export function probeBwrap(): string {
  const bin = which("bwrap");
  if (!bin) {
    throw new SandboxUnavailableError(
      "The bwrap sandbox is not available: bubblewrap is not installed. Install it (Debian/Ubuntu: sudo apt-get install bubblewrap; " +
        "Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), or choose another backend.",
    );
  }
  if (probed === bin) return bin;
  const r = spawnSync(bin, ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid", "--die-with-parent", "true"], {
    encoding: "utf8",
    timeout: 10_000,
  });
  if (r.status !== 0) {
    const why = (r.stderr || r.error?.message || `exit status ${r.status}`).trim();
    throw new SandboxUnavailableError(
      `bwrap is installed (${bin}) but cannot create a sandbox here: ${why}. Unprivileged user namespaces may be disabled ` +
        "(check sysctl kernel.unprivileged_userns_clone, or the AppArmor restriction kernel.apparmor_restrict_unprivileged_userns on Ubuntu 24.04+), " +
        "or this is a container without the needed privileges.",
    );
  }
  probed = bin;
  return bin;
}

export function createBwrapBackend(policy: SandboxPolicy): SandboxBackend {
  const bin = probeBwrap();
  const p = resolvePolicy(policy);
  return {
    name: "bwrap",
    networkToggle: true,
    helpers: ["bwrap"],
    wrap: (req) => ({ file: bin, args: [...bwrapArgs(p, req), "--", ...req.argv] }),
  };
}
