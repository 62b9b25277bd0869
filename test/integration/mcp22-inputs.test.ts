/**
 * `${input:id}` of VS Code's settings.json `mcp` key (user and workspace), asked as VS Code asks
 * them (src/node/mcp/prompt-inputs.ts, what the extension host calls with its input box and
 * SecretStorage): the value reaches the real server-everything (its get-env), is kept so a later
 * window does not ask, is never given to another repository's input of the same id, and is
 * forgotten by "Reset MCP Inputs". The CLI, which asks nothing, names the variable to set.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { McpInputSpec } from "../../src/core/mcp/config";
import { editorInputs } from "../../src/node/mcp/command-inputs";
import { askFileInputs, forgetInputs, type InputFile, type InputStore } from "../../src/node/mcp/prompt-inputs";
import { readSettingsText } from "../../src/node/settings/files";
import { createNodeMcp } from "../../src/node/mcp/setup";
import { runCli } from "../support/cli";
import { EVERYTHING } from "../support/mcp-fixtures";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

/** A settings.json whose `mcp` key runs server-everything as `name` with KEY from `${input:api-key}`. */
const settingsWith = (name: string, description: string) =>
  JSON.stringify({
    "editor.fontSize": 14,
    mcp: {
      inputs: [{ id: "api-key", type: "promptString", description, password: true }],
      servers: { [name]: { command: process.execPath, args: [EVERYTHING, "stdio"], env: { KEY: "${input:api-key}" } } },
    },
  });

function folders() {
  const base = mkdtempSync(join(tmpdir(), "yoke-mcp22-inputs-"));
  temps.push(base);
  const home = join(base, "home");
  const userDir = join(home, ".config", "Code", "User");
  mkdirSync(userDir, { recursive: true });
  writeFileSync(join(userDir, "settings.json"), settingsWith("mine", "Your key"));
  const repo = (n: string) => {
    const cwd = join(base, n);
    mkdirSync(join(cwd, ".vscode"), { recursive: true });
    writeFileSync(join(cwd, ".vscode", "settings.json"), settingsWith("theirs", `${n}'s key`));
    return cwd;
  };
  return { home, userDir, repoA: repo("repoA"), repoB: repo("repoB") };
}

/** VS Code's SecretStorage, in memory. */
function memoryStore(): InputStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    get: (k) => Promise.resolve(data.get(k)),
    store: (k, v) => Promise.resolve(void data.set(k, v)),
    delete: (k) => Promise.resolve(void data.delete(k)),
  };
}

/** One window's session: the host's files, the prompts asked through `ask`, the servers' KEY as get-env reports it. */
async function windowSession(cwd: string, home: string, userDir: string, store: InputStore, asked: string[]) {
  const files: InputFile[] = [
    { kind: "vscode-settings", text: readSettingsText(join(cwd, ".vscode", "settings.json")).text, label: ".vscode/settings.json" },
    { kind: "vscode-user-settings", text: readSettingsText(join(userDir, "settings.json")).text, label: "your settings.json" },
  ];
  const ask = (spec: McpInputSpec, f: InputFile) => {
    asked.push(`${f.label}: ${spec.description}${spec.password ? " (password)" : ""}`);
    return Promise.resolve(f.kind === "vscode-settings" ? `typed-for-${cwd.split("/").pop()}` : "typed-for-me");
  };
  const prompted = await askFileInputs(files, cwd, new Map(), ask, store);
  const mcp = createNodeMcp({
    cwd,
    home,
    trusted: true,
    storageDir: join(home, ".yoke"),
    vscodeUserDir: userDir,
    env: { PATH: process.env.PATH, HOME: home },
    input: editorInputs(prompted, new Map()),
    approve: () => Promise.resolve("allow"),
  });
  try {
    expect(mcp.problems.map((p) => p.message)).toEqual([]);
    await mcp.hub.catalog();
    const keyOf = async (server: string) => {
      const r = await mcp.hub.call(server, "get-env", {}, { signal: new AbortController().signal, timeoutMs: 30_000 });
      return (JSON.parse((r.content![0] as { text: string }).text) as Record<string, string>).KEY;
    };
    return { mine: await keyOf("mine"), theirs: await keyOf("theirs") };
  } finally {
    await mcp.dispose();
  }
}

describe("${input:id} of VS Code's settings.json mcp servers", () => {
  it("asked once (a password box), given to the server, kept for the next window, per repository; Reset forgets them", async () => {
    const { home, userDir, repoA, repoB } = folders();
    const store = memoryStore();
    const asked: string[] = [];
    expect(await windowSession(repoA, home, userDir, store, asked)).toEqual({ mine: "typed-for-me", theirs: "typed-for-repoA" });
    expect(asked).toEqual([".vscode/settings.json: repoA's key (password)", "your settings.json: Your key (password)"]);
    // A later window of the same folder: nothing asked, the kept values used.
    asked.length = 0;
    expect(await windowSession(repoA, home, userDir, store, asked)).toEqual({ mine: "typed-for-me", theirs: "typed-for-repoA" });
    expect(asked).toEqual([]);
    // Another repository declaring the same id: asked its own value, not given repoA's; yours is kept.
    expect(await windowSession(repoB, home, userDir, store, asked)).toEqual({ mine: "typed-for-me", theirs: "typed-for-repoB" });
    expect(asked).toEqual([".vscode/settings.json: repoB's key (password)"]);
    // Reset MCP Inputs: every kept value gone, the next window asks again.
    expect(await forgetInputs(store, new Map())).toBe(3);
    expect([...store.data.keys()]).toEqual([]);
    asked.length = 0;
    await windowSession(repoA, home, userDir, store, asked);
    expect(asked).toHaveLength(2);
  }, 90_000);

  it("the CLI asks nothing: the problem names the variable; with it set the server starts", async () => {
    const { home, repoA } = folders();
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const without = await runCli(["mcp", "list", "--cwd", repoA, "--json"], { env });
    const problems = (JSON.parse(without.stdout) as { problems: Array<{ server: string | null; message: string }> }).problems;
    expect(problems.find((p) => p.server === "mine")?.message).toContain(
      "no value for ${input:api-key} (Your key): the CLI does not ask for inputs; set YOKE_MCP_INPUT_API_KEY to give the value (VS Code asks with an input box)",
    );
    const withKey = await runCli(["mcp", "list", "--cwd", repoA, "--json"], { env: { ...env, YOKE_MCP_INPUT_API_KEY: "k" } });
    const servers = (JSON.parse(withKey.stdout) as { servers: Array<{ name: string; state: string }> }).servers;
    expect(servers.find((s) => s.name === "mine")?.state).toBe("running");
  }, 60_000);
});
