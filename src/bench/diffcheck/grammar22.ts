/**
 * Issue 18, session 22 (gate22): programs that write a path named in their arguments, where the gate may not
 * model the write (session 21 saw bash's `history -w FILE` and `git mv X .vscode/tasks.json` allowed in
 * bypassPermissions: the gate read the operands as reads). Each input writes a fresh file of the workspace
 * (`w22…`) or rewrites a tracked one through such a program; the checker reports any write the gate's analysis
 * did not name ("write not predicted").
 *
 * Since session 23 (gitnew23) also `git clone . DIR`, `git clone --bare`, `git init DIR`, `git worktree add DIR`: the
 * production's first find in session 22 (a whole repository written at DIR, its `.git/config` and hooks, unseen). The
 * gate now names the folder as a written region (src/core/permissions/git-new-repository.ts).
 *
 * Since session 24 (nested24) also `git submodule add`, whose `.gitmodules` and `.git/modules/<name>` the gate names now.
 */
type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** `F` is the file written (replaced by a fresh name). */
const NAMED_WRITES: ReadonlyArray<readonly [string, string]> = [
  ["history -w", "set -o history; history -s x; history -w F"],
  ["history -a", "set -o history; history -s x; history -a F"],
  ["history -wa", "set -o history; history -s x; history -aw F"],
  ["git mv", "git mv README.md F"],
  ["git mv -f", "git mv -f README.md F"],
  ["git checkout --", "echo changed > README.md; git checkout -- README.md"],
  ["git checkout REV PATH", "echo changed > README.md; git checkout HEAD README.md"],
  ["git restore", "echo changed > README.md; git restore README.md"],
  ["git restore --source", "echo changed > README.md; git restore --source=HEAD -- README.md"],
  ["uniq IN OUT", "uniq README.md F"],
  ["file -C -m", "file -C -m F"],
  ["gzip -k", "cp README.md F && gzip -k F"],
  ["split", "split -l 1 README.md F"],
  ["csplit -f", "csplit -s -f F README.md 1"],
  ["tar -cf", "tar -cf F README.md"],
  ["shuf -o", "shuf -o F README.md"],
  ["sort -o", "sort -o F README.md"],
  ["git archive -o", "git archive -o F HEAD"],
  ["git bundle create", "git bundle create F HEAD"],
  ["git format-patch -o", "git format-patch -q -o F -1"],
  ["truncate", "truncate -s 0 F"],
  ["install", "install -m 644 README.md F"],
  ["ln", "ln README.md F"],
  ["xxd -r", "xxd README.md | xxd -r - F"],
  ["iconv -o", "iconv -f utf-8 -t utf-8 -o F README.md"],
  ["dd of=", "dd if=README.md of=F status=none"],
  ["tee", "tee F < README.md"],
  ["mktemp -p", "mktemp -p . FXXXX"],
  ["openssl -out", "openssl rand -out F 8"],
  ["ssh-keygen -f", "ssh-keygen -q -N '' -t ed25519 -f F"],
  ["sqlite3", "sqlite3 F 'create table t(a)'"],
  ["git clone", "git clone -q . F"],
  ["git clone --bare", "git clone -q --bare . F"],
  ["git init", "git init -q F"],
  ["git worktree add", "git worktree add -q F"],
  // Session 24 (nested24): git submodule add also writes `.gitmodules` and `.git/modules/<name>` (`--name` or the path).
  ["git submodule add", "git -c protocol.file.allow=always submodule add -q ./ F"],
  ["git submodule add --name", "git -c protocol.file.allow=always submodule add -q --name Fn ./ F"],
];

/** One input of the production. */
export function generate22(r: Rng): { command: string; shape: string[] } {
  const [name, form] = pick(r, NAMED_WRITES);
  const file = `w22${Math.floor(r() * 1e6)}`;
  return { command: form.replaceAll("F", file), shape: ["named writes", `named writes: ${name}`] };
}
