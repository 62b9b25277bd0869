/**
 * docker: runs each command in a throw-away container with the workspace mounted read-write.
 * Used only when chosen explicitly and when an engine answers `docker info`.
 */
import { spawn, spawnSync } from "node:child_process";
import { resolvePolicy, which, type ResolvedPolicy } from "./paths";
import { SandboxUnavailableError, type SandboxBackend, type SandboxPolicy, type WrapRequest } from "./types";

export const DEFAULT_DOCKER_IMAGE = "node:20-bookworm-slim";

export function containerName(id: string): string {
  return `yoke-${process.pid}-${id}`;
}

export function dockerArgs(p: ResolvedPolicy, req: WrapRequest, image: string): string[] {
  const args = ["run", "--rm", "--init", "--name", containerName(req.id), "--network", req.network === "off" ? "none" : "bridge"];
  args.push("--read-only", "--tmpfs", "/tmp", "-v", `${p.workspace}:${p.workspace}`);
  for (const v of p.paths) args.push("-v", `${v.path}:${v.path}${v.mode === "ro" ? ":ro" : ""}`);
  if (typeof process.getuid === "function") args.push("--user", `${process.getuid()}:${process.getgid!()}`);
  args.push("-w", req.cwd, "-e", "HOME=/tmp", image);
  return args;
}

export function probeDocker(): string {
  const bin = which("docker");
  if (!bin) {
    throw new SandboxUnavailableError("The docker sandbox is not available: the docker command is not installed. Install Docker Engine, or choose bwrap.");
  }
  const r = spawnSync(bin, ["info", "--format", "{{.ServerVersion}}"], { encoding: "utf8", timeout: 15_000 });
  if (r.status !== 0 || !r.stdout.trim()) {
    const why = (r.stderr || r.error?.message || "no answer").trim().split("\n").slice(-1)[0];
    throw new SandboxUnavailableError(
      `The docker sandbox is not available: the docker command exists (${bin}) but no Docker engine is running or reachable (${why}). ` +
        "Start the engine (e.g. sudo systemctl start docker), or choose bwrap.",
    );
  }
  return bin;
}

export function createDockerBackend(policy: SandboxPolicy, image = DEFAULT_DOCKER_IMAGE): SandboxBackend {
  const bin = probeDocker();
  const p = resolvePolicy(policy);
  return {
    name: "docker",
    networkToggle: true,
    helpers: ["docker"],
    wrap: (req) => ({ file: bin, args: [...dockerArgs(p, req, image), ...req.argv] }),
    stop: (req) =>
      new Promise((resolve) => {
        const child = spawn(bin, ["rm", "-f", containerName(req.id)], { stdio: "ignore" });
        child.on("close", () => resolve());
        child.on("error", () => resolve());
      }),
  };
}
