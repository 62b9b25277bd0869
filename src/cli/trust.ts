/**
 * The command line's workspace trust (VS Code's workspace trust, for `yoke run` and `resume`): a
 * folder is trusted when `--trust` is given (this run only, for CI) or `yoke trust DIR` stored it.
 * Otherwise, on a terminal, Yoke asks once and remembers a yes; without one it runs in Restricted
 * Mode (it reads and answers; no writes, commands, project hooks, project MCP servers or project
 * verification commands) and says so on stderr and to the model.
 */
import { createInterface } from "node:readline/promises";
import { shellQuote } from "../core/commands/shell-quote";
import { TrustedFolders } from "../node/settings/trusted-folders";

export interface TrustDecision {
  trusted: boolean;
  /** For the model and the user when not trusted: how to trust the folder. */
  hint: string;
}

export interface TrustOptions {
  /** The workspace folders (the first is --cwd, then --add-dir). */
  folders: string[];
  /** --trust: trusted for this run, not remembered. */
  flag: boolean;
  store?: TrustedFolders;
  input?: NodeJS.ReadStream;
  output?: NodeJS.WriteStream;
  /** Ask on a terminal (run and resume); false for commands that neither ask nor say so (yoke compact). */
  ask?: boolean;
}

export function trustHint(folder: string): string {
  return `the user can trust this folder with \`yoke trust ${shellQuote(folder)}\`, or run Yoke with --trust`;
}

export async function decideTrust(o: TrustOptions): Promise<TrustDecision> {
  const first = o.folders[0]!;
  const hint = trustHint(first);
  if (o.flag) return { trusted: true, hint };
  const store = o.store ?? new TrustedFolders();
  const { problem } = store.read();
  const output = o.output ?? process.stderr;
  if (problem) output.write(`yoke: ${problem}\n`);
  const untrusted = o.folders.filter((f) => !store.isTrusted(f));
  if (untrusted.length === 0) return { trusted: true, hint };
  const input = o.input ?? process.stdin;
  if (o.ask !== false && input.isTTY && output.isTTY) {
    for (const dir of untrusted) {
      const rl = createInterface({ input, output });
      let answer: string;
      try {
        answer = await rl.question(`Trust the files in ${dir}? Its settings, hooks, MCP servers and verification commands could run code. [y/N] `);
      } finally {
        rl.close();
      }
      if (!/^y(es)?$/i.test(answer.trim())) {
        restrictedNotice(output, untrusted, "you did not trust it");
        return { trusted: false, hint };
      }
      output.write(`yoke: trusted ${store.trust(dir)} (stored in ${store.file}; \`yoke trust --revoke ${shellQuote(dir)}\` undoes it)\n`);
    }
    return { trusted: true, hint };
  }
  if (o.ask !== false) restrictedNotice(output, untrusted, "there is no terminal to ask");
  return { trusted: false, hint };
}

function restrictedNotice(output: NodeJS.WritableStream, folders: string[], why: string): void {
  const list = folders.join(", ");
  output.write(
    `yoke: ${list} ${folders.length === 1 ? "is" : "are"} not a trusted folder (${why}), so this session runs in Restricted Mode: ` +
      `Yoke reads files and answers, but does not write files, run commands, run the folder's hooks, start its MCP servers or run its verification commands. ` +
      `Trust it with \`yoke trust ${shellQuote(folders[0]!)}\` (remembered), or pass --trust for this run (CI).\n`,
  );
}
