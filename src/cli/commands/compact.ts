/**
 * `yoke compact SESSION [--dry-run] [--json] [--cwd DIR] [--session-dir DIR] [--trust]` (contract section 3):
 * compacts a session's context now. Appends a compaction event (never rewrites the log) and
 * prints the tokens before and after; --dry-run prints what it would do and appends nothing.
 * Exit 1 when a guard or a PreCompact hook refused it, or the session is in use elsewhere. The
 * folder's own hooks (PreCompact, PostCompact, SessionStart) run only when it is trusted
 * (`yoke trust DIR`, or --trust for this run); it never asks.
 */
import { resolve } from "node:path";
import { AgentSession } from "../../core/loop/agent-session";
import { parse, printJson, UsageError } from "../args";
import { buildCliSession } from "../session-setup";
import { warn } from "../printable";

export async function compactCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { "dry-run": { type: "boolean" }, json: { type: "boolean" }, cwd: { type: "string" }, "session-dir": { type: "string" }, trust: { type: "boolean" } });
  const [id, ...extra] = positionals;
  if (!id) throw new UsageError("a session id is required: yoke compact SESSION (see `yoke sessions`)");
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}": yoke compact SESSION [--dry-run] [--json]`);
  const cwd = resolve(values.cwd ?? ".");
  const { options, store } = await buildCliSession({ cwd, sessionDir: values["session-dir"], json: Boolean(values.json), offline: true, trust: Boolean(values.trust) }, id);
  try {
    const session = await AgentSession.resume(id, options);
    const out = await session.compact({ dryRun: values["dry-run"] });
    await session.end("other");
    if (out.status === "compacted") {
      const e = out.event;
      if (values.json) {
        printJson({
          sessionId: id,
          compacted: !out.dryRun,
          dryRun: Boolean(out.dryRun),
          tokensBefore: e.tokensBefore,
          tokensAfter: e.tokensAfter,
          firstKeptSeq: e.firstKeptSeq,
          keptUserMessages: e.keptUserSeqs.length,
          persistedContext: e.persistedSeqs.length,
          stubs: e.stubs.length,
          phases: e.phases,
        });
      } else {
        process.stdout.write(`${e.tokensBefore} -> ${e.tokensAfter} tokens${out.dryRun ? " (dry run: nothing appended)" : ""}\n`);
        for (const p of e.phases) warn(`  ${p.name}: ${p.savedTokens} tokens saved — ${p.detail}\n`);
      }
      return 0;
    }
    const reason = out.status === "not_needed" ? "nothing to compact" : out.reason;
    if (values.json) printJson({ sessionId: id, compacted: false, dryRun: Boolean(values["dry-run"]), status: out.status, reason });
    else warn(`yoke compact: not compacted: ${reason}\n`);
    return 1;
  } finally {
    store.dispose();
  }
}
