/**
 * Red team J (session 24): links in a marketplace's plugin folders, through the built CLI as root and
 * as the unprivileged user (the install and the digest run on the host, no sandbox plays a part).
 *
 * - A directory marketplace whose `plugins/x` is a link to a folder outside it: before, the check on
 *   the path as written passed, the plugin was installed as a link to that folder, and the entry's
 *   components were written INTO it (`victim/.claude-plugin/yoke-marketplace-entry.json`). Now the
 *   install is refused and the folder is unchanged.
 * - A plugin with hooks and a link loop inside it (`a -> .`, `b -> .`): the approval digest's `stat`
 *   threw ELOOP, so `yoke plugins list` and every `yoke run` failed while the plugin was enabled. Now
 *   both work, and the plugin can be approved.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";

const temps: string[] = [];
beforeAll(() => ensureBuilt());
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const HOOKS = { PreToolUse: [{ hooks: [{ type: "command", command: "true" }] }] };

function setup(who: Identity) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-redj24-")));
  temps.push(base);
  const home = join(base, "home");
  const ws = join(base, "ws");
  const victim = join(base, "victim");
  const mkt = join(base, "mkt");
  mkdirSync(home);
  mkdirSync(ws);
  write(join(victim, "notes.txt"), "the person's own folder\n");
  // x: the plugin folder is a link out of the marketplace.
  mkdirSync(join(mkt, "plugins"), { recursive: true });
  symlinkSync(victim, join(mkt, "plugins", "x"));
  // loop: hooks, and two links to its own folder.
  write(join(mkt, "plugins", "loop", "hooks", "hooks.json"), JSON.stringify({ hooks: HOOKS }));
  symlinkSync(".", join(mkt, "plugins", "loop", "a"));
  symlinkSync(".", join(mkt, "plugins", "loop", "b"));
  write(
    join(mkt, ".claude-plugin", "marketplace.json"),
    JSON.stringify({
      name: "m",
      plugins: [
        { name: "x", source: "./plugins/x", hooks: HOOKS },
        { name: "loop", source: "./plugins/loop" },
      ],
    }),
  );
  chownTree(base, who);
  return { home, ws, victim, mkt };
}

const { list, missing } = identities();
// Not root here: the root half cannot run, and the run says why (CI runs as root).
it.runIf(missing !== undefined)("reports why the root half cannot run here", () => {
  expect(missing).toMatch(/not run as root/);
});

describe.each(list)("plugin folders with links, as $label", (who) => {
  it("a plugin folder leading out of the marketplace is not installed, and nothing is written where it leads", async () => {
    const { home, victim, mkt } = setup(who);
    const yoke = (...args: string[]) => runCliAs(who, ["plugins", ...args], { env: { HOME: home }, cwd: home });
    expect((await yoke("marketplace", "add", mkt)).code).toBe(0);
    const x = await yoke("install", "x@m");
    expect(x.code).not.toBe(0);
    expect(x.stderr).toContain("outside the marketplace");
    // The harm on the base: victim/.claude-plugin/yoke-marketplace-entry.json, written by the install.
    expect(readdirSync(victim)).toEqual(["notes.txt"]);
    expect(existsSync(join(home, ".yoke", "plugins", "cache", "m", "x"))).toBe(false);
  });

  it("a plugin with a link loop does not stop the listing, the approval or a session", async () => {
    const { home, ws, mkt } = setup(who);
    const yoke = (...args: string[]) => runCliAs(who, ["plugins", ...args], { env: { HOME: home }, cwd: home });
    expect((await yoke("marketplace", "add", mkt)).code).toBe(0);
    expect((await yoke("install", "loop@m")).code).toBe(0);
    const listed = await yoke("list");
    expect(listed.stderr).not.toContain("ELOOP");
    expect(listed.code).toBe(0);
    expect((await yoke("approve", "loop@m")).code).toBe(0);
    const server = await startScriptedLlmServer({ script: [{ text: "done" }] });
    try {
      const r = await runCliAs(who, [...scriptedRunArgs(server.openaiBaseUrl, ws, join(home, "sessions")), "hello"], { env: { HOME: home }, cwd: ws });
      expect(r.stderr).not.toContain("ELOOP");
      expect(r.code).toBe(0);
      expect(server.requests.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
