/** Argument parsing shared by the subcommands (node:util parseArgs, strict). */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { printableJson } from "../core/printable";

/** Bad usage: reported on stderr, exit status 2. */
export class UsageError extends Error {
  // Named, so src/cli/main.ts knows it when the command's own bundle (another copy of this class) threw it.
  override name = "UsageError";
}

export function parse<T extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: T, allowPositionals = true) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

/** Writes one JSON document to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(printableJson(value, 2) + "\n");
}
