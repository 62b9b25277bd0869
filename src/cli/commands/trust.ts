/**
 * `yoke trust [DIR]`, `yoke trust --list`, `yoke trust --revoke DIR`: the folders whose settings,
 * hooks, MCP servers and verification commands Yoke's command line may run
 * (~/.yoke/trusted-folders.json; see src/cli/trust.ts).
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { parse, printJson, UsageError } from "../args";
import { TrustedFolders } from "../../node/settings/trusted-folders";
import { warn } from "../printable";

const options = {
  list: { type: "boolean" },
  revoke: { type: "string" },
  json: { type: "boolean" },
} as const;

export async function trustCommand(argv: string[], store = new TrustedFolders()): Promise<number> {
  const { values, positionals } = parse(argv, options);
  if (positionals.length > 1) throw new UsageError("one folder at a time: yoke trust [DIR]");
  if (values.list) {
    if (positionals.length || values.revoke !== undefined) throw new UsageError("--list takes no folder");
    const { folders, problem } = store.read();
    if (problem) warn(`yoke trust: ${problem}\n`);
    if (values.json) printJson({ file: store.file, folders });
    else if (folders.length === 0) process.stdout.write(`No trusted folders (${store.file}).\n`);
    else for (const f of folders) process.stdout.write(`${f.path}${f.at ? `  (since ${f.at})` : ""}\n`);
    return problem ? 1 : 0;
  }
  if (values.revoke !== undefined) {
    if (positionals.length) throw new UsageError("--revoke takes the folder: yoke trust --revoke DIR");
    const was = store.revoke(values.revoke);
    if (values.json) printJson({ revoked: was, path: resolve(values.revoke) });
    else process.stdout.write(was ? `No longer trusted: ${resolve(values.revoke)}\n` : `${resolve(values.revoke)} was not trusted (see yoke trust --list).\n`);
    return was ? 0 : 1;
  }
  const dir = resolve(positionals[0] ?? ".");
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`${dir}: no such folder`);
  const path = store.trust(dir);
  if (values.json) printJson({ trusted: path, file: store.file });
  else
    process.stdout.write(
      `Trusted: ${path} and its subfolders. yoke run there may now write files, run commands, and run the folder's hooks, MCP servers (after you approve each) and verification commands.\n`,
    );
  return 0;
}
