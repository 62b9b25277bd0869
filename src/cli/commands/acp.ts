/**
 * `yoke acp`: Yoke as an Agent Client Protocol agent over stdio (src/node/acp). An editor starts
 * it and speaks JSON-RPC on its stdin/stdout; each session is built as `yoke run` builds one
 * (the flags below are the run options), in the same session store. stdout carries only the
 * protocol: anything else a part of Yoke would print goes to stderr, the editor's log.
 */
import { resolve } from "node:path";
import { Readable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import type { PermissionMode } from "../../core/loop/types";
import { createAcpAgent } from "../../node/acp/agent";
import { parse, UsageError } from "../args";
import { buildCliSession, cliSessionDir } from "../session-setup";
import { warn as printWarning } from "../printable";

const MODES: readonly PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions"];

const options = {
  provider: { type: "string" },
  "base-url": { type: "string" },
  model: { type: "string" },
  "api-key-env": { type: "string" },
  "permission-mode": { type: "string" },
  "session-dir": { type: "string" },
  "max-turns": { type: "string" },
  "max-cost": { type: "string" },
  "max-time": { type: "string" },
  "fallback-model": { type: "string", multiple: true },
  "no-stream": { type: "boolean" },
  settings: { type: "string", multiple: true },
  trust: { type: "boolean" },
} as const;

/** The protocol's stdout, and process.stdout sent to stderr from now on (a stray print would break the protocol). */
function protocolStdout(): WritableStream<Uint8Array> {
  const write = process.stdout.write.bind(process.stdout) as (chunk: Uint8Array, cb: (err?: Error | null) => void) => boolean;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((ok, fail) => void write(chunk, (err) => (err ? fail(err) : ok()))),
  });
}

export async function acpCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, options, false);
  const mode = values["permission-mode"];
  if (mode !== undefined && !MODES.includes(mode as PermissionMode)) throw new UsageError(`--permission-mode must be one of ${MODES.join(", ")} (got "${mode}")`);
  const maxTurns = values["max-turns"] === undefined ? undefined : Number(values["max-turns"]);
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 1)) throw new UsageError(`--max-turns must be a positive integer (got "${values["max-turns"]}")`);
  const positive = (flag: "max-cost" | "max-time"): number | undefined => {
    const text = values[flag];
    if (text === undefined) return undefined;
    const n = Number(text);
    if (text.trim() === "" || !Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be a positive number (got "${text}")`);
    return n;
  };
  const maxCostUsd = positive("max-cost");
  const maxTimeS = positive("max-time");
  const sessionDir = values["session-dir"] ? resolve(values["session-dir"]) : undefined;
  const warn = (m: string) => printWarning(`yoke acp: ${m}\n`);
  const { app, closeAll } = createAcpAgent({
    version: YOKE_VERSION,
    defaultCwd: process.cwd(),
    warn,
    sessionDir: (cwd) => sessionDir ?? cliSessionDir(cwd),
    build: ({ cwd, additionalDirectories, resumeId, approver, settings, launcher, onMcpHub }) =>
      buildCliSession(
        {
          cwd: resolve(cwd),
          addDirs: additionalDirectories.map((d) => resolve(d)),
          provider: values.provider,
          baseUrl: values["base-url"],
          model: values.model,
          apiKeyEnv: values["api-key-env"],
          permissionMode: mode as PermissionMode | undefined,
          sessionDir,
          maxTurns,
          maxCostUsd,
          maxTimeS,
          fallbackModels: values["fallback-model"],
          stream: values["no-stream"] ? false : undefined,
          settings: [...(values.settings ?? []), ...settings],
          trust: Boolean(values.trust),
          json: false,
          // A loaded session goes on in its own mode and model; --permission-mode is the mode new sessions start in.
          restoreChoices: Boolean(resumeId),
        },
        resumeId,
        { approver, owner: "yoke acp", ...(launcher ? { launcher: () => launcher } : {}), ...(onMcpHub ? { onMcpHub } : {}) },
      ),
  });
  const stream = acp.ndJsonStream(protocolStdout(), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  // The editor closes stdin to stop the agent: the sessions end (their logs complete, commands stopped).
  await connection.closed;
  // Closed by an error rather than by the editor (e.g. a message over the SDK's size limit): said, as the editor shows the agent's stderr.
  const why: unknown = connection.signal.reason;
  const broken = why instanceof Error && /exceeds|too large|parse/i.test(why.message);
  if (broken) process.stderr.write(`yoke acp: the connection closed: ${why.message}\n`);
  await closeAll();
  return broken ? 1 : 0;
}

declare const YOKE_VERSION: string;
