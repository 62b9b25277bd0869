// Roo Code's global custom modes (its custom_modes.yaml in VS Code's global storage) beside the
// project's .roomodes: each is a custom agent; a project mode of the same slug wins (Roo's order:
// project, global, built-in). Written in the shapes Roo writes (a settings file with customModes,
// a mode's global rules in ~/.roo/rules-{slug}/), checked in the listing and in a full `yoke run`
// with the scripted model: what reached the sub-agent's model.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { globalRooModeFiles, rooGlobalModesCandidates, rooStorageBeside } from "../../src/node/custom-agents";
import { listCustomizations } from "../../src/node/customizations";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs, subagentDepthOf, systemPromptOf, toldOf } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

const temps: string[] = [];
let server: ScriptedServer | undefined;
const savedXdg = process.env.XDG_CONFIG_HOME;
beforeAll(() => {
  delete process.env.XDG_CONFIG_HOME;
  ensureBuilt();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => {
  if (savedXdg !== undefined) process.env.XDG_CONFIG_HOME = savedXdg;
  temps.forEach((t) => rmSync(t, { recursive: true, force: true }));
});

const SETTINGS = ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings";

const GLOBAL_MODES = [
  "customModes:",
  "  - slug: translator",
  "    name: 🌐 Translator",
  "    roleDefinition: You translate user-facing strings and keep placeholders intact. GLOBAL-TRANSLATOR-ROLE",
  "    whenToUse: Use this mode to translate the UI strings of the app.",
  "    groups:",
  "      - read",
  "      - - edit",
  "        - fileRegex: ^locales/.*\\.json$",
  "          description: Locale files",
  "    source: global",
  "  - slug: security-review",
  "    name: Global reviewer",
  "    roleDefinition: The global security reviewer. GLOBAL-REVIEW-ROLE",
  "    groups: [read]",
  "    source: global",
  "",
].join("\n");

const PROJECT_MODES = [
  "customModes:",
  "  - slug: security-review",
  "    name: Project reviewer",
  "    roleDefinition: The project's security reviewer. PROJECT-REVIEW-ROLE",
  "    groups: [read]",
  "",
].join("\n");

function setup() {
  const w = createWorkspaceWithHome(
    "yoke-roo-global-",
    {
      ".roomodes": PROJECT_MODES,
      "locales/en.json": '{"hi":"Hello"}\n',
      // The project's rules for the global mode (Roo reads .roo/rules-{slug}/ of the workspace for every mode, sub-folders too).
      ".roo/rules-translator/style/02-glossary.md": "Translate 'tide' as 'marée'. PROJECT-TRANSLATOR-RULE\n",
    },
    temps,
    { realpath: true },
  );
  mkdirSync(join(w.home, SETTINGS), { recursive: true });
  writeFileSync(join(w.home, SETTINGS, "custom_modes.yaml"), GLOBAL_MODES);
  mkdirSync(join(w.home, ".roo/rules-translator"), { recursive: true });
  writeFileSync(join(w.home, ".roo/rules-translator/01-tone.md"), "Keep the tone informal. GLOBAL-TRANSLATOR-RULE\n");
  // The user's rules for the project's mode (~/.roo/rules-{slug}/ applies to a .roomodes mode too).
  mkdirSync(join(w.home, ".roo/rules-security-review"), { recursive: true });
  writeFileSync(join(w.home, ".roo/rules-security-review/01-owasp.md"), "Check the OWASP top ten. USER-REVIEW-RULE\n");
  return w;
}

describe("Roo Code's global custom modes", () => {
  it("are found where Roo keeps them on Linux, macOS and Windows (VS Code, Insiders, VSCodium; YAML, then the older JSON)", () => {
    const linux = rooGlobalModesCandidates({ home: "/home/u", platform: "linux", env: {} });
    expect(linux[0]).toBe("/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/custom_modes.yaml");
    expect(linux[1]).toBe("/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/custom_modes.json");
    expect(linux).toContain("/home/u/.config/Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline/settings/custom_modes.yaml");
    expect(linux).toContain("/home/u/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/settings/custom_modes.yaml");
    expect(rooGlobalModesCandidates({ home: "/home/u", platform: "linux", env: { XDG_CONFIG_HOME: "/xdg" } })[0]).toBe(
      "/xdg/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/custom_modes.yaml",
    );
    expect(rooGlobalModesCandidates({ home: "/Users/u", platform: "darwin", env: {} })[0]).toBe(
      "/Users/u/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/custom_modes.yaml",
    );
    // (path.join on this machine writes "/"; on Windows it writes "\".)
    expect(rooGlobalModesCandidates({ home: "/h", platform: "win32", env: { APPDATA: "/h/AppData/Roaming" } })[0]).toBe(
      "/h/AppData/Roaming/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/custom_modes.yaml",
    );
  });

  it("the listing: a global mode is the user's agent; a project mode of the same slug wins; the older JSON file is read when there is no YAML", async () => {
    const w = setup();
    const l = await listCustomizations({ cwd: w.cwd, home: w.home, trusted: true, builtinDir: null });
    const agents = l.items.filter((i) => i.kind === "agent").map((a) => `${a.name} ${a.origin} ${a.source}`);
    expect(agents).toContain(`translator user ~/${SETTINGS}/custom_modes.yaml (mode translator)`);
    expect(agents).toContain("security-review project .roomodes (mode security-review)");
    expect(agents.filter((a) => a.startsWith("security-review "))).toHaveLength(1);

    const j = createWorkspaceWithHome("yoke-roo-global-json-", {}, temps, { realpath: true });
    mkdirSync(join(j.home, SETTINGS), { recursive: true });
    writeFileSync(join(j.home, SETTINGS, "custom_modes.json"), JSON.stringify({ customModes: [{ slug: "jsonmode", roleDefinition: "From JSON.", groups: ["read"] }] }));
    const files = await globalRooModeFiles({ home: j.home, env: {} });
    expect(files.map((f) => [f.stem, f.origin])).toEqual([["jsonmode", "user"]]);
  });

  it("a full run: the model is offered the global mode, which runs with its role, its ~/.roo/rules-{slug} rule and its fileRegex; the project's reviewer, not the global one", async () => {
    const w = setup();
    const review = (r: RecordedRequest) => systemPromptOf(r).includes("REVIEW-ROLE");
    server = await startScriptedLlmServer({
      script: async (r: RecordedRequest) => {
        if (subagentDepthOf(r) === 1) {
          if (review(r)) return { text: "Reviewed." };
          if (toldOf([r])) return { text: "Translated." };
          return {
            toolCalls: [
              { name: "write_file", input: { path: "locales/fr.json", content: '{"hi":"Salut"}\n' } },
              { name: "write_file", input: { path: "src/app.ts", content: "export {};\n" } },
            ],
          };
        }
        const told = toldOf([r]);
        if (told.includes("Reviewed.")) return { text: "Done." };
        if (told.includes("Translated.")) return { toolCalls: [{ name: "task", input: { description: "Review", prompt: "Review it.", subagent_type: "security-review" } }] };
        return { toolCalls: [{ name: "task", input: { description: "Translate", prompt: "Translate the UI into French.", subagent_type: "translator" } }] };
      },
    });
    const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, w.cwd, join(w.base, "sessions")), "--permission-mode", "acceptEdits", "translate the app into French"], {
      env: { HOME: w.home },
    });
    expect(r.code, r.stderr).toBe(0);
    const parent = server.requests.find((q) => subagentDepthOf(q) === 0)!;
    const taskTool = ((parent.body as { tools?: Array<{ function: { name: string; description: string } }> }).tools ?? []).find((t) => t.function.name === "task")!;
    expect(taskTool.function.description).toContain("translator");
    expect(taskTool.function.description).toContain("Use this mode to translate the UI strings of the app.");
    const children = server.requests.filter((q) => subagentDepthOf(q) === 1);
    const translator = systemPromptOf(children.find((q) => systemPromptOf(q).includes("GLOBAL-TRANSLATOR-ROLE"))!);
    expect(translator).toContain("GLOBAL-TRANSLATOR-RULE");
    // Roo's order for a mode's rules: the user's folder, then the project's.
    expect(translator).toContain("PROJECT-TRANSLATOR-RULE");
    expect(translator.indexOf("GLOBAL-TRANSLATOR-RULE")).toBeLessThan(translator.indexOf("PROJECT-TRANSLATOR-RULE"));
    expect(translator).toContain("Rules of this mode (.roo/rules-translator/style/02-glossary.md)");
    expect(translator).toContain("Edit only files whose path matches /^locales/.*\\.json$/ (Locale files); other edits are refused.");
    // Its fileRegex holds: the locale file landed, the source file did not.
    expect(readFileSync(join(w.cwd, "locales/fr.json"), "utf8")).toBe('{"hi":"Salut"}\n');
    expect(existsSync(join(w.cwd, "src/app.ts"))).toBe(false);
    // The reviewer that ran is the project's.
    expect(children.some((q) => systemPromptOf(q).includes("PROJECT-REVIEW-ROLE"))).toBe(true);
    expect(children.some((q) => systemPromptOf(q).includes("GLOBAL-REVIEW-ROLE"))).toBe(false);
    expect(systemPromptOf(children.find((q) => systemPromptOf(q).includes("PROJECT-REVIEW-ROLE"))!)).toContain("USER-REVIEW-RULE");
  }, 180_000);

  it("the running VS Code's storage (the panel): a --user-data-dir's Roo folder beside Yoke's, and roo-cline.customStoragePath when Roo could use it — and only those", async () => {
    const w = setup();
    // A VS Code started with --user-data-dir: Yoke's global storage is inside it, Roo's beside it.
    const udd = join(w.base, "udd");
    const yokeStorage = join(udd, "User/globalStorage/yoke.yoke");
    const rooStorage = rooStorageBeside(yokeStorage);
    expect(rooStorage).toBe(join(udd, "User/globalStorage/rooveterinaryinc.roo-cline"));
    mkdirSync(join(rooStorage, "settings"), { recursive: true });
    writeFileSync(join(rooStorage, "settings/custom_modes.yaml"), "customModes:\n  - slug: udd-mode\n    roleDefinition: From the user data dir. UDD-ROLE\n    groups: [read]\n");
    const stems = async (storage: Parameters<typeof globalRooModeFiles>[0]) => (await globalRooModeFiles({ home: w.home, env: {}, ...storage })).map((f) => f.stem);
    // Only the running VS Code's file: not ~/.config/Code's (another VS Code's Roo).
    expect(await stems({ storage: { globalStorage: rooStorage } })).toEqual(["udd-mode"]);
    // A custom storage path Roo can use replaces the folder.
    const custom = join(w.base, "roo-custom");
    mkdirSync(join(custom, "settings"), { recursive: true });
    writeFileSync(join(custom, "settings/custom_modes.yaml"), "customModes:\n  - slug: custom-mode\n    roleDefinition: From the custom storage path.\n    groups: [read]\n");
    expect(await stems({ storage: { globalStorage: rooStorage, customStoragePath: custom } })).toEqual(["custom-mode"]);
    // One Roo cannot use (no such folder): Roo falls back to its global storage, and so does Yoke.
    expect(await stems({ storage: { globalStorage: rooStorage, customStoragePath: join(w.base, "missing") } })).toEqual(["udd-mode"]);
    // The CLI (no VS Code to ask): each build's user settings.json names its custom path (JSONC, as VS Code writes it).
    writeFileSync(join(w.home, ".config/Code/User/settings.json"), `{\n  // Roo keeps its data here\n  "roo-cline.customStoragePath": ${JSON.stringify(custom)},\n}\n`);
    expect(rooGlobalModesCandidates({ home: w.home, platform: "linux", env: {} })[0]).toBe(join(custom, "settings/custom_modes.yaml"));
    expect(await stems({})).toEqual(["custom-mode"]);
    // The listing the panel shows, with the panel's storage.
    const l = await listCustomizations({ cwd: w.cwd, home: w.home, trusted: true, builtinDir: null, rooStorage: { globalStorage: rooStorage } });
    expect(l.items.filter((i) => i.kind === "agent").map((a) => a.name)).toContain("udd-mode");
    expect(l.items.filter((i) => i.kind === "agent").map((a) => a.name)).not.toContain("translator");
  });
});
