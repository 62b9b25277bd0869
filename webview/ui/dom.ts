// A tiny element builder: the panel is plain DOM, no framework.

type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | undefined> = {}, children: Child[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

export function setAttrs(node: Element, attrs: Record<string, string | boolean | undefined>): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) node.removeAttribute(k);
    else node.setAttribute(k, v === true ? "" : v);
  }
}

export function append(node: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  }
}

export function icon(name: string, extra = ""): HTMLElement {
  return el("span", { class: `codicon codicon-${name}${extra ? ` ${extra}` : ""}`, "aria-hidden": "true" });
}

export function clear(node: Element): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}
