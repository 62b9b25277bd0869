/** What a test leaves behind: its temp folders and its scripted model server. */
import { rmSync } from "node:fs";
import type { ScriptedServer } from "../../src/demo/scripted-llm-server";

/** Removes every folder in `temps` and empties the list. */
export function removeTemps(temps: string[]): void {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
}

/**
 * Closes the test's scripted server (if it started one) and removes its temp folders; resolves to
 * undefined, for `server = await closeServerAndRemoveTemps(server, temps)` in an afterEach.
 */
export async function closeServerAndRemoveTemps(server: ScriptedServer | undefined, temps: string[]): Promise<undefined> {
  await server?.close();
  removeTemps(temps);
  return undefined;
}
