/**
 * The extractive summary: sentences of the compacted turns scored by what they are (a decision,
 * a conclusion, a commitment, a result), as gptme scores its auto-compaction candidates, with
 * later sentences preferred. Anchored: a second compaction adds to the sections of the previous
 * summary instead of summarising the summary, so what the first one kept is never paraphrased
 * away.
 */
import type { SessionEvent } from "../events";

export const SECTIONS = ["Decisions", "Conclusions", "Commitments", "Results"] as const;
export type Section = (typeof SECTIONS)[number];

const CUES: Record<Section, RegExp> = {
  Decisions: /\b(?:decided|decide|decision|chose|choose|chosen|going with|go with|we'?ll use|I'?ll use|will use|instead of|switch(?:ed)? to|opted|settled on|picked|approach is|plan is)\b/i,
  Conclusions:
    /\b(?:because|root cause|the (?:issue|problem|bug|cause|reason) (?:is|was)|turns out|found that|this means|confirmed|caused by|so the|therefore|conclude|apparently|the fix is|is due to)\b/i,
  Commitments: /\b(?:I will|I'?ll|next,? I|next step|todo|to do:|still need|remaining|then I|afterwards|will (?:add|fix|write|update|run|check))\b/i,
  Results:
    /\b(?:passed|passes|passing|failed|fails|failing|fixed|works|working now|done|created|added|updated|removed|renamed|refactored|implemented|succeeded|exit(?:ed)? (?:code )?\d+|\d+ (?:tests?|files?|errors?|warnings?))\b/i,
};
const WEIGHT: Record<Section, number> = { Decisions: 3, Conclusions: 3, Commitments: 2, Results: 2 };
/** Bullets per section kept in the summary (the newest win when a section is full). */
const PER_SECTION = 24;
const MAX_SENTENCE = 320;

export interface SummaryItem {
  section: Section;
  text: string;
  seq: number;
  score: number;
}

function sentences(text: string): string[] {
  return text
    .replace(/```[\s\S]*?```/g, " ")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/^[\s>*#-]+|\s+$/g, "").replace(/\s+/g, " "))
    .filter((s) => s.length >= 12);
}

function classify(s: string): { section: Section; score: number } | undefined {
  let best: { section: Section; score: number } | undefined;
  for (const section of SECTIONS) {
    const hits = s.match(new RegExp(CUES[section].source, "gi"))?.length ?? 0;
    if (!hits) continue;
    const score = WEIGHT[section] * Math.min(hits, 2);
    if (!best || score > best.score) best = { section, score };
  }
  return best;
}

/** Scored items from the events (assistant text and failed tool results; user text is kept verbatim or summarised by the caller). */
export function extractItems(events: readonly SessionEvent[], extraUserSeqs: ReadonlySet<number> = new Set()): SummaryItem[] {
  const items: SummaryItem[] = [];
  const n = Math.max(1, events.length);
  events.forEach((e, i) => {
    const recency = i / n;
    let texts: string[] = [];
    let bonus = 0;
    if (e.type === "assistant_message") texts = sentences(e.text);
    else if (e.type === "user_message" && extraUserSeqs.has(e.seq)) {
      texts = sentences(e.text);
      bonus = 1;
    } else if (e.type === "tool_result" && e.isError)
      texts = sentences(e.output)
        .slice(0, 1)
        .map((t) => `${e.name} failed: ${t}`);
    for (const t of texts) {
      const c = classify(t);
      if (!c) continue;
      const lengthPenalty = t.length > MAX_SENTENCE ? 1 : 0;
      items.push({ section: c.section, text: t.length > MAX_SENTENCE ? t.slice(0, MAX_SENTENCE - 1) + "…" : t, seq: e.seq, score: c.score + bonus + recency - lengthPenalty });
    }
  });
  return items;
}

/** Parses the sections of a summary written by renderSummary (for the anchored update). */
export function parseSummary(summary: string): { goal?: string; items: SummaryItem[] } {
  const items: SummaryItem[] = [];
  let section: Section | "Goal" | undefined;
  const goal: string[] = [];
  for (const line of summary.split("\n")) {
    const h = /^## (.+)$/.exec(line);
    if (h) {
      section = h[1] === "Goal" ? "Goal" : (SECTIONS as readonly string[]).includes(h[1]!) ? (h[1] as Section) : undefined;
      continue;
    }
    if (section === "Goal") {
      if (line.trim()) goal.push(line);
    } else if (section) {
      const b = /^- (.*?)(?: \[#(\d+)\])?$/.exec(line);
      if (b) items.push({ section, text: b[1]!, seq: b[2] ? Number(b[2]) : 0, score: Number.POSITIVE_INFINITY });
    }
  }
  return { goal: goal.length ? goal.join("\n") : undefined, items };
}

/**
 * The summary: the previous one's sections with the new items added. In each section the best
 * new items are chosen by score, then all are listed in log order; a full section drops its
 * oldest bullets first.
 */
export function renderSummary(previous: string | undefined, goal: string | undefined, fresh: readonly SummaryItem[]): string {
  const prev = previous ? parseSummary(previous) : { goal: undefined, items: [] as SummaryItem[] };
  const out: string[] = [];
  const g = prev.goal ?? goal;
  if (g) out.push("## Goal", g, "");
  for (const section of SECTIONS) {
    const old = prev.items.filter((i) => i.section === section);
    const seen = new Set(old.map((i) => i.text));
    const chosen = fresh
      .filter((i) => i.section === section && !seen.has(i.text) && (seen.add(i.text), true))
      .sort((a, b) => b.score - a.score)
      .slice(0, PER_SECTION)
      .sort((a, b) => a.seq - b.seq);
    const all = [...old, ...chosen].slice(-PER_SECTION);
    if (!all.length) continue;
    out.push(`## ${section}`, ...all.map((i) => `- ${i.text}${i.seq ? ` [#${i.seq}]` : ""}`), "");
  }
  return out.join("\n").trim() || "(nothing of note happened in the compacted turns)";
}
