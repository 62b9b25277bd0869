// A finished background agent's binary files and mode-only changes have no hunks to show in the
// editor's review: each is asked whole (Accept / Reject; a dismissed question rejects it).
import type { PlannedFile } from "../../node/background/merge";
import { notify } from "../shown";

/** What the agent did to one file taken whole, for the question. */
export function wholeFileChange(p: PlannedFile): string {
  if (p.modeOnly) return `made ${p.path} ${p.mode === "100755" ? "executable" : "not executable"} (its content is yours)`;
  if (p.content === null) return `deleted the binary file ${p.path}`;
  const size = `${p.user === null ? "" : `${p.user.length} → `}${p.content.length} bytes${p.mode === "100755" ? ", executable" : ""}`;
  return `${p.user === null ? "added" : "changed"} the binary file ${p.path} (${size})`;
}

/** Asks for each file in turn; the ones accepted, or undefined when the review was stopped meanwhile. */
export async function askWholeFiles(agent: string, whole: readonly PlannedFile[], signal: AbortSignal): Promise<PlannedFile[] | undefined> {
  const taken: PlannedFile[] = [];
  for (const p of whole) {
    if (signal.aborted) return undefined;
    const answer = await notify("info", `Yoke: background agent ${agent} ${wholeFileChange(p)}. Take this whole file?`, "Accept", "Reject");
    if (answer === "Accept") taken.push(p);
  }
  return taken;
}
