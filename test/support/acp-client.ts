/**
 * An ACP client for tests: the SDK's own client app (@agentclientprotocol/sdk, not ours) over
 * the stdio of the built `yoke acp`, collecting every session/update and answering the agent's
 * requests (permission questions, file reads and writes) with the test's handlers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { cliPath } from "./cli";
import type { TestTerminalHost } from "./acp-terminal";

export interface AcpTestClient {
  child: ChildProcess;
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  stderr(): string;
  /** Closes stdin and waits for the agent to exit. */
  close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface AcpClientHandlers {
  /** `signal`: aborted when the agent withdraws the question ($/cancel_request). */
  permission?: (req: acp.RequestPermissionRequest, signal: AbortSignal) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;
  readTextFile?: (req: acp.ReadTextFileRequest) => acp.ReadTextFileResponse | Promise<acp.ReadTextFileResponse>;
  writeTextFile?: (req: acp.WriteTextFileRequest) => void | Promise<void>;
  /** Called with each update as it arrives. */
  onUpdate?: (n: acp.SessionNotification) => void;
  /** The editor's terminals (test/support/acp-terminal.ts), for a client that offers `terminal`. */
  terminal?: TestTerminalHost;
}

export function startAcpClient(args: string[], handlers: AcpClientHandlers = {}, opts: { cwd?: string; env?: Record<string, string | undefined>; uid?: number; gid?: number } = {}): AcpTestClient {
  const child = spawn(process.execPath, [cliPath, "acp", ...args], {
    cwd: opts.cwd,
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.gid } : {}),
    env: { ...process.env, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, ...opts.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  let app = acp
    .client({ name: "yoke-test-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      handlers.onUpdate?.(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
      permissions.push(params);
      if (!handlers.permission) throw new Error("this test did not expect a permission request");
      return handlers.permission(params, signal);
    });
  if (handlers.readTextFile) {
    const read = handlers.readTextFile;
    app = app.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => read(params));
  }
  if (handlers.writeTextFile) {
    const write = handlers.writeTextFile;
    app = app.onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      await write(params);
      return {};
    });
  }
  if (handlers.terminal) {
    const t = handlers.terminal;
    app = app
      .onRequest(acp.methods.client.terminal.create, ({ params }) => t.create(params))
      .onRequest(acp.methods.client.terminal.output, ({ params }) => t.output(params))
      .onRequest(acp.methods.client.terminal.waitForExit, ({ params }) => t.waitForExit(params))
      .onRequest(acp.methods.client.terminal.kill, ({ params }) => t.kill(params))
      .onRequest(acp.methods.client.terminal.release, ({ params }) => t.release(params));
  }
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  return {
    child,
    agent: connection.agent,
    updates,
    permissions,
    stderr: () => stderr,
    // As an editor closes: the end of the agent's input first, then wait for it to exit, reading
    // what it still writes; only then the connection. Closing the connection first cancels the
    // reading side of the agent's stdout, and a last notification then met a broken pipe (exit 141).
    close: async () => {
      child.stdin!.end();
      const done = await exited;
      connection.close();
      return done;
    },
  };
}

/** The updates of one kind, in order. */
export function updatesOf<K extends acp.SessionUpdate["sessionUpdate"]>(updates: readonly acp.SessionNotification[], kind: K): Array<Extract<acp.SessionUpdate, { sessionUpdate: K }>> {
  return updates.flatMap((n) => (n.update.sessionUpdate === kind ? [n.update as Extract<acp.SessionUpdate, { sessionUpdate: K }>] : []));
}

/** The text of the chunks of one kind, joined. */
export function chunkText(updates: readonly acp.SessionNotification[], kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk"): string {
  return updatesOf(updates, kind)
    .map((u) => (u.content.type === "text" ? u.content.text : ""))
    .join("");
}
