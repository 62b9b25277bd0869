// The webview's side of the protocol: typed sends, validated receives.
import { ContextItemView, parseHostToWebview, type HostToWebview, type WebviewToHost } from "../src/protocol/messages";

interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState?(): unknown;
  setState?(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export interface HostApi {
  send(msg: WebviewToHost): void;
  onMessage(handler: (msg: HostToWebview) => void): void;
  /**
   * The chips of the prompt box, kept in the webview's state: VS Code disposes a hidden view's
   * webview (no retainContextWhenHidden), and what the user attached must be there when it is back.
   */
  saveChips?(items: readonly ContextItemView[]): void;
  savedChips?(): ContextItemView[];
}

export function connectHost(): HostApi {
  const api = acquireVsCodeApi();
  return {
    send: (msg) => api.postMessage(msg),
    saveChips: (items) => api.setState?.({ ...stateObject(api.getState?.()), chips: items }),
    savedChips: () => {
      const chips = stateObject(api.getState?.()).chips;
      // Only what the protocol allows: a state written by another version may differ.
      return Array.isArray(chips) ? chips.flatMap((c) => (ContextItemView.safeParse(c).success ? [c as ContextItemView] : [])) : [];
    },
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

function stateObject(state: unknown): Record<string, unknown> {
  return state && typeof state === "object" && !Array.isArray(state) ? (state as Record<string, unknown>) : {};
}
