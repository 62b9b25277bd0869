/**
 * The options of every git Yoke runs on the host only to read a folder's repository (the gate's
 * list of paths git holds, the lessons list's index, whether a configuration sets diff.external):
 * the folder is the agent's and the repository's, so whatever git finds there may be hostile.
 *
 * - `safe.bareRepository=explicit`: a folder holding HEAD, objects/, refs/ and config is a bare
 *   repository git discovers by itself (by default), with a configuration the repository
 *   committed as ordinary files — its `core.worktree` even gives it a work tree. Only a repository
 *   found through `.git` (or named explicitly) is used.
 * - `protocol.allow=never` and GIT_NO_LAZY_FETCH: a partial clone (`extensions.partialClone`)
 *   fetches a missing object from its promisor remote while `git log` reads history, and the fetch
 *   runs what the remote names (`remote.<name>.uploadpack`, `core.sshCommand`) — on the host,
 *   when the gate merely checked `cd vendor/x && git log -p` (red team 16). No transport at all.
 * - `core.fsmonitor=false`: reading the index runs the program core.fsmonitor names.
 * - `core.hooksPath=/dev/null`: no hook (none of these commands runs one; kept as a floor).
 *
 * Command-line `-c` settings beat every configuration file and are passed on to any git git starts.
 */

/** `-c` options placed before the subcommand. */
export const HOST_GIT_READ_ARGS: readonly string[] = ["-c", "safe.bareRepository=explicit", "-c", "protocol.allow=never", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"];

/** Environment entries set for such a git (newer git honours GIT_NO_LAZY_FETCH; protocol.allow covers older ones). */
export const HOST_GIT_READ_ENV: Readonly<Record<string, string>> = {
  GIT_NO_LAZY_FETCH: "1",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_TERMINAL_PROMPT: "0",
};
