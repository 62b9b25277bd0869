// Verification after an apply_patch call (real files in a temp workspace, the real tool): the files
// the patch wrote are checked, a deleted one is not. A fake diagnostics port stands in for a language
// server: every line that contains "ERR" is an error.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentSession } from "../../../src/core/loop/agent-session";
import { silentLogger, type Searcher } from "../../../src/core/ports";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { verificationExtension } from "../../../src/core/verification/extension";
import { parseVerificationSettings } from "../../../src/core/verification/settings";
import type { Diagnostic, DiagnosticsService } from "../../../src/core/verification/types";
import { createNodeWorkspaceFs } from "../../../src/node/node-fs";
import { createFakeProvider, textTurn, toolTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe("verification after apply_patch", () => {
  it("checks the files the patch updated, moved and added (not the deleted one) and tells the model what it introduced", async () => {
    const root = mkdtempSync(join(tmpdir(), "yoke-verif-patch-"));
    temps.push(root);
    writeFileSync(join(root, "a.ts"), "ok\n");
    writeFileSync(join(root, "d.ts"), "gone\n");
    const calls: string[][] = [];
    const read = async (paths: readonly string[]) => {
      const out: Diagnostic[] = [];
      for (const path of paths) {
        const text = await readFile(path, "utf8").catch(() => "");
        text.split("\n").forEach((line, i) => line.includes("ERR") && out.push({ path, line: i + 1, severity: "error", message: `bad: ${line.trim()}` }));
      }
      return out;
    };
    const port: DiagnosticsService = {
      source: "language server",
      current: async (p) => (calls.push(p.map((x) => x.split("/").pop()!)), read(p)),
      collect: async (p) => (calls.push(p.map((x) => x.split("/").pop()!)), read(p)),
    };
    const patch = "*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n-ok\n+ERR moved\n*** Add File: c.ts\n+fine\n*** Delete File: d.ts\n*** End Patch\n";
    const provider = createFakeProvider([toolTurn({ id: "p1", name: "apply_patch", input: { input: patch } }), textTurn("Done.")]);
    const s = await AgentSession.create({
      store: createMemoryStore(),
      provider,
      tools: createBuiltinTools("apply_patch"),
      services: { fs: createNodeWorkspaceFs(root), search: {} as Searcher, log: silentLogger, diagnostics: port },
      approver: { ask: async () => ({ decision: "allow" }) },
      permissionMode: "bypassPermissions",
      retry: { maxRetries: 0 },
      extensions: [verificationExtension({ settings: () => parseVerificationSettings([]) })],
    });
    await s.send("patch");
    expect(existsSync(join(root, "d.ts"))).toBe(false);
    // Before: the files that exist (a.ts, d.ts); after: the ones the patch left (b.ts, c.ts).
    expect(calls).toEqual([
      ["a.ts", "d.ts"],
      ["b.ts", "c.ts"],
    ]);
    const told = provider.requests[1]!.messages.at(-1) as { text: string };
    expect(told.text).toContain("- b.ts:1");
    expect(told.text).toContain("bad: ERR moved");
  });
});
