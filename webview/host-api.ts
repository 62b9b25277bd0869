// The webview's side of the protocol: typed sends, validated receives.
import { parseHostToWebview, type HostToWebview, type WebviewToHost } from "../src/protocol/messages";

interface VsCodeApi {
  postMessage(msg: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export interface HostApi {
  send(msg: WebviewToHost): void;
  onMessage(handler: (msg: HostToWebview) => void): void;
}

export function connectHost(): HostApi {
  const api = acquireVsCodeApi();
  return {
    send: (msg) => api.postMessage(msg),
    onMessage(handler) {
      window.addEventListener("message", (e: MessageEvent) => {
        const parsed = parseHostToWebview(e.data);
        if (!parsed.ok) {
          console.warn(`[yoke] dropped an invalid message from the host: ${parsed.error}`);
          return;
        }
        try {
          handler(parsed.message);
        } catch (err) {
          console.error("[yoke] failed to handle a host message", parsed.message.type, err);
        }
      });
    },
  };
}
