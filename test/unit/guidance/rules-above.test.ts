// Windsurf's rules of the folders above a workspace folder (up to the git root) go through the same
// checks as the workspace's own: a Read deny rule keeps one out (a problem says so), a secret's name
// is never read, and a workspace that is the repository's top reads nothing above it.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadGuidance } from "../../../src/core/guidance";
import { createNodeGuidanceFiles } from "../../../src/node/guidance-files";
import { createNodeWorkspaceFs } from "../../../src/node/node-fs";

const temps: string[] = [];
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

function repo(files: Record<string, string>): string {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-rules-above-")));
  temps.push(base);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(base, rel)), { recursive: true });
    writeFileSync(join(base, rel), text);
  }
  execFileSync("git", ["init", "-q", base]);
  return base;
}

describe("Windsurf rules above the workspace folder", () => {
  it("respect Read deny rules and secret names; a folder at the repository's top reads nothing above", async () => {
    const base = repo({
      ".windsurf/rules/ok.md": "---\ntrigger: always_on\n---\nABOVE-OK\n",
      ".windsurf/rules/denied.md": "---\ntrigger: always_on\n---\nABOVE-DENIED\n",
      ".windsurf/rules/.env.md": "---\ntrigger: always_on\n---\nABOVE-ENV\n",
      "web/README.md": "web\n",
    });
    const ws = join(base, "web");
    const set = await loadGuidance({
      fs: createNodeWorkspaceFs(ws),
      files: createNodeGuidanceFiles({ home: join(base, "home"), builtinDir: null }),
      access: { deniedBy: async (_perm, p) => (p.endsWith("/denied.md") ? "Read(**/denied.md)" : null) },
    });
    const bodies = set.entries.map((e) => e.body).join("\n");
    expect(bodies).toContain("ABOVE-OK");
    expect(bodies).not.toContain("ABOVE-DENIED");
    expect(bodies).not.toContain("ABOVE-ENV");
    expect(set.problems.find((p) => p.path.endsWith("denied.md"))?.message).toBe("not read: reading it is denied by Read(**/denied.md)");
    expect(set.entries.find((e) => e.body.includes("ABOVE-OK"))).toMatchObject({ source: "../.windsurf/rules/ok.md", activation: "always", above: true, origin: "workspace" });
    // The repository's top as the workspace folder: its own rules, nothing "above".
    const top = await loadGuidance({ fs: createNodeWorkspaceFs(base), files: createNodeGuidanceFiles({ home: join(base, "home"), builtinDir: null }) });
    expect(top.entries.filter((e) => e.above)).toEqual([]);
  });
});
