/**
 * Network per command: off by default in the sandbox; on for commands whose text starts with
 * a prefix the user allows (and contains no shell operators that could chain another command).
 */
import type { NetworkMode, RunnerInfo } from "./types";

const SHELL_OPERATORS = /[;&|`$<>()\n\\]/;

/** The network mode a command gets under the runner's configuration. */
export function networkFor(command: string, info: Pick<RunnerInfo, "network" | "networkCommands" | "networkToggle">): NetworkMode {
  if (info.network === "on") return "on";
  if (!info.networkToggle) return "off";
  const text = command.trim();
  if (SHELL_OPERATORS.test(text)) return "off";
  for (const prefix of info.networkCommands) {
    const p = prefix.trim();
    if (p && (text === p || text.startsWith(p + " "))) return "on";
  }
  return "off";
}

const NETWORK_FAILURE = [
  /\bENOTFOUND\b/,
  /\bEAI_AGAIN\b/,
  /\bENETUNREACH\b/,
  /getaddrinfo/i,
  /Could not resolve host/i,
  /Temporary failure in name resolution/i,
  /Name or service not known/i,
  /Network is unreachable/i,
  /Failed to establish a new connection/i,
  /Could not connect to/i,
  /No address associated with hostname/i,
  /unable to access '.*': /i,
  /dial tcp: lookup /i,
  /network (is )?unreachable|no network|offline mode/i,
];

const NETWORK_COMMANDS = /^\s*(sudo\s+)?(npm|npx|pnpm|yarn|bun|pip3?|pipx|uv|poetry|cargo|go|gem|bundle|composer|mvn|gradle|apt(-get)?|curl|wget|git|docker|gh|brew|conda|dotnet|deno)\b/;

/** Does a failed command's output look like it needed the network? */
export function looksLikeNetworkFailure(command: string, output: string): boolean {
  if (NETWORK_FAILURE.some((re) => re.test(output))) return true;
  return /ECONNREFUSED|Connection refused/i.test(output) && NETWORK_COMMANDS.test(command);
}

/** The hint added to the result of a command that failed for lack of network. */
export function networkOffHint(command: string): string {
  const prefix = command.trim().split(/\s+/).slice(0, 2).join(" ");
  return (
    `[Network access is off in the sandbox, which is likely why this command failed. ` +
    `Do not try to work around it. If the command needs the network, ask the user to allow it: ` +
    `they can add "${prefix}" to "sandbox.networkCommands" in their user settings ~/.yoke/settings.json (network for commands starting with it), ` +
    `or set "sandbox.network" to "on"; then run the command again.]`
  );
}
