import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scopedMode } from "../../../src/core/settings/origin";
import { registerProviderSecret, withoutProviderSecrets } from "../../../src/node/settings/secret-env";
import { TrustedFolders } from "../../../src/node/settings/trusted-folders";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "yoke-trust-store-"));
  temps.push(d);
  return d;
}

describe("the CLI's trusted folders (~/.yoke/trusted-folders.json)", () => {
  it("trusts a folder and its subfolders, not its siblings or a prefix of its name; revokes exactly", () => {
    const d = tmp();
    const store = new TrustedFolders(join(d, "home/.yoke/trusted-folders.json"));
    for (const f of ["proj/sub", "proj-evil", "other"]) mkdirSync(join(d, f), { recursive: true });
    expect(store.isTrusted(join(d, "proj"))).toBe(false);
    store.trust(join(d, "proj"));
    expect(store.isTrusted(join(d, "proj"))).toBe(true);
    expect(store.isTrusted(join(d, "proj/sub"))).toBe(true);
    expect(store.isTrusted(join(d, "proj-evil"))).toBe(false);
    expect(store.isTrusted(join(d, "other"))).toBe(false);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(store.revoke(join(d, "proj/sub"))).toBe(false);
    expect(store.revoke(join(d, "proj"))).toBe(true);
    expect(store.isTrusted(join(d, "proj/sub"))).toBe(false);
  });

  it("keys folders by their real path: a link into a trusted folder is trusted, a trusted link does not lend trust to its target's siblings", () => {
    const d = tmp();
    const store = new TrustedFolders(join(d, "trusted.json"));
    mkdirSync(join(d, "real/a"), { recursive: true });
    mkdirSync(join(d, "real/b"));
    symlinkSync(join(d, "real/a"), join(d, "link"));
    store.trust(join(d, "link"));
    expect(JSON.parse(readFileSync(store.file, "utf8")).folders[0].path).toBe(join(d, "real/a"));
    expect(store.isTrusted(join(d, "real/a"))).toBe(true);
    expect(store.isTrusted(join(d, "real/b"))).toBe(false);
  });

  it("a file it cannot read trusts nothing and says why (JSONC is fine)", () => {
    const d = tmp();
    const file = join(d, "trusted.json");
    mkdirSync(join(d, "p"));
    writeFileSync(file, `{ "folders": [ { "path": "${join(d, "p")}" }, // mine\n ] }`);
    expect(new TrustedFolders(file).isTrusted(join(d, "p"))).toBe(true);
    writeFileSync(file, `{ "folders": [ { "path": "${join(d, "p")}" } `);
    const broken = new TrustedFolders(file);
    expect(broken.isTrusted(join(d, "p"))).toBe(false);
    expect(broken.read().problem).toMatch(/trusted\.json:1:\d+: unexpected end of file .*; no folder is trusted until it is fixed/);
    expect(() => broken.trust(join(d, "p"))).toThrow(/no folder is trusted until it is fixed/);
  });
});

describe("VS Code yoke.permissionMode: the workspace's value may only tighten", () => {
  it("ignores a looser workspace mode and keeps a stricter one", () => {
    expect(scopedMode(undefined, "acceptEdits", "default")).toMatchObject({ mode: undefined, ignored: expect.stringContaining('"acceptEdits" is ignored') });
    expect(scopedMode(undefined, "bypassPermissions", "default").mode).toBeUndefined();
    expect(scopedMode("acceptEdits", "bypassPermissions", "default").mode).toBe("acceptEdits");
    expect(scopedMode(undefined, "plan", "default")).toEqual({ mode: "plan" });
    expect(scopedMode("acceptEdits", "default", "default")).toEqual({ mode: "default" });
    expect(scopedMode("bypassPermissions", "acceptEdits", "default")).toEqual({ mode: "acceptEdits" });
    expect(scopedMode(undefined, "acceptEdits", "acceptEdits")).toEqual({ mode: "acceptEdits" });
  });
});

describe("provider keys kept from hooks and MCP servers", () => {
  it("drops the known key variables, a registered --api-key-env variable, and copies of their values", () => {
    registerProviderSecret("MY_LLM_KEY", "k-registered-123456");
    const env = withoutProviderSecrets({
      PATH: "/usr/bin",
      ANTHROPIC_API_KEY: "sk-ant-aaaaaaaaaaaa",
      OPENAI_API_KEY: "sk-oai-bbbbbbbbbbbb",
      MY_LLM_KEY: "k-registered-123456",
      COPY: "sk-ant-aaaaaaaaaaaa",
      OTHER_COPY: "k-registered-123456",
      SHORT: "1",
    });
    expect(env).toEqual({ PATH: "/usr/bin", SHORT: "1" });
  });
});
