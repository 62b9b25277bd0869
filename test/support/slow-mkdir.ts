/**
 * A preloaded library that holds a program just before it makes one folder: `mkdir` of a path ending
 * in $SLOW_MKDIR_SUFFIX sleeps $SLOW_MKDIR_SECONDS (default 3) first. It stands for a loaded machine
 * descheduling git between two steps of its own work (door18b: git clone --separate-git-dir writes
 * the `.git` file, then makes the folder it names), made wide and certain instead of one run in five.
 * Built with the system's C compiler into `dir` (the test's own folder).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const SOURCE = `
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
int mkdir(const char *p, mode_t m) {
  static int (*real)(const char *, mode_t);
  if (!real) real = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "mkdir");
  const char *s = getenv("SLOW_MKDIR_SUFFIX");
  const char *t = getenv("SLOW_MKDIR_SECONDS");
  size_t n = s ? strlen(s) : 0, l = strlen(p);
  if (n && l >= n && strcmp(p + l - n, s) == 0) sleep(t ? (unsigned)atoi(t) : 3);
  return real(p, m);
}
`;

/** Builds the library in `dir`; returns its path (for LD_PRELOAD). */
export function buildSlowMkdir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "slow-mkdir.c"), SOURCE);
  const so = join(dir, "slow-mkdir.so");
  execFileSync("gcc", ["-shared", "-fPIC", "-O2", "-o", so, join(dir, "slow-mkdir.c"), "-ldl"]);
  return so;
}
