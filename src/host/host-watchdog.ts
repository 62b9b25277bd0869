// Starts the event-loop watchdog (watchdog.ts) in the extension host: each stall is logged to the
// Yoke output channel with what ran; the report (longest stall, the last ones) is written to
// watchdog-<pid>.json in the extension's log folder, or in $YOKE_WATCHDOG_DIR when set (the e2e
// fixture sets it, and `npm run bench` reads what the e2e suite left there).
import type * as vscode from "vscode";
import { startProcessWatchdog, stopProcessWatchdog, type Stall } from "../node/watchdog";

export function describeStall(s: Stall): string {
  const ran = s.ran.length ? ` while ${s.ran.join(", ")} ran` : " (no labelled host activity ran: another extension, GC or Yoke code without a label)";
  const active = s.active.filter((a) => !s.ran.includes(a));
  return `event loop stalled ${s.ms} ms${ran}${active.length ? `; in progress: ${active.join(", ")}` : ""}`;
}

export function startHostWatchdog(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): vscode.Disposable {
  const dir = process.env.YOKE_WATCHDOG_DIR || context.logUri?.fsPath;
  startProcessWatchdog({ process: "extension host", ...(dir ? { reportDir: dir } : {}), onStall: (s) => log.warn(describeStall(s)) });
  return { dispose: () => stopProcessWatchdog() };
}
