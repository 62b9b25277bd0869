// Markdown -> sanitised HTML for assistant messages (marked + DOMPurify).
import DOMPurify from "dompurify";
import { Marked, type Token, type TokensList } from "marked";
import { escapeTextNodes } from "../ui/dom";

const marked = new Marked({ gfm: true, breaks: false, async: false });

const PURIFY = {
  // `bdo` and `dir` reorder text as a bidi control does (the panel draws text in memory order).
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed", "bdo"],
  // No `id`/`name` (the panel's own elements), no `hidden` (text the person cannot see).
  FORBID_ATTR: ["style", "id", "name", "hidden", "dir"],
  ALLOW_DATA_ATTR: false,
};

/**
 * The model's HTML takes none of the panel's classes: with them it drew its text as the panel's
 * chrome (a permission card), made its own Copy button (`copy-code`), or switched off the marking
 * of bidi and control characters (`shown-escape`). Only marked's `language-*` on `<code>` stays.
 * (Red team B, session 23.)
 */
DOMPurify.addHook("uponSanitizeAttribute", (node, data) => {
  if (data.attrName !== "class") return;
  const kept = node.nodeName === "CODE" ? data.attrValue.split(/\s+/).filter((c) => /^language-[\w+#.-]+$/.test(c)) : [];
  if (kept.length) data.attrValue = kept.join(" ");
  else data.keepAttr = false;
});

/**
 * A block gets the panel's Copy button only when what it copies is what the person sees: a `<pre>`
 * holding one `<code>` of plain text, as a markdown code fence draws it. A raw HTML `<pre>` with a
 * hidden part (a closed `<details>`, a second `<code>`) gets none: its Copy copied the hidden
 * command, which the person then pasted into a terminal.
 */
function copyable(pre: Element): boolean {
  if (pre.attributes.length || pre.childNodes.length !== 1) return false;
  const code = pre.firstChild;
  if (!(code instanceof Element) || code.nodeName !== "CODE") return false;
  if ([...code.attributes].some((a) => a.name !== "class")) return false;
  return [...code.childNodes].every((n) => n.nodeType === Node.TEXT_NODE);
}

/** Sanitised markdown with the panel's Copy buttons, as a fragment. */
function sanitise(html: string): DocumentFragment {
  const frag = DOMPurify.sanitize(html, { ...PURIFY, RETURN_DOM_FRAGMENT: true });
  const blocks = [...frag.querySelectorAll("pre")].filter(copyable);
  escapeTextNodes(frag);
  for (const pre of blocks) {
    pre.className = "code-block";
    const copy = document.createElement("button");
    copy.className = "copy-code codicon codicon-copy";
    copy.title = "Copy";
    copy.setAttribute("aria-label", "Copy code");
    pre.prepend(copy);
  }
  return frag;
}

/**
 * Renders markdown to sanitised HTML; each code block gets a copy button. Control, bidi and
 * invisible characters of the text are drawn as escapes (dom.ts escapeTextNodes), as everywhere in the panel.
 */
export function renderMarkdown(text: string): string {
  const box = document.createElement("div");
  box.append(sanitise(marked.parse(text) as string));
  return box.innerHTML;
}

/** Markdown's top-level blocks, as the renderer sees them (for drawing a streamed message block by block). */
export function lexMarkdown(text: string): TokensList {
  return marked.lexer(text);
}

/**
 * Sanitised nodes for some top-level blocks of one lexMarkdown result, drawn as renderMarkdown
 * draws them (code blocks with their copy button). DOMPurify hands back its DOM, so the HTML is
 * not serialised and parsed again.
 */
export function renderMarkdownBlocks(blocks: Token[]): DocumentFragment {
  return sanitise(marked.parser(blocks) as string);
}

/** Delegated handler for the copy buttons renderMarkdown adds. */
export function handleCopyClick(e: MouseEvent): void {
  const target = e.target as HTMLElement | null;
  if (!target?.classList.contains("copy-code") || target.nodeName !== "BUTTON" || !target.parentElement?.classList.contains("code-block")) return;
  const code = target.parentElement.querySelector(":scope > code")?.textContent ?? "";
  void navigator.clipboard?.writeText(code);
  e.preventDefault();
}
