/**
 * A Copilot prompt file's `${input:name}` asked in the terminal (stderr), when the message did not
 * give it as `name=value`. Without a terminal there is no asker: the message is refused, saying
 * how to give the value (src/core/custom-commands/extension.ts).
 */
import { createInterface } from "node:readline/promises";
import { printable } from "./printable";
import { terminalStdin } from "./terminal";

export function createTerminalInput(
  input: NodeJS.ReadStream | undefined = terminalStdin(),
  output: NodeJS.WriteStream = process.stderr,
): ((q: { command: string; name: string; placeholder?: string }) => Promise<string | undefined>) | undefined {
  if (!input?.isTTY) return undefined;
  return async (q) => {
    const rl = createInterface({ input, output });
    try {
      const hint = q.placeholder ? ` (${printable(q.placeholder, { keepNewlines: false })})` : "";
      const a = await rl.question(`? /${printable(q.command, { keepNewlines: false })} needs ${printable(q.name, { keepNewlines: false })}${hint}: `);
      return a.trim() === "" ? undefined : a;
    } finally {
      rl.close();
    }
  };
}
