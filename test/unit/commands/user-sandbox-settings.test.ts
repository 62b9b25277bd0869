// The user's sandbox settings (~/.yoke/settings.json "sandbox"): a file Yoke cannot read is not
// guessed at — commands refuse to run, saying which file to fix — and a missing one means defaults.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createNodeServices, readUserSandboxSettings } from "../../../src/node/agent-services";
import { SandboxSettingsError } from "../../../src/node/commands/session-runner";
import { ensureBuilt, runCli } from "../../support/cli";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
beforeAll(() => ensureBuilt(), 120_000);

function home(settings?: string): string {
  const h = mkdtempSync(join(tmpdir(), "yoke-home-"));
  temps.push(h);
  if (settings !== undefined) {
    mkdirSync(join(h, ".yoke"));
    writeFileSync(join(h, ".yoke", "settings.json"), settings);
  }
  return h;
}

describe("user sandbox settings", () => {
  it("reads the sandbox block, and defaults when the file or the block is missing", () => {
    expect(readUserSandboxSettings(home('{"sandbox": {"network": "on"}}'))).toEqual({ network: "on" });
    expect(readUserSandboxSettings(home('{"permissions": {}}'))).toEqual({});
    expect(readUserSandboxSettings(home())).toEqual({});
  });

  it("refuses a file it cannot parse instead of silently using the defaults", () => {
    const h = home('{"sandbox": {"network": "off",}');
    expect(() => readUserSandboxSettings(h)).toThrow(SandboxSettingsError);
    expect(() => readUserSandboxSettings(h)).toThrow(/settings\.json is not valid JSON .*so the sandbox settings are unknown; fix it/);
    expect(() => readUserSandboxSettings(home('{"sandbox": ["bwrap"]}'))).toThrow('"sandbox" must be an object');
  });

  it("a session's commands cannot run until the file is fixed, and say why", () => {
    const h = home("{ not json");
    const ws = mkdtempSync(join(tmpdir(), "yoke-ws-"));
    temps.push(ws);
    const services = createNodeServices({ cwd: ws, sessionDir: join(ws, ".sessions"), trusted: true, home: h });
    const c = services.commands({ id: "s1" });
    expect(c.commands).toBeUndefined();
    expect(c.commandsUnavailable).toMatch(/^Commands cannot run: .*settings\.json is not valid JSON/);
  });

  it("yoke sandbox exec exits 1 with the reason", async () => {
    const r = await runCli(["sandbox", "exec", "--", "true"], { env: { HOME: home("{ not json") } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/yoke sandbox: .*settings\.json is not valid JSON/);
  });
});
