// VS Code's `inputs` of `type: "command"` (`${input:id}` = what a VS Code command returns), in the
// user's own mcp.json and in a repository's .vscode/mcp.json, with the real stdio server from the
// npm registry (@modelcontextprotocol/server-everything, whose get-env tool shows the environment
// it was given).
// - The editor (src/host/mcp.ts does exactly this, with vscode.commands.executeCommand as `run`):
//   the user's file's command runs, its result reaches the server; the repository's command is
//   never run and its server is not started, saying why — even with the server approved.
// - The CLI (`yoke mcp list` and the servers `yoke run` starts): no VS Code to run a command, so
//   the server is not started and the note says why and how to give the value (YOKE_MCP_INPUT_<ID>).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeMcp } from "../../src/node/mcp/setup";
import { editorInputs, runCommandInputs } from "../../src/node/mcp/command-inputs";
import { ensureBuilt, runCli } from "../support/cli";
import { pidsOf } from "../support/processes";
import { everythingArgv } from "../support/mcp-fixtures";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A workspace whose .vscode/mcp.json and the user's VS Code mcp.json each define a server taking a token from a command input. */
function setup() {
  const base = mkdtempSync(join(tmpdir(), "yoke-mcp-cmd-input-"));
  temps.push(base);
  const cwd = join(base, "ws");
  const home = join(base, "home");
  const userDir = join(home, ".config", "Code", "User");
  const userArgv = everythingArgv("cmd-input-user");
  const repoArgv = everythingArgv("cmd-input-repo");
  const file = (argv: string[], name: string, command: string) =>
    JSON.stringify({
      inputs: [{ id: "token", type: "command", command, args: { account: "me" } }],
      servers: { [name]: { type: "stdio", command: argv[0], args: argv.slice(1), env: { SERVICE_TOKEN: "${input:token}" } } },
    });
  for (const [path, text] of [
    [join(userDir, "mcp.json"), file(userArgv, "mine", "myAuth.getToken")],
    [join(cwd, ".vscode", "mcp.json"), file(repoArgv, "theirs", "workbench.action.terminal.sendSequence")],
  ] as const) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return { cwd, home, userDir, userArgv, repoArgv, env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config") } };
}

describe("VS Code command inputs of mcp.json", () => {
  it("in the editor: the user's own file's command runs (with its args) and its result reaches the server; a repository's command is never run and its server is not started, saying why", async () => {
    const { cwd, home, userDir, userArgv, repoArgv } = setup();
    const ran: Array<{ command: string; args: unknown }> = [];
    // The host's command runner (vscode.commands.executeCommand in src/host/mcp.ts).
    const run = (command: string, args?: unknown) => {
      ran.push({ command, args });
      return Promise.resolve(command === "myAuth.getToken" ? "token-from-command-7731" : undefined);
    };
    const { readFileSync } = await import("node:fs");
    const commands = await runCommandInputs(readFileSync(join(userDir, "mcp.json"), "utf8"), run);
    const approvals: string[] = [];
    const mcp = createNodeMcp({
      cwd,
      home,
      trusted: true,
      storageDir: join(home, ".yoke"),
      vscodeUserDir: userDir,
      env: { PATH: process.env.PATH },
      input: editorInputs(new Map(), commands),
      // Approved: still not started (its definition has no value to start with).
      approve: (req) => {
        approvals.push(req.server.name);
        return Promise.resolve("allow");
      },
    });
    try {
      expect(ran).toEqual([{ command: "myAuth.getToken", args: { account: "me" } }]);
      expect(mcp.servers.map((s) => s.name)).toEqual(["mine"]);
      const problem = mcp.problems.find((p) => p.server === "theirs");
      expect(problem?.message).toContain("no value for ${input:token}");
      expect(problem?.message).toContain('it runs the VS Code command "workbench.action.terminal.sendSequence"');
      expect(problem?.message).toContain("never for a repository's file");
      await mcp.hub.catalog();
      const r = await mcp.hub.call("mine", "get-env", {}, { signal: new AbortController().signal, timeoutMs: 30_000 });
      expect(JSON.stringify(r.content)).toContain("token-from-command-7731");
      expect(approvals).toEqual([]);
      expect(pidsOf(repoArgv)).toEqual([]);
    } finally {
      await mcp.dispose();
    }
    expect(pidsOf(userArgv)).toEqual([]);

    // A command that gives nothing (cancelled) or fails: the user's server is not started, and the problem says which command and why.
    const none = await runCommandInputs(readFileSync(join(userDir, "mcp.json"), "utf8"), () => Promise.resolve(undefined));
    const failed = await runCommandInputs(readFileSync(join(userDir, "mcp.json"), "utf8"), () => Promise.reject(new Error("command 'myAuth.getToken' not found")));
    for (const [answers, why] of [
      [none, 'the VS Code command "myAuth.getToken" returned nothing'],
      [failed, "command 'myAuth.getToken' not found"],
    ] as const) {
      const m = createNodeMcp({ cwd, home, trusted: true, storageDir: join(home, ".yoke"), vscodeUserDir: userDir, env: { PATH: process.env.PATH }, input: editorInputs(new Map(), answers) });
      try {
        expect(m.servers).toEqual([]);
        expect(m.problems.find((p) => p.server === "mine")?.message).toContain(why);
      } finally {
        await m.dispose();
      }
    }
    expect(pidsOf(userArgv)).toEqual([]);
  }, 120_000);

  it("in the CLI: no VS Code to run the command — neither server is started, and the note says why and how to give the value; YOKE_MCP_INPUT_TOKEN gives it", async () => {
    const { cwd, env, userArgv, repoArgv } = setup();
    const r = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env });
    // A server with a problem: `yoke mcp list` exits 1, as for any problem.
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as { servers: Array<{ name: string; state: string }>; problems: Array<{ server?: string; message: string }> };
    expect(out.servers).toEqual([]);
    for (const [name, command] of [
      ["mine", "myAuth.getToken"],
      ["theirs", "workbench.action.terminal.sendSequence"],
    ]) {
      const message = out.problems.find((p) => p.server === name)?.message ?? "";
      expect(message).toContain(`it is the result of the VS Code command "${command}", which only VS Code can run, so the server is not started here`);
      expect(message).toContain("set YOKE_MCP_INPUT_TOKEN to give the value");
    }
    expect(pidsOf(userArgv)).toEqual([]);
    expect(pidsOf(repoArgv)).toEqual([]);
    // The human-readable list says it too.
    const human = await runCli(["mcp", "list", "--cwd", cwd], { env });
    expect(human.stdout + human.stderr).toContain("which only VS Code can run");

    // With the value given: the user's server runs (the repository's waits for approval, as any).
    const given = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env: { ...env, YOKE_MCP_INPUT_TOKEN: "from-env" } });
    const rows = (JSON.parse(given.stdout) as { servers: Array<{ name: string; state: string }> }).servers.map((s) => [s.name, s.state]);
    expect(rows).toEqual(expect.arrayContaining([["mine", "running"]]));
    expect(pidsOf(userArgv)).toEqual([]);
  }, 120_000);
});
