/**
 * Red team 17-host: the credentials a git clone keeps in the plugin stores (clone-secrets.ts) are
 * found for the mount plan, and a hook's command line naming one does not expose it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pluginStoreSecrets, secretsBelow } from "../../../src/node/commands/sandbox/clone-secrets";
import { hookReadablePaths } from "../../../src/node/hook-sandbox";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function home(files: string[]): string {
  const h = mkdtempSync(join(tmpdir(), "yoke-clone-secrets-"));
  temps.push(h);
  for (const f of files) {
    mkdirSync(dirname(join(h, f)), { recursive: true });
    writeFileSync(join(h, f), "x");
  }
  return h;
}

describe("clone credentials in the plugin stores", () => {
  it("finds every clone's .git (marketplaces, cached plugins), credential files and the marketplace lists, not a plugin's ordinary files", () => {
    const h = home([
      ".claude/plugins/marketplaces/acme/.git/config",
      ".claude/plugins/marketplaces/acme/plugins/p/README.md",
      ".claude/plugins/cache/acme/p/1.0.0/.git/config",
      ".claude/plugins/cache/acme/p/1.0.0/node_modules/x/.git/config",
      ".yoke/plugins/marketplaces/acme/.git",
      ".yoke/plugins/marketplaces/acme/.git-credentials",
      ".claude/plugins/known_marketplaces.json",
    ]);
    const got = pluginStoreSecrets(h).map((p) => p.slice(h.length + 1));
    expect(got).toEqual(
      expect.arrayContaining([
        ".claude/plugins/marketplaces/acme/.git",
        ".claude/plugins/cache/acme/p/1.0.0/.git",
        ".yoke/plugins/marketplaces/acme/.git",
        ".yoke/plugins/marketplaces/acme/.git-credentials",
        ".claude/plugins/known_marketplaces.json",
      ]),
    );
    expect(got.some((p) => p.includes("README") || p.includes("node_modules"))).toBe(false);
    expect(secretsBelow(join(h, ".claude/plugins/marketplaces/acme")).map((p) => p.slice(h.length + 1))).toEqual([".claude/plugins/marketplaces/acme/.git"]);
  });

  it("a hook's command line naming a clone's .git/config or a marketplace list exposes nothing; a plugin's file stays readable", () => {
    const h = home([".claude/plugins/marketplaces/acme/.git/config", ".claude/plugins/known_marketplaces.json", ".claude/plugins/marketplaces/acme/plugins/p/README.md", ".claude/hooks/.git/config"]);
    const paths = [
      ".claude/plugins/marketplaces/acme/.git/config",
      ".claude/plugins/known_marketplaces.json",
      ".claude/hooks/.git/config",
      ".claude/plugins/marketplaces/acme/plugins/p/README.md",
    ].map((p) => join(h, p));
    expect(hookReadablePaths(paths, {}, [h], [])).toEqual([join(h, ".claude/plugins/marketplaces/acme/plugins/p/README.md")]);
  });
});
