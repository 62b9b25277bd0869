import * as assert from "node:assert/strict";
import * as vscode from "vscode";

export const EXTENSION_ID = "yoke-dev.yoke";

/** The installed Yoke extension, activated. */
export async function activeYoke(): Promise<vscode.Extension<unknown>> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not installed in this VS Code`);
  await ext.activate();
  return ext;
}
