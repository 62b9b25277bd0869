// The streamed message's markdown, drawn block by block: a top-level block that text arriving
// later can no longer change is drawn once and kept; only the last blocks are lexed and drawn
// again as the text grows. A frame's work is then bounded by the size of the last blocks, not of
// the whole message (parsing, sanitising and laying out 20 KB of markdown per chunk is what made
// streaming into a long answer drop frames). The final message is drawn whole by its item view.
import type { Token } from "marked";
import { lexMarkdown, renderMarkdownBlocks } from "./markdown";

/**
 * Top-level blocks kept live. Appended text can change the last block (a paragraph going on, a
 * code fence not closed yet) and the one before it (a list getting another item after a blank
 * line, a line under a paragraph making it a heading); blocks before those are final.
 */
const LIVE_BLOCKS = 2;

export class StreamedMarkdown {
  /** Characters of the text drawn into final blocks. */
  private done = 0;
  /** The nodes of the live blocks (redrawn on each render). */
  private live: ChildNode[] = [];

  constructor(private readonly body: HTMLElement) {}

  /** Draws `text`, the whole message so far (it only grows). */
  render(text: string): void {
    const rest = text.slice(this.done);
    const blocks = lexMarkdown(rest);
    const cut = finalBlocks(blocks);
    let live: Token[] = blocks;
    for (const n of this.live) n.remove();
    if (cut > 0) {
      const final = blocks.slice(0, cut);
      const raw = final.map((b) => b.raw).join("");
      // Only where the blocks are exactly the text's start (the lexer normalises line ends):
      // otherwise everything after the final part is drawn again, which is slower but right.
      if (rest.startsWith(raw)) {
        this.body.append(renderMarkdownBlocks(final));
        this.done += raw.length;
        live = blocks.slice(cut);
      }
    }
    const frag = renderMarkdownBlocks(live);
    this.live = [...frag.childNodes];
    this.body.append(frag);
  }

  /**
   * Whether the body, with `text` drawn, is what drawing `text` whole gives, so the final message
   * can keep it: not when the text defines link references (`[name]: url`), which the blocks drawn
   * before the definition arrived could not know.
   */
  drawsAsWhole(text: string): boolean {
    return !LINK_DEFINITION.test(text);
  }
}

const LINK_DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;

/** How many of the leading blocks are final: all but the last LIVE_BLOCKS that are not blank. */
function finalBlocks(blocks: Token[]): number {
  let kept = 0;
  for (let i = blocks.length - 1; i >= 0; i--) {
    if (blocks[i]!.type === "space") continue;
    if (++kept === LIVE_BLOCKS) return i;
  }
  return 0;
}
