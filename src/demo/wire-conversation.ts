/** Reads the latest exchange (user text + tool steps since) from either wire format's request body. */
import type { RecordedRequest } from "./types";

/** A tool call of the current exchange together with its result. */
export interface ToolStep {
  name: string;
  input: unknown;
  output: string;
  isError: boolean;
}

/** The last user message with text, and the tool steps taken since. */
export interface Exchange {
  userText: string;
  steps: ToolStep[];
  /** Tool names the request offers. */
  tools: string[];
}

type Json = Record<string, unknown>;
const LOOKS_FAILED = /^(error\b|the user denied|permission denied|denied\b)|\b(failed|was refused|not allowed)\b/i;
const asArray = (x: unknown): Json[] => (Array.isArray(x) ? (x as Json[]) : []);

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("\n");
}

function parseArgs(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * The tools a request offers: those listed, and the deferred ones `load_tools` names in its
 * description (callable by name; the demo's scripted model knows their arguments without loading them).
 */
function toolNames(req: RecordedRequest): string[] {
  const names: string[] = [];
  for (const t of asArray(req.body.tools)) {
    const fn = (t.function as Json | undefined) ?? t;
    const name = String(fn.name ?? "");
    names.push(name);
    if (name === "load_tools" && typeof fn.description === "string") for (const m of fn.description.matchAll(/^- (\w+): /gm)) names.push(m[1]!);
  }
  return names;
}

export function readExchange(req: RecordedRequest): Exchange {
  const calls = new Map<string, { name: string; input: unknown }>();
  let userText = "";
  let steps: ToolStep[] = [];
  const result = (id: unknown, output: string, isError: boolean) => {
    const call = calls.get(String(id));
    if (call) steps.push({ ...call, output, isError });
  };
  for (const m of asArray(req.body.messages)) {
    if (m.role === "assistant") {
      for (const c of asArray(m.tool_calls)) {
        const fn = (c.function ?? {}) as Json;
        calls.set(String(c.id), { name: String(fn.name), input: parseArgs(fn.arguments) });
      }
      for (const b of asArray(m.content)) if (b.type === "tool_use") calls.set(String(b.id), { name: String(b.name), input: b.input });
    } else if (m.role === "tool") {
      // Chat Completions has no error flag: judge by the first line.
      const out = textOf(m.content);
      result(m.tool_call_id, out, LOOKS_FAILED.test(out.split("\n")[0] ?? ""));
    } else if (m.role === "user") {
      for (const b of asArray(m.content)) if (b.type === "tool_result") result(b.tool_use_id, textOf(b.content), b.is_error === true);
      const text = textOf(m.content);
      // Context an extension appended (guidance, hooks) is not a new prompt from the user.
      if (text.trim() && !text.startsWith("<context source=")) {
        userText = text;
        steps = [];
      }
    }
  }
  return { userText, steps, tools: toolNames(req) };
}
