// One session store for the panel and the CLI, in a real VS Code (code-server) and the real
// `yoke` (dist/cli.js) with the same HOME: a session started in the panel is listed by `yoke
// sessions` and continued by `yoke resume` (and the panel shows the CLI's turn); a session
// started with `yoke run` appears in the panel's history, opens and continues there; a session a
// live `yoke run` is writing opens read-only, says who holds it, and continues as a fork.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Frame } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { parseLog } from "../../src/core/session/session-log";
import { defaultSessionDir } from "../../src/node/session-location";
import { ensureBuilt, runCli, startCli } from "../support/cli";
import { sendPrompt, texts, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const MODEL = "scripted-e2e";

describe("one session store for the panel and the CLI", () => {
  /** The prompt the scripted model hangs on (a `yoke run` that stays busy). */
  let hangOn = "";
  const vs = useYokeVscode({
    name: "session-store",
    model: {
      name: MODEL,
      script: (req): ScriptedTurn => {
        const text = readExchange(req).userText;
        return text === hangOn ? { text: "Working on it", hang: true } : { text: `Noted: ${text}` };
      },
    },
    eachTestStartsIdle: true,
  });

  beforeAll(() => ensureBuilt());

  // The CLI runs with code-server's own HOME: the store is ~/.yoke/sessions/<workspace-key>/ there.
  const env = () => ({ HOME: vs.server.home });
  const store = () => defaultSessionDir(vs.workspace, vs.server.home);
  const userTexts = (id: string) =>
    parseLog(
      readFileSync(join(store(), `${id}.jsonl`), "utf8")
        .split("\n")
        .filter(Boolean),
    ).events.flatMap((e) => (e.type === "user_message" ? [e.text] : []));
  const cliModel = () => ["--provider", "openai-compatible", "--base-url", vs.llm.openaiBaseUrl, "--model", MODEL];
  const openHistory = async (frame: Frame) => {
    const history = frame.locator("[data-testid=history]");
    await history.waitFor({ state: "visible", timeout: 15_000 });
    if (!(await history.evaluate((el) => (el as HTMLDetailsElement).open))) await history.locator("summary").click();
  };

  it("a session started in the panel is listed and continued by the CLI, and the panel shows the CLI's turn", async () => {
    const { llm } = vs;
    const shot = vs.screenshots("session-store-panel-to-cli");
    await vs.openWorkbench();
    const frame = await vs.openPanel();

    await sendPrompt(frame, "panel session");
    await waitForAssistantText(frame, "Noted: panel session");
    await waitForState(frame, "done");
    await shot("panel-session");

    const listed = await runCli(["sessions", "--cwd", vs.workspace, "--json"], { env: env() });
    expect(listed.code, listed.stderr).toBe(0);
    const list = JSON.parse(listed.stdout) as { sessionDir: string; sessions: Array<{ id: string; title: string; status: string; inUseBy: unknown }> };
    expect(list.sessionDir).toBe(store());
    expect(list.sessions).toEqual([expect.objectContaining({ title: "panel session", status: "done", inUseBy: null })]);
    const id = list.sessions[0]!.id;

    // No provider flags: resume reconnects to what the panel's session_start recorded.
    const resumed = await runCli(["resume", "--trust", id, "--cwd", vs.workspace, "cli continues"], { env: env() });
    expect(resumed.stderr).not.toContain("in use");
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("Noted: cli continues");
    const cliRequest = JSON.stringify(llm.requests.at(-1)!.body);
    expect(cliRequest).toContain("panel session");
    expect(cliRequest).toContain("Noted: panel session");
    expect(userTexts(id)).toEqual(["panel session", "cli continues"]);

    // The panel (still on that session) picks up what the CLI wrote, and continues after it.
    await expect.poll(() => texts(frame, "message-user"), { timeout: 15_000 }).toEqual(["panel session", "cli continues"]);
    await shot("cli-turn-in-panel");
    await sendPrompt(frame, "panel again");
    await waitForAssistantText(frame, "Noted: panel again");
    await waitForState(frame, "done");
    expect(userTexts(id)).toEqual(["panel session", "cli continues", "panel again"]);
    const panelRequest = JSON.stringify(llm.requests.at(-1)!.body);
    expect(panelRequest).toContain("cli continues");
    expect(panelRequest).toContain("Noted: cli continues");
    const log = parseLog(
      readFileSync(join(store(), `${id}.jsonl`), "utf8")
        .split("\n")
        .filter(Boolean),
    ).events;
    expect(log.map((e) => e.seq)).toEqual([...log.keys()]);
  });

  it("a session started with yoke run appears in the panel's history, opens and continues there", async () => {
    const { llm } = vs;
    const shot = vs.screenshots("session-store-cli-to-panel");
    const frame = await vs.openPanel();

    const run = await runCli(["run", "--trust", ...cliModel(), "--cwd", vs.workspace, "--json", "cli session"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const { sessionId, sessionDir } = JSON.parse(run.stdout) as { sessionId: string; sessionDir: string };
    expect(sessionDir).toBe(store());

    await openHistory(frame);
    const item = frame.locator("[data-testid=session-item]", { hasText: "cli session" });
    await item.first().waitFor({ state: "visible", timeout: 15_000 });
    await shot("cli-session-in-history");
    await item.first().click();
    await expect.poll(() => texts(frame, "message-user"), { timeout: 15_000 }).toEqual(["cli session"]);
    expect(await frame.locator("[data-testid=message-assistant]", { hasText: "Noted: cli session" }).count()).toBe(1);

    await sendPrompt(frame, "panel continues");
    await waitForAssistantText(frame, "Noted: panel continues");
    await waitForState(frame, "done");
    expect(userTexts(sessionId)).toEqual(["cli session", "panel continues"]);
    const last = JSON.stringify(llm.requests.at(-1)!.body);
    expect(last).toContain("cli session");
    expect(last).toContain("Noted: cli session");
    await shot("cli-session-continued");
  });

  it("a session a live yoke run is writing opens read-only, names the holder, and continues as a fork", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots("session-store-read-only");
    const frame = await vs.openPanel();
    hangOn = "busy in the cli";
    const before = new Set(readdirSync(store()));
    const holder = startCli(["run", "--trust", ...cliModel(), "--cwd", vs.workspace, "busy in the cli"], { env: env() });
    try {
      await expect.poll(() => llm.requests.some((r) => JSON.stringify(r.body).includes("busy in the cli")), { timeout: 30_000 }).toBe(true);
      const id = readdirSync(store())
        .find((f) => f.endsWith(".jsonl") && !before.has(f))!
        .replace(/\.jsonl$/, "");

      await openHistory(frame);
      const item = frame.locator("[data-testid=session-item]", { hasText: "busy in the cli" }).first();
      await expect.poll(() => item.textContent(), { timeout: 15_000 }).toContain(`in use by yoke run (pid ${holder.pid}`);
      await item.click();
      const banner = frame.locator("[data-testid=readonly-banner]");
      await banner.waitFor({ state: "visible", timeout: 15_000 });
      expect(await banner.textContent()).toContain(`yoke run (pid ${holder.pid}`);
      await shot("read-only");
      const sendsBefore = llm.requests.length;
      await frame.locator("[data-testid=prompt-input]").fill("typed while read-only");
      await frame.locator("[data-testid=prompt-input]").press("Enter");
      await page.waitForTimeout(500);
      expect(llm.requests.length).toBe(sendsBefore);
      expect(userTexts(id)).toEqual(["busy in the cli"]);

      await frame.locator("[data-testid=fork-session]").click();
      await banner.waitFor({ state: "hidden", timeout: 15_000 });
      await frame.locator("[data-testid=prompt-input]").fill("");
      await sendPrompt(frame, "in the fork");
      await waitForAssistantText(frame, "Noted: in the fork");
      await waitForState(frame, "done");
      expect(await texts(frame, "message-user")).toEqual(["busy in the cli", "in the fork"]);
      const fork = readdirSync(store())
        .find((f) => f.endsWith(".jsonl") && !before.has(f) && f !== `${id}.jsonl`)!
        .replace(/\.jsonl$/, "");
      expect(userTexts(fork)).toEqual(["busy in the cli", "in the fork"]);
      expect(userTexts(id)).toEqual(["busy in the cli"]); // the original is only the CLI's
      await shot("fork-continued");
    } finally {
      holder.kill("SIGKILL");
      await holder.result;
    }
  });
});
