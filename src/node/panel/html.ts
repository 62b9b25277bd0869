// The webview's HTML: strict CSP, a fresh nonce per render, only dist/ and media/ reachable.
import { randomBytes } from "node:crypto";

export interface PanelHtmlInput {
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  codiconUri: string;
  nonce?: string;
}

export function createNonce(): string {
  return randomBytes(16).toString("base64").replace(/[+/=]/g, "");
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return ["default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src ${cspSource} 'nonce-${nonce}'`, `font-src ${cspSource}`, `img-src ${cspSource} data:`].join("; ");
}

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

export function renderPanelHtml(input: PanelHtmlInput): string {
  const nonce = input.nonce ?? createNonce();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(input.cspSource, nonce))}">
<meta property="csp-nonce" content="${nonce}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" href="${escapeAttr(input.codiconUri)}">
<link rel="stylesheet" nonce="${nonce}" href="${escapeAttr(input.styleUri)}">
<title>Yoke</title>
</head>
<body>
<div id="yoke-root" data-nonce="${nonce}"></div>
<script nonce="${nonce}" src="${escapeAttr(input.scriptUri)}"></script>
</body>
</html>`;
}
