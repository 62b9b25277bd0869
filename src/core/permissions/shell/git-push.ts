/**
 * A push forced or deleting through configuration (red team 11). `git push` reads its refspecs from
 * `remote.NAME.push` and pushes as `--mirror` when `remote.NAME.mirror` is true (git-push(1),
 * git-config(1)), so `git -c remote.origin.push=+refs/heads/*:refs/heads/* push` force-pushes every
 * branch with no `--force` in sight. Yoke's reading (docs/security.md, "A rule about git push
 * --force"): a rule about `--force` (or `--delete`, `--mirror`) covers every push the LINE forces,
 * however it says so — a `+` refspec, `--mirror`, `-c remote.X.push=+…`, `-c remote.X.mirror=true`,
 * `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, or a `git config`/`git remote add --mirror` earlier in the
 * same line. The configuration already on disk is the user's (the repository's `.git/config` is
 * read-only to commands in the sandbox and a protected path to the gate), so a plain `git push`
 * stays a plain push.
 */
import type { Word } from "./words";

/** `remote.NAME.push` / `remote.NAME.mirror` (any case; NAME may hold dots). */
const PUSH_KEY = /^remote\..+\.(push|mirror)$/i;

export function isPushConfigKey(key: string): boolean {
  return PUSH_KEY.test(key);
}

/** The push options a configuration value means: `+src:dst` forces, `:dst` deletes, mirror forces and deletes. */
export function pushOptionsOf(key: string, value: string): string[] {
  const m = PUSH_KEY.exec(key);
  if (!m) return [];
  if (m[1]!.toLowerCase() === "mirror") return /^(true|yes|on|1|)$/i.test(value.trim()) ? ["--mirror"] : [];
  const v = value.trim();
  if (v.startsWith("+")) return ["--force"];
  if (v.startsWith(":") && v.length > 1) return ["--delete"];
  return [];
}

/** What a `git config …` / `git remote add --mirror` command (words after `git`) sets for later pushes. */
export function pushOptionsSetBy(args: readonly Word[]): string[] | "unknown" {
  const sub = args[0]?.value;
  if (sub === "remote" && args[1]?.value === "add") {
    const mirror = args.slice(2).find((w) => w.value === "--mirror" || w.value.startsWith("--mirror="));
    return mirror && mirror.value !== "--mirror=fetch" ? ["--mirror"] : [];
  }
  if (sub !== "config") return [];
  // `git config [set] [--scope…] [--add|--replace-all|--type=…] KEY VALUE`; the two first operands.
  const operands = args.slice(1).filter((w, i) => !(i === 0 && w.value === "set") && !w.value.startsWith("-"));
  const [key, value] = operands;
  if (!key || !value) return [];
  if (key.dynamic) return "unknown";
  if (!isPushConfigKey(key.value)) return [];
  if (value.dynamic) return "unknown";
  return pushOptionsOf(key.value, value.value);
}

/** `GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n` (and `GIT_CONFIG_PARAMETERS`) set on the command. */
export function pushOptionsFromEnv(assignments: ReadonlyArray<{ name: string; value: Word }>): string[] | "unknown" {
  const byName = new Map(assignments.map((a) => [a.name, a.value]));
  const out: string[] = [];
  for (const [name, value] of byName) {
    if (name === "GIT_CONFIG_PARAMETERS") {
      if (value.dynamic) return "unknown";
      for (const m of value.value.matchAll(/'([^'=]+)'='([^']*)'|'([^'=]+)=([^']*)'/g)) out.push(...pushOptionsOf(m[1] ?? m[3]!, m[2] ?? m[4]!));
      continue;
    }
    const k = /^GIT_CONFIG_KEY_(\d+)$/.exec(name);
    if (!k) continue;
    const v = byName.get(`GIT_CONFIG_VALUE_${k[1]}`);
    if (value.dynamic || v?.dynamic) return "unknown";
    if (v && isPushConfigKey(value.value)) out.push(...pushOptionsOf(value.value, v.value));
  }
  return out;
}
