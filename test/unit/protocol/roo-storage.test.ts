// The panel finds Roo Code's global modes where the running VS Code keeps them: Roo's global storage
// folder beside Yoke's own (ExtensionContext.globalStorageUri — a --user-data-dir, a profile, a
// remote's user data), and Roo's roo-cline.customStoragePath from the user's own settings only.
import { describe, expect, it, vi } from "vitest";

vi.mock("vscode", async () => (await import("./fake-vscode")).createFakeVscode());
const vscode = (await import("vscode")) as unknown as { Uri: { file(p: string): unknown; parse(s: string): unknown }; __state: { config: Map<string, unknown> } };
const { rooStorageOf } = await import("../../../src/host/settings");

describe("rooStorageOf", () => {
  it("is Roo's folder beside Yoke's global storage, with the user's custom storage path", () => {
    const uri = vscode.Uri.file("/data/udd/User/globalStorage/yoke.yoke") as Parameters<typeof rooStorageOf>[0];
    vscode.__state.config.clear();
    expect(rooStorageOf(uri)).toEqual({ rooStorage: { globalStorage: "/data/udd/User/globalStorage/rooveterinaryinc.roo-cline" } });
    vscode.__state.config.set("roo-cline.customStoragePath", "/data/roo");
    expect(rooStorageOf(uri)).toEqual({ rooStorage: { globalStorage: "/data/udd/User/globalStorage/rooveterinaryinc.roo-cline", customStoragePath: "/data/roo" } });
    vscode.__state.config.set("roo-cline.customStoragePath", "  ");
    expect(rooStorageOf(uri)?.rooStorage.customStoragePath).toBeUndefined();
    // No file-system storage (a web host): nothing to look at, the usual places are not guessed for it.
    expect(rooStorageOf(undefined)).toBeUndefined();
  });
});
