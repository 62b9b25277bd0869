// MCP OAuth and URL-mode elicitation in a real VS Code (code-server): a remote MCP server that
// needs a sign-in, configured in the workspace (.mcp.json), behind a real authorization server on
// 127.0.0.2 (test/support/mcp-oauth-server.ts: the SDK's mcpAuthRouter and requireBearerAuth; not
// 127.0.0.1, which VS Code's opener port-maps like localhost: a real authorization server is not
// on a port-mapped host). The person sees the sign-in notification, clicks Open; the browser tab
// VS Code opens follows the authorization URL and the redirect back to the web page's callback
// (yoke.mcp.oauthRedirect: auto, which is the URI handler in a web window): the URI handler
// receives the answer — no listener on 127.0.0.1 is involved.
// The tool then answers; a second session signs in no more (the tokens are in VS Code's secret
// storage), and no token is in any file of the workspace, the profile (logs included) or ~/.yoke.
// Then a server asks the person to open a URL (server-everything's URL-mode elicitation): the
// modal shows it, the person declines, the model is told.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { Page } from "playwright-core";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/mcp-oauth-server";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

// The SDK's router takes an http issuer only on localhost/127.0.0.1 unless this is set before it loads.
vi.hoisted(() => {
  process.env.MCP_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL = "1";
});

const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const WHOAMI = "mcp__secure__whoami";
const LINK = "mcp__everything__trigger-url-elicitation";
let auth: OAuthMcpServer | undefined;

function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  if (ex.userText.includes("link")) {
    const step = ex.steps.find((s) => s.name === LINK);
    if (!step)
      return { text: "Asking you to open the page.", toolCalls: [{ name: LINK, input: { url: "https://accounts.example.com/link?code=e2e-one-time", message: "Link your example account." } }] };
    return { text: `The link step said: ${step.output.includes("declined") ? "declined" : step.output}` };
  }
  const step = ex.steps.find((s) => s.name === WHOAMI);
  if (!step) return { text: "Calling the protected tool.", toolCalls: [{ name: WHOAMI, input: {} }] };
  return { text: `The server said: ${step.output}` };
}

/** Every file under `dir` (small ones) whose text contains one of `secrets`. */
function filesWith(dir: string, secrets: string[]): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (n !== "node_modules" && n !== "extensions") walk(p);
      } else if (st.isFile() && st.size < 20_000_000) {
        const text = readFileSync(p).toString("latin1");
        if (secrets.some((s) => text.includes(s))) hits.push(p);
      }
    }
  };
  walk(dir);
  return hits;
}

/** The lines of the profile's log files that contain `text` (from `text` on; one per sign-in answer). */
function logLines(dir: string, text: string): string[] {
  const lines: string[] = [];
  for (const f of filesWith(dir, [text])) for (const l of readFileSync(f, "utf8").split("\n")) if (l.includes(text)) lines.push(l.slice(l.indexOf(text)));
  return lines;
}

async function allowIfAsked(page: Page, frame: Awaited<ReturnType<ReturnType<typeof useYokeVscode>["openPanel"]>>, tool: string): Promise<void> {
  void page;
  const card = frame.locator(`[data-testid=permission-card][data-tool="${tool}"]`);
  await card.waitFor({ timeout: 90_000 });
  await frame.locator("[data-testid=allow-once]").click();
}

describe("MCP OAuth sign-in and URL elicitation in code-server", () => {
  const vs = useYokeVscode({
    name: "mcp-oauth",
    model: { script },
    // No yoke.mcp.oauthRedirect: auto, the URI handler in a web window.
    launch: async () => {
      auth = await startOAuthMcpServer({ host: "127.0.0.2" });
      return { env: { YOKE_E2E_AUTH_URL: auth.url } };
    },
    files: {
      ".mcp.json": JSON.stringify({
        mcpServers: { secure: { type: "http", url: "${YOKE_E2E_AUTH_URL}" }, everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      }),
      ".claude/settings.local.json": JSON.stringify({ enabledMcpjsonServers: ["secure", "everything"] }),
    },
  });

  it("a person signs in from the notification, the tool answers, the token is kept in the secret storage only; a URL question is shown and declined", async () => {
    const shot = vs.screenshots();
    const server = auth!;
    try {
      await vs.openWorkbench();
      const frame = await vs.openPanel();
      await vs.widenSideBar(600);
      await sendPrompt(frame, "who am I on the secure server?");

      // The sign-in notification: the server and where the sign-in page is; nothing opened yet.
      const toast = vs.page.locator(".notification-toast", { hasText: 'the MCP server "secure" needs you to sign in (OAuth)' });
      await toast.waitFor({ timeout: 120_000 });
      expect(await toast.textContent()).toContain(new URL(server.url).host);
      expect(server.events.filter((e) => e.startsWith("authorize"))).toEqual([]);
      await shot("sign-in-notification");
      // Open: VS Code opens the authorization URL in a new browser tab, which follows the redirects back.
      const tab = vs.page.context().waitForEvent("page", { timeout: 30_000 });
      await toast.getByRole("button", { name: "Open" }).click();
      // VS Code's own question for a site outside its trusted domains (every real authorization
      // server the first time): the whole URL, escapes intact; the person opens it.
      const external = vs.page.locator(".monaco-dialog-box", { hasText: "open the external website" });
      await external.waitFor({ timeout: 60_000 });
      expect(await external.textContent()).toContain("redirect_uri=http%3A%2F%2F127.0.0.1");
      await shot("external-website-question");
      await external.getByRole("button", { name: "Open", exact: true }).click();
      const browserTab = await tab;
      await browserTab.waitForLoadState("load", { timeout: 60_000 }).catch(() => undefined);
      const deadline = Date.now() + 90_000;
      while (!server.events.some((e) => e.startsWith("exchange")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      await browserTab.screenshot({ path: join("test-results", "e2e", "mcp-oauth-browser-tab.png") }).catch(() => undefined);
      expect(server.events.filter((e) => !e.startsWith("call"))).toEqual([expect.stringMatching(/^register client-1 /), "authorize client-1", "exchange client-1"]);
      // The client is registered with a batch of the page's callbacks (8, asked at once), so a later
      // sign-in in this page keeps it, and the loopback listener's (a window sharing the store).
      const uris = server.events[0]!.split(" ")[2]!.split(",");
      expect(uris).toHaveLength(9);
      expect(uris.at(-1)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const batch = uris.slice(0, 8);
      expect(batch.every((u) => new URL(u).searchParams.has("vscode-reqid"))).toBe(true);
      const registered = batch[0]!;
      // The redirect URI is the web page's callback for Yoke's URI handler (asExternalUri of
      // code-oss://yoke-dev.yoke/mcp-oauth), and the handler received the answer.
      const cb = new URL(registered);
      expect(cb.pathname).toMatch(/\/callback$/);
      expect(cb.searchParams.get("vscode-authority")).toBe("yoke-dev.yoke");
      expect(cb.searchParams.get("vscode-path")).toBe("/mcp-oauth");
      expect(cb.searchParams.get("vscode-reqid")).toMatch(/^\d+$/);

      await allowIfAsked(vs.page, frame, WHOAMI);
      await waitForAssistantText(frame, "The server said: protected answer for client-1", 120_000);
      await waitForState(frame, "done");
      await shot("tool-answered");

      // A new session: the kept token is used (no notification, no new authorization).
      await frame.locator("[data-testid=new-session]").click();
      await sendPrompt(frame, "who am I again?");
      await allowIfAsked(vs.page, frame, WHOAMI);
      await waitForAssistantText(frame, "The server said: protected answer for client-1", 120_000);
      await waitForState(frame, "done");
      expect(server.events.filter((e) => e.startsWith("authorize"))).toHaveLength(1);
      expect(server.events.filter((e) => e.startsWith("call whoami"))).toHaveLength(2);

      // A second sign-in in the same page (the user revoked Yoke's access): through the page's next
      // callback, which the client was registered with — the registration endpoint is not hit again.
      server.revokeAll();
      await frame.locator("[data-testid=new-session]").click();
      await sendPrompt(frame, "who am I after the revoke?");
      await allowIfAsked(vs.page, frame, WHOAMI);
      const toast2 = vs.page.locator(".notification-toast", { hasText: 'the MCP server "secure" needs you to sign in (OAuth)' });
      await toast2.waitFor({ timeout: 120_000 });
      const tab2 = vs.page.context().waitForEvent("page", { timeout: 30_000 });
      await toast2.getByRole("button", { name: "Open" }).click();
      const external2 = vs.page.locator(".monaco-dialog-box", { hasText: "open the external website" });
      await external2
        .waitFor({ timeout: 15_000 })
        .then(() => external2.getByRole("button", { name: "Open", exact: true }).click())
        .catch(() => undefined);
      const browserTab2 = await tab2;
      await browserTab2.waitForLoadState("load", { timeout: 60_000 }).catch(() => undefined);
      const deadline2 = Date.now() + 90_000;
      while (server.events.filter((e) => e.startsWith("exchange")).length < 2 && Date.now() < deadline2) await new Promise((r) => setTimeout(r, 250));
      expect(server.events.filter((e) => e.startsWith("exchange"))).toEqual(["exchange client-1", "exchange client-1"]);
      expect(server.events.filter((e) => e.startsWith("register"))).toHaveLength(1);
      await waitForAssistantText(frame, "The server said: protected answer for client-1", 120_000);
      await waitForState(frame, "done");
      await shot("second-sign-in-same-client");

      // The token: in VS Code's secret storage (reused above), in no file of the workspace, the profile, its logs or ~/.yoke.
      const tokens = [...server.accessTokens, ...server.refreshTokens];
      expect(tokens.length).toBeGreaterThan(0);
      const where = { workspace: vs.workspace, profile: vs.server.userDataDir, home: vs.server.home };
      const found = Object.fromEntries(Object.entries(where).map(([k, d]) => [k, filesWith(d, tokens)]));
      expect(found).toEqual({ workspace: [], profile: [], home: [] });
      // The URI handler's line in Yoke's log (the code is never logged).
      expect(logLines(vs.server.userDataDir, "MCP sign-in answer through the URI handler")).toEqual([
        "MCP sign-in answer through the URI handler: delivered",
        "MCP sign-in answer through the URI handler: delivered",
      ]);
      // The CLI's token file is not used by VS Code.
      expect(existsSync(join(vs.server.home, ".yoke", "mcp-oauth.json"))).toBe(false);

      // URL-mode elicitation: the modal shows the server, its message and the URL; the person declines.
      await frame.locator("[data-testid=new-session]").click();
      await sendPrompt(frame, "link my account");
      await allowIfAsked(vs.page, frame, LINK);
      const dialog = vs.page.locator(".monaco-dialog-box", { hasText: 'the MCP server "everything" asks you to open a URL' });
      await dialog.waitFor({ timeout: 90_000 });
      const text = await dialog.textContent();
      expect(text).toContain("Link your example account.");
      expect(text).toContain("https://accounts.example.com/link?code=e2e-one-time");
      await shot("url-elicitation-modal");
      const pagesBefore = vs.page.context().pages().length;
      await dialog.getByRole("button", { name: "Decline" }).click();
      await waitForAssistantText(frame, "The link step said: declined", 90_000);
      await waitForState(frame, "done");
      expect(vs.page.context().pages().length).toBe(pagesBefore);
      // What the redirect URI was (for the report): the URI handler's link through asExternalUri, or the loopback listener.
      console.log(`mcp-oauth e2e: the client was registered with redirect URI ${registered}`);
    } finally {
      await server.close();
    }
  });
});
