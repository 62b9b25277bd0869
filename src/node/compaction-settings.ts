/**
 * The `compaction` key (contract section 4), through the one settings reader
 * (src/node/settings/reader.ts): the user's files and VS Code settings, then the workspace's,
 * which may only tighten (a lower threshold, "extractive" instead of "llm", never a model).
 */
import { homedir } from "node:os";
import { DEFAULT_COMPACTION, type CompactionSettings } from "../core/compaction/settings";
import { readSettings, type ReadSettingsOptions } from "./settings/reader";
import { problemsOf, type KeyReadOptions } from "./settings/key-options";

export async function readCompactionSettings(cwd: string, opts: string | KeyReadOptions = {}): Promise<{ settings: CompactionSettings; problems: string[] }> {
  const o: ReadSettingsOptions = typeof opts === "string" ? { cwd, home: opts } : { cwd, home: homedir(), ...opts };
  const r = await readSettings(o);
  const c = r.compaction;
  const settings: CompactionSettings = {
    threshold: c.threshold?.value ?? DEFAULT_COMPACTION.threshold,
    strategy: c.strategy?.value ?? DEFAULT_COMPACTION.strategy,
    ...(c.model ? { model: c.model.value } : {}),
  };
  return { settings, problems: problemsOf(r, "compaction") };
}
