/**
 * Reading a file Yoke takes as text for the model without asking anyone (a command, an output
 * style, a plugin's skill or agent) only where it is what it claims to be: a regular file whose
 * real path — the opened descriptor's (/proc/self/fd), so a link swapped in meanwhile does not
 * count — stays inside the folder that owns it, and is not a secret (src/core/permissions/sensitive.ts).
 * A plugin's `skills/s/SKILL.md -> /proc/self/environ` (the CLI's environment, provider keys
 * included) or `-> /proc/self/cwd/.env` (the workspace's Read-denied .env) is refused with a
 * reason, never read (red team 21-host).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { sep } from "node:path";
import { secretToRead } from "../core/permissions/sensitive";

const posix = (p: string) => p.split(sep).join("/");
const within = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith("/") ? dir : `${dir}/`);

/** Why a file was not read (its message says so, for the user's problem list). */
export class NotOwnedFile extends Error {}

/**
 * The text of `path`, which must stay inside `owner` once every link is followed; undefined when it
 * cannot be opened (absent). Throws NotOwnedFile, naming why, for a file outside its owner, a secret
 * or a file that is not regular (a FIFO does not hang the read: it is opened non-blocking).
 */
export function readOwnedFile(path: string, owner: string, home: string): string | undefined {
  const realOwner = posix(realpathSync(owner));
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const real = posix(process.platform === "linux" ? readlinkSync(`/proc/self/fd/${fd}`) : realpathSync(path));
    if (!within(real, realOwner)) throw new NotOwnedFile(`not read: it leads to ${real}, outside ${owner}`);
    const secret = secretToRead(real, posix(home)) ?? secretToRead(posix(path), posix(home));
    if (secret) throw new NotOwnedFile(`not read: it is a secret (${secret}), and nobody is asked before this text goes to the model`);
    if (!fstatSync(fd).isFile()) throw new NotOwnedFile("not read: not a regular file");
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
