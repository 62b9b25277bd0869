import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isInside, joinPath, normalizePath, relativePath, resolveWorkspacePath } from "../../../src/core/paths";
import { ToolError } from "../../../src/core/tools/types";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

describe("normalizePath", () => {
  it("collapses dots, double slashes and backslashes", () => {
    expect(normalizePath("/a//b/./c/../d/")).toBe("/a/b/d");
    expect(normalizePath("a\\b\\..\\c")).toBe("a/c");
    expect(normalizePath("../../x")).toBe("../../x");
    expect(normalizePath("/../x")).toBe("/x");
    expect(normalizePath("")).toBe(".");
    expect(normalizePath("c:\\Users\\me\\..\\x")).toBe("C:/Users/x");
  });

  it("returns a path that is already normal as it is, and any other as the full walk does (random paths)", () => {
    // The walk normalizePath made of every path before its fast path, kept here as the reference.
    const walk = (p: string): string => {
      const slashed = p.replace(/\\/g, "/");
      let prefix = "";
      let rest = slashed;
      if (/^[A-Za-z]:(\/|$)/.test(slashed)) {
        prefix = slashed.slice(0, 2).toUpperCase() + "/";
        rest = slashed.slice(2);
      } else if (slashed.startsWith("/")) prefix = "/";
      const out: string[] = [];
      for (const seg of rest.split("/")) {
        if (seg === "" || seg === ".") continue;
        if (seg === "..") {
          if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
          else if (!prefix) out.push("..");
          continue;
        }
        out.push(seg);
      }
      const body = out.join("/");
      return prefix ? prefix + body : body === "" ? "." : body;
    };
    const alphabet = ["a", "b", ".", "..", "/", "//", "\\", "c:", "C:", ":", " ", "\n", "é", "x.y"];
    let seed = 19;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 20_000; i++) {
      let p = "";
      const n = Math.floor(next() * 8);
      for (let k = 0; k < n; k++) p += alphabet[Math.floor(next() * alphabet.length)];
      expect(normalizePath(p), JSON.stringify(p)).toBe(walk(p));
    }
    for (const p of ["/", "/a/b", "a", ".a", "...", "a/...", "/w/AGENTS.md", "C:/x", "c:/x", "c:", "C:", "c:x", "./a", "a/.", "a/..", "/.."]) expect(normalizePath(p), p).toBe(walk(p));
  });

  it("tells inside from a sibling with a common prefix", () => {
    expect(isInside("/w/proj", "/w/proj/a")).toBe(true);
    expect(isInside("/w/proj", "/w/proj")).toBe(true);
    expect(isInside("/w/proj", "/w/project/a")).toBe(false);
    expect(isInside("/", "/etc")).toBe(true);
    expect(relativePath("/w/proj", "/w/proj/a/b")).toBe("a/b");
    expect(joinPath("/w", "a", "../b")).toBe("/w/b");
  });
});

describe("resolveWorkspacePath", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = createTempWorkspace({ "src/a.ts": "a\n" });
  });
  afterEach(() => ws.cleanup());

  async function message(p: string): Promise<string> {
    const err = await resolveWorkspacePath(ws.fs, p).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolError);
    return (err as ToolError).message;
  }

  it("accepts relative, ./-prefixed, backslashed and absolute-inside paths", async () => {
    expect(await resolveWorkspacePath(ws.fs, "src/a.ts")).toEqual({ abs: `${ws.root}/src/a.ts`, rel: "src/a.ts" });
    expect((await resolveWorkspacePath(ws.fs, "./src/../src/a.ts")).rel).toBe("src/a.ts");
    expect((await resolveWorkspacePath(ws.fs, "src\\a.ts")).rel).toBe("src/a.ts");
    expect((await resolveWorkspacePath(ws.fs, `${ws.root}/src/a.ts`)).rel).toBe("src/a.ts");
    expect(await resolveWorkspacePath(ws.fs, ".")).toEqual({ abs: ws.root, rel: "." });
    expect((await resolveWorkspacePath(ws.fs, "new/deep/file.ts")).rel).toBe("new/deep/file.ts");
  });

  it("refuses ../ escapes, naming the path, where it resolves and the root", async () => {
    const msg = await message("../x");
    expect(msg).toBe(
      `The path "../x" is outside the workspace (it resolves to ${path.dirname(ws.root)}/x; the workspace root is ${ws.root}). ` +
        'Only files inside the workspace can be used. Use a path relative to the workspace root (for example "src/index.ts"), or an absolute path inside it.',
    );
    expect(await message("src/../../x")).toContain("is outside the workspace");
  });

  it("refuses absolute paths outside the workspace", async () => {
    expect(await message("/etc/passwd")).toContain('The path "/etc/passwd" is outside the workspace (it resolves to /etc/passwd;');
    expect(await message("C:\\Windows\\system.ini")).toContain("is outside the workspace");
  });

  it("refuses ~ and says it is not expanded", async () => {
    expect(await message("~/.ssh/id_rsa")).toContain('starts with "~", which is not expanded here');
    expect(await message("~")).toContain(`The workspace root is ${ws.root}.`);
  });

  it("refuses a symlink inside the workspace that points to /etc", async () => {
    fs.symlinkSync("/etc/hostname", path.join(ws.root, "host"));
    const msg = await message("host");
    expect(msg).toBe(
      `The path "host" is inside the workspace but a symbolic link on the way leads outside it (it resolves to /etc/hostname; ` +
        `the workspace root is ${ws.root}). Files outside the workspace cannot be used; pick a file whose real location is inside the workspace.`,
    );
  });

  it("refuses files below a symlinked folder that points outside, even ones that do not exist yet", async () => {
    const outside = fs.mkdtempSync(path.join(path.dirname(ws.root), "yoke-out-"));
    try {
      fs.symlinkSync(outside, path.join(ws.root, "ext"));
      expect(await message("ext/secret.txt")).toContain(`it resolves to ${fs.realpathSync(outside)}/secret.txt`);
      expect(await message("ext/new/dir/file.txt")).toContain("a symbolic link on the way leads outside it");
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("refuses a dangling symlink, whose target could be outside", async () => {
    fs.symlinkSync("/nonexistent-yoke-target/file", path.join(ws.root, "dangling"));
    expect(await message("dangling")).toBe(
      `The path "dangling" goes through a symbolic link whose target does not exist, so where it leads cannot be checked ` + `(the workspace root is ${ws.root}). Use a path without that link.`,
    );
    expect(await message("dangling/below.txt")).toContain("symbolic link whose target does not exist");
  });

  it("accepts a symlink that stays inside the workspace", async () => {
    fs.symlinkSync(path.join(ws.root, "src"), path.join(ws.root, "alias"));
    expect((await resolveWorkspacePath(ws.fs, "alias/a.ts")).rel).toBe("alias/a.ts");
  });
});
