// Markdown -> sanitised HTML for assistant messages (marked + DOMPurify).
import DOMPurify from "dompurify";
import { Marked } from "marked";

const marked = new Marked({ gfm: true, breaks: false, async: false });

const PURIFY = {
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed"],
  FORBID_ATTR: ["style"],
  ALLOW_DATA_ATTR: false,
};

/** Renders markdown to sanitised HTML; each code block gets a copy button. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text) as string;
  const clean = DOMPurify.sanitize(html, PURIFY) as string;
  return clean.replace(/<pre>/g, '<pre class="code-block"><button class="copy-code codicon codicon-copy" title="Copy" aria-label="Copy code"></button>');
}

/** Delegated handler for the copy buttons renderMarkdown adds. */
export function handleCopyClick(e: MouseEvent): void {
  const target = e.target as HTMLElement | null;
  if (!target?.classList.contains("copy-code")) return;
  const code = target.parentElement?.querySelector("code")?.textContent ?? "";
  void navigator.clipboard?.writeText(code);
  e.preventDefault();
}
