// The composer's completion of MCP prompts, their arguments (completion/complete) and `@server:uri`
// resources, against the real server-everything from the npm registry through the Node hub.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completeMcpCommand, completeMcpMention, templateVariableAt } from "../../../src/core/mcp/completion";
import { parsePromptArgs, promptTurn } from "../../../src/core/mcp/prompts";
import { createNodeMcp, type NodeMcp } from "../../../src/node/mcp/setup";
import { pidsOf } from "../../support/processes";

const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const argv = [process.execPath, EVERYTHING, "stdio", `--yoke-test=completion-${process.pid}`];
let base: string;
let mcp: NodeMcp;
const signal = () => AbortSignal.timeout(20_000);

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "yoke-mcp-completion-"));
  const home = join(base, "home");
  mkdirSync(join(home, ".yoke"), { recursive: true });
  mkdirSync(join(base, "ws"));
  writeFileSync(join(home, ".yoke/settings.json"), JSON.stringify({ mcpServers: { everything: { command: argv[0], args: argv.slice(1) } } }));
  mcp = createNodeMcp({ cwd: join(base, "ws"), home, trusted: true });
  await mcp.hub.catalog();
}, 60_000);
afterAll(async () => {
  await mcp.dispose();
  expect(pidsOf(argv)).toEqual([]);
  rmSync(base, { recursive: true, force: true });
});

describe("completion of MCP prompts in the composer", () => {
  it("/mcp__ lists the server's prompts with their arguments and descriptions", async () => {
    const items = await completeMcpCommand(mcp.hub, "mcp__every", signal());
    const args = items.find((i) => i.label === "/mcp__everything__args-prompt")!;
    expect(args).toEqual({
      label: "/mcp__everything__args-prompt",
      detail: "<city> [state] — A prompt with two arguments, one required and one optional — (MCP: everything)",
      insert: "/mcp__everything__args-prompt ",
    });
    expect(items.map((i) => i.label)).toContain("/mcp__everything__completable-prompt");
    expect((await completeMcpCommand(mcp.hub, "mcp__everything__comp", signal())).map((i) => i.label)).toEqual(["/mcp__everything__completable-prompt"]);
  });

  it("argument values come from the server's completion/complete, the earlier arguments as context", async () => {
    const first = await completeMcpCommand(mcp.hub, "mcp__everything__completable-prompt En", signal());
    expect(first).toEqual([{ label: "Engineering", detail: "department — Choose the department.", insert: "/mcp__everything__completable-prompt Engineering " }]);
    const second = await completeMcpCommand(mcp.hub, "mcp__everything__completable-prompt Engineering ", signal());
    expect(second.map((i) => i.label)).toEqual(["Alice", "Bob", "Charlie"]);
    expect(second[1]!.insert).toBe("/mcp__everything__completable-prompt Engineering Bob ");
    // name=value: the named argument is completed.
    const named = await completeMcpCommand(mcp.hub, "mcp__everything__completable-prompt department=Sa", signal());
    expect(named.map((i) => i.insert)).toEqual(["/mcp__everything__completable-prompt department=Sales "]);
    // A prompt whose server does not complete this argument: nothing, no error.
    expect(await completeMcpCommand(mcp.hub, "mcp__everything__args-prompt Par", signal())).toEqual([]);
  });
});

describe("completion of @server:uri", () => {
  it("a server's name, then its resources and templates", async () => {
    expect(await completeMcpMention(mcp.hub, "ever", signal())).toEqual([{ label: "@everything:", detail: "an MCP server's resources", insert: "@everything:" }]);
    const items = await completeMcpMention(mcp.hub, "everything:", signal());
    expect(items.length).toBeGreaterThan(2);
    expect(items.every((i) => i.label.startsWith("@everything:"))).toBe(true);
    const templates = items.filter((i) => i.detail.startsWith("template"));
    expect(templates.map((t) => t.insert)).toContain("@everything:demo://resource/dynamic/text/");
    const narrowed = await completeMcpMention(mcp.hub, "everything:architecture", signal());
    expect(narrowed.length).toBeGreaterThan(0);
    expect(narrowed.every((i) => i.label.toLowerCase().includes("architecture") || i.detail.toLowerCase().includes("architecture"))).toBe(true);
  });
});

describe("completion of a resource template's variables (completion/complete, ref/resource)", () => {
  it("finds the variable being typed, with the ones before it as context", () => {
    expect(templateVariableAt("demo://text/{id}", "demo://text/4")).toEqual({ name: "id", value: "4", before: "demo://text/", context: {}, last: true });
    expect(templateVariableAt("repo://{owner}/{repo}/issues", "repo://octo/he")).toEqual({ name: "repo", value: "he", before: "repo://octo/", context: { owner: "octo" }, last: false });
    expect(templateVariableAt("repo://{owner}/{repo}/issues", "repo://oc")).toMatchObject({ name: "owner", value: "oc", context: {} });
    expect(templateVariableAt("file:///{+path}", "file:///src/a")).toMatchObject({ name: "path", value: "src/a" });
    // Not in a variable (yet), or another template.
    expect(templateVariableAt("demo://text/{id}", "demo://te")).toBeUndefined();
    expect(templateVariableAt("demo://text/{id}", "other://x")).toBeUndefined();
    expect(templateVariableAt("repo://{owner}/{repo}/issues", "repo://octo/hello/issues")).toBeUndefined();
  });

  it("the server completes the variable (server-everything's resourceId), inserted into the mention", async () => {
    const items = await completeMcpMention(mcp.hub, "everything:demo://resource/dynamic/text/3", signal());
    expect(items[0]).toEqual({
      label: "@everything:demo://resource/dynamic/text/3",
      detail: "resourceId of demo://resource/dynamic/text/{resourceId} — Dynamic Text Resource",
      insert: "@everything:demo://resource/dynamic/text/3 ",
    });
    // What the server does not complete (not a positive integer for this server): no entry from the template.
    const none = await completeMcpMention(mcp.hub, "everything:demo://resource/dynamic/text/abc", signal());
    expect(none.filter((i) => i.detail.startsWith("resourceId"))).toEqual([]);
  });
});

describe("prompt arguments and messages", () => {
  const p = { name: "p", arguments: [{ name: "a", required: true }, { name: "b" }] };
  it("positional words fill the arguments in order; the last takes the rest; name=value anywhere", () => {
    expect(parsePromptArgs(p, "mcp__s__p", "one two three")).toEqual({ values: { a: "one", b: "two three" } });
    expect(parsePromptArgs(p, "mcp__s__p", 'b=x "one word"')).toEqual({ values: { a: "one word", b: "x" } });
    expect(parsePromptArgs({ name: "q" }, "mcp__s__q", "extra")).toEqual({ error: "/mcp__s__q takes no arguments: extra is left over. Usage: /mcp__s__q" });
  });
  it("an assistant message of the prompt is marked; an image is attached, audio described", () => {
    const png = Buffer.from("\x89PNG\r\n\x1a\nxxxx", "binary").toString("base64");
    const turn = promptTurn(
      {
        messages: [
          { role: "user", content: { type: "text", text: "Q" } },
          { role: "assistant", content: { type: "text", text: "A" } },
          { role: "user", content: { type: "image", mimeType: "image/png", data: png } },
          { role: "user", content: { type: "audio", mimeType: "audio/wav", data: "AAAA" } },
        ],
      },
      "s",
    );
    expect(turn.images).toEqual([{ mimeType: "image/png", data: png }]);
    expect(turn.text).toBe(
      [
        "[user message of the prompt]\nQ",
        "[assistant message of the prompt]\nA",
        '[user message of the prompt]\n[image (image/png, 12 bytes) returned by the prompt of "s": image 1, attached]',
        '[user message of the prompt]\n[audio (audio/wav, 3 bytes) returned by the prompt of "s": not shown to the model: no provider Yoke uses takes audio]',
      ].join("\n\n"),
    );
  });
});

describe("prompts/list_changed", () => {
  it("a prompt the server adds while running is listed, completed and expanded at once (prompts are not in the request's cached prefix)", async () => {
    const probeArgv = [process.execPath, join(__dirname, "../../support/mcp-probe-server.cjs"), `prompts-${process.pid}`];
    const home = join(base, "home2");
    mkdirSync(join(home, ".yoke"), { recursive: true });
    writeFileSync(join(home, ".yoke/settings.json"), JSON.stringify({ mcpServers: { probe: { command: probeArgv[0], args: probeArgv.slice(1) } } }));
    const probe = createNodeMcp({ cwd: join(base, "ws"), home, trusted: true });
    try {
      await probe.hub.catalog();
      const names = async () => (await completeMcpCommand(probe.hub, "mcp__probe", signal())).map((i) => i.label);
      expect(await names()).toEqual(["/mcp__probe__hello"]);
      const changed = new Promise<string>((resolve) => probe.hub.onListChanged((server, what) => resolve(`${server} ${what}`)));
      await probe.hub.call("probe", "add_prompt", { name: "late" }, { signal: signal(), timeoutMs: 10_000 });
      expect(await changed).toBe("probe prompts");
      expect(await names()).toEqual(["/mcp__probe__hello", "/mcp__probe__late"]);
      expect(await probe.hub.getPrompt("probe", "late", {}, signal())).toEqual({ messages: [{ role: "user", content: { type: "text", text: "the late prompt" } }] });
    } finally {
      await probe.dispose();
    }
    expect(pidsOf(probeArgv)).toEqual([]);
  });
});
