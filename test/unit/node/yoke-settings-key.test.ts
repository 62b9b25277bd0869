import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readCompactionSettings } from "../../../src/node/compaction-settings";
import { readSubagentSettings } from "../../../src/node/subagent-settings";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(user: string | undefined, workspace: string | undefined) {
  const base = mkdtempSync(join(tmpdir(), "yoke-key-"));
  dirs.push(base);
  const home = join(base, "home");
  const ws = join(base, "ws");
  mkdirSync(join(home, ".yoke"), { recursive: true });
  mkdirSync(join(ws, ".yoke"), { recursive: true });
  if (user !== undefined) writeFileSync(join(home, ".yoke", "settings.json"), user);
  if (workspace !== undefined) writeFileSync(join(ws, ".yoke", "settings.json"), workspace);
  return { home, ws };
}

describe("keys of Yoke's own settings files", () => {
  it("takes the workspace's fields over the user's, field by field (a BOM and an empty file are fine)", () => {
    const { home, ws } = setup(`\ufeff${JSON.stringify({ subagents: { maxDepth: 1, maxConcurrent: 5 } })}`, JSON.stringify({ subagents: { maxConcurrent: 2 } }));
    expect(readSubagentSettings(ws, home)).toMatchObject({ settings: { maxDepth: 1, maxConcurrent: 2 }, problems: [] });
    const empty = setup("", undefined);
    expect(readSubagentSettings(empty.ws, empty.home).problems).toEqual([]);
  });

  it("reports a value that is not an object, and a file that is not JSON once (the compaction reader reports it)", () => {
    const { home, ws } = setup("{ not json", JSON.stringify({ subagents: [2], compaction: "off" }));
    const sub = readSubagentSettings(ws, home);
    expect(sub.problems).toEqual([`${join(ws, ".yoke", "settings.json")}: "subagents" must be an object like {"maxDepth": 2, "maxConcurrent": 3}; the defaults apply`]);
    const comp = readCompactionSettings(ws, home);
    expect(comp.problems).toEqual([
      expect.stringMatching(new RegExp(`^${join(home, ".yoke", "settings.json").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not valid JSON \\(.+\\); its compaction settings were not read$`)),
      `${join(ws, ".yoke", "settings.json")}: "compaction" must be an object`,
    ]);
  });
});
