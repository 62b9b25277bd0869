import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, renderPanelHtml } from "../../../src/node/panel/html";

const input = {
  cspSource: "https://file+.vscode-resource.vscode-cdn.net",
  scriptUri: "https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.js",
  styleUri: "https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.css",
  codiconUri: "https://file+.vscode-resource.vscode-cdn.net/ext/dist/codicon.css",
};

describe("panel HTML", () => {
  it("allows only nonce'd scripts and styles from the extension", () => {
    const csp = contentSecurityPolicy(input.cspSource, "abc");
    expect(csp).toBe(`default-src 'none'; script-src 'nonce-abc'; style-src ${input.cspSource} 'nonce-abc'; font-src ${input.cspSource}; img-src ${input.cspSource} data:`);
    expect(csp).not.toContain("unsafe");
  });

  it("uses a fresh nonce on every render and puts it on the script", () => {
    const a = renderPanelHtml(input);
    const b = renderPanelHtml(input);
    const nonceOf = (html: string) => /<script nonce="([^"]+)"/.exec(html)?.[1];
    expect(nonceOf(a)).toMatch(/^[A-Za-z0-9]{16,}$/);
    expect(nonceOf(a)).not.toBe(nonceOf(b));
    expect(a).toContain(`script-src 'nonce-${nonceOf(a)}'`);
    expect(a).toContain('<div id="yoke-root"');
  });
});
