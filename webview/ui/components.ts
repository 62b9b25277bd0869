// Our thin wrapper over @vscode/webview-ui-toolkit (archived): the views use only these functions,
// so the toolkit can be swapped for native elements in one place.
import { provideVSCodeDesignSystem, vsCodeBadge, vsCodeButton, vsCodeDivider, vsCodeProgressRing } from "@vscode/webview-ui-toolkit";
import { el, icon, shownText } from "./dom";

let registered = false;

export function registerComponents(): void {
  if (registered) return;
  registered = true;
  provideVSCodeDesignSystem().register(vsCodeButton(), vsCodeBadge(), vsCodeDivider(), vsCodeProgressRing());
}

export interface ButtonOptions {
  label?: string;
  icon?: string;
  testid?: string;
  title?: string;
  appearance?: "primary" | "secondary" | "icon";
  onClick: () => void;
}

export function button(opts: ButtonOptions): HTMLElement {
  const appearance = opts.appearance ?? (opts.label ? "primary" : "icon");
  const b = el("vscode-button" as "div", {
    appearance,
    "data-testid": opts.testid,
    title: opts.title ?? opts.label,
    "aria-label": opts.title ?? opts.label,
  });
  if (opts.icon) {
    const i = icon(opts.icon);
    if (opts.label) i.setAttribute("slot", "start");
    b.appendChild(i);
  }
  if (opts.label) b.appendChild(shownText(opts.label));
  b.addEventListener("click", () => {
    if (!b.hasAttribute("disabled")) opts.onClick();
  });
  return b;
}

export function setDisabled(b: HTMLElement, disabled: boolean): void {
  if (disabled) b.setAttribute("disabled", "");
  else b.removeAttribute("disabled");
}

export function progressRing(): HTMLElement {
  return el("vscode-progress-ring" as "div", { class: "progress-ring" });
}

export function badge(text: string, testid?: string): HTMLElement {
  return el("vscode-badge" as "div", { "data-testid": testid }, [text]);
}

export function divider(): HTMLElement {
  return el("vscode-divider" as "div", { role: "separator" });
}
