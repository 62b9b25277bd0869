/**
 * Which files of a Roo Code rules folder (`.roo/rules/`, `.roo/rules-{mode}/`, and the user's
 * `~/.roo/rules*`) Roo reads: every file, at any depth, but for the cache and system files its
 * documentation and code leave out (`*.bak`, `*.log`, `.DS_Store`, …). Roo's own repository keeps
 * its modes' rules as `.xml` files, so an extension list (`.md`, `.txt`) would drop real rules.
 * What Yoke leaves out on top of that (a `#!` script, a binary file) is decided from the content.
 */
const ROO_SKIPPED_SUFFIXES = [
  ".ds_store",
  ".bak",
  ".cache",
  ".crdownload",
  ".db",
  ".dmp",
  ".dump",
  ".eslintcache",
  ".lock",
  ".log",
  ".old",
  ".part",
  ".partial",
  ".pyc",
  ".pyo",
  ".stackdump",
  ".swo",
  ".swp",
  ".temp",
  ".tmp",
];

/** Whether Roo Code reads a file of this name found in one of its rules folders. */
export function isRooRuleFile(name: string): boolean {
  const n = name.toLowerCase();
  if (n === "thumbs.db") return false;
  return !ROO_SKIPPED_SUFFIXES.some((s) => n.endsWith(s));
}
