// Markdown -> sanitised HTML for assistant messages (marked + DOMPurify).
import DOMPurify from "dompurify";
import { Marked, type Token, type TokensList } from "marked";
import { escapeTextNodes } from "../ui/dom";

const marked = new Marked({ gfm: true, breaks: false, async: false });

const PURIFY = {
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed"],
  FORBID_ATTR: ["style"],
  ALLOW_DATA_ATTR: false,
};

/**
 * Renders markdown to sanitised HTML; each code block gets a copy button. Control, bidi and
 * invisible characters of the text are drawn as escapes (dom.ts escapeTextNodes), as everywhere in the panel.
 */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text) as string;
  const frag = DOMPurify.sanitize(html, { ...PURIFY, RETURN_DOM_FRAGMENT: true });
  escapeTextNodes(frag);
  const box = document.createElement("div");
  box.append(frag);
  return box.innerHTML.replace(/<pre>/g, '<pre class="code-block"><button class="copy-code codicon codicon-copy" title="Copy" aria-label="Copy code"></button>');
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
  const frag = DOMPurify.sanitize(marked.parser(blocks) as string, { ...PURIFY, RETURN_DOM_FRAGMENT: true });
  escapeTextNodes(frag);
  for (const pre of frag.querySelectorAll("pre")) {
    if (pre.attributes.length) continue;
    pre.className = "code-block";
    const copy = document.createElement("button");
    copy.className = "copy-code codicon codicon-copy";
    copy.title = "Copy";
    copy.setAttribute("aria-label", "Copy code");
    pre.prepend(copy);
  }
  return frag;
}

/** Delegated handler for the copy buttons renderMarkdown adds. */
export function handleCopyClick(e: MouseEvent): void {
  const target = e.target as HTMLElement | null;
  if (!target?.classList.contains("copy-code")) return;
  const code = target.parentElement?.querySelector("code")?.textContent ?? "";
  void navigator.clipboard?.writeText(code);
  e.preventDefault();
}
