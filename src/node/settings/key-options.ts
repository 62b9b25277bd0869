/** What the per-key readers (compaction, sub-agents, verification…) pass on to the one settings reader. */
import type { ReadSettings, ReadSettingsOptions } from "./reader";

export type KeyReadOptions = Omit<ReadSettingsOptions, "cwd">;

/** The problems of one key (`compaction`, also as `yoke.compaction`), one line each with the file. */
export function problemsOf(r: Pick<ReadSettings, "problems">, key: string): string[] {
  const mine = (k: string | undefined) => k !== undefined && (k === key || k.startsWith(`${key}.`) || k === `yoke.${key}` || k.startsWith(`yoke.${key}.`));
  return r.problems.filter((p) => mine(p.key)).map((p) => `${p.file}: ${p.message}`);
}

/** The first problem of an invalid key, for callers that refuse to start without it (a mistyped budget must not mean no budget). */
export function invalidKey(r: Pick<ReadSettings, "problems" | "invalid">, key: string): string | undefined {
  if (!r.invalid.has(key)) return undefined;
  const p = r.problems.find((x) => x.invalid && problemsOf({ problems: [x] }, key).length);
  return p && `${p.file}: ${p.message.replace(/; (it is ignored|the default .* applies)$/, "")}`;
}
