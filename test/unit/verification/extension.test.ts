// The verification extension on a real agent session (real files in a temp workspace, the real
// write_file tool), with a fake diagnostics port standing in for a language server: every line
// that contains "ERR" is an error. Only problems the agent's edits introduced reach the model.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../../src/core/events";
import { AgentSession } from "../../../src/core/loop/agent-session";
import { silentLogger, type ChangeReviewer, type Searcher } from "../../../src/core/ports";
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

function fakeLanguageServer() {
  const calls: Array<{ op: "current" | "collect"; paths: readonly string[] }> = [];
  const read = async (paths: readonly string[]): Promise<Diagnostic[]> => {
    const out: Diagnostic[] = [];
    for (const path of paths) {
      const text = await readFile(path, "utf8").catch(() => "");
      text.split("\n").forEach((line, i) => {
        if (line.includes("ERR")) out.push({ path, line: i + 1, column: line.indexOf("ERR") + 1, severity: "error", message: `bad: ${line.trim()}`, source: "fake", code: "F1" });
        if (line.includes("HINT")) out.push({ path, line: i + 1, severity: "hint", message: "a hint" });
      });
    }
    return out;
  };
  const port: DiagnosticsService = {
    source: "language server",
    current: async (paths) => (calls.push({ op: "current", paths }), read(paths)),
    collect: async (paths) => (calls.push({ op: "collect", paths }), read(paths)),
  };
  return { port, calls };
}

async function session(files: Record<string, string>, turns: Parameters<typeof createFakeProvider>[0], extra: { reviewer?: ChangeReviewer } = {}) {
  const root = mkdtempSync(join(tmpdir(), "yoke-verif-unit-"));
  temps.push(root);
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(root, rel), text);
  const lsp = fakeLanguageServer();
  const provider = createFakeProvider(turns);
  const s = await AgentSession.create({
    store: createMemoryStore(),
    provider,
    tools: createBuiltinTools(),
    services: { fs: createNodeWorkspaceFs(root), search: {} as Searcher, log: silentLogger, diagnostics: lsp.port, ...extra },
    approver: { ask: async () => ({ decision: "allow" }) },
    permissionMode: "bypassPermissions",
    retry: { maxRetries: 0 },
    extensions: [verificationExtension({ settings: () => parseVerificationSettings([]) })],
  });
  return { s, provider, lsp, root };
}

const lastText = (req: { messages: unknown[] }) => JSON.stringify(req.messages.at(-1));
const verifications = (s: AgentSession) => s.events().filter((e): e is Extract<SessionEvent, { type: "verification" }> => e.type === "verification");

describe("diagnostics after the agent's edits", () => {
  it("reports only the problems the edit introduced, not the ones that were there (even when moved)", async () => {
    const { s, provider, lsp, root } = await session({ "a.ts": "ERR old\nfine\n" }, [
      toolTurn({ id: "r1", name: "read_file", input: { path: "a.ts" } }),
      toolTurn({ id: "w1", name: "write_file", input: { path: "a.ts", content: "header\nERR old\nfine\nERR new\nHINT\n" } }),
      textTurn("Done."),
    ]);
    await s.send("edit a.ts");
    expect(provider.requests).toHaveLength(3);
    const told = provider.requests[2]!.messages.at(-1) as { role: string; text: string };
    expect(told.role).toBe("user");
    const content = told.text;
    expect(content).toContain(
      [
        "Your last edits introduced 1 error in the files you changed (reported by the language server; problems that were there before your edits are left out):",
        "- a.ts:4:1 error (fake F1): bad: ERR new",
        "Fix them before you finish, or say why they are expected.",
      ].join("\n"),
    );
    expect(content).not.toContain("ERR old");
    expect(content).not.toContain("hint");
    // Baseline before the edit, collected after it, for the changed file only.
    expect(lsp.calls.map((c) => [c.op, c.paths])).toEqual([
      ["current", [join(root, "a.ts")]],
      ["collect", [join(root, "a.ts")]],
    ]);
    expect(verifications(s)).toMatchObject([{ kind: "diagnostics", status: "failed", source: "language server", files: ["a.ts"], problems: 1 }]);
  });

  it("says nothing to the model when the edit adds no problem, and records that the files were checked", async () => {
    const { s, provider } = await session({}, [toolTurn({ id: "w1", name: "write_file", input: { path: "new.ts", content: "all good\n" } }), textTurn("Done.")]);
    await s.send("create new.ts");
    expect(lastText(provider.requests[1]!)).not.toContain("introduced");
    expect(verifications(s)).toMatchObject([{ kind: "diagnostics", status: "passed", files: ["new.ts"], problems: 0 }]);
  });

  it("a second copy of an existing problem is new", async () => {
    const { s, provider } = await session({ "a.ts": "ERR same\n" }, [
      toolTurn({ id: "r1", name: "read_file", input: { path: "a.ts" } }),
      toolTurn({ id: "w1", name: "write_file", input: { path: "a.ts", content: "ERR same\nERR same\n" } }),
      textTurn("Done."),
    ]);
    await s.send("edit");
    expect(lastText(provider.requests[2]!)).toContain("introduced 1 error");
  });

  it("a change the user rejected in review is not checked; an accepted one is", async () => {
    const decisions = ["rejected", "accepted"] as const;
    let n = 0;
    const reviewer: ChangeReviewer = {
      review: async (change) => {
        const status = decisions[n++]!;
        if (status === "accepted") writeFileSync(change.path, change.after);
        return { status, finalContent: status === "accepted" ? change.after : change.before };
      },
    };
    const { s, provider, lsp } = await session(
      {},
      [
        toolTurn({ id: "w1", name: "write_file", input: { path: "x.ts", content: "ERR one\n" } }),
        toolTurn({ id: "w2", name: "write_file", input: { path: "y.ts", content: "ERR two\n" } }),
        textTurn("Done."),
      ],
      {
        reviewer,
      },
    );
    await s.send("write two files");
    expect(lsp.calls.filter((c) => c.op === "collect").map((c) => c.paths.map((p) => p.split("/").pop()))).toEqual([["y.ts"]]);
    expect(lastText(provider.requests[2]!)).toContain("y.ts:1:1 error (fake F1): bad: ERR two");
    expect(JSON.stringify(provider.requests[2]!.messages)).not.toContain("ERR one\\n-");
  });
});
