/** Test helpers for code that talks to model providers. */
import type { ChatRequest, Provider, ProviderEvent, ToolSpec } from "../../src/core/providers/types";

/** Every event of one provider response (throws what the provider throws). */
export async function collectEvents(provider: Provider, req: ChatRequest): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const e of provider.stream(req)) events.push(e);
  return events;
}

/** The error a provider response ends with (fails when it does not throw). */
export async function streamError(provider: Provider, req: ChatRequest, seen: ProviderEvent[] = []): Promise<unknown> {
  try {
    for await (const e of provider.stream(req)) seen.push(e);
  } catch (err) {
    return err;
  }
  throw new Error(`expected the stream to fail; it yielded ${JSON.stringify(seen)}`);
}

/** Concatenated text of the text_delta events. */
export const textOf = (events: ProviderEvent[]) => events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");

/** Two small tools in a fixed order. */
export const sampleTools: ToolSpec[] = [
  {
    name: "read_file",
    description: "Read a file of the workspace.",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    name: "list_files",
    description: "List the files of a folder.",
    inputSchema: { type: "object", properties: { path: { type: "string" } } },
  },
];

/** A one-message request. */
export function userRequest(text: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { system: "You are a test assistant.", messages: [{ role: "user", text }], tools: sampleTools, ...extra };
}
