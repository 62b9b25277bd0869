/**
 * The workspace file system through the editor: reads and writes go to the editor only after
 * Yoke's own checks that the checked path still leads there — a symbolic link swapped in at the
 * name or on the way is refused and the editor is never asked to write through it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createNodeWorkspaceFs } from "../../../src/node/node-fs";
import { createClientWorkspaceFs } from "../../../src/node/acp/client-fs";
import { isPathChanged } from "../../../src/core/ports";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "yoke-acp-fs-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  const outside = join(dir, "outside");
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "secret\n");
  writeFileSync(join(ws, "a.txt"), "on disk\n");
  const calls: Array<[string, string]> = [];
  const fs = createClientWorkspaceFs(createNodeWorkspaceFs(ws), {
    read: async (p) => {
      calls.push(["read", p]);
      return "in the editor\n";
    },
    write: async (p, content) => {
      calls.push(["write", p]);
      writeFileSync(p, content);
    },
  });
  return { ws, outside, fs, calls };
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("createClientWorkspaceFs", () => {
  it("reads the editor's text and writes through the editor (new folders made first)", async () => {
    const { ws, fs, calls } = setup();
    expect(text((await fs.readChecked(join(ws, "a.txt"))).data)).toBe("in the editor\n");
    const st = await fs.writeChecked(join(ws, "src/new.ts"), new TextEncoder().encode("x\n"));
    expect(st.type).toBe("file");
    expect(readFileSync(join(ws, "src/new.ts"), "utf8")).toBe("x\n");
    expect(calls).toEqual([
      ["read", join(ws, "a.txt")],
      ["write", join(ws, "src/new.ts")],
    ]);
  });

  it("refuses a symbolic link at the name or on the way, without asking the editor", async () => {
    const { ws, outside, fs, calls } = setup();
    symlinkSync(join(outside, "secret.txt"), join(ws, "link.txt"));
    symlinkSync(outside, join(ws, "linkdir"));
    const write = (p: string) => fs.writeChecked(join(ws, p), new TextEncoder().encode("pwned\n"));
    await expect(write("link.txt")).rejects.toSatisfy(isPathChanged);
    await expect(write("linkdir/secret.txt")).rejects.toSatisfy(isPathChanged);
    // A missing folder under the link is not made outside the workspace either.
    await expect(write("linkdir/sub/new.txt")).rejects.toSatisfy(isPathChanged);
    expect(existsSync(join(outside, "sub"))).toBe(false);
    await expect(fs.readChecked(join(ws, "link.txt"))).rejects.toSatisfy(isPathChanged);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
    expect(calls).toEqual([]);
  });

  it("leaves binary files to Yoke's own file system", async () => {
    const { ws, fs, calls } = setup();
    const bytes = new Uint8Array([0xff, 0xfe, 0x00, 0x81]);
    writeFileSync(join(ws, "b.bin"), bytes);
    expect([...(await fs.readChecked(join(ws, "b.bin"))).data]).toEqual([...bytes]);
    await fs.writeChecked(join(ws, "c.bin"), bytes);
    expect([...readFileSync(join(ws, "c.bin"))]).toEqual([...bytes]);
    expect(calls).toEqual([]);
  });
});
