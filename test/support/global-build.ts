/**
 * Vitest global setup: builds the bundles once, before any test file starts.
 *
 * Test files used to build in their own process (`ensureBuilt`). With two files running at once,
 * one file's build rewrote dist/cli.js while the other file's CLI was loading it, and that CLI
 * died on a torn bundle ("Unexpected end of input", "agentsCommand is not a function"). One build
 * before the workers start cannot race them. YOKE_SKIP_BUILD=1 keeps the tree's dist as it is.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export default function setup(): void {
  const root = join(__dirname, "../..");
  if (!process.env.YOKE_SKIP_BUILD) execFileSync(process.execPath, [join(root, "esbuild.mjs")], { cwd: root, stdio: "inherit" });
  if (!existsSync(join(root, "dist/cli.js"))) throw new Error("dist/cli.js is missing: run `npm run build` (or unset YOKE_SKIP_BUILD)");
}
