/**
 * The unprivileged user the differential checker runs commands as (`--user`): the security tests'
 * `yoke-sectest` (test/support/identities.ts), created with useradd when this process is root.
 * Not root: this process's own user is already unprivileged.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { userInfo } from "node:os";
import type { RunIdentity } from "./runner";

export const SECTEST_USER = "yoke-sectest";

export function unprivilegedIdentity(): RunIdentity {
  if (process.getuid?.() !== 0) {
    const me = userInfo();
    return { name: me.username, uid: me.uid, gid: me.gid };
  }
  const lookup = () => {
    const r = spawnSync("getent", ["passwd", SECTEST_USER], { encoding: "utf8" });
    if (r.status !== 0) return undefined;
    const [, , uid, gid] = r.stdout.trim().split(":");
    return { name: SECTEST_USER, uid: Number(uid), gid: Number(gid) };
  };
  let user = lookup();
  if (!user) {
    execFileSync("useradd", ["--create-home", "--shell", "/bin/bash", "--user-group", SECTEST_USER], { stdio: "pipe" });
    user = lookup();
    if (!user) throw new Error(`useradd ${SECTEST_USER} did not create the user`);
  }
  return user;
}
