/**
 * Every message `yoke acp` writes, read off its stdout as the editor receives it and checked
 * against the SDK's own generated zod schema (@agentclientprotocol/sdk, v1): session/update
 * notifications, the agent's requests to the client (permission, fs, terminal) and its answers to
 * the client's requests. The schema is lenient on purpose (unknown keys dropped, a bad value
 * replaced by a default, a bad list item skipped), so "parses" is not enough: whatever the parse
 * changed — a key it does not know, a value it replaced, an item it dropped — is a deviation.
 */
import type { AcpTestClient } from "./acp-client";
import * as schema from "../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

interface Parser {
  safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { message: string } };
}

const requests: Record<string, Parser> = {
  "session/request_permission": schema.zRequestPermissionRequest,
  "fs/read_text_file": schema.zReadTextFileRequest,
  "fs/write_text_file": schema.zWriteTextFileRequest,
  "terminal/create": schema.zCreateTerminalRequest,
  "terminal/output": schema.zTerminalOutputRequest,
  "terminal/wait_for_exit": schema.zWaitForTerminalExitRequest,
  "terminal/kill": schema.zKillTerminalRequest,
  "terminal/release": schema.zReleaseTerminalRequest,
};
const notifications: Record<string, Parser> = { "session/update": schema.zSessionNotification };
const responses: Record<string, Parser> = {
  initialize: schema.zInitializeResponse,
  "session/new": schema.zNewSessionResponse,
  "session/load": schema.zLoadSessionResponse,
  "session/list": schema.zListSessionsResponse,
  "session/resume": schema.zResumeSessionResponse,
  "session/close": schema.zCloseSessionResponse,
  "session/prompt": schema.zPromptResponse,
  "session/set_mode": schema.zSetSessionModeResponse,
  "session/set_config_option": schema.zSetSessionConfigOptionResponse,
};

/** Where the parse changed the original: keys it does not know, values it replaced, items it dropped. */
export function changedByParse(orig: unknown, parsed: unknown, path = "$"): string[] {
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 160);
  if (orig === null || typeof orig !== "object") return Object.is(orig, parsed) ? [] : [`${path}: ${show(orig)} read as ${show(parsed)}`];
  if (Array.isArray(orig)) {
    if (!Array.isArray(parsed) || parsed.length !== orig.length) return [`${path}: a list of ${orig.length} read as ${show(parsed)}`];
    return orig.flatMap((v, i) => changedByParse(v, parsed[i], `${path}[${i}]`));
  }
  if (!parsed || typeof parsed !== "object") return [`${path}: an object read as ${show(parsed)}`];
  return Object.entries(orig as Record<string, unknown>).flatMap(([k, v]) =>
    k in parsed ? changedByParse(v, (parsed as Record<string, unknown>)[k], `${path}.${k}`) : [`${path}.${k}: not in the schema`],
  );
}

export interface WireTap {
  /** Every message the agent wrote, parsed. */
  messages: Array<Record<string, unknown>>;
  /** Each deviation: the message's method (or the request it answers) and what is wrong. */
  deviations: string[];
}

/** Taps a client's connection (call right after startAcpClient, before the first request). */
export function tapWire(c: AcpTestClient): WireTap {
  const tap: WireTap = { messages: [], deviations: [] };
  const asked = new Map<string | number, string>();
  const stdin = c.child.stdin!;
  const write = stdin.write.bind(stdin) as (chunk: unknown, ...rest: unknown[]) => boolean;
  let out = "";
  stdin.write = ((chunk: unknown, ...rest: unknown[]) => {
    out += typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
    let nl: number;
    while ((nl = out.indexOf("\n")) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      try {
        const m = JSON.parse(line) as { id?: string | number; method?: string };
        if (m.method && m.id !== undefined) asked.set(m.id, m.method);
      } catch {
        /* not ours to judge */
      }
    }
    return write(chunk, ...rest);
  }) as typeof stdin.write;
  let buf = "";
  c.child.stdout!.on("data", (d: Buffer) => {
    buf += d.toString("utf8");
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line.trim()) continue;
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(line) as Record<string, unknown>;
      } catch {
        tap.deviations.push(`not JSON on stdout: ${line.slice(0, 160)}`);
        continue;
      }
      tap.messages.push(m);
      if (m.jsonrpc !== "2.0") tap.deviations.push(`jsonrpc is ${JSON.stringify(m.jsonrpc)}`);
      const method = typeof m.method === "string" ? m.method : undefined;
      let what: string;
      let parser: Parser | undefined;
      let value: unknown;
      if (method !== undefined && m.id !== undefined) [what, parser, value] = [`request ${method}`, requests[method], m.params];
      else if (method !== undefined) [what, parser, value] = [`notification ${method}`, notifications[method], m.params];
      else {
        const of = asked.get(m.id as string | number);
        what = `answer to ${of ?? `unknown id ${String(m.id)}`}`;
        if ("error" in m) {
          const e = m.error as { code?: unknown; message?: unknown };
          if (!Number.isInteger(e?.code) || typeof e?.message !== "string") tap.deviations.push(`${what}: a malformed error ${JSON.stringify(m.error)}`);
          continue;
        }
        [parser, value] = [of ? responses[of] : undefined, m.result];
        if (!of) tap.deviations.push(what);
      }
      if (!parser) {
        if (method && !method.startsWith("_")) tap.deviations.push(`${what}: not a method of the schema`);
        continue;
      }
      const r = parser.safeParse(value);
      if (!r.success) tap.deviations.push(`${what}: ${r.error.message.slice(0, 400)}`);
      else for (const d of changedByParse(value, r.data)) tap.deviations.push(`${what}: ${d}`);
    }
  });
  return tap;
}
