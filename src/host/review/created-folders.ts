// Folders a new file needed: remembered when the review creates the file, removed with it when
// the user rejects it (only if nothing else was put in them).
import * as vscode from "vscode";

/** The outermost missing folder on the way to `file`, if any. */
export async function firstMissingFolder(file: vscode.Uri): Promise<vscode.Uri | undefined> {
  let missing: vscode.Uri | undefined;
  for (let dir = vscode.Uri.joinPath(file, ".."); dir.path.length > 1; dir = vscode.Uri.joinPath(dir, "..")) {
    if (
      await vscode.workspace.fs.stat(dir).then(
        () => true,
        () => false,
      )
    )
      break;
    missing = dir;
  }
  return missing;
}

/** A folder with nothing but (possibly nested) empty folders in it. */
export async function holdsNoFiles(dir: vscode.Uri): Promise<boolean> {
  const entries = await vscode.workspace.fs.readDirectory(dir).then(undefined, () => undefined);
  if (!entries) return false;
  for (const [name, type] of entries) {
    if (type !== vscode.FileType.Directory || !(await holdsNoFiles(vscode.Uri.joinPath(dir, name)))) return false;
  }
  return true;
}
