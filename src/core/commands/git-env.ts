/**
 * The git configuration of a read-only command: every git setting that runs a program is
 * overridden on git's command-line level (GIT_CONFIG_COUNT/KEY/VALUE), which beats the system,
 * global, repository and worktree files, so a hostile `.git/config` (core.fsmonitor,
 * diff.external, core.pager...) cannot execute anything when the model runs `git status`,
 * `git diff` or `git log`. Environment variables that name programs are set to harmless values.
 *
 * Known limits (docs/security.md, "The command sandbox"): drivers are named by the repository
 * (`diff.<name>.textconv`, `diff.<name>.command`, `filter.<name>.clean`, `merge.<name>.driver`)
 * and cannot all be listed in advance; they come from the repository's own configuration, which
 * is protected in the workspace, and they run inside the read-only sandbox.
 */

/** A shell snippet that refuses to act as an external diff, with a clear message. */
const NO_EXTERNAL_DIFF = "echo 'yoke: external diff programs (diff.external) are disabled for read-only commands; use git diff --no-ext-diff' >&2; exit 1; :";

/** Settings that would run a program, and the values that do not. */
export const READ_ONLY_GIT_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["core.editor", ":"],
  ["sequence.editor", ":"],
  ["core.askPass", ""],
  ["core.sshCommand", "ssh"],
  ["credential.helper", ""],
  ["diff.external", NO_EXTERNAL_DIFF],
  ["gpg.program", "false"],
  ["gpg.openpgp.program", "false"],
  ["gpg.x509.program", "false"],
  ["gpg.ssh.program", "false"],
  ["gpg.ssh.defaultKeyCommand", "false"],
  ["log.showSignature", "false"],
  ["safe.bareRepository", "explicit"],
  ["protocol.ext.allow", "never"],
  ["submodule.recurse", "false"],
];

/** Environment variables that name programs git would run, neutralised. */
export const READ_ONLY_GIT_VARIABLES: Readonly<Record<string, string>> = {
  GIT_PAGER: "cat",
  GIT_EDITOR: ":",
  GIT_SEQUENCE_EDITOR: ":",
  GIT_SSH_COMMAND: "ssh",
  GIT_TERMINAL_PROMPT: "0",
  // Only these transports: no ext:: (runs a command), no file:// (runs upload-pack locally, which a
  // repository can configure), no git:// (core.gitProxy), no remote helpers.
  GIT_ALLOW_PROTOCOL: "https:http:ssh",
  GIT_PROTOCOL_FROM_USER: "0",
  // `git status` must not try to refresh the index of a read-only workspace.
  GIT_OPTIONAL_LOCKS: "0",
};

/** Variables that must not be set for a read-only command (they name programs). */
export const READ_ONLY_GIT_UNSET: readonly string[] = [
  "GIT_EXTERNAL_DIFF",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_SSH",
  "GIT_PROXY_COMMAND",
  "GIT_CONFIG_PARAMETERS",
  "GIT_EXEC_PATH",
  "GIT_DIR",
  "GIT_WORK_TREE",
];

/**
 * The environment additions of a read-only command. Entries already in `env` under
 * GIT_CONFIG_COUNT are kept before ours (ours come last, so they win).
 *
 * `externalDiff`: whether a configuration file git reads there sets diff.external. Only then is it
 * overridden: git has no value that turns an external diff off (an empty one is run too), so the
 * override is a program that refuses — with it, every `git diff` that finds a change fails. Where
 * no file sets it, nothing can (the command line's `-c diff.external=…`, `--ext-diff` and
 * GIT_EXTERNAL_DIFF ask at the gate, and the variable is unset here), and `git diff` works.
 */
export function readOnlyGitEnv(env: Readonly<Record<string, string>> = {}, opts: { externalDiff?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = { ...READ_ONLY_GIT_VARIABLES };
  const existing = Number.parseInt(env.GIT_CONFIG_COUNT ?? "0", 10);
  const base = Number.isFinite(existing) && existing > 0 ? existing : 0;
  const config = READ_ONLY_GIT_CONFIG.filter(([key]) => key !== "diff.external" || opts.externalDiff !== false);
  config.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${base + i}`] = key;
    out[`GIT_CONFIG_VALUE_${base + i}`] = value;
  });
  out.GIT_CONFIG_COUNT = String(base + config.length);
  return out;
}
