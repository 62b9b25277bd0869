/**
 * Windsurf's limits on its rules, applied as Windsurf applies them (its "Memories & Rules" docs):
 * a rule file is read up to its first 6,000 characters — "any content above 6000 characters will be
 * truncated and Cascade will not be aware of them" — and when the global rules and the workspace
 * rules together pass 12,000 characters, "priority will be given to the global rules, followed by
 * the workspace rules", and what is past 12,000 is cut. That total was written when every Windsurf
 * rule was always on; with triggers, it is read as the rules Windsurf puts in every request — the
 * always-on ones (a glob, model-decision or manual rule is cut to 6,000 only). Windsurf's files only (global_rules.md,
 * `.windsurfrules`, `.windsurf/rules/**`, wherever found); other tools' rules keep Yoke's own budget.
 * What was cut is said on the entry (`cut`, shown by `yoke lessons list` and the Customizations
 * view) and at the cut in the text the model gets; a file with nothing left is not sent (excluded).
 */
import { baseName } from "../paths";
import type { ExcludedFile, GuidanceEntry } from "./types";

export const WINDSURF_FILE_CHARS = 6_000;
export const WINDSURF_TOTAL_CHARS = 12_000;

const GLOBAL_RULES = /\/\.codeium\/windsurf\/memories\/global_rules\.md$/;

/** A rule file Windsurf reads (and limits). */
export function isWindsurfRule(e: GuidanceEntry): boolean {
  return e.kind === "rule" && (GLOBAL_RULES.test(e.path) || baseName(e.path) === ".windsurfrules" || /(^|\/)\.windsurf\/rules\//.test(e.path));
}

/** Characters as Windsurf's docs count them: code points (a character outside the BMP is one, never split). */
const chars = (text: string) => Array.from(text).length;
const take = (text: string, n: number) => Array.from(text).slice(0, n).join("");
const NOTE = "\n[… the rest of this Windsurf rule is not used: ";
const fmt = (n: number) => n.toLocaleString("en-US");

/** The characters of Windsurf rules already in `entries` (what a later rule's share of the total starts from). */
export function windsurfCharsUsed(entries: readonly GuidanceEntry[]): number {
  return entries.filter((e) => isWindsurfRule(e) && e.activation === "always").reduce((sum, e) => sum + chars(e.cut ? e.body.slice(0, e.body.lastIndexOf(NOTE)) : e.body), 0);
}

/**
 * Applies the limits to the Windsurf rules among `entries` (in place: bodies cut, `cut` said), the
 * global rules first, then the others in their order, the always-on ones' total starting at `used`. Returns the
 * entries kept (a Windsurf rule with nothing left is dropped and put in `excluded` with why).
 */
export function applyWindsurfLimits(entries: GuidanceEntry[], excluded: ExcludedFile[], used = 0): GuidanceEntry[] {
  const order = [...entries.filter((e) => isWindsurfRule(e) && GLOBAL_RULES.test(e.path)), ...entries.filter((e) => isWindsurfRule(e) && !GLOBAL_RULES.test(e.path))];
  const dropped = new Set<GuidanceEntry>();
  let total = used;
  for (const e of order) {
    const whole = chars(e.body);
    const notes: string[] = [];
    let body = e.body;
    if (whole > WINDSURF_FILE_CHARS) {
      body = take(body, WINDSURF_FILE_CHARS);
      notes.push(`cut to its first ${fmt(WINDSURF_FILE_CHARS)} of ${fmt(whole)} characters (Windsurf reads no more of a rule file)`);
    }
    const always = e.activation === "always";
    const left = always ? Math.max(0, WINDSURF_TOTAL_CHARS - total) : Infinity;
    if (chars(body) > left) {
      body = take(body, left);
      notes.push(
        left === 0
          ? `not sent: the ${fmt(WINDSURF_TOTAL_CHARS)} characters Windsurf gives its global and workspace rules together are used by the rules before it (global rules first)`
          : `cut to ${fmt(left)} characters: the rest is past the ${fmt(WINDSURF_TOTAL_CHARS)} characters Windsurf gives its global and workspace rules together (global rules first)`,
      );
    }
    if (always) total += chars(body);
    if (!notes.length) continue;
    if (!body.trim()) {
      dropped.add(e);
      excluded.push({ path: e.path, source: e.source, why: `a Windsurf rule with nothing left under Windsurf's limits: ${notes.join("; ")}` });
      continue;
    }
    e.cut = `Windsurf's limits: ${notes.join("; ")}`;
    e.body = `${body.trimEnd()}${NOTE}${notes.join("; ")}]`;
  }
  return dropped.size ? entries.filter((e) => !dropped.has(e)) : entries;
}
