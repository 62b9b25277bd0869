import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Repository root. */
export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
/** Screenshots and logs kept as CI artefacts. */
export const RESULTS_DIR = join(ROOT, "test-results", "e2e");
/** The sample project copied into each test's workspace. */
export const SAMPLE_WORKSPACE = join(ROOT, "test", "fixtures", "sample-workspace");
/** The packaged extension under test (scripts/e2e.mjs sets YOKE_VSIX after packaging). */
export function vsixPath(): string {
  return process.env.YOKE_VSIX ?? join(ROOT, ".cache", "yoke.vsix");
}
