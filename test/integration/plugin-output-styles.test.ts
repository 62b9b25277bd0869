// A Claude Code plugin's output styles (issue 23): `output-styles/*.md` in the plugin, or the files and
// folders plugin.json's `outputStyles` names in its place, are styles named `PLUGIN:NAME`; the setting
// or --output-style chooses one, its text ends the system prompt the model receives, and `yoke lessons
// list` shows it as the plugin's. A disabled plugin's styles are gone. Real CLI, scripted model over HTTP.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs, systemPromptOf as system } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { writeWithParents as write } from "../support/workspace";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});
beforeAll(() => ensureBuilt(), 120_000);

function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-plugin-styles-")));
  temps.push(dir);
  const home = join(dir, "home");
  const ws = join(dir, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, "README.md"), "# app\n");
  const market = join(dir, "market");
  // The default folder.
  const kit = join(market, "plugins", "style-kit");
  write(join(kit, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "style-kit", version: "1.0.0" }));
  write(join(kit, "output-styles", "terse.md"), "---\nname: terse\ndescription: One-line answers\n---\nAnswer in one line. TERSE-STYLE-TEXT\n");
  // plugin.json's `outputStyles` names a single file: it replaces the default folder.
  const named = join(market, "plugins", "named-kit");
  write(join(named, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "named-kit", outputStyles: "./styles/brief.md" }));
  write(join(named, "styles", "brief.md"), "Be brief. BRIEF-STYLE-TEXT\n");
  write(join(named, "output-styles", "ignored.md"), "IGNORED-STYLE-TEXT\n");
  write(
    join(market, ".claude-plugin", "marketplace.json"),
    JSON.stringify({
      name: "styles",
      owner: { name: "Team" },
      plugins: [
        { name: "style-kit", source: "./plugins/style-kit" },
        { name: "named-kit", source: "./plugins/named-kit" },
      ],
    }),
  );
  return { home, ws, market, sessions: join(dir, "sessions") };
}

describe("a plugin's output styles", () => {
  it("are PLUGIN:NAME styles: chosen by --output-style or the setting, their text reaches the model; plugin.json's outputStyles replaces the folder; disabled, they are gone", async () => {
    const s = setup();
    const yoke = (args: string[]) => runCli(args, { env: { HOME: s.home }, cwd: s.ws });
    expect((await yoke(["plugins", "marketplace", "add", s.market])).code).toBe(0);
    const inst = await yoke(["plugins", "install", "style-kit@styles"]);
    expect(inst.code, inst.stderr).toBe(0);
    expect(inst.stdout).toContain("Installed and enabled style-kit@styles (1.0.0): output styles");
    expect((await yoke(["plugins", "install", "named-kit@styles"])).code).toBe(0);

    const run = async (extra: string[]) => {
      server = await startScriptedLlmServer({ script: [{ text: "ok" }] });
      const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, s.ws, s.sessions), ...extra, "hi"], { env: { HOME: s.home } });
      const requests = server.requests;
      await server.close();
      server = undefined;
      return { r, requests };
    };

    const flag = await run(["--output-style", "style-kit:terse"]);
    expect(flag.r.code, flag.r.stderr).toBe(0);
    expect(system(flag.requests[0]!)).toContain("TERSE-STYLE-TEXT");
    expect(flag.r.stderr).not.toContain("not found");

    // The user's own setting chooses the other plugin's single-file style; its default folder is not read.
    write(join(s.home, ".claude", "settings.json"), JSON.stringify({ outputStyle: "named-kit:brief" }));
    const setting = await run([]);
    expect(system(setting.requests[0]!)).toContain("BRIEF-STYLE-TEXT");
    const wrong = await run(["--output-style", "named-kit:ignored"]);
    expect(system(wrong.requests[0]!)).not.toContain("IGNORED-STYLE-TEXT");
    expect(wrong.r.stderr).toContain('output style "named-kit:ignored" not found');

    const listed = JSON.parse((await yoke(["lessons", "list", "--json"])).stdout) as { items: Array<{ kind: string; name: string; origin: string; plugin?: string; inForce: boolean }> };
    const styles = listed.items.filter((i) => i.kind === "output-style");
    expect(styles).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "style-kit:terse", origin: "plugin", plugin: "style-kit@styles", inForce: false }),
        expect.objectContaining({ name: "named-kit:brief", origin: "plugin", plugin: "named-kit@styles", inForce: true }),
      ]),
    );
    expect(styles.map((i) => i.name)).not.toContain("named-kit:ignored");

    expect((await yoke(["plugins", "disable", "style-kit@styles"])).code).toBe(0);
    const gone = await run(["--output-style", "style-kit:terse"]);
    expect(system(gone.requests[0]!)).not.toContain("TERSE-STYLE-TEXT");
    expect(gone.r.stderr).toContain('output style "style-kit:terse" not found');
  }, 180_000);
});
