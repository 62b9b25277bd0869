/**
 * docker: runs each command in a throw-away container with the workspace mounted read-write
 * (read-only for a read-only command), its protected paths read-only, the paths the rules deny
 * hidden, every capability dropped, no new privileges, and the limits as container limits.
 * Used only when chosen explicitly and when an engine answers `docker info`.
 */
import { spawn, spawnSync } from "node:child_process";
import { buildMountPlan, type HostFacts, type MountPlan } from "./plan";
import { resolvePolicy, type ResolvedPolicy } from "./paths";
import { SandboxUnavailableError, type SandboxBackend, type SandboxLimits, type SandboxPolicy, type WrapRequest } from "./types";
import { findHostProgram } from "../../host-programs";

export const DEFAULT_DOCKER_IMAGE = "node:20-bookworm-slim";

export function containerName(id: string): string {
  return `yoke-${process.pid}-${id}`;
}

/** The container sees only what is mounted: no host homes, sockets or secrets to hide. */
const CONTAINER_FACTS: HostFacts = { homes: [], runtime: [], secrets: [], needed: [], sockets: () => [] };

export function dockerArgs(p: ResolvedPolicy, req: WrapRequest, image: string, plan?: MountPlan, limits: SandboxLimits = {}): string[] {
  const mplan = plan ?? buildMountPlan({ policy: p, cwd: req.cwd, ...(req.confine ? { confine: req.confine } : {}) }, CONTAINER_FACTS);
  const args = ["run", "--rm", "--init", "--name", containerName(req.id), "--network", req.network === "off" ? "none" : "bridge"];
  args.push("--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--read-only", "--tmpfs", `/tmp${limits.tmpMb ? `:size=${limits.tmpMb}m` : ""}`);
  if (limits.processes) args.push("--pids-limit", String(limits.processes));
  if (limits.memoryMb) args.push("--memory", `${limits.memoryMb}m`);
  if (limits.cpuSeconds) args.push("--ulimit", `cpu=${limits.cpuSeconds}`);
  if (limits.fileSizeMb) args.push("--ulimit", `fsize=${limits.fileSizeMb * 1024 * 1024}`);
  for (const m of mplan.mounts) {
    if (m.tag === "tmp") continue;
    if (m.op === "rw") args.push("-v", `${m.path}:${m.path}`);
    else if (m.op === "ro") args.push("-v", `${m.path}:${m.path}:ro`);
    else if (m.op === "hide") args.push(...(m.dir ? ["--tmpfs", `${m.path}:ro`] : ["-v", `/dev/null:${m.path}:ro`]));
  }
  if (typeof process.getuid === "function") args.push("--user", `${process.getuid()}:${process.getgid!()}`);
  // The plan's environment (the git door's GIT_COMMON_DIR: the workspace is mounted at its own path).
  for (const [k, v] of Object.entries(mplan.env ?? {})) args.push("-e", `${k}=${v}`);
  args.push("-w", req.cwd, "-e", "HOME=/tmp", image);
  return args;
}

export function probeDocker(): string {
  const bin = findHostProgram("docker");
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
  const p = resolvePolicy(policy);
  const bin = probeDocker();
  return {
    name: "docker",
    networkToggle: true,
    helpers: ["docker"],
    pidNamespace: true,
    degraded: ["the programs deny rules forbid (Bash(rm:*)) are not removed from the container image: the permission gate alone keeps commands from running them"],
    wrap: (req) => {
      const plan = buildMountPlan({ policy: p, cwd: req.cwd, ...(req.confine ? { confine: req.confine } : {}), ...(policy.protection ? { protection: policy.protection() } : {}) }, CONTAINER_FACTS);
      return { file: bin, args: [...dockerArgs(p, req, image, plan, policy.limits), ...req.argv], guards: plan.guards };
    },
    stop: (req) =>
      new Promise((resolve) => {
        const child = spawn(bin, ["rm", "-f", containerName(req.id)], { stdio: "ignore" });
        child.on("close", () => resolve());
        child.on("error", () => resolve());
      }),
  };
}
