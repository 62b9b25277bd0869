#!/usr/bin/env node
// The differential checker (src/bench/diffcheck): generated command lines and the corpora's Bash
// cases, run with real bash under strace in a throwaway sandbox and compared with the gate.
//   node scripts/diffcheck.mjs --count 2000 --seed 7 [--corpora [--corpus-filter ordinary]] [--concurrency 2] [--json]
//                              [--backend bwrap|firejail] [--user] [--shape REGEX (only generated inputs of matching productions)]
//   node scripts/diffcheck.mjs --command 'test -v "a[$(yoke-marker)]"' [--backend firejail] [--user]
//   node scripts/diffcheck.mjs --plant ': > -fprint' --command 'find . *'   (--plant: a script run in the
//   scratch workspace before the gate looks — files an earlier command made)
// --backend: the sandbox of the traced runs (bwrap: strace outside, following bwrap in; firejail:
// strace inside, with --allow-debuggers). --user: the traced commands run as the unprivileged
// yoke-sectest (created with useradd when run as root).
// Needs `npm run build` (dist/diffcheck.js), strace, bwrap and firejail (scripts/setup-e2e.sh installs them).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = join(root, "dist", "diffcheck.js");
if (!existsSync(entry)) {
  const built = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  if (built.status !== 0) process.exit(built.status ?? 2);
}
const r = spawnSync(process.execPath, [entry, ...process.argv.slice(2)], { cwd: root, stdio: "inherit" });
process.exit(r.status ?? 2);
