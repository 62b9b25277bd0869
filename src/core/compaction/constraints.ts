/**
 * Which of the user's own messages a compaction re-sends verbatim. Users state requirements in
 * passing ("never touch the migrations", "keep it Python 3.8 compatible"), and a summary that
 * loses one is the most-reported failure of compaction in every agent. So the rule errs on the
 * side of keeping:
 *
 * - every message the user typed is kept, except pure acknowledgements and go-aheads ("ok",
 *   "thanks", "continue", "yes please", "looks good") that state nothing;
 * - messages from hooks or extensions (a Stop hook's nudge) are not the user's words: summarised;
 * - only when the kept messages together exceed the budget are messages with no constraint
 *   marker (must, never, always, don't, only, make sure, prefer, avoid, …) left to the summary,
 *   oldest first. A message with a marker is never dropped, and the first message (the task) is
 *   always kept.
 */
import type { EventOf } from "../events";

const ACK =
  /^(?:(?:ok(?:ay)?|k|yes|yep|yeah|sure|no|nope|thanks?(?: you)?|thx|ty|great|good|nice|perfect|cool|done|go(?: on| ahead)?|continue|proceed|carry on|keep going|next|lgtm|looks good(?: to me)?|sounds good|do it|please|yes please|go for it|right|correct|got it|fine)[\s,.!]*)+$/i;

const MARKERS =
  /\b(?:must|mustn't|never|always|don'?t|do not|doesn'?t|shall|should(?:n'?t)?|only|need(?:s)? to|have to|has to|make sure|ensure|required?|requirement|avoid|prefer|instead|without|keep|stick to|limit|at (?:most|least)|exactly|no more than|forbidden|not allowed|allowed|important|remember|constraint|compatible|compatibility|under no circumstances|unless|except|use|stay|leave)\b/i;

export function isAcknowledgement(text: string): boolean {
  return ACK.test(text.trim());
}

export function statesConstraint(text: string): boolean {
  return MARKERS.test(text);
}

/** Typed by the user (not a hook's or an extension's nudge). */
export function fromUser(e: EventOf<"user_message">): boolean {
  return e.from === undefined || e.from === "user";
}

/**
 * The seqs of the user messages to re-send verbatim, in log order. `budgetChars` bounds the
 * total only for messages without a constraint marker.
 */
export function pickUserMessages(messages: readonly EventOf<"user_message">[], budgetChars: number): number[] {
  const mine = messages.filter((m) => fromUser(m) && m.text.trim() !== "");
  const kept = mine.filter((m, i) => i === 0 || !isAcknowledgement(m.text));
  let total = kept.reduce((n, m) => n + m.text.length + (m.context?.length ?? 0), 0);
  const dropped = new Set<number>();
  for (const m of kept.slice(1)) {
    if (total <= budgetChars) break;
    if (statesConstraint(m.text)) continue;
    dropped.add(m.seq);
    total -= m.text.length + (m.context?.length ?? 0);
  }
  return kept.filter((m) => !dropped.has(m.seq)).map((m) => m.seq);
}
