/** Project instructions for the system prompt (AGENTS.md, CLAUDE.md), read through the workspace fs. */
import type { WorkspaceFs } from "../ports";

const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"];
const MAX_INSTRUCTIONS = 20_000;

/** AGENTS.md and CLAUDE.md at the root of each workspace folder (named `folder/AGENTS.md` in a multi-root workspace). */
export async function readInstructions(fs: WorkspaceFs): Promise<Array<{ source: string; text: string }>> {
  const out: Array<{ source: string; text: string }> = [];
  const multi = (fs.folders?.length ?? 0) > 1;
  for (const folder of multi ? fs.folders! : [{ name: "", root: fs.root }]) {
    for (const name of INSTRUCTION_FILES) {
      try {
        const path = `${folder.root}/${name}`;
        if ((await fs.stat(path))?.type !== "file") continue;
        const text = new TextDecoder().decode(await fs.readFile(path));
        out.push({ source: multi ? `${folder.name}/${name}` : name, text: text.length > MAX_INSTRUCTIONS ? `${text.slice(0, MAX_INSTRUCTIONS)}\n[truncated]` : text });
      } catch {
        // unreadable: skip
      }
    }
  }
  return out;
}
