/**
 * The CLI's way to print text Yoke did not write (core/printable.ts): `say` to stdout, `warn` to
 * stderr, every control character shown as a visible escape.
 */
import { printable } from "../core/printable";

export { printable };

/**
 * Writes human-readable output that holds text Yoke did not write (an agent's file names, diffs and
 * messages, a session's title, guidance files' names) to stdout, every control character shown
 * (red team 17-host: an agent's added line `ESC[1A ESC[2K …` erased the line above it in `yoke agents
 * diff`, so the change the user reviewed before merging was not the one merged).
 */
export function say(text: string): void {
  process.stdout.write(printable(text));
}

/**
 * Writes a message to stderr, every control character shown: warnings and problems quote what the
 * repository wrote (a committed settings key with `ESC[2K\r` rewrote the line of the warning before
 * it; an OSC 8 link or a bidi override changed what the user read).
 */
export function warn(text: string): void {
  process.stderr.write(printable(text));
}
