/**
 * A `.git` file ("gitdir: PATH") read as git reads it (setup.c read_gitfile_gently): the content
 * must start with exactly `gitdir: `, and the path is the REST OF THE FILE less its trailing `\n`
 * and `\r` — a trailing space or tab, or a second line, is part of the path. A reader that took the
 * first line or trimmed blanks looked at another folder than git does (red team A, session 22: a
 * harmless `…/a` checked while git read `…/a ` with a planted core.fsmonitor).
 * Returns undefined for what git would refuse, and for bytes that are not UTF-8 (the path could
 * not be named back exactly; a caller treats it as naming nothing it can check).
 */
export function parseGitfile(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  if (!text.startsWith("gitdir: ")) return undefined;
  const path = text.slice("gitdir: ".length).replace(/[\r\n]+$/, "");
  return path === "" || path.includes("\0") ? undefined : path;
}
