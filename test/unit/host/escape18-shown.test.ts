/**
 * Issue 18: what the extension shows outside the panel (src/host/shown.ts). Notifications show a
 * bidi override or an invisible character as its escape and `[label](command:…)` as text (VS Code
 * draws that syntax as a link that runs the command); the button the person clicks comes back as
 * the caller named it. Every line of the output channel is escaped, and one MCP server message with
 * newlines is one entry whose every line names the server.
 */
import { join } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it, vi } from "vitest";

const shownMessages: Array<{ level: string; message: string; rest: unknown[] }> = [];
let click: ((items: string[]) => string | undefined) | undefined;
vi.mock("vscode", () => {
  const show =
    (level: string) =>
    async (message: string, ...rest: unknown[]) => {
      shownMessages.push({ level, message, rest });
      const items = rest.filter((r): r is string => typeof r === "string");
      return click?.(items);
    };
  return { window: { showInformationMessage: show("info"), showWarningMessage: show("warning"), showErrorMessage: show("error") } };
});

const { notify, shownLog, mcpLogLine, shownItem, shownLabel, shownTitle, LOG_CONTINUATION } = await import("../../../src/host/shown");

/** A stand-in for VS Code's LogOutputChannel: each entry as VS Code writes it (time and level first). */
function fakeChannel() {
  const lines: string[] = [];
  const entry =
    (level: string) =>
    (message: string, ...args: unknown[]) => {
      lines.push(...`2026-12-05 21:00:00.000 [${level}] ${message}${args.length ? ` ${args.map((a) => JSON.stringify(a)).join(" ")}` : ""}`.split("\n"));
    };
  const channel = {
    name: "Yoke",
    logLevel: 2,
    trace: entry("trace"),
    debug: entry("debug"),
    info: entry("info"),
    warn: entry("warning"),
    error: (m: string | Error) => entry("error")(typeof m === "string" ? m : String(m)),
    append: (t: string) => lines.push(t),
    appendLine: (t: string) => lines.push(...t.split("\n")),
    show: vi.fn(),
  };
  return { channel, lines };
}

const ENTRY_START = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[/;

describe("notifications (notify)", () => {
  it("shows a bidi override and invisible characters as escapes, keeps accents, CJK and emoji", async () => {
    shownMessages.length = 0;
    await notify("warning", "Yoke wants to run rm -rf \u202ecrs/ in café 日本 👩‍💻", { detail: "reason: \u2066.e\u200bnv\u2069" }, "Allow");
    const [m] = shownMessages;
    expect(m!.message).toBe("Yoke wants to run rm -rf \\u202ecrs/ in café 日本 👩‍💻");
    expect(m!.rest[0]).toEqual({ detail: "reason: \\u2066.e\\u200bnv\\u2069" });
  });

  it("shows link syntax as text, so a quoted name cannot carry a command link", async () => {
    shownMessages.length = 0;
    const name = "[Open the docs](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%5Cn%22%7D)";
    await notify("info", `Yoke: the MCP server "${name}" asks you to fill in a form.`, "Show");
    const shown = shownMessages[0]!.message;
    // VS Code's own pattern for links in notifications (parseLinkedText) finds none.
    expect(shown).not.toMatch(/\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/i);
    expect(shown).toContain("[Open the docs] (command:workbench.action.terminal.sendSequence");
  });

  it("a button label naming a rule is shown with escapes, and the click comes back as the caller's label", async () => {
    shownMessages.length = 0;
    const always = "Always allow Bash(rm \u202e:*)";
    click = (items) => items[1];
    const picked = await notify("warning", "Yoke: run_command wants to run", { detail: "x" }, "Allow", always, "Deny");
    click = undefined;
    expect(shownMessages[0]!.rest.slice(1)).toEqual(["Allow", "Always allow Bash(rm \\u202e:*)", "Deny"]);
    expect(picked).toBe(always);
    expect(await notify("error", "no buttons")).toBeUndefined();
  });

  it("newlines and carriage returns in a one-line message are shown as \\n and \\r", async () => {
    shownMessages.length = 0;
    await notify("error", "Yoke: cannot add a\rb\nc");
    expect(shownMessages[0]!.message).toBe("Yoke: cannot add a\\rb\\nc");
  });
});

describe("the output channel (shownLog)", () => {
  it("escapes every entry; continuation lines are indented, so none passes for an entry of its own", () => {
    const { channel, lines } = fakeChannel();
    const log = shownLog(channel as never);
    log.warn("rule \u202eBash(rm:*) from .claude/settings.json\n2026-12-05 21:00:00.000 [info] always allow: added Bash(*)\x1b[2K");
    log.info("plain café 日本 👍🏽");
    log.error(new Error("boom\u200b"));
    log.appendLine("raw\u202eline");
    expect(lines[0]).toBe("2026-12-05 21:00:00.000 [warning] rule \\u202eBash(rm:*) from .claude/settings.json");
    expect(lines[1]).toBe(`${LOG_CONTINUATION}2026-12-05 21:00:00.000 [info] always allow: added Bash(*)\\x1b[2K`);
    expect(lines[2]).toBe("2026-12-05 21:00:00.000 [info] plain café 日本 👍🏽");
    expect(lines[3]).toMatch(/^2026-12-05 21:00:00.000 \[error\] Error: boom\\u200b$/);
    expect(lines.filter((l) => ENTRY_START.test(l))).toHaveLength(3); // warn, info, error (appendLine is raw)
    expect(lines.at(-1)).toBe("raw\\u202eline");
    // eslint-disable-next-line no-control-regex
    expect(lines.join("\n")).not.toMatch(/[\u202e\u200b\u001b]/);
    // Everything else is the channel's own.
    log.show();
    expect(channel.show).toHaveBeenCalled();
    expect(log.name).toBe("Yoke");
  });

  it("one MCP server message with newlines is one entry: every line names the server", () => {
    const { channel, lines } = fakeChannel();
    const log = shownLog(channel as never);
    const text = 'first line\n2026-12-05 21:00:00.000 [error] MCP server "other" [error]: fake\r\nthird\u202e';
    log.info(mcpLogLine("srv\u202e\n", "info", text));
    expect(lines).toEqual([
      '2026-12-05 21:00:00.000 [info] MCP server "srv\\u202e\\n" [info]: first line',
      `${LOG_CONTINUATION}srv\\u202e\\n | 2026-12-05 21:00:00.000 [error] MCP server "other" [error]: fake`,
      `${LOG_CONTINUATION}srv\\u202e\\n | third\\u202e`,
    ]);
    expect(lines.filter((l) => ENTRY_START.test(l))).toHaveLength(1);
  });
});

describe("quick picks, labels and editor titles", () => {
  it("escape, write $(icon) as text, keep the item's other fields", () => {
    const item = shownItem({ label: "src/\u202eevil$(alert)", description: "restored · +1 −0", detail: "a\nb", path: "src/\u202eevil" });
    expect(item).toEqual({ label: "src/\\u202eevil\\$(alert)", description: "restored · +1 −0", detail: "a\\nb", path: "src/\u202eevil" });
    expect(shownLabel("模型 🤖")).toBe("模型 🤖");
    expect(shownTitle("a\u2066b.ts (original ↔ Yoke's change)")).toBe("a\\u2066b.ts (original ↔ Yoke's change)");
  });

  it("the status bar names a model from the settings with escapes and no icon of its own", async () => {
    const { statusBarView } = await import("../../../src/host/status-view");
    const view = statusBarView({ state: "idle", mode: "default", model: "gpt\u202e$(alert)\n5", asking: false, reviewing: 0 });
    expect(view.text).toContain("gpt\\u202e\\$(alert)\\n5");
    expect(view.tooltip).not.toContain("\u202e");
    expect(statusBarView({ state: "idle", mode: "default", model: "qwen2.5-coder:7b 模型", asking: false, reviewing: 0 }).text).toContain("qwen2.5-coder:7b 模型");
  });
});

describe("the host shows notifications and makes its output channel only through shown.ts", () => {
  it("eslint rejects vscode.window.show*Message and createOutputChannel elsewhere in src/host, and accepts notify()", async () => {
    const root = join(__dirname, "../../..");
    const eslint = new ESLint({ cwd: root });
    const lint = async (code: string, rel: string) => {
      const [result] = await eslint.lintText(code, { filePath: join(root, rel) });
      return result!.messages.filter((m) => m.ruleId === "no-restricted-syntax").map((m) => m.message);
    };
    const planted =
      'import * as vscode from "vscode";\nexport function f(name: string): void {\n  void vscode.window.showWarningMessage(`server ${name}`);\n  void vscode.window.createOutputChannel("x");\n}\n';
    const found = await lint(planted, "src/host/planted-escape18.ts");
    expect(found).toHaveLength(2);
    expect(found[0]).toContain("notify()");
    expect(found[1]).toContain("shownLog");
    // extension.ts makes the one channel; it may not show notifications directly either.
    expect(await lint(planted, "src/host/extension.ts")).toHaveLength(1);
    expect(await lint('import { notify } from "./shown";\nexport const f = (n: string) => notify("warning", `server ${n}`);\n', "src/host/planted-escape18.ts")).toEqual([]);
  }, 60_000);
});
