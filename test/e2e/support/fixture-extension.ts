import { spawnSync } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./paths";

/** Packages a test-only extension of test/e2e/fixtures (by folder name) with vsce (no network) into `dir`; returns the .vsix path. */
export function packageFixture(name: string, dir: string): string {
  const src = join(dir, name);
  cpSync(join(ROOT, "test", "e2e", "fixtures", name), src, { recursive: true });
  const out = join(dir, `${name}.vsix`);
  const vsce = join(ROOT, "node_modules", "@vscode", "vsce", "vsce");
  const r = spawnSync(process.execPath, [vsce, "package", "--no-dependencies", "--allow-missing-repository", "--skip-license", "--out", out], { cwd: src, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`packaging the test extension ${name} failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
  return out;
}
