// A tiny element builder: the panel is plain DOM, no framework. Every string it puts on the page
// (a text child, a tooltip, an accessible name) is shown honestly: a control, bidi or invisible
// character of it is drawn as its escape (`\u202e`) in a marked span, so repository, model or MCP
// text cannot reorder or hide what the person reads (src/core/printable.ts decides which characters).
import { printable, printableParts } from "../../src/protocol/printable";

type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | undefined> = {}, children: Child[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** Attributes whose value the person reads (a tooltip, what a screen reader says): shown with escapes too. */
const SHOWN_ATTRIBUTES = new Set(["title", "aria-label", "aria-description", "placeholder", "alt"]);

export function setAttrs(node: Element, attrs: Record<string, string | boolean | undefined>): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) node.removeAttribute(k);
    else node.setAttribute(k, v === true ? "" : SHOWN_ATTRIBUTES.has(k) ? printable(v) : v);
  }
}

/** Sets an attribute the person reads (title, aria-label…), with escapes. */
export function setShownAttr(node: Element, name: string, value: string): void {
  const shown = printable(value);
  if (node.getAttribute(name) !== shown) node.setAttribute(name, shown);
}

/**
 * Escapes drawn as marked spans in one text (or one markdown message), at most; the rest of the text is one text node with
 * its escapes written plainly (printable's text: still visible, no longer styled). A span per
 * escape made a megabyte of zero-width spaces (from a model's tool input, an MCP server's text)
 * 500,000 elements: the panel froze for seconds (red team H, session 18: 17 s in Chromium).
 */
export const MAX_ESCAPE_SPANS = 1_000;

/**
 * `text` as nodes: a text node, or — when it holds a control, bidi or invisible character — text
 * nodes with a `span.shown-escape` for each such character, whose text is the escape (`\u202e`).
 */
export function shownText(text: string, budget: { spans: number } = { spans: MAX_ESCAPE_SPANS }): Node {
  const parts = printableParts(text);
  if (parts.length <= 1 && (parts.length === 0 || "text" in parts[0]!)) return document.createTextNode(text.replace(/\r\n/g, "\n"));
  const frag = document.createDocumentFragment();
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if ("text" in p) frag.appendChild(document.createTextNode(p.text));
    else if (budget.spans <= 0) {
      frag.appendChild(
        document.createTextNode(
          parts
            .slice(i)
            .map((q) => ("text" in q ? q.text : q.escape))
            .join(""),
        ),
      );
      break;
    } else {
      budget.spans--;
      const code = `U+${p.codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
      const span = document.createElement("span");
      span.className = "shown-escape";
      span.setAttribute("data-testid", "shown-escape");
      span.setAttribute("title", `${code}: a control, bidi or invisible character, shown as its code`);
      span.textContent = p.escape;
      frag.appendChild(span);
    }
  }
  return frag;
}

/** A run of characters outside printable ASCII (letters of other scripts, look-alikes, RTL letters). */
const NON_ASCII = /[^\x20-\x7e\n\t]+/gu;
const HAS_NON_ASCII = /[^\x20-\x7e\n\t]/u;

/**
 * Text the person approves as code — a command, a path, a rule, a tool's arguments: drawn as
 * shownText draws it, and each run of characters outside printable ASCII in a marked span whose
 * tooltip names its code points. A look-alike letter (Cyrillic `а`, Armenian `ս` in `githսb.com`)
 * is then seen for what it is, and an RTL letter cannot pass unnoticed (the element is also drawn
 * left to right in memory order, `.code-text` in styles.css, so it reorders nothing around it).
 */
export function codeText(text: string, budget: { spans: number } = { spans: MAX_ESCAPE_SPANS }): Node {
  const frag = document.createDocumentFragment();
  const drawn = shownText(text, budget);
  const nodes = drawn.nodeType === Node.DOCUMENT_FRAGMENT_NODE ? [...drawn.childNodes] : [drawn];
  for (const n of nodes) {
    if (n.nodeType !== Node.TEXT_NODE) {
      frag.appendChild(n);
      continue;
    }
    const t = (n as Text).data;
    let at = 0;
    for (const m of t.matchAll(NON_ASCII)) {
      if (budget.spans <= 0) break;
      budget.spans--;
      if (m.index > at) frag.appendChild(document.createTextNode(t.slice(at, m.index)));
      const codes = [...m[0]].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`);
      const span = document.createElement("span");
      span.className = "shown-nonascii";
      span.setAttribute("data-testid", "shown-nonascii");
      span.setAttribute("title", `${codes.slice(0, 16).join(" ")}${codes.length > 16 ? " …" : ""}: not plain ASCII (a letter of another script may look like a Latin one)`);
      span.textContent = m[0];
      frag.appendChild(span);
      at = m.index + m[0].length;
    }
    if (at >= t.length) continue;
    const rest = t.slice(at);
    if (budget.spans > 0 || !HAS_NON_ASCII.test(rest)) {
      frag.appendChild(document.createTextNode(rest));
      continue;
    }
    // The budget is spent and the rest still holds such characters: the whole rest marked as one,
    // so a look-alike after a thousand decoys (`echo é é é …; curl githսb.com`) is not drawn as
    // plain text (red team O, session 19). One element, whatever the length.
    const span = document.createElement("span");
    span.className = "shown-nonascii shown-nonascii-rest";
    span.setAttribute("data-testid", "shown-nonascii");
    span.setAttribute(
      "title",
      `This text holds more characters outside plain ASCII than are marked one by one (${MAX_ESCAPE_SPANS}); all of it from here is marked (a letter of another script may look like a Latin one)`,
    );
    span.textContent = rest;
    frag.appendChild(span);
  }
  return frag;
}

/** An element of code text (codeText), drawn left to right in memory order. */
export function codeEl<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | undefined>, text: string): HTMLElementTagNameMap[K] {
  const node = el(tag, { ...attrs, class: `${attrs.class ? `${String(attrs.class)} ` : ""}code-text`, dir: "ltr" });
  node.appendChild(codeText(text));
  return node;
}

/** Replaces `node`'s content with `text` as shownText draws it (nothing done when it is already shown). */
export function setText(node: Element, text: string): void {
  // What shownText draws reads back as printable(text): the text with its escapes.
  if (node.textContent === printable(text)) return;
  clear(node);
  node.appendChild(shownText(text));
}

/** Text already on the page (sanitised markdown): each text node with such a character redrawn with escapes. */
export function escapeTextNodes(root: Node): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const found: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n as Text;
    if (t.parentElement?.classList.contains("shown-escape")) continue;
    if (printable(t.data) !== t.data) found.push(t);
  }
  // One budget of marked spans for the whole of `root` (a markdown message is many text nodes).
  const budget = { spans: MAX_ESCAPE_SPANS };
  for (const t of found) t.replaceWith(shownText(t.data, budget));
}

export function append(node: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(typeof c === "string" ? shownText(c) : c);
  }
}

export function icon(name: string, extra = ""): HTMLElement {
  return el("span", { class: `codicon codicon-${name}${extra ? ` ${extra}` : ""}`, "aria-hidden": "true" });
}

export function clear(node: Element): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}
